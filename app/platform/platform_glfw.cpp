// GLFW window and hidden-window platforms. GLFW is global by nature; GlfwSession keeps its init/terminate
// and error text tied to the platform object's lifetime.
#include "app/platform/platform_glfw.hpp"

#include <string>

#include <glad/gl.h>
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <imgui.h>

namespace se {
namespace {

// GLFW reports errors through a callback; keep the last one for the exception text.
std::string& last_glfw_error() {
  static thread_local std::string text;
  return text;
}

void on_glfw_error(int code, const char* description) {
  last_glfw_error() = std::string(description != nullptr ? description : "unknown") + " (GLFW error " +
                      std::to_string(code) + ")";
}

class GlfwSession {
public:
  GlfwSession(const PlatformRequest& request, bool visible) {
    glfwSetErrorCallback(on_glfw_error);
    if (glfwInit() != GLFW_TRUE) throw PlatformError("GLFW cannot start: " + last_glfw_error());
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_VISIBLE, visible ? GLFW_TRUE : GLFW_FALSE);
    // On a HiDPI monitor the window opens at the monitor's scale (1600x1000 at 100% is 3200x2000 at 200%).
    glfwWindowHint(GLFW_SCALE_TO_MONITOR, request.content_scale > 0 ? GLFW_FALSE : GLFW_TRUE);
    window_ = glfwCreateWindow(request.width, request.height, request.title.c_str(), nullptr, nullptr);
    if (window_ == nullptr) {
      const std::string why = last_glfw_error();
      glfwTerminate();
      throw PlatformError("cannot open an OpenGL 3.3 core window: " + why);
    }
    glfwMakeContextCurrent(window_);
    if (gladLoadGL(reinterpret_cast<GLADloadfunc>(glfwGetProcAddress)) == 0) {
      glfwDestroyWindow(window_);
      glfwTerminate();
      throw PlatformError("cannot load OpenGL 3.3 core functions through GLFW");
    }
  }
  ~GlfwSession() {
    glfwDestroyWindow(window_);
    glfwTerminate();
  }
  GlfwSession(const GlfwSession&) = delete;
  GlfwSession& operator=(const GlfwSession&) = delete;
  GLFWwindow* window() const { return window_; }

private:
  GLFWwindow* window_ = nullptr;
};

class GlfwWindowPlatform final : public Platform {
public:
  explicit GlfwWindowPlatform(const PlatformRequest& request)
      : session_(request, true), forced_scale_(request.content_scale) {
    glfwSwapInterval(1);
  }
  std::string description() const override { return "GLFW window"; }
  bool headless() const override { return false; }
  bool should_close() const override { return glfwWindowShouldClose(session_.window()) != 0; }
  void attach_imgui() override { ImGui_ImplGlfw_InitForOpenGL(session_.window(), true); }
  void detach_imgui() override { ImGui_ImplGlfw_Shutdown(); }
  void begin_frame() override {
    glfwPollEvents();
    // A minimised window has a zero framebuffer; wait instead of spinning on empty frames.
    while (width() == 0 || height() == 0) {
      if (glfwWindowShouldClose(session_.window())) break;
      glfwWaitEvents();
    }
    ImGui_ImplGlfw_NewFrame();
  }
  void bind_render_target() override {
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glViewport(0, 0, width(), height());
  }
  int width() const override {
    int w = 0, h = 0;
    glfwGetFramebufferSize(session_.window(), &w, &h);
    return w;
  }
  int height() const override {
    int w = 0, h = 0;
    glfwGetFramebufferSize(session_.window(), &w, &h);
    return h;
  }
  float content_scale() const override {
    if (forced_scale_ > 0) return forced_scale_;
    float x = 1, y = 1;
    glfwGetWindowContentScale(session_.window(), &x, &y);
    return x > 0 ? x : 1.0f;
  }
  void end_frame() override { glfwSwapBuffers(session_.window()); }

private:
  GlfwSession session_;
  float forced_scale_ = 0; // --scale; 0: the monitor's
};

// A base rather than a member so the context outlives OffscreenPlatform's GL objects (bases are
// destroyed after the classes derived from them, in reverse order of declaration).
struct HiddenGlfwContext {
  explicit HiddenGlfwContext(const PlatformRequest& request) : session(request, false) {}
  GlfwSession session;
};

class HiddenGlfwPlatform final : private HiddenGlfwContext, public OffscreenPlatform {
public:
  explicit HiddenGlfwPlatform(const PlatformRequest& request) : HiddenGlfwContext(request) {
    create_target(request);
  }
  std::string description() const override { return "hidden GLFW window"; }
};

} // namespace

std::unique_ptr<Platform> open_glfw_platform(const PlatformRequest& request) {
  if (request.headless) return std::make_unique<HiddenGlfwPlatform>(request);
  return std::make_unique<GlfwWindowPlatform>(request);
}

} // namespace se
