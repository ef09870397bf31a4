// Slicing and range scans for the heat map; plain CPU code so it is tested without a GL context.
#include "app/sim/grid_slice.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/error.hpp"

namespace se {

ValueRange finite_range(std::span<const double> values) {
  // Branch-free, so the compiler vectorises it: the live view scans every value of a frame.
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  std::int64_t bad = 0;
  constexpr double kMax = std::numeric_limits<double>::max();
  for (const double v : values) {
    const bool finite = v >= -kMax && v <= kMax; // false for NaN and +-Inf
    lo = finite && v < lo ? v : lo;
    hi = finite && v > hi ? v : hi;
    bad += finite ? 0 : 1;
  }
  return ValueRange{lo, hi, bad};
}

std::int64_t resolve_z_slice(const Extent& extent, int requested) {
  if (extent.dims < 3) return 0;
  if (requested < 0) return extent.n[2] / 2;
  return std::min<std::int64_t>(requested, extent.n[2] - 1);
}

GridSlice extract_slice(std::span<const double> values, const Extent& extent, std::int64_t z, int max_side) {
  if (values.size() != static_cast<std::size_t>(extent.points()))
    throw InputError(fmt::format("slice: {} values do not fill a {} grid", values.size(), extent.to_string()));
  if (z < 0 || z >= extent.n[2]) throw InputError(fmt::format("slice z = {} is outside 0..{}", z, extent.n[2] - 1));
  if (max_side < 1) throw InputError("slice: the largest side must be at least 1");
  const std::int64_t nx = extent.n[0], ny = extent.n[1];
  const std::int64_t longest = std::max(nx, ny);
  GridSlice s;
  s.stride = static_cast<int>((longest + max_side - 1) / max_side);
  s.width = static_cast<int>((nx + s.stride - 1) / s.stride);
  s.height = static_cast<int>((ny + s.stride - 1) / s.stride);
  s.z = z;
  s.values.resize(static_cast<std::size_t>(s.width) * s.height);
  const std::size_t plane = static_cast<std::size_t>(z * nx * ny);
  if (s.stride == 1) { // every point: whole rows, converted as they are copied
    std::transform(values.begin() + static_cast<std::ptrdiff_t>(plane),
                   values.begin() + static_cast<std::ptrdiff_t>(plane + s.values.size()), s.values.begin(),
                   [](double v) { return static_cast<float>(v); });
    return s;
  }
  for (int y = 0; y < s.height; ++y)
    for (int x = 0; x < s.width; ++x)
      s.values[static_cast<std::size_t>(y) * s.width + x] = static_cast<float>(
          values[plane + static_cast<std::size_t>(y) * s.stride * nx + static_cast<std::size_t>(x) * s.stride]);
  return s;
}

} // namespace se
