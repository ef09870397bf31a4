// OpenGL object lifetimes and shader linking; the only GL calls here are creation and deletion.
#include "app/platform/gl_resources.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include <glad/gl.h>

namespace se {
namespace gl_detail {

void delete_texture(unsigned id) { glDeleteTextures(1, &id); }
void delete_framebuffer(unsigned id) { glDeleteFramebuffers(1, &id); }
void delete_vertex_array(unsigned id) { glDeleteVertexArrays(1, &id); }
void delete_program(unsigned id) { glDeleteProgram(id); }

unsigned create_texture() {
  GLuint id = 0;
  glGenTextures(1, &id);
  if (id == 0) throw GlError("glGenTextures failed");
  return id;
}

unsigned create_framebuffer() {
  GLuint id = 0;
  glGenFramebuffers(1, &id);
  if (id == 0) throw GlError("glGenFramebuffers failed");
  return id;
}

unsigned create_vertex_array() {
  GLuint id = 0;
  glGenVertexArrays(1, &id);
  if (id == 0) throw GlError("glGenVertexArrays failed");
  return id;
}

} // namespace gl_detail

namespace {

GLuint compile_shader(GLenum type, std::string_view source, std::string_view what) {
  const GLuint shader = glCreateShader(type);
  const GLchar* text = source.data();
  const GLint length = static_cast<GLint>(source.size());
  glShaderSource(shader, 1, &text, &length);
  glCompileShader(shader);
  GLint ok = 0;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    GLint log_length = 0;
    glGetShaderiv(shader, GL_INFO_LOG_LENGTH, &log_length);
    std::string log(static_cast<std::size_t>(std::max(log_length, 1)), '\0');
    glGetShaderInfoLog(shader, log_length, nullptr, log.data());
    glDeleteShader(shader);
    throw GlError(std::string(what) + (type == GL_VERTEX_SHADER ? " vertex" : " fragment") +
                  " shader does not compile: " + log);
  }
  return shader;
}

} // namespace

GlProgram link_program(std::string_view vertex_source, std::string_view fragment_source, std::string_view what) {
  if (vertex_source.empty() || fragment_source.empty())
    throw GlError(std::string(what) + ": shader source is missing from the build");
  const GLuint vs = compile_shader(GL_VERTEX_SHADER, vertex_source, what);
  GLuint fs = 0;
  try {
    fs = compile_shader(GL_FRAGMENT_SHADER, fragment_source, what);
  } catch (...) {
    glDeleteShader(vs);
    throw;
  }
  GlProgram program(glCreateProgram());
  glAttachShader(program.id(), vs);
  glAttachShader(program.id(), fs);
  glLinkProgram(program.id());
  glDeleteShader(vs);
  glDeleteShader(fs);
  GLint ok = 0;
  glGetProgramiv(program.id(), GL_LINK_STATUS, &ok);
  if (!ok) {
    GLint log_length = 0;
    glGetProgramiv(program.id(), GL_INFO_LOG_LENGTH, &log_length);
    std::string log(static_cast<std::size_t>(std::max(log_length, 1)), '\0');
    glGetProgramInfoLog(program.id(), log_length, nullptr, log.data());
    throw GlError(std::string(what) + " program does not link: " + log);
  }
  return program;
}

void OffscreenTarget::resize(int width, int height) {
  if (width <= 0 || height <= 0) throw GlError("an offscreen target needs a positive size");
  if (width == width_ && height == height_ && fbo_.id() != 0) return;
  if (fbo_.id() == 0) {
    fbo_ = make_framebuffer();
    color_ = make_texture();
  }
  GLint previous = 0;
  glGetIntegerv(GL_FRAMEBUFFER_BINDING, &previous);
  glBindTexture(GL_TEXTURE_2D, color_.id());
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, width, height, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
  // Linear: ImGui scales the heat map image to the window; nearest would alias on downscaling.
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo_.id());
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, color_.id(), 0);
  const GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
  glBindFramebuffer(GL_FRAMEBUFFER, static_cast<GLuint>(previous));
  if (status != GL_FRAMEBUFFER_COMPLETE)
    throw GlError("offscreen framebuffer of " + std::to_string(width) + "x" + std::to_string(height) +
                  " is incomplete (status " + std::to_string(status) + ")");
  width_ = width;
  height_ = height;
}

void OffscreenTarget::bind() const {
  glBindFramebuffer(GL_FRAMEBUFFER, fbo_.id());
  glViewport(0, 0, width_, height_);
}

static std::string gl_string(GLenum name) {
  const auto* s = reinterpret_cast<const char*>(glGetString(name));
  return std::string(s != nullptr ? s : "?");
}

std::string gl_renderer_string() { return gl_string(GL_RENDERER); }
std::string gl_version_string() { return gl_string(GL_VERSION); }

} // namespace se
