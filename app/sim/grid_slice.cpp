// Slicing and range scans for the heat map; plain CPU code so it is tested without a GL context.
#include "app/sim/grid_slice.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <fmt/format.h>

#include "core/error.hpp"

namespace se {

namespace {

// Min, max and non-finite count of `values`, converted to float into `to` on the way where it is not null. Two
// values at a time with SSE2 (every x86-64 CPU; the compiler does not vectorise the selects itself) in two
// interleaved scans, combined at the end: the min and max of one scan in order, but for which of -0 and +0 a tie keeps.
ValueRange scan_range(std::span<const double> values, float* to) {
  constexpr double kMax = std::numeric_limits<double>::max(), kInf = std::numeric_limits<double>::infinity();
  double lo = kInf, hi = -kInf;
  std::int64_t bad = 0;
  std::size_t i = 0;
  const std::size_t n = values.size();
  const double* from = values.data();
#if defined(__SSE2__)
  const __m128d largest = _mm_set1_pd(kMax), up = _mm_set1_pd(kInf), down = _mm_set1_pd(-kInf);
  const __m128d magnitude = _mm_castsi128_pd(_mm_set1_epi64x(0x7fffffffffffffffLL));
  __m128d lo2[2] = {up, up}, hi2[2] = {down, down};
  for (; i + 4 <= n; i += 4) {
    __m128d v[2];
    for (int h = 0; h < 2; ++h) {
      v[h] = _mm_loadu_pd(from + i + 2 * h);
      const __m128d finite = _mm_cmple_pd(_mm_and_pd(v[h], magnitude), largest); // false for NaN and +-Inf
      lo2[h] = _mm_min_pd(_mm_or_pd(_mm_and_pd(finite, v[h]), _mm_andnot_pd(finite, up)), lo2[h]);
      hi2[h] = _mm_max_pd(_mm_or_pd(_mm_and_pd(finite, v[h]), _mm_andnot_pd(finite, down)), hi2[h]);
      const int m = _mm_movemask_pd(finite);
      bad += 2 - (m & 1) - (m >> 1);
    }
    if (to != nullptr) _mm_storeu_ps(to + i, _mm_movelh_ps(_mm_cvtpd_ps(v[0]), _mm_cvtpd_ps(v[1])));
  }
  alignas(16) double l[4], u[4];
  _mm_store_pd(l, lo2[0]), _mm_store_pd(l + 2, lo2[1]), _mm_store_pd(u, hi2[0]), _mm_store_pd(u + 2, hi2[1]);
  for (int j = 0; j < 4; ++j) lo = l[j] < lo ? l[j] : lo, hi = u[j] > hi ? u[j] : hi;
#endif
  for (; i < n; ++i) {
    const double v = from[i];
    if (to != nullptr) to[i] = static_cast<float>(v);
    const bool finite = std::fabs(v) <= kMax;
    lo = finite && v < lo ? v : lo;
    hi = finite && v > hi ? v : hi;
    bad += finite ? 0 : 1;
  }
  return ValueRange{lo, hi, bad};
}

} // namespace

ValueRange finite_range(std::span<const double> values) {
  return scan_range(values, nullptr);
}

std::int64_t resolve_z_slice(const Extent& extent, int requested) {
  if (extent.dims < 3) return 0;
  if (requested < 0) return extent.n[2] / 2;
  return std::min<std::int64_t>(requested, extent.n[2] - 1);
}

GridSlice extract_slice(std::span<const double> values, const Extent& extent, std::int64_t z, int max_side,
                        std::vector<float> storage) {
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
  s.values = std::move(storage);
  s.values.resize(static_cast<std::size_t>(s.width) * s.height);
  const std::size_t plane = static_cast<std::size_t>(z * nx * ny);
  if (s.stride == 1) { // every point: whole rows, converted as they are copied
    const double* from = values.data() + plane;
    float* to = s.values.data();
    const std::size_t n = s.values.size();
    if (n != values.size()) { // a plane of a 3D grid
      for (std::size_t i = 0; i < n; ++i) to[i] = static_cast<float>(from[i]);
      return s;
    }
    // The slice is the whole grid: its range comes with the conversion.
    s.grid_range = scan_range(values, to);
    return s;
  }
  for (int y = 0; y < s.height; ++y)
    for (int x = 0; x < s.width; ++x)
      s.values[static_cast<std::size_t>(y) * s.width + x] = static_cast<float>(
          values[plane + static_cast<std::size_t>(y) * s.stride * nx + static_cast<std::size_t>(x) * s.stride]);
  return s;
}

} // namespace se
