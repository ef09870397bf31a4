// GLFW platforms: a visible window driven by imgui_impl_glfw, or (headless) a hidden window whose
// context renders into an offscreen framebuffer, since a hidden window's own pixels are undefined.
#pragma once
#include <memory>

#include "app/platform/platform.hpp"

namespace se {

// Throws PlatformError when GLFW cannot initialise or give a GL 3.3 core context.
std::unique_ptr<Platform> open_glfw_platform(const PlatformRequest& request);

} // namespace se
