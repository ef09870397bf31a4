// cuda-core-tb and cuda-core-tb-fp32 beyond the list-wide check: every depth the kernels hold, every radius
// (1D/2D up to 7, 3D up to 3), star and box shapes, grids smaller than a tile or a warp's run, prime sizes, one
// row of blocks, 1, 7 and 100+ steps, both boundaries, against the FP64 reference. Outputs start poisoned
// with NaN, so a point no launch writes fails.
#include <catch2/catch.hpp>

#include <random>
#include <vector>
#include <string>

#include "core/error.hpp"
#include "core/error_bound.hpp"
#include "core/reference.hpp"
#include "core/temporal_blocking_model.hpp"
#include "kernels/common/grid_stepper.hpp"
#include "kernels/registry.hpp"

namespace {

using namespace se;

Stencil random_smoother(int dims, int radius, bool star, std::mt19937_64& rng) {
  Stencil s = make_stencil(dims, radius, "random");
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for_each_offset(s, [&](int dx, int dy, int dz) {
    const int axes = (dx != 0) + (dy != 0) + (dz != 0);
    if (star && axes > 1) return;
    s.at(dx, dy, dz) = u(rng) < 0.25 ? 0.0 : u(rng);
  });
  s.at(radius, 0, 0) += 0.05; // the radius is really reached
  s.at(0, 0, 0) += 0.5;
  return normalized(s);
}

Extent extent_of(int dims, std::int64_t x, std::int64_t y = 1, std::int64_t z = 1) {
  Extent e;
  e.dims = dims;
  e.n[0] = x;
  e.n[1] = dims >= 2 ? y : 1;
  e.n[2] = dims >= 3 ? z : 1;
  return e;
}

void check_run(const Method& m, const PlanPtr& plan, const Extent& e, BoundaryKind kind, int steps, std::uint64_t seed) {
  MethodRun r;
  r.stencil = plan->stencil;
  r.extent = e;
  r.steps = steps;
  r.boundary.kind = kind;
  r.boundary.value = kind == BoundaryKind::Dirichlet ? 0.25 : 0.0;
  r.values = initial_values(e, InitialCondition::Random, seed);
  const std::vector<double> initial = r.values;
  std::vector<double> ref = r.values;
  ReferenceOptions opt;
  opt.boundary = r.boundary;
  reference_advance(r.stencil, e, ref, steps, Precision::FP64, opt);
  const MethodTiming t = m.run(*plan, r);
  const ErrorMetrics err = compare(r.values, ref);
  INFO(m.id << " " << r.stencil.name << " r" << r.stencil.radius << " " << e.to_string() << " " << to_string(kind)
            << " " << steps << " steps, T=" << plan->fused_steps << ": rel L2 " << err.rel_l2 << ", passes "
            << t.passes);
  REQUIRE(err.finite);
  CHECK(err.rel_l2 <= error_bound(r.stencil, m.precision, steps, r.boundary, initial, ref));
  CHECK(t.steps_done == steps);
}

} // namespace

TEST_CASE("cuda-core-tb fuses every depth it holds, at every radius, on awkward grids", "[tb]") {
  const std::vector<Method> methods = all_methods();
  std::mt19937_64 rng(77);
  std::uint64_t seed = 100;
  for (const char* id : {"cuda-core-tb", "cuda-core-tb-fp32"}) {
    const Method& m = find_method(methods, id, Backend::GPU);
    if (const std::string why = m.unavailable_reason(); !why.empty()) {
      WARN(id << " not checked here: " << why);
      return;
    }
    const int bytes = m.precision == Precision::FP64 ? 8 : 4;
    for (int dims = 1; dims <= 3; ++dims)
      for (int radius = 1; radius <= (dims == 3 ? 3 : 7); ++radius)
        for (const bool star : {true, false}) {
          if (dims == 1 && !star) continue;
          const Stencil s = random_smoother(dims, radius, star, rng);
          const int side = 2 * radius + 1;
          // Smaller than one tile or warp run, a prime size, and (2D) more than one strip and row block.
          std::vector<Extent> extents;
          if (dims == 1) extents = {extent_of(1, side), extent_of(1, 509), extent_of(1, 4099)};
          if (dims == 2) extents = {extent_of(2, side, side), extent_of(2, 257, side), extent_of(2, 523, 211)};
          if (dims == 3) extents = {extent_of(3, side, side, side), extent_of(3, 37, 23, 19)};
          const int cap = dims == 3 ? 2 : tb::capacity_steps(dims, radius, bytes);
          // 2D radius 1..3: also the two-column kernel's deepest depth (T = cap runs the one-column kernel there).
          const int pair = dims == 2 ? tb::pair_capacity_steps(radius, bytes) : 0;
          std::vector<int> depths = {1, cap};
          if (pair > 1 && pair < cap) depths.insert(depths.begin() + 1, pair);
          for (const int T : depths) {
            const PlanPtr plan = m.plan(s, T);
            CHECK(plan->fused_steps <= T);
            for (const Extent& e : extents)
              for (const BoundaryKind kind : {BoundaryKind::Dirichlet, BoundaryKind::Periodic})
                check_run(m, plan, e, kind, T == cap ? 2 * T + 1 : 7, ++seed);
          }
        }
  }
}

TEST_CASE("cuda-core-tb runs the presets for 1, 7 and 103 steps at the model's depth", "[tb]") {
  const std::vector<Method> methods = all_methods();
  std::uint64_t seed = 500;
  for (const char* id : {"cuda-core-tb", "cuda-core-tb-fp32"}) {
    const Method& m = find_method(methods, id, Backend::GPU);
    if (!m.unavailable_reason().empty()) return;
    for (const auto& name : preset_names()) {
      const Stencil s = preset(name);
      const PlanPtr plan = m.plan(s);
      if (s.dims <= 2)
        CHECK(plan->fused_steps == tb::model_steps(s.dims, s.radius, s.dims == 2 && s.is_star(), m.precision == Precision::FP64 ? 8 : 4));
      const Extent e = s.dims == 1 ? extent_of(1, 3001) : s.dims == 2 ? extent_of(2, 301, 97) : extent_of(3, 41, 29, 23);
      for (const int steps : {1, 7, 103})
        for (const BoundaryKind kind : {BoundaryKind::Dirichlet, BoundaryKind::Periodic})
          check_run(m, plan, e, kind, steps, ++seed);
    }
  }
}

TEST_CASE("cube-symmetric 3D stencils run the symmetric kernel at every depth it holds", "[tb]") {
  const std::vector<Method> methods = all_methods();
  std::mt19937_64 rng(91);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::uint64_t seed = 900;
  for (const char* id : {"cuda-core-tb", "cuda-core-tb-fp32", "cuda-core", "cuda-core-fp32"}) {
    const Method& m = find_method(methods, id, Backend::GPU);
    if (!m.unavailable_reason().empty()) return;
    const int max_depth = std::string(id).find("-tb") != std::string::npos ? tb::kMaxSteps3DSym : 1;
    for (const bool star : {true, false}) { // heat-3d's shape (edges and corners 0) and box-3d27p's
      const double c[4] = {0.5 + u(rng), u(rng), star ? 0.0 : u(rng), star ? 0.0 : u(rng)};
      Stencil s = make_stencil(3, 1, "cube-symmetric");
      for_each_offset(s, [&](int dx, int dy, int dz) { s.at(dx, dy, dz) = c[(dx != 0) + (dy != 0) + (dz != 0)]; });
      s = normalized(s);
      REQUIRE(tb::cube_symmetric(s));
      for (int T = 1; T <= max_depth; ++T) {
        const PlanPtr plan = m.plan(s, T);
        CHECK(plan->fused_steps == T);
        // Smaller than the stencil's cube, a prime-ish size, and several blocks along every axis (z: two slabs).
        for (const Extent& e : {extent_of(3, 3, 3, 3), extent_of(3, 37, 23, 19), extent_of(3, 131, 67, 70)})
          for (const BoundaryKind kind : {BoundaryKind::Dirichlet, BoundaryKind::Periodic})
            check_run(m, plan, e, kind, 2 * T + 1, ++seed);
      }
    }
  }
}

TEST_CASE("single-step cuda-core runs any radius-1 3D weights, the 7-point star's shape through its own kernel", "[tb]") {
  // step_3d_star.cu: the per-point kernel for the 7-point star's shape (any values, not only cube-symmetric ones),
  // 4 points per thread along z; other 3x3x3 weights take the two-row kernel. Grids smaller than a block, several
  // blocks with remainders on every axis (x 32, y 8, z 4 per block: 19 and 49 planes), both boundaries.
  const std::vector<Method> methods = all_methods();
  std::mt19937_64 rng(77);
  std::uint64_t seed = 700;
  for (const char* id : {"cuda-core", "cuda-core-fp32"}) {
    const Method& m = find_method(methods, id, Backend::GPU);
    if (!m.unavailable_reason().empty()) return;
    for (const bool star : {true, false}) {
      for (int trial = 0; trial < 2; ++trial) {
        const Stencil s = random_smoother(3, 1, star, rng);
        const PlanPtr plan = m.plan(s, 1);
        for (const Extent& e : {extent_of(3, 3, 3, 3), extent_of(3, 37, 23, 19), extent_of(3, 70, 17, 49)})
          for (const BoundaryKind kind : {BoundaryKind::Dirichlet, BoundaryKind::Periodic})
            for (const int steps : {1, 6}) check_run(m, plan, e, kind, steps, ++seed);
      }
    }
  }
}
