// Headless EGL: an OpenGL 3.3 core context with no surface and no X server (EGL_KHR_surfaceless_context),
// rendering into an offscreen framebuffer. Works on NVIDIA GPU servers and on Mesa (llvmpipe) alike.
#pragma once
#include <memory>

#include "app/platform/platform.hpp"

namespace se {

// Throws PlatformError listing each display tried and why it failed.
std::unique_ptr<Platform> open_egl_platform(const PlatformRequest& request);

} // namespace se
