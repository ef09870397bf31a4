// A grayscale picture as an initial condition: decoded by the app (app/platform/png_file.hpp), resampled here
// onto a grid of any size, so a lecturer can start the heat equation from a drawing or a photograph.
#pragma once
#include <vector>

#include "core/grid.hpp"

namespace se {

// Brightness in [0, 1], row 0 at the top, x fastest.
struct GrayImage {
  int width = 0, height = 0;
  std::vector<float> values;
};

// The largest picture taken, per side (a 16384 x 16384 picture is 1 GiB of floats).
constexpr int kMaxImageSide = 16384;

// Throws InputError when the picture is empty, larger than kMaxImageSide per side, or its values do not match
// its size or lie outside [0, 1].
void validate(const GrayImage& image);

// The picture stretched over the grid by bilinear interpolation between pixel centres: in 2D the picture's top
// row lands on the grid's top row (largest y, as the heat map draws it), a 1D grid takes the picture's middle
// row, and every plane of a 3D grid holds the picture. Values stay in [0, 1].
std::vector<double> image_values(const Extent& e, const GrayImage& image);

} // namespace se
