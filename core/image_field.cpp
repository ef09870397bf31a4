#include "core/image_field.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"

namespace se {

void validate(const GrayImage& image) {
  if (image.width < 1 || image.height < 1)
    throw InputError(fmt::format("the picture is empty ({}x{})", image.width, image.height));
  if (image.width > kMaxImageSide || image.height > kMaxImageSide)
    throw InputError(fmt::format("the picture is {}x{}; at most {} pixels per side are taken", image.width,
                                 image.height, kMaxImageSide));
  if (image.values.size() != static_cast<std::size_t>(image.width) * static_cast<std::size_t>(image.height))
    throw InputError(fmt::format("the picture holds {} values for {}x{} pixels", image.values.size(), image.width,
                                 image.height));
  for (const float v : image.values)
    if (!(v >= 0.0f && v <= 1.0f)) throw InputError(fmt::format("a picture's brightness must lie in [0, 1]; got {}", v));
}

namespace {

// Source coordinate of grid point i of n over `size` pixels: pixel centres and point centres line up at the ends.
double source_coord(std::int64_t i, std::int64_t n, int size) {
  if (n <= 1) return 0.5 * (size - 1);
  return static_cast<double>(i) * (size - 1) / static_cast<double>(n - 1);
}

double bilinear(const GrayImage& image, double sx, double sy) {
  const int x0 = std::clamp(static_cast<int>(std::floor(sx)), 0, image.width - 1);
  const int y0 = std::clamp(static_cast<int>(std::floor(sy)), 0, image.height - 1);
  const int x1 = std::min(x0 + 1, image.width - 1), y1 = std::min(y0 + 1, image.height - 1);
  const double fx = std::clamp(sx - x0, 0.0, 1.0), fy = std::clamp(sy - y0, 0.0, 1.0);
  const auto at = [&](int x, int y) {
    return static_cast<double>(image.values[static_cast<std::size_t>(y) * image.width + x]);
  };
  const double top = at(x0, y0) + fx * (at(x1, y0) - at(x0, y0));
  const double bottom = at(x0, y1) + fx * (at(x1, y1) - at(x0, y1));
  return top + fy * (bottom - top);
}

} // namespace

std::vector<double> image_values(const Extent& e, const GrayImage& image) {
  validate(e);
  validate(image);
  check_host_memory(static_cast<std::uint64_t>(e.points()) * sizeof(double), "initial condition");
  const std::int64_t nx = e.n[0], ny = e.n[1], nz = e.n[2];
  std::vector<double> plane(static_cast<std::size_t>(nx * ny));
  for (std::int64_t y = 0; y < ny; ++y) {
    // Grid y grows upwards, picture rows downwards; a 1D grid reads the middle row.
    const double sy = e.dims >= 2 ? source_coord(ny - 1 - y, ny, image.height) : 0.5 * (image.height - 1);
    for (std::int64_t x = 0; x < nx; ++x)
      plane[static_cast<std::size_t>(y * nx + x)] = std::clamp(bilinear(image, source_coord(x, nx, image.width), sy), 0.0, 1.0);
  }
  std::vector<double> v;
  v.reserve(static_cast<std::size_t>(e.points()));
  for (std::int64_t z = 0; z < nz; ++z) v.insert(v.end(), plane.begin(), plane.end());
  return v;
}

} // namespace se
