// Draws a grid slice as a coloured image: values go into an R32F texture, a GLSL pass (shaders/heatmap.*)
// maps them through a colormap LUT into an RGBA texture that ImGui shows. A CUDA backend can later write
// the R32F texture directly (cudaGraphicsGLRegisterImage + surface writes) and skip the upload.
#pragma once
#include "app/colormap.hpp"
#include "app/gl_resources.hpp"
#include "app/grid_slice.hpp"

namespace se {

class HeatmapRenderer {
public:
  HeatmapRenderer(); // needs a current GL 3.3 context; throws GlError when the shaders do not build

  // Replaces the values texture (re-specified in place when the size changes, so texture ids stay valid).
  void upload(const GridSlice& slice);
  void set_colormap(Colormap c);
  // Colours the values into image_texture(); values outside [value_min, value_max] are clamped.
  void render(float value_min, float value_max);

  unsigned values_texture() const { return values_.id(); }
  unsigned image_texture() const { return image_.texture(); }
  unsigned colormap_texture() const { return lut_.id(); } // 256 x 1 RGBA8, t = 0 at the left
  int width() const { return width_; }
  int height() const { return height_; }
  Colormap colormap() const { return colormap_; }
  // The largest side upload() takes: the driver's texture limit, capped where more texels than screen
  // pixels would only cost upload time.
  int max_side() const { return max_side_; }

private:
  GlProgram program_;
  GlVertexArray empty_vao_;
  GlTexture values_;
  GlTexture lut_;
  OffscreenTarget image_;
  Colormap colormap_ = Colormap::Viridis;
  bool have_lut_ = false;
  int width_ = 0, height_ = 0;
  int max_side_ = 2048;
  int loc_values_ = -1, loc_colormap_ = -1, loc_min_ = -1, loc_max_ = -1, loc_not_finite_ = -1;
};

// The colour the shader gives NaN/Inf points (magenta: in none of the colormaps).
inline constexpr float kNotFiniteColor[3] = {1.0f, 0.0f, 1.0f};

} // namespace se
