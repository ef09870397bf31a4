// The FP64 reference every method is checked against: a multi-threaded CPU stencil that advances a
// grid T steps (ping-pong through halo-padded buffers), and error metrics between grids.
#pragma once
#include <functional>
#include <span>
#include <vector>

#include "core/grid.hpp"
#include "core/stencil.hpp"

namespace se {

struct ErrorMetrics {
  double rel_l2 = 0.0;  // ||result - reference||_2 / ||reference||_2 (absolute L2 when the reference is zero)
  double max_abs = 0.0; // max |result - reference|
  bool finite = true;   // false when the result holds NaN or Inf
};
ErrorMetrics compare(std::span<const double> result, std::span<const double> reference);

// Called after each completed step with (steps done, steps total); returning false cancels the run.
using StepProgress = std::function<bool(int done, int total)>;

struct ReferenceOptions {
  Boundary boundary{};
  int threads = 0;           // 0: every hardware thread
  StepProgress progress{};   // optional
};

// Advances `values` (laid out as `extent`, x fastest) by `steps` base-stencil steps with FP64 arithmetic.
// After every step the values are rounded to `storage`, as a grid of that precision would hold them.
// Returns the number of steps done (fewer than `steps` only when progress cancelled).
int reference_advance(const Stencil& s, const Extent& extent, std::vector<double>& values, int steps,
                      Precision storage, const ReferenceOptions& options = {});

template <typename T> int reference_advance(const Stencil& s, Grid<T>& grid, int steps, const ReferenceOptions& options = {}) {
  constexpr Precision P = std::is_same_v<T, double> ? Precision::FP64
                          : std::is_same_v<T, float> ? Precision::FP32 : Precision::FP16;
  std::vector<double> v = grid.to_double();
  const int done = reference_advance(s, grid.extent, v, steps, P, options);
  for (std::size_t i = 0; i < v.size(); ++i) grid.data[i] = T(v[i]);
  return done;
}

// Methods that fuse T steps into one kernel W^T are exact only where the fused kernel's reach stays inside
// the grid: with a Dirichlet boundary, the points within (T-1)*r of a face see the fixed exterior at every
// intermediate step, which one application of W^T cannot know. This recomputes that band of `result` exactly
// (single steps on strips of width (2T-1)*r along each face), from the `initial` values. Periodic grids need
// nothing. Returns the number of points recomputed.
std::int64_t fix_fused_boundary_band(const Stencil& s, const Extent& extent, const std::vector<double>& initial,
                                     std::vector<double>& result, int fused_steps, const Boundary& boundary);

// The error bound a method of this arithmetic precision must meet against the FP64 reference
// after `steps` steps (relative L2). FP64 methods: 1e-12; FP32: 1e-5; FP16: 1e-2.
double error_bound(Precision arithmetic, int steps);

} // namespace se
