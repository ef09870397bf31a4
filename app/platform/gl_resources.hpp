// Owning handles for the few OpenGL objects the app creates (textures, framebuffers, vertex arrays,
// programs) and an offscreen colour target. Names are plain unsigned ints so headers stay GL-free.
#pragma once
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace se {

// A GL call failed in a way the user cannot fix by changing input (driver, shader compile, FBO).
class GlError : public std::runtime_error {
public:
  explicit GlError(const std::string& what) : std::runtime_error(what) {}
};

namespace gl_detail {
void delete_texture(unsigned id);
void delete_framebuffer(unsigned id);
void delete_vertex_array(unsigned id);
void delete_program(unsigned id);
unsigned create_texture();
unsigned create_framebuffer();
unsigned create_vertex_array();
} // namespace gl_detail

template <void (*Delete)(unsigned)> class GlHandle {
public:
  GlHandle() = default;
  explicit GlHandle(unsigned id) : id_(id) {}
  GlHandle(GlHandle&& o) noexcept : id_(std::exchange(o.id_, 0)) {}
  GlHandle& operator=(GlHandle&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = std::exchange(o.id_, 0);
    }
    return *this;
  }
  GlHandle(const GlHandle&) = delete;
  GlHandle& operator=(const GlHandle&) = delete;
  ~GlHandle() { reset(); }
  unsigned id() const { return id_; }
  void reset() {
    if (id_ != 0) Delete(std::exchange(id_, 0));
  }

private:
  unsigned id_ = 0;
};

using GlTexture = GlHandle<gl_detail::delete_texture>;
using GlFramebuffer = GlHandle<gl_detail::delete_framebuffer>;
using GlVertexArray = GlHandle<gl_detail::delete_vertex_array>;
using GlProgram = GlHandle<gl_detail::delete_program>;

inline GlTexture make_texture() { return GlTexture(gl_detail::create_texture()); }
inline GlFramebuffer make_framebuffer() { return GlFramebuffer(gl_detail::create_framebuffer()); }
inline GlVertexArray make_vertex_array() { return GlVertexArray(gl_detail::create_vertex_array()); }

// Compiles and links; throws GlError with the driver's log, naming `what`.
GlProgram link_program(std::string_view vertex_source, std::string_view fragment_source, std::string_view what);

// An RGBA8 texture with a framebuffer around it: headless platforms render the whole UI into one,
// the heat map renders its coloured image into another.
class OffscreenTarget {
public:
  OffscreenTarget() = default;
  // (Re)allocates when the size changes; throws GlError when the framebuffer is incomplete.
  void resize(int width, int height);
  void bind() const; // as the draw and read framebuffer, with a matching viewport
  unsigned texture() const { return color_.id(); }
  unsigned framebuffer() const { return fbo_.id(); }
  int width() const { return width_; }
  int height() const { return height_; }

private:
  GlFramebuffer fbo_;
  GlTexture color_;
  int width_ = 0, height_ = 0;
};

// The GL_RENDERER and GL_VERSION strings of the current context, for the status line.
std::string gl_renderer_string();
std::string gl_version_string();

} // namespace se
