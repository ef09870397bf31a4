// ConvStencil's GPU kernel (FP64 tensor cores) beyond the list-wide check: every preset it takes, random stencils
// (radius 0 to 7 in 1D and 2D, 0 to 3 in 3D, symmetric or not), awkward sizes (primes, one point past a warp
// tile, smaller than a tile), 1, 2T + 1 and 101 steps, Dirichlet (with a non-zero boundary value) and periodic,
// fused depths 1 to 3, against the FP64 reference. Outputs start poisoned with NaN, so a point no pass writes
// fails.
#include <catch2/catch.hpp>

#include <random>

#include "core/error.hpp"
#include "core/reference.hpp"
#include "kernels/common/grid_stepper.hpp"
#include "kernels/registry.hpp"

namespace {

using namespace se;

Stencil random_stencil(int dims, int radius, bool symmetric, std::mt19937_64& rng) {
  Stencil s = make_stencil(dims, radius, "random");
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for_each_offset(s, [&](int dx, int dy, int dz) {
    if (s.at(dx, dy, dz) != 0.0) return;
    const double w = u(rng) < 0.3 ? 0.0 : u(rng);
    if (symmetric)
      for (const auto& p : symmetric_positions(dims, dx, dy, dz)) s.at(p[0], p[1], p[2]) = w;
    else
      s.at(dx, dy, dz) = w;
  });
  s.at(0, 0, 0) += 0.5;
  return normalized(s);
}

std::vector<double> reference_after(const Stencil& s, const Extent& e, std::vector<double> v, int steps, const Boundary& b) {
  ReferenceOptions opt;
  opt.boundary = b;
  reference_advance(s, e, v, steps, Precision::FP64, opt);
  return v;
}

// Runs `steps` on the GPU and returns the relative L2 error against the reference (checks it inside).
void check_run(const Method& m, const Stencil& s, const Extent& e, int fused, int steps, const Boundary& b) {
  PlanPtr plan;
  try {
    plan = m.plan(s, fused);
  } catch (const InputError& err) {
    FAIL_CHECK(s.name << " T=" << fused << ": " << err.what());
    return;
  }
  if (const std::string why = m.check(*plan, e); !why.empty()) {
    WARN(s.name << " " << e.to_string() << " not taken: " << why);
    return;
  }
  MethodRun r;
  r.stencil = s;
  r.extent = e;
  r.steps = steps;
  r.boundary = b;
  r.values = initial_values(e, InitialCondition::Random, static_cast<std::uint64_t>(steps * 31 + e.n[0]));
  const std::vector<double> ref = reference_after(s, e, r.values, steps, b);
  const MethodTiming t = m.run(*plan, r);
  const ErrorMetrics err = compare(r.values, ref);
  INFO(s.name << " " << e.to_string() << " " << to_string(b.kind) << " T=" << plan->fused_steps << " " << steps
              << " steps: rel L2 " << err.rel_l2 << ", max abs " << err.max_abs << ", passes " << t.passes);
  CHECK(err.finite);
  CHECK(err.rel_l2 <= 1e-12 * (1 + steps));
  CHECK(t.steps_done == steps);
}

Extent extent_of(int dims, int salt) {
  switch (dims) {
  case 1: return parse_extent(std::to_string(std::vector<int>{4099, 129, 9973, 31}[static_cast<std::size_t>(salt % 4)]));
  case 2: return parse_extent(std::vector<std::string>{"131x37", "257x65", "61x29", "97x101"}[static_cast<std::size_t>(salt % 4)]);
  default: return parse_extent(std::vector<std::string>{"67x13x11", "33x17x19", "29x9x12", "65x10x9"}[static_cast<std::size_t>(salt % 4)]);
  }
}

} // namespace

TEST_CASE("ConvStencil GPU: every preset, both boundaries, 1, 2T+1 and 101 steps, fused depths 1-3",
          "[convstencil-gpu]") {
  const std::vector<Method> methods = all_methods(); // find_method returns a reference into this list
  const Method& m = find_method(methods, "convstencil", Backend::GPU);
  REQUIRE(m.unavailable_reason().empty());
  int salt = 0;
  for (const auto& name : preset_names()) {
    const Stencil s = preset(name);
    for (int fused = 0; fused <= 3; ++fused) {
      if (fused * s.radius > kMaxRadius) continue;
      if (s.dims == 3 && fused * s.radius > 3) continue; // 3D kernels up to 7 wide
      const Extent e = extent_of(s.dims, ++salt);
      for (const BoundaryKind kind : {BoundaryKind::Dirichlet, BoundaryKind::Periodic}) {
        const Boundary b{kind, kind == BoundaryKind::Dirichlet ? 0.25 : 0.0};
        for (const int steps : {1, 7, 101}) {
          if (s.dims == 3 && steps == 101 && fused != 0) continue; // keep the 3D reference short
          check_run(m, s, e, fused, steps, b);
        }
      }
    }
  }
}

TEST_CASE("ConvStencil GPU: random stencils up to radius 7 (3D: 3), symmetric or not, awkward sizes",
          "[convstencil-gpu]") {
  const std::vector<Method> methods = all_methods(); // find_method returns a reference into this list
  const Method& m = find_method(methods, "convstencil", Backend::GPU);
  REQUIRE(m.unavailable_reason().empty());
  std::mt19937_64 rng(2024);
  int salt = 0;
  for (int dims = 1; dims <= 3; ++dims)
    for (int r = 0; r <= (dims == 3 ? 3 : 7); ++r)
      for (const bool symmetric : {true, false}) {
        const Stencil s = random_stencil(dims, r, symmetric, rng);
        const Extent e = extent_of(dims, ++salt);
        for (const BoundaryKind kind : {BoundaryKind::Dirichlet, BoundaryKind::Periodic})
          for (const int steps : {1, 5}) check_run(m, s, e, 0, steps, Boundary{kind, 0.0});
      }
}

TEST_CASE("ConvStencil GPU: grids smaller than one warp tile and one point past it", "[convstencil-gpu]") {
  const std::vector<Method> methods = all_methods(); // find_method returns a reference into this list
  const Method& m = find_method(methods, "convstencil", Backend::GPU);
  for (const char* name : {"heat-1d", "box-2d9p", "box-2d49p", "heat-3d", "box-3d27p"}) {
    const Stencil s = preset(name);
    const std::vector<std::string> sizes = s.dims == 1   ? std::vector<std::string>{"7", "129", "4097"}
                                           : s.dims == 2 ? std::vector<std::string>{"7x7", "129x33", "9x130"}
                                                         : std::vector<std::string>{"7x7x7", "65x9x9", "9x9x17"};
    for (const auto& size : sizes)
      for (const BoundaryKind kind : {BoundaryKind::Dirichlet, BoundaryKind::Periodic})
        check_run(m, s, parse_extent(size), 0, 10, Boundary{kind, 1.0}); // 1D: 9 + 1, else 3 + 3 + 3 + 1 (3D: 10 x 1)
  }
}
