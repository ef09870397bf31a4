// The FP64 reference every method is checked against: a multi-threaded, vectorised CPU stencil that advances a
// grid T steps (ping-pong through halo-padded buffers), and error metrics between grids.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "core/cpu_features.hpp"
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
  int threads = 0;           // 0: every thread this process may run on (small grids take one)
  StepProgress progress{};   // optional; called on the calling thread
  std::optional<CpuIsa> isa; // the vector ISA to run (default best_cpu_isa()); throws InputError if unsupported
  std::optional<bool> streaming_stores; // default: when the two buffers exceed the last-level cache
};

// Every point is out(x) = ((0 + w0*in(x+d0)) + w1*in(x+d1)) + ...: the non-zero weights in weight-array order
// (x fastest), each product rounded and then added (no fused multiply-add), so every ISA, thread count and
// blocking gives the same bits as a plain scalar loop in that order.
//
// A grid held in the reference's own layout between runs: halo-padded ping-pong buffers (rows 64-byte aligned),
// one OpenMP thread team per advance() (threads over the whole grid in every dimension, blocked to stay in L2
// where the stencil's planes would not, 3D two planes at a time), vector rows of the dispatched ISA, non-temporal
// stores where the buffers exceed the last-level cache, the second buffer placed clear of the loads' 4 KiB aliases. The live view keeps one between frames so a step costs one pass.
class ReferenceStepper {
public:
  // Takes `values` (laid out as `extent`, x fastest). Throws InputError for an invalid stencil, an extent the
  // stencil does not fit, a size mismatch or more memory than the machine has. options.progress is not kept.
  ReferenceStepper(const Stencil& s, const Extent& extent, std::span<const double> values, Precision storage,
                   const ReferenceOptions& options = {});
  ~ReferenceStepper();
  ReferenceStepper(ReferenceStepper&&) noexcept;
  ReferenceStepper& operator=(ReferenceStepper&&) noexcept;

  // A new update rule on the same values (a wider radius re-pads them). Throws InputError like the constructor.
  void set_rule(const Stencil& s, const Boundary& boundary, Precision storage);
  // Advances `steps` base steps, rounding to the storage precision after each; returns the steps done (fewer
  // only when progress returned false). An exception from progress ends the run and is rethrown.
  int advance(int steps, const StepProgress& progress = {});
  // The values (x fastest), into `out` of extent().points() elements, or as a new vector.
  void read(std::span<double> out) const;
  std::vector<double> values() const;

  const Extent& extent() const;
  CpuIsa isa() const;
  int threads() const;      // the team size advance() uses
  bool streaming() const;   // whether rows are stored non-temporally (buffers larger than the last-level cache)

private:
  struct State;
  std::unique_ptr<State> state_;
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

} // namespace se
