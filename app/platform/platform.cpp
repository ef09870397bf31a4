// Platform choice and the shared headless behaviour.
#include "app/platform/platform.hpp"

#include <cstdlib>

#include <fmt/format.h>
#include <glad/gl.h>
#include <imgui.h>

#include "app/platform/platform_egl.hpp"
#include "app/platform/platform_glfw.hpp"
#include "core/error.hpp"

namespace se {

std::string_view to_string(PlatformKind k) {
  switch (k) {
  case PlatformKind::Auto: return "auto";
  case PlatformKind::Glfw: return "glfw";
  case PlatformKind::Egl: return "egl";
  }
  return "?";
}

PlatformKind parse_platform_kind(std::string_view s) {
  for (auto k : {PlatformKind::Auto, PlatformKind::Glfw, PlatformKind::Egl})
    if (s == to_string(k)) return k;
  throw InputError(fmt::format("unknown platform '{}' (auto, glfw or egl)", s));
}

void OffscreenPlatform::attach_imgui() {
  ImGuiIO& io = ImGui::GetIO();
  install_glfw_key_map(io);
  io.BackendPlatformName = "stencil-explorer headless";
}

void OffscreenPlatform::begin_frame() {
  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = ImVec2(static_cast<float>(width()), static_cast<float>(height()));
  io.DisplayFramebufferScale = ImVec2(1.0f, 1.0f);
  io.DeltaTime = 1.0f / 60.0f;
  input_.apply_to(io);
}

void OffscreenPlatform::end_frame() { glFlush(); }

bool display_available() {
  auto set = [](const char* name) {
    const char* v = std::getenv(name);
    return v != nullptr && *v != '\0';
  };
  return set("DISPLAY") || set("WAYLAND_DISPLAY");
}

std::unique_ptr<Platform> open_platform(const PlatformRequest& request) {
  if (request.width <= 0 || request.height <= 0 || request.width > 16384 || request.height > 16384)
    throw InputError(fmt::format("window size {}x{} must be between 1 and 16384 per side", request.width,
                                 request.height));
  switch (request.kind) {
  case PlatformKind::Egl:
    if (!request.headless)
      throw InputError("the EGL platform has no window; add --headless (and --screenshot to see the result)");
    return open_egl_platform(request);
  case PlatformKind::Glfw:
    if (!display_available())
      throw InputError(request.headless
                           ? "no display for a hidden GLFW window ($DISPLAY is not set); use --platform egl or run "
                             "under xvfb-run"
                           : "no display to open a window on ($DISPLAY is not set); run with --headless "
                             "--screenshot out.png, or under xvfb-run");
    return open_glfw_platform(request);
  case PlatformKind::Auto:
    if (request.headless) return display_available() ? open_glfw_platform(request) : open_egl_platform(request);
    if (!display_available())
      throw InputError("no display to open a window on ($DISPLAY is not set); run with --headless "
                       "--screenshot out.png, or under xvfb-run");
    return open_glfw_platform(request);
  }
  throw InputError("unknown platform");
}

} // namespace se
