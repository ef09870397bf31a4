// Input for headless runs: a queue of mouse/key/text events fed into ImGui's IO one transition per
// frame, with GLFW key codes as the key space on every platform (as imgui_impl_glfw uses them).
#pragma once
#include <cstddef>
#include <deque>
#include <string>

struct ImGuiIO;

namespace se {

struct InputEvent {
  enum class Kind { MouseMove, MouseButton, Key, Text, EndFrame };
  Kind kind = Kind::MouseMove;
  float x = 0, y = 0;   // MouseMove, in framebuffer pixels from the top left
  int code = 0;         // MouseButton: 0 left, 1 right, 2 middle; Key: a GLFW_KEY_* code
  bool down = false;    // MouseButton, Key
  std::string text;     // Text, UTF-8
};

class SyntheticInput {
public:
  void move_mouse(float x, float y);
  void mouse_button(int button, bool down);
  void click(float x, float y, int button = 0); // move, press, release: three frames
  void key(int glfw_key, bool down);
  void press_key(int glfw_key);                 // down then up: two frames
  void type_text(std::string utf8);
  void end_frame(); // the events after this one reach ImGui a frame later (a drag's moves, one per frame)
  bool pending() const { return !queue_.empty(); }
  std::size_t pending_count() const { return queue_.size(); }

  // Applies queued events up to and including the first button or key transition. ImGui 1.86 reads
  // input as per-frame state, so a press and release in one frame would never be seen as a click.
  void apply_to(ImGuiIO& io);

private:
  std::deque<InputEvent> queue_;
};

// io.KeyMap as imgui_impl_glfw fills it, for platforms that feed ImGui without that backend.
void install_glfw_key_map(ImGuiIO& io);

} // namespace se
