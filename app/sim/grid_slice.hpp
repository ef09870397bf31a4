// What the heat map shows of a grid: one z plane (the whole grid for 1D/2D) as floats, sampled down
// to at most a texture's size, and the finite value range used to place the colormap.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "core/grid.hpp"

namespace se {

struct ValueRange {
  double min = 0.0, max = 0.0;
  std::int64_t not_finite = 0; // NaN/Inf points, which the shader paints in their own colour
  bool empty() const { return max < min; }
};
// Min and max over the finite values; an empty range (max < min) when there are none.
ValueRange finite_range(std::span<const double> values);

struct GridSlice {
  int width = 0, height = 0; // texels; height is 1 for a 1D grid
  int stride = 1;            // grid points per texel along each axis (nearest sampling)
  std::int64_t z = 0;        // the plane shown
  std::vector<float> values; // width * height, x fastest, row 0 is y = 0
  // finite_range of the whole grid, taken while converting when the slice holds every point of it (a 1D or 2D
  // grid at stride 1); otherwise not taken.
  std::optional<ValueRange> grid_range;
};

// Plane z of `values` (laid out as `extent`), taking every stride-th point so that neither side
// exceeds `max_side`. Throws InputError for a z outside the grid or a size mismatch. The slice's values
// go into `storage` (a previous slice's, so a frame of the same size neither allocates nor zero-fills).
GridSlice extract_slice(std::span<const double> values, const Extent& extent, std::int64_t z, int max_side,
                        std::vector<float> storage = {});

// The plane a view setting picks: -1 means the middle; others are clamped into the grid.
std::int64_t resolve_z_slice(const Extent& extent, int requested);

} // namespace se
