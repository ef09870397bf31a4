// Synthetic input for headless platforms and tests. GLFW's header is used only for its key constants.
#include "app/platform/synthetic_input.hpp"

#include <GLFW/glfw3.h>
#include <imgui.h>

#include "core/error.hpp"

namespace se {

void SyntheticInput::move_mouse(float x, float y) {
  queue_.push_back(InputEvent{.kind = InputEvent::Kind::MouseMove, .x = x, .y = y});
}

void SyntheticInput::mouse_button(int button, bool down) {
  if (button < 0 || button >= 5) throw InputError("mouse buttons are 0..4");
  queue_.push_back(InputEvent{.kind = InputEvent::Kind::MouseButton, .code = button, .down = down});
}

void SyntheticInput::click(float x, float y, int button) {
  move_mouse(x, y);
  mouse_button(button, true);
  mouse_button(button, false);
}

void SyntheticInput::key(int glfw_key, bool down) {
  if (glfw_key < 0 || glfw_key >= 512) throw InputError("key codes are GLFW_KEY_* values below 512");
  queue_.push_back(InputEvent{.kind = InputEvent::Kind::Key, .code = glfw_key, .down = down});
}

void SyntheticInput::press_key(int glfw_key) {
  key(glfw_key, true);
  key(glfw_key, false);
}

void SyntheticInput::type_text(std::string utf8) {
  queue_.push_back(InputEvent{.kind = InputEvent::Kind::Text, .text = std::move(utf8)});
}

void SyntheticInput::end_frame() {
  InputEvent e;
  e.kind = InputEvent::Kind::EndFrame;
  queue_.push_back(e);
}

void SyntheticInput::apply_to(ImGuiIO& io) {
  while (!queue_.empty()) {
    const InputEvent e = queue_.front();
    queue_.pop_front();
    switch (e.kind) {
    case InputEvent::Kind::MouseMove: io.MousePos = ImVec2(e.x, e.y); break;
    case InputEvent::Kind::Text: io.AddInputCharactersUTF8(e.text.c_str()); break;
    case InputEvent::Kind::MouseButton: io.MouseDown[e.code] = e.down; return;
    case InputEvent::Kind::EndFrame: return;
    case InputEvent::Kind::Key: {
      io.KeysDown[e.code] = e.down;
      io.KeyCtrl = io.KeysDown[GLFW_KEY_LEFT_CONTROL] || io.KeysDown[GLFW_KEY_RIGHT_CONTROL];
      io.KeyShift = io.KeysDown[GLFW_KEY_LEFT_SHIFT] || io.KeysDown[GLFW_KEY_RIGHT_SHIFT];
      io.KeyAlt = io.KeysDown[GLFW_KEY_LEFT_ALT] || io.KeysDown[GLFW_KEY_RIGHT_ALT];
      io.KeySuper = io.KeysDown[GLFW_KEY_LEFT_SUPER] || io.KeysDown[GLFW_KEY_RIGHT_SUPER];
      return;
    }
    }
  }
}

void install_glfw_key_map(ImGuiIO& io) {
  io.KeyMap[ImGuiKey_Tab] = GLFW_KEY_TAB;
  io.KeyMap[ImGuiKey_LeftArrow] = GLFW_KEY_LEFT;
  io.KeyMap[ImGuiKey_RightArrow] = GLFW_KEY_RIGHT;
  io.KeyMap[ImGuiKey_UpArrow] = GLFW_KEY_UP;
  io.KeyMap[ImGuiKey_DownArrow] = GLFW_KEY_DOWN;
  io.KeyMap[ImGuiKey_PageUp] = GLFW_KEY_PAGE_UP;
  io.KeyMap[ImGuiKey_PageDown] = GLFW_KEY_PAGE_DOWN;
  io.KeyMap[ImGuiKey_Home] = GLFW_KEY_HOME;
  io.KeyMap[ImGuiKey_End] = GLFW_KEY_END;
  io.KeyMap[ImGuiKey_Insert] = GLFW_KEY_INSERT;
  io.KeyMap[ImGuiKey_Delete] = GLFW_KEY_DELETE;
  io.KeyMap[ImGuiKey_Backspace] = GLFW_KEY_BACKSPACE;
  io.KeyMap[ImGuiKey_Space] = GLFW_KEY_SPACE;
  io.KeyMap[ImGuiKey_Enter] = GLFW_KEY_ENTER;
  io.KeyMap[ImGuiKey_Escape] = GLFW_KEY_ESCAPE;
  io.KeyMap[ImGuiKey_KeyPadEnter] = GLFW_KEY_KP_ENTER;
  io.KeyMap[ImGuiKey_A] = GLFW_KEY_A;
  io.KeyMap[ImGuiKey_C] = GLFW_KEY_C;
  io.KeyMap[ImGuiKey_V] = GLFW_KEY_V;
  io.KeyMap[ImGuiKey_X] = GLFW_KEY_X;
  io.KeyMap[ImGuiKey_Y] = GLFW_KEY_Y;
  io.KeyMap[ImGuiKey_Z] = GLFW_KEY_Z;
}

} // namespace se
