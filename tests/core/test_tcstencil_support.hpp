// Helpers for the TCStencil and ConvStencil tests: seeded random stencils (radially symmetric or not), extents,
// emulated runs compared with the FP64 reference on the same initial grid, and method runs.
#pragma once
#include <cstdint>
#include <functional>
#include <random>
#include <vector>

#include "core/method.hpp"
#include "core/reference.hpp"
#include "core/stencil.hpp"

namespace se::test {

// Weights uniform in [lo, hi); `symmetric` averages each weight over its radially equivalent positions.
inline Stencil seeded_stencil(int dims, int radius, std::uint64_t seed, bool symmetric, double lo = -1.0, double hi = 1.0) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  Stencil s = make_stencil(dims, radius, symmetric ? "random-symmetric" : "random");
  for (double& w : s.weights) w = dist(rng);
  if (symmetric) {
    Stencil avg = s;
    for_each_offset(s, [&](int dx, int dy, int dz) {
      const auto positions = symmetric_positions(dims, dx, dy, dz);
      double sum = 0;
      for (const auto& p : positions) sum += s.at(p[0], p[1], p[2]);
      avg.at(dx, dy, dz) = sum / static_cast<double>(positions.size());
    });
    s = avg;
  }
  return s;
}

// A stable, non-cancelling random stencil: positive weights summing to 1 (what FP16 methods are tested on).
inline Stencil seeded_smoothing_stencil(int dims, int radius, std::uint64_t seed, bool symmetric) {
  return normalized(seeded_stencil(dims, radius, seed, symmetric, 0.05, 1.0));
}

// Only the star's axes kept: a random star stencil.
inline Stencil star_part(Stencil s) {
  for (const Tap& t : taps(s))
    if ((t.dx != 0) + (t.dy != 0) + (t.dz != 0) > 1) s.at(t.dx, t.dy, t.dz) = 0.0;
  s.name += "-star";
  return s;
}

inline Extent extent_of(int dims, std::int64_t nx, std::int64_t ny = 1, std::int64_t nz = 1) {
  Extent e;
  e.dims = dims;
  e.n = {nx, dims >= 2 ? ny : 1, dims >= 3 ? nz : 1};
  return e;
}

// Runs `advance` (an emulation: values in, result out) and the FP64 reference from the same random grid.
using Advance = std::function<void(std::vector<double>& values)>;
inline ErrorMetrics error_against_reference(const Stencil& s, const Extent& e, int steps, const Boundary& b,
                                            std::uint64_t seed, const Advance& advance) {
  auto values = initial_values(e, InitialCondition::Random, seed);
  auto expect = values;
  ReferenceOptions opt;
  opt.boundary = b;
  opt.threads = 1;
  reference_advance(s, e, expect, steps, Precision::FP64, opt);
  advance(values);
  return compare(values, expect);
}

// A method run from an initial condition, and what the FP64 reference makes of it.
inline MethodRun method_run(const Stencil& s, const Extent& e, int steps, const Boundary& b, InitialCondition c) {
  MethodRun run;
  run.stencil = s;
  run.extent = e;
  run.steps = steps;
  run.boundary = b;
  run.values = initial_values(e, c, 0);
  return run;
}
inline std::vector<double> reference_result(const MethodRun& run) {
  auto v = run.values;
  ReferenceOptions opt;
  opt.boundary = run.boundary;
  reference_advance(run.stencil, run.extent, v, run.steps, Precision::FP64, opt);
  return v;
}

inline const Boundary kBoundaries[] = {{BoundaryKind::Dirichlet, 0.3}, {BoundaryKind::Periodic, 0.0}};

} // namespace se::test
