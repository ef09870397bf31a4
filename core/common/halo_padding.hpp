// Halo-padded copies of a grid for the tile-by-tile emulations (TCStencil, ConvStencil, LoRAStencil): the boundary rule written into a frame around
// the grid (fixed value or periodic wrap, as core/reference.cpp pads), plus slack so partial tiles read defined memory.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "core/grid.hpp"

namespace se {

// A padded box of values in padded coordinates (x fastest); grid point (x, y, z) sits at (x, y, z) + halo.
template <typename T> struct PaddedGrid {
  std::array<std::int64_t, 3> size{1, 1, 1};
  std::array<std::int64_t, 3> halo{0, 0, 0};
  std::vector<T> data;
  std::size_t index(std::int64_t x, std::int64_t y, std::int64_t z) const {
    return static_cast<std::size_t>((z * size[1] + y) * size[0] + x);
  }
  const T* at(std::int64_t x, std::int64_t y, std::int64_t z) const { return data.data() + index(x, y, z); }
  std::ptrdiff_t pitch_y() const { return static_cast<std::ptrdiff_t>(size[0]); }
  std::ptrdiff_t pitch_z() const { return static_cast<std::ptrdiff_t>(size[0] * size[1]); }
};

// `values` laid out as `extent`, framed by `halo` cells per side along each axis and grown to at least
// `min_size` (the slack past the far halo holds zeros: only outputs that do not exist read it). Halo cells read
// the Dirichlet value or wrap periodically (any number of times when the halo is wider than the grid).
// T is double or Half; values convert as T(v), so an FP16 copy rounds exactly as an FP16 grid would.
template <typename T>
PaddedGrid<T> pad_with_halo(const Extent& extent, const std::vector<double>& values,
                            const std::array<std::int64_t, 3>& halo, const std::array<std::int64_t, 3>& min_size,
                            const Boundary& boundary);

} // namespace se
