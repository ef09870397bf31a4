// The heat map pass. It saves and restores the framebuffer binding and viewport so it can run at any
// point of a frame, before ImGui draws the image it produced.
#include "app/platform/heatmap_renderer.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <glad/gl.h>

#include "app/platform/shader_sources.hpp"
#include "core/error.hpp"

namespace se {

namespace {

// The bound 2D texture's filter for both minifying and magnifying; edges clamp (no wrap-around colours).
void set_bound_texture_sampling(GLint filter) {
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, filter);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, filter);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
}

constexpr int kHostLevels = 4096;

} // namespace

// The colour map's LUT as the shader samples it (linear between the 256 entries, t = 0 and 1 on the first and
// last), at 4096 levels, packed as the RGBA8 bytes of a texel; entry 4096 is the colour of NaN/Inf points.
std::vector<std::uint32_t> host_colour_lut(Colormap c) {
  const auto lut = colormap_lut(c, 256);
  std::vector<std::uint32_t> out(kHostLevels + 1);
  for (std::size_t k = 0; k < kHostLevels; ++k) {
    const double u = static_cast<double>(k) / (kHostLevels - 1) * 255.0;
    const std::size_t i = std::min<std::size_t>(static_cast<std::size_t>(u), 254);
    const double w = u - static_cast<double>(i);
    std::uint8_t texel[4];
    for (int ch = 0; ch < 3; ++ch)
      texel[ch] = static_cast<std::uint8_t>(std::lround(lut[i][ch] * (1 - w) + lut[i + 1][ch] * w));
    texel[3] = 255;
    std::memcpy(&out[k], texel, 4);
  }
  const std::uint8_t not_finite[4] = {static_cast<std::uint8_t>(255 * kNotFiniteColor[0]),
                                      static_cast<std::uint8_t>(255 * kNotFiniteColor[1]),
                                      static_cast<std::uint8_t>(255 * kNotFiniteColor[2]), 255};
  std::memcpy(&out[kHostLevels], not_finite, 4);
  return out;
}

namespace {

// What shaders/heatmap.frag computes, for n values with a range of positive span: level (v - min) * scale clamped to
// [0, 4095] and rounded, the not-finite entry for NaN/Inf. Four values at a time with SSE2 (every x86-64 CPU; the
// compiler does not vectorise the selects itself), the same operations in the same order as the scalar tail.
void colour_levels(const float* values, std::uint32_t* pixels, std::size_t n, const std::uint32_t* lut,
                   float value_min, float scale) {
  std::size_t i = 0;
#if defined(__SSE2__)
  const __m128 lo = _mm_set1_ps(value_min), sc = _mm_set1_ps(scale), top = _mm_set1_ps(4095.0f), half = _mm_set1_ps(0.5f);
  const __m128 largest = _mm_set1_ps(std::numeric_limits<float>::max());
  const __m128 magnitude = _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff));
  const __m128i not_finite = _mm_set1_epi32(kHostLevels);
  alignas(16) std::int32_t level[4];
  for (; i + 4 <= n; i += 4) {
    const __m128 v = _mm_loadu_ps(values + i);
    const __m128 finite = _mm_cmple_ps(_mm_and_ps(v, magnitude), largest); // false for NaN and +-Inf
    const __m128 x = _mm_or_ps(_mm_and_ps(finite, v), _mm_andnot_ps(finite, lo)); // NaN/Inf: a level not used
    // max(k, 0) gives +0 where the scalar clamp keeps -0: the same level.
    const __m128 k = _mm_min_ps(_mm_max_ps(_mm_mul_ps(_mm_sub_ps(x, lo), sc), _mm_setzero_ps()), top);
    const __m128i l = _mm_cvttps_epi32(_mm_add_ps(k, half));
    const __m128i keep = _mm_castps_si128(finite);
    _mm_store_si128(reinterpret_cast<__m128i*>(level), _mm_or_si128(_mm_and_si128(keep, l), _mm_andnot_si128(keep, not_finite)));
    for (int j = 0; j < 4; ++j) pixels[i + j] = lut[level[j]];
  }
#endif
  for (; i < n; ++i) {
    const float v = values[i];
    pixels[i] = std::isfinite(v) ? lut[static_cast<int>(std::clamp((v - value_min) * scale, 0.0f, 4095.0f) + 0.5f)]
                                 : lut[kHostLevels];
  }
}

} // namespace

void colour_values(std::span<const float> values, std::span<std::uint32_t> pixels,
                   std::span<const std::uint32_t> lut, float value_min, float value_max) {
  if (pixels.size() != values.size() || lut.size() != kHostLevels + 1)
    throw GlError("colour_values: the pixels, values and LUT sizes disagree");
  const float span = value_max - value_min;
  if (span > 0) {
    colour_levels(values.data(), pixels.data(), values.size(), lut.data(), value_min, 4095.0f / span);
  } else { // no range: every finite point takes the middle level (2047.5 rounded)
    for (std::size_t i = 0; i < values.size(); ++i) pixels[i] = lut[std::isfinite(values[i]) ? kHostLevels / 2 : kHostLevels];
  }
}

// Renderers that run on the CPU (Mesa's llvmpipe and softpipe, SwiftShader): a shader pass over every point
// costs them more than colouring the values in a plain loop.
bool software_renderer() {
  const auto* r = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
  if (r == nullptr) return false;
  const std::string name(r);
  for (const char* soft : {"llvmpipe", "softpipe", "swrast", "SwiftShader", "Software Rasterizer"})
    if (name.find(soft) != std::string::npos) return true;
  return false;
}

HeatmapRenderer::HeatmapRenderer()
    : program_(link_program(embedded_shader("heatmap.vert"), embedded_shader("heatmap.frag"), "heat map")),
      empty_vao_(make_vertex_array()), values_(make_texture()), lut_(make_texture()) {
  loc_values_ = glGetUniformLocation(program_.id(), "values");
  loc_colormap_ = glGetUniformLocation(program_.id(), "colormap");
  loc_min_ = glGetUniformLocation(program_.id(), "value_min");
  loc_max_ = glGetUniformLocation(program_.id(), "value_max");
  loc_not_finite_ = glGetUniformLocation(program_.id(), "not_finite_color");
  if (loc_values_ < 0 || loc_colormap_ < 0 || loc_min_ < 0 || loc_max_ < 0 || loc_not_finite_ < 0)
    throw GlError("heat map shader lacks one of its uniforms (values, colormap, value_min, value_max, not_finite_color)");
  GLint limit = 0;
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &limit);
  max_side_ = std::clamp(static_cast<int>(limit), 64, 2048);
  max_texture_side_ = std::max(static_cast<int>(limit), 64);
  colour_on_host_ = software_renderer();
  set_colormap(colormap_);
}

HeatmapRenderer::~HeatmapRenderer() { interop_.reset(); }

void HeatmapRenderer::specify_values(int width, int height, const float* data) {
  interop_.reset(); // re-specifying a registered texture is undefined in CUDA-GL interop
  glBindTexture(GL_TEXTURE_2D, values_.id());
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_R32F, width, height, 0, GL_RED, GL_FLOAT, data);
  // Values are data, not colours: never interpolate them (the shader uses texelFetch anyway).
  set_bound_texture_sampling(GL_NEAREST);
  width_ = width;
  height_ = height;
  image_.resize(width_, height_);
  dirty_ = true;
}

void HeatmapRenderer::upload(GridSlice slice) {
  if (slice.width <= 0 || slice.height <= 0 || slice.width > max_side_ || slice.height > max_side_ ||
      slice.values.size() != static_cast<std::size_t>(slice.width) * static_cast<std::size_t>(slice.height))
    throw GlError("heat map upload: the slice's size and values disagree");
  host_frame_ = colour_on_host_;
  if (host_frame_) { // kept for render(), which colours them on the CPU; the values texture is not used
    if (slice.width != width_ || slice.height != height_) specify_values(slice.width, slice.height, nullptr);
    host_values_.swap(slice.values);
    spare_values_ = std::move(slice.values);
    dirty_ = true;
    return;
  }
  if (slice.width != width_ || slice.height != height_) {
    specify_values(slice.width, slice.height, slice.values.data());
  } else {
    glBindTexture(GL_TEXTURE_2D, values_.id());
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width_, height_, GL_RED, GL_FLOAT, slice.values.data());
  }
  spare_values_ = std::move(slice.values);
  dirty_ = true;
}

ValueRange HeatmapRenderer::store_on_device(int width, int height, const std::function<void(cudaArray_t)>& store) {
  if (width <= 0 || height <= 0 || width > max_texture_side_ || height > max_texture_side_)
    throw InputError("a " + std::to_string(width) + "x" + std::to_string(height) + " slice exceeds this GL driver's " +
                     std::to_string(max_texture_side_) + "-texel textures");
  host_frame_ = false;
  if (width != width_ || height != height_) specify_values(width, height, nullptr);
  if (!interop_) {
    // Registration waits for GL to finish with the texture; GL must not touch it while CUDA has it mapped.
    glFinish();
    interop_ = std::make_unique<CudaGlTexture>(values_.id(), width_, height_);
  }
  dirty_ = true;
  return interop_->store(store);
}

void HeatmapRenderer::set_colormap(Colormap c) {
  if (have_lut_ && c == colormap_) return;
  const auto lut = colormap_lut(c, 256);
  glBindTexture(GL_TEXTURE_2D, lut_.id());
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, static_cast<GLsizei>(lut.size()), 1, 0, GL_RGBA, GL_UNSIGNED_BYTE,
               lut.data());
  set_bound_texture_sampling(GL_LINEAR);
  colormap_ = c;
  have_lut_ = true;
  dirty_ = true;
  if (colour_on_host_) host_lut_ = host_colour_lut(c);
}

void HeatmapRenderer::set_colour_on_host(bool on) {
  if (on == colour_on_host_) return;
  colour_on_host_ = on;
  if (on) host_lut_ = host_colour_lut(colormap_);
  // The values are in one place only: the next upload brings them to the other.
}

void HeatmapRenderer::colour_host_values(float value_min, float value_max) {
  host_pixels_.resize(host_values_.size());
  colour_values(host_values_, host_pixels_, host_lut_, value_min, value_max);
  glBindTexture(GL_TEXTURE_2D, image_.texture());
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width_, height_, GL_RGBA, GL_UNSIGNED_BYTE, host_pixels_.data());
}

void HeatmapRenderer::render(float value_min, float value_max) {
  if (width_ == 0) return;
  // The same values, colours and range as the image already holds: nothing to draw (a paused run, a software
  // renderer that would otherwise colour every point of a large grid again each frame).
  if (!dirty_ && value_min == rendered_min_ && value_max == rendered_max_) return;
  dirty_ = false;
  rendered_min_ = value_min;
  rendered_max_ = value_max;
  if (host_frame_) return colour_host_values(value_min, value_max);
  GLint previous_fbo = 0, viewport[4] = {0, 0, 0, 0};
  glGetIntegerv(GL_FRAMEBUFFER_BINDING, &previous_fbo);
  glGetIntegerv(GL_VIEWPORT, viewport);
  image_.bind();
  glDisable(GL_BLEND);
  glDisable(GL_SCISSOR_TEST);
  glDisable(GL_DEPTH_TEST);
  glUseProgram(program_.id());
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, values_.id());
  glActiveTexture(GL_TEXTURE1);
  glBindTexture(GL_TEXTURE_2D, lut_.id());
  glActiveTexture(GL_TEXTURE0);
  glUniform1i(loc_values_, 0);
  glUniform1i(loc_colormap_, 1);
  glUniform1f(loc_min_, value_min);
  glUniform1f(loc_max_, value_max);
  glUniform3fv(loc_not_finite_, 1, kNotFiniteColor);
  glBindVertexArray(empty_vao_.id());
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glBindVertexArray(0);
  glUseProgram(0);
  glBindFramebuffer(GL_FRAMEBUFFER, static_cast<GLuint>(previous_fbo));
  glViewport(viewport[0], viewport[1], viewport[2], viewport[3]);
}

} // namespace se
