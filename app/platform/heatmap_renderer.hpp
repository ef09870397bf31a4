// Draws a grid slice as a coloured image: values go into an R32F texture, a GLSL pass (shaders/heatmap.*)
// maps them through a colormap LUT into an RGBA texture that ImGui shows. The values come either from the
// host (upload) or from a GPU run that stores them through CUDA-GL interop (store_on_device), never both.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "app/widgets/colormap.hpp"
#include "app/platform/cuda_gl_texture.hpp"
#include "app/platform/gl_resources.hpp"
#include "app/sim/grid_slice.hpp"

namespace se {

// The current GL context renders on the CPU (Mesa's llvmpipe or softpipe, SwiftShader).
bool software_renderer();

// The colours of a software renderer's heat map, coloured on the CPU: the colormap as the shader samples it at 4096
// levels, RGBA8 texels, and entry 4096 the colour of NaN/Inf points.
std::vector<std::uint32_t> host_colour_lut(Colormap c);
// Each value's texel through `lut` (host_colour_lut), as shaders/heatmap.frag maps it: level (v - min) x (4095 /
// (max - min)) clamped to [0, 4095] and rounded, the middle level for every finite value when max <= min.
void colour_values(std::span<const float> values, std::span<std::uint32_t> pixels,
                   std::span<const std::uint32_t> lut, float value_min, float value_max);

class HeatmapRenderer {
public:
  HeatmapRenderer(); // needs a current GL 3.3 context; throws GlError when the shaders do not build
  ~HeatmapRenderer();

  // Replaces the values texture (re-specified in place when the size changes, so texture ids stay valid).
  // The slice's values are kept (software GL) or copied to GL and then kept as spare storage, which the next
  // slice can take (spare_values) so that a frame of the same size allocates nothing.
  void upload(GridSlice slice);
  std::vector<float> spare_values() { return std::move(spare_values_); }
  // Sizes the values texture to width x height (at most max_texture_side()) and lets a GPU run store the
  // values into it through CUDA-GL interop; returns their finite range. Throws InputError when the texture
  // cannot be shared with CUDA (no CUDA build or device, GL on a software renderer) or is too large.
  ValueRange store_on_device(int width, int height, const std::function<void(cudaArray_t)>& store);
  void set_colormap(Colormap c);
  // Colours the values into image_texture(); values outside [value_min, value_max] are clamped. Does nothing
  // when neither the values, the colormap nor the range changed since the last call. On a software renderer
  // (llvmpipe) uploaded values are coloured on the CPU in one loop and the image uploaded, the same colours
  // as the shader's without a shader pass over every point; values stored through interop always take the shader.
  void render(float value_min, float value_max);
  bool colour_on_host() const { return colour_on_host_; }
  void set_colour_on_host(bool on); // takes effect with the next upload (tests compare the two paths)

  unsigned values_texture() const { return values_.id(); }
  unsigned image_texture() const { return image_.texture(); }
  unsigned colormap_texture() const { return lut_.id(); } // 256 x 1 RGBA8, t = 0 at the left
  int width() const { return width_; }
  int height() const { return height_; }
  Colormap colormap() const { return colormap_; }
  // The largest side upload() takes: the driver's texture limit, capped where more texels than screen
  // pixels would only cost upload time.
  int max_side() const { return max_side_; }
  int max_texture_side() const { return max_texture_side_; } // the driver's limit: what interop may store

private:
  void specify_values(int width, int height, const float* data);

  GlProgram program_;
  GlVertexArray empty_vao_;
  GlTexture values_;
  GlTexture lut_;
  OffscreenTarget image_;
  Colormap colormap_ = Colormap::Viridis;
  bool have_lut_ = false;
  bool dirty_ = true; // values or colours changed since the image was last coloured
  float rendered_min_ = 0, rendered_max_ = 0;
  void colour_host_values(float value_min, float value_max);
  bool colour_on_host_ = false;           // software GL: uploads are coloured on the CPU
  bool host_frame_ = false;               // the current values are host_values_, not the values texture
  std::vector<float> host_values_;
  std::vector<float> spare_values_; // the storage of an earlier slice, for the next one
  std::vector<std::uint32_t> host_pixels_, host_lut_;
  int width_ = 0, height_ = 0;
  int max_side_ = 2048;
  int max_texture_side_ = 2048;
  // Declared after values_: unregistered before the texture is deleted, and whenever it is re-specified.
  std::unique_ptr<CudaGlTexture> interop_;
  int loc_values_ = -1, loc_colormap_ = -1, loc_min_ = -1, loc_max_ = -1, loc_not_finite_ = -1;
};

// The colour the shader gives NaN/Inf points (magenta: in none of the colormaps).
inline constexpr float kNotFiniteColor[3] = {1.0f, 0.0f, 1.0f};

} // namespace se
