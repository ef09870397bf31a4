// EGL display selection and context creation. Links libEGL (glvnd's loader), which picks the vendor
// library (NVIDIA or Mesa) per display; nothing here links the CUDA driver.
#include "app/platform/platform_egl.hpp"

#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <fmt/format.h>
#include <glad/gl.h>

namespace se {
namespace {

bool has_extension(const char* list, std::string_view name) {
  if (list == nullptr) return false;
  std::istringstream words{std::string(list)};
  std::string word;
  while (words >> word)
    if (word == name) return true;
  return false;
}

std::string egl_error() { return fmt::format("EGL error 0x{:04x}", eglGetError()); }

GLADapiproc load_gl_function(const char* name) { return reinterpret_cast<GLADapiproc>(eglGetProcAddress(name)); }

// An initialised display with a current surfaceless GL 3.3 core context; torn down in reverse.
class EglSession {
public:
  EglSession() = default;
  EglSession(const EglSession&) = delete;
  EglSession& operator=(const EglSession&) = delete;
  ~EglSession() { close(); }

  // Tries one display; on failure returns why and leaves the session closed.
  std::optional<std::string> open(EGLDisplay display, std::string kind) {
    if (display == EGL_NO_DISPLAY) return fmt::format("{}: no display ({})", kind, egl_error());
    EGLint major = 0, minor = 0;
    if (eglInitialize(display, &major, &minor) != EGL_TRUE)
      return fmt::format("{}: eglInitialize failed ({})", kind, egl_error());
    display_ = display;
    auto fail = [&](std::string why) {
      close();
      return std::optional<std::string>(fmt::format("{}: {}", kind, why));
    };
    const char* extensions = eglQueryString(display, EGL_EXTENSIONS);
    if (!has_extension(extensions, "EGL_KHR_surfaceless_context"))
      return fail("no EGL_KHR_surfaceless_context");
    if (eglBindAPI(EGL_OPENGL_API) != EGL_TRUE) return fail("desktop OpenGL is not supported (" + egl_error() + ")");
    const EGLint config_attributes[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_SURFACE_TYPE, EGL_PBUFFER_BIT,
                                        EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_NONE};
    EGLConfig config = nullptr;
    EGLint count = 0;
    if (eglChooseConfig(display, config_attributes, &config, 1, &count) != EGL_TRUE || count == 0) {
      // We never make a surface, so a display without pbuffer configs still works without a config.
      if (!has_extension(extensions, "EGL_KHR_no_config_context")) return fail("no OpenGL RGB8 config");
      config = EGL_NO_CONFIG_KHR;
    }
    const EGLint context_attributes[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
                                         EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                         EGL_NONE};
    context_ = eglCreateContext(display, config, EGL_NO_CONTEXT, context_attributes);
    if (context_ == EGL_NO_CONTEXT) return fail("no OpenGL 3.3 core context (" + egl_error() + ")");
    if (eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context_) != EGL_TRUE)
      return fail("cannot make the context current without a surface (" + egl_error() + ")");
    if (gladLoadGL(load_gl_function) == 0) return fail("cannot load OpenGL 3.3 core functions");
    description_ = kind;
    return std::nullopt;
  }

  void close() {
    if (display_ == EGL_NO_DISPLAY) return;
    eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    if (context_ != EGL_NO_CONTEXT) eglDestroyContext(display_, context_);
    eglTerminate(display_);
    eglReleaseThread();
    display_ = EGL_NO_DISPLAY;
    context_ = EGL_NO_CONTEXT;
  }

  const std::string& description() const { return description_; }

private:
  EGLDisplay display_ = EGL_NO_DISPLAY;
  EGLContext context_ = EGL_NO_CONTEXT;
  std::string description_;
};

// Candidate displays in the order to try them, each with a name for messages.
std::vector<std::pair<EGLDisplay, std::string>> candidate_displays(EglDisplayKind wanted,
                                                                   std::vector<std::string>& skipped) {
  std::vector<std::pair<EGLDisplay, std::string>> out;
  const char* client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
  auto get_platform_display = reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(
      eglGetProcAddress("eglGetPlatformDisplayEXT"));
  const bool want_any = wanted == EglDisplayKind::Any;

  if (want_any || wanted == EglDisplayKind::Device) {
    auto query_devices = reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(eglGetProcAddress("eglQueryDevicesEXT"));
    if (!has_extension(client, "EGL_EXT_platform_device") || query_devices == nullptr || get_platform_display == nullptr) {
      skipped.emplace_back("EGL device platform: not offered (no EGL_EXT_platform_device)");
    } else {
      EGLDeviceEXT devices[16];
      EGLint count = 0;
      if (query_devices(16, devices, &count) != EGL_TRUE || count == 0)
        skipped.emplace_back("EGL device platform: no devices");
      for (EGLint i = 0; i < count; ++i)
        out.emplace_back(get_platform_display(EGL_PLATFORM_DEVICE_EXT, devices[i], nullptr),
                         fmt::format("EGL device {}", i));
    }
  }
  if (want_any || wanted == EglDisplayKind::Surfaceless) {
    if (!has_extension(client, "EGL_MESA_platform_surfaceless") || get_platform_display == nullptr)
      skipped.emplace_back("EGL surfaceless platform: not offered (no EGL_MESA_platform_surfaceless)");
    else
      out.emplace_back(get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr),
                       "EGL surfaceless");
  }
  if (want_any || wanted == EglDisplayKind::Default) out.emplace_back(eglGetDisplay(EGL_DEFAULT_DISPLAY), "EGL default display");
  return out;
}

struct EglContextHolder {
  EglSession session;
};

// EglContextHolder is a base so the context outlives OffscreenPlatform's GL objects.
class EglPlatform final : private EglContextHolder, public OffscreenPlatform {
public:
  explicit EglPlatform(const PlatformRequest& request) {
    std::vector<std::string> failures;
    bool opened = false;
    for (auto& [display, kind] : candidate_displays(request.egl_display, failures)) {
      if (auto why = session.open(display, kind)) {
        failures.push_back(*why);
        continue;
      }
      opened = true;
      break;
    }
    if (!opened) {
      std::string text = "no headless OpenGL 3.3 context through EGL";
      for (const auto& f : failures) text += "; " + f;
      throw PlatformError(text + ". Install libegl1 and libegl-mesa0 + libgl1-mesa-dri (software) or the NVIDIA driver's EGL");
    }
    create_target(request);
  }
  std::string description() const override { return session.description(); }
};

} // namespace

std::unique_ptr<Platform> open_egl_platform(const PlatformRequest& request) {
  return std::make_unique<EglPlatform>(request);
}

} // namespace se
