// Where frames go: a GLFW window, or headless (a hidden GLFW window or an EGL context with no X) that
// renders into an offscreen framebuffer and takes synthetic input. All give a current GL 3.3 core context.
#pragma once
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "app/platform/gl_resources.hpp"
#include "app/platform/synthetic_input.hpp"

namespace se {

enum class PlatformKind { Auto, Glfw, Egl };
std::string_view to_string(PlatformKind k);
PlatformKind parse_platform_kind(std::string_view s); // "auto", "glfw", "egl"; throws InputError

// A platform could not be opened (no X server, no EGL device, no GL 3.3 context). The message names
// what was tried and what to do instead.
class PlatformError : public std::runtime_error {
public:
  explicit PlatformError(const std::string& what) : std::runtime_error(what) {}
};

// Which EGL display the EGL platform may use. Any tries them in the order a headless machine most
// likely has: the device platform (NVIDIA GPU servers), Mesa's surfaceless platform (CI, llvmpipe),
// then the default display.
enum class EglDisplayKind { Any, Device, Surfaceless, Default };

struct PlatformRequest {
  PlatformKind kind = PlatformKind::Auto;
  EglDisplayKind egl_display = EglDisplayKind::Any;
  bool headless = false;
  int width = 1600, height = 1000; // window or offscreen framebuffer size in pixels
  // The monitor's content scale (1 at 96 dpi, 2 on a 4K laptop at 200%). 0: a window asks its monitor and
  // headless platforms use 1; a positive value (--scale) is used as given, which makes HiDPI testable headless.
  float content_scale = 0;
  std::string title = "stencil-explorer";
};

class Platform {
public:
  virtual ~Platform() = default;
  virtual std::string description() const = 0; // e.g. "EGL surfaceless (Mesa)", for the status line
  virtual bool headless() const = 0;
  virtual bool should_close() const = 0;
  // After ImGui::CreateContext / before ImGui::DestroyContext: install or remove the input backend.
  virtual void attach_imgui() = 0;
  virtual void detach_imgui() = 0;
  // Polls events and fills ImGui's IO (display size, delta time, input); call before ImGui::NewFrame.
  virtual void begin_frame() = 0;
  // Binds the framebuffer the frame is drawn into, with its viewport.
  virtual void bind_render_target() = 0;
  virtual int width() const = 0;  // of the render target, in pixels
  // The content scale now: a window reads its monitor's every frame, so moving it to another monitor counts.
  virtual float content_scale() const = 0;
  virtual int height() const = 0;
  virtual void end_frame() = 0;   // present (swap) or flush
  // The event queue headless platforms read input from; nullptr for a real window.
  virtual SyntheticInput* synthetic_input() { return nullptr; }
};

// Headless platforms share this: an offscreen target of the requested size, a fixed 60 Hz clock so runs
// are reproducible, and synthetic input.
class OffscreenPlatform : public Platform {
public:
  bool headless() const override { return true; }
  bool should_close() const override { return false; }
  void attach_imgui() override;
  void detach_imgui() override {}
  void begin_frame() override;
  void bind_render_target() override { target_.bind(); }
  int width() const override { return target_.width(); }
  int height() const override { return target_.height(); }
  void end_frame() override;
  float content_scale() const override { return content_scale_; }
  SyntheticInput* synthetic_input() override { return &input_; }

protected:
  // Call once the context is current and GL is loaded.
  void create_target(const PlatformRequest& request) {
    target_.resize(request.width, request.height);
    content_scale_ = request.content_scale > 0 ? request.content_scale : 1.0f;
  }

private:
  OffscreenTarget target_;
  float content_scale_ = 1.0f;
  SyntheticInput input_;
};

// True when an X11 or Wayland display is named in the environment.
bool display_available();

// Opens the requested platform. Auto: a GLFW window; headless, a hidden GLFW window when a display is
// available and EGL otherwise. Throws InputError for impossible requests (a window without a display,
// EGL without --headless) and PlatformError when the system cannot provide the context.
std::unique_ptr<Platform> open_platform(const PlatformRequest& request);

} // namespace se
