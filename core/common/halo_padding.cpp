// Halo padding shared by the TCStencil and ConvStencil emulations.
#include "core/common/halo_padding.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.hpp"

namespace se {

template <typename T>
PaddedGrid<T> pad_with_halo(const Extent& extent, const std::vector<double>& values,
                            const std::array<std::int64_t, 3>& halo, const std::array<std::int64_t, 3>& min_size,
                            const Boundary& boundary) {
  if (values.size() != static_cast<std::size_t>(extent.points()))
    throw InputError(fmt::format("pad_with_halo: {} values for a grid of {} points", values.size(), extent.points()));
  PaddedGrid<T> g;
  g.halo = halo;
  std::uint64_t points = 1;
  for (int d = 0; d < 3; ++d) {
    g.size[d] = std::max(extent.n[d] + 2 * halo[d], min_size[d]);
    points *= static_cast<std::uint64_t>(g.size[d]);
  }
  check_host_memory(points * sizeof(T), "a halo-padded copy of the grid");
  g.data.assign(static_cast<std::size_t>(points), T(0.0));
  const bool periodic = boundary.kind == BoundaryKind::Periodic;
  const T fixed(boundary.value);
  // Per axis, where each padded coordinate reads from: a grid index, -1 for the fixed exterior, -2 for slack.
  std::array<std::vector<std::int64_t>, 3> source;
  for (int d = 0; d < 3; ++d) {
    const std::int64_t n = extent.n[d];
    source[d].resize(static_cast<std::size_t>(g.size[d]));
    for (std::int64_t p = 0; p < g.size[d]; ++p) {
      const std::int64_t i = p - halo[d];
      std::int64_t& s = source[d][static_cast<std::size_t>(p)];
      if (i >= 0 && i < n) s = i;
      else if (i >= n + halo[d]) s = -2;
      else s = periodic ? ((i % n) + n) % n : -1;
    }
  }
  for (std::int64_t z = 0; z < g.size[2]; ++z) {
    const std::int64_t sz = source[2][static_cast<std::size_t>(z)];
    for (std::int64_t y = 0; y < g.size[1]; ++y) {
      const std::int64_t sy = source[1][static_cast<std::size_t>(y)];
      T* row = g.data.data() + g.index(0, y, z);
      for (std::int64_t x = 0; x < g.size[0]; ++x) {
        const std::int64_t sx = source[0][static_cast<std::size_t>(x)];
        if (sx == -2 || sy == -2 || sz == -2) continue;
        if (sx == -1 || sy == -1 || sz == -1) row[x] = fixed;
        else row[x] = T(values[static_cast<std::size_t>((sz * extent.n[1] + sy) * extent.n[0] + sx)]);
      }
    }
  }
  return g;
}

template PaddedGrid<double> pad_with_halo<double>(const Extent&, const std::vector<double>&,
                                                  const std::array<std::int64_t, 3>&,
                                                  const std::array<std::int64_t, 3>&, const Boundary&);
template PaddedGrid<Half> pad_with_halo<Half>(const Extent&, const std::vector<double>&,
                                              const std::array<std::int64_t, 3>&, const std::array<std::int64_t, 3>&,
                                              const Boundary&);

} // namespace se
