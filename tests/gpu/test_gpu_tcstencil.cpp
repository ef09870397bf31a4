// tcstencil (FP16, mma.m16n8k16) and tcstencil-fp64 (mma.m16n8k4) beyond the list-wide check: every 2D preset and
// random star and box stencils of every radius 0..7 (symmetric or not, zeros inside), grids smaller than a
// block and awkward sizes, both boundaries, 1 and 120 steps, against the FP64 reference with the precision's
// bound; FP64 also against core's emulation of the same m16n8k4 plan; 1D lines on the same kernels; the FP16 range
// refusal; 3D refused with a reason. Outputs start poisoned with NaN, so a point the kernel fails to write fails the check.
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "core/error.hpp"
#include "core/error_bound.hpp"
#include "core/reference.hpp"
#include "core/tcstencil/tcstencil_emulation.hpp"
#include "core/tcstencil/tcstencil_plan.hpp"
#include "kernels/common/grid_stepper.hpp"
#include "kernels/common/tensor_map.hpp"
#include "kernels/registry.hpp"

namespace {

using namespace se;

Stencil random_2d(int radius, bool star, bool symmetric, std::mt19937_64& rng) {
  Stencil s = make_stencil(2, radius, "random");
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for_each_offset(s, [&](int dx, int dy, int dz) {
    if (star && dx != 0 && dy != 0) return;
    if (s.at(dx, dy, dz) != 0.0) return;
    const double w = u(rng) < 0.25 ? 0.0 : u(rng);
    if (symmetric)
      for (const auto& p : symmetric_positions(2, dx, dy, dz)) s.at(p[0], p[1], p[2]) = w;
    else
      s.at(dx, dy, dz) = w;
  });
  if (radius > 0) s.at(radius, 0) += 0.05, s.at(0, -radius) += 0.05; // the radius is really reached
  s.at(0, 0) += 0.5;
  return normalized(s);
}

Extent extent_2d(std::int64_t x, std::int64_t y) {
  Extent e;
  e.dims = 2;
  e.n[0] = x;
  e.n[1] = y;
  return e;
}

std::vector<double> reference_after(const Stencil& s, const Extent& e, std::vector<double> v, int steps, const Boundary& b) {
  ReferenceOptions opt;
  opt.boundary = b;
  reference_advance(s, e, v, steps, Precision::FP64, opt);
  return v;
}

const Method& gpu_method(const std::string& id) {
  static const std::vector<Method> methods = all_methods();
  return find_method(methods, id, Backend::GPU);
}

struct Case {
  Stencil stencil;
  Extent extent;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  const Extent sizes[] = {extent_2d(17, 16), extent_2d(131, 67), extent_2d(200, 150), extent_2d(257, 129)};
  int k = 0;
  for (const std::string& name : preset_names()) {
    const Stencil s = preset(name);
    if (s.dims == 2) out.push_back({s, sizes[k++ % 4]});
  }
  std::mt19937_64 rng(1313);
  for (int r = 0; r <= 7; ++r)
    for (const bool star : {true, false}) {
      const bool symmetric = (r + star) % 2 == 0;
      Extent e = sizes[k++ % 4];
      e.n[0] = std::max<std::int64_t>(e.n[0], 2 * r + 1);
      e.n[1] = std::max<std::int64_t>(e.n[1], 2 * r + 1);
      out.push_back({random_2d(r, star, symmetric, rng), e});
    }
  return out;
}

} // namespace

TEST_CASE("tcstencil GPU kernels match the FP64 reference: 2D presets, radius 0..7 star and box, 1 and 120 steps",
          "[tcstencil-gpu]") {
  const std::vector<Case> all = cases();
  std::uint64_t seed = 77;
  for (const std::string id : {"tcstencil", "tcstencil-fp64"}) {
    const Method& m = gpu_method(id);
    if (const std::string why = m.unavailable_reason(); !why.empty()) {
      WARN(id << " not checked: " << why);
      continue;
    }
    int runs = 0;
    for (const Case& c : all) {
      const PlanPtr plan = m.plan(c.stencil); // every 2D stencil up to radius 7 is taken
      REQUIRE(m.check(*plan, c.extent).empty());
      for (const BoundaryKind kind : {BoundaryKind::Dirichlet, BoundaryKind::Periodic})
        for (const int steps : {1, 120}) {
          MethodRun r;
          r.stencil = c.stencil;
          r.extent = c.extent;
          r.steps = steps;
          r.boundary = {kind, kind == BoundaryKind::Dirichlet ? 0.25 : 0.0};
          r.values = initial_values(c.extent, InitialCondition::Random, ++seed);
          const std::vector<double> initial = r.values;
          const std::vector<double> ref = reference_after(c.stencil, c.extent, r.values, steps, r.boundary);
          const MethodTiming t = m.run(*plan, r);
          const ErrorMetrics err = compare(r.values, ref);
          INFO(id << " " << c.stencil.name << " r" << c.stencil.radius << " " << c.extent.to_string() << " "
                  << to_string(kind) << " " << steps << " steps: rel L2 " << err.rel_l2 << ", max abs " << err.max_abs);
          CHECK(err.finite);
          CHECK(err.rel_l2 <= error_bound(c.stencil, m.precision, steps, r.boundary, initial, ref));
          CHECK(t.steps_done == steps);
          ++runs;
        }
    }
    CHECK(runs == static_cast<int>(all.size()) * 4);
  }
}

// Both FP64 kernels: on sm_90 the region as one TMA box, SE_TCSTENCIL_FP64_TMA=0 the cp.async kernel of other GPUs.
TEST_CASE("tcstencil-fp64 on the GPU equals core's emulation of the same m16n8k4 plan", "[tcstencil-gpu]") {
  const Method& m = gpu_method("tcstencil-fp64");
  if (!m.unavailable_reason().empty()) return;
  std::mt19937_64 rng(99);
  const std::vector<Stencil> stencils{preset("heat-2d"), preset("box-2d49p"), random_2d(5, false, false, rng),
                                      random_2d(7, true, false, rng)};
  for (const char* tma : {"1", "0"}) {
    INFO("SE_TCSTENCIL_FP64_TMA=" << tma);
    ::setenv("SE_TCSTENCIL_FP64_TMA", tma, 1);
    for (const Stencil& s : stencils) {
      const PlanPtr plan = m.plan(s);
      const TCStencilPlan& tp = plan_value<TCStencilPlan>(*plan);
      CHECK(tp.shape == MmaShape::M16N8K4_F64);
      for (const Extent& e : {extent_2d(75, 41), extent_2d(300, 130)}) {
        for (const BoundaryKind kind : {BoundaryKind::Dirichlet, BoundaryKind::Periodic}) {
          MethodRun r;
          r.stencil = s;
          r.extent = e;
          r.steps = 3;
          r.boundary = {kind, 0.5};
          r.values = initial_values(e, InitialCondition::Random, 5);
          std::vector<double> emulated = r.values;
          tcstencil_advance(tp, e, emulated, 3, r.boundary, {});
          m.run(*plan, r);
          const ErrorMetrics err = compare(r.values, emulated);
          INFO(s.name << " " << e.to_string() << " " << to_string(kind) << ": max abs " << err.max_abs);
          CHECK(err.max_abs <= 1e-13);
        }
      }
    }
  }
  ::unsetenv("SE_TCSTENCIL_FP64_TMA");
}

// 1D lines run on the 2D kernels as rows of 1024 consecutive points (tc::StepArgs::line): lines shorter than a
// view row, ending inside a tile, a block and a view row, every radius both precisions take, both boundaries, both
// staging paths (TMA boxes whose rows overlap, and cp.async), against the FP64 reference and (FP64) core's emulation
// of the same m16n8k4 plan, whose 1D tiles are 256 consecutive points.
TEST_CASE("tcstencil GPU kernels on 1D lines match the FP64 reference and core's emulation", "[tcstencil-gpu]") {
  std::mt19937_64 rng(4242);
  std::vector<Stencil> stencils;
  for (const std::string& name : preset_names())
    if (preset(name).dims == 1) stencils.push_back(preset(name));
  for (int r = 0; r <= 7; ++r) { // random lines: positive weights (FP16-stable), zeros inside, asymmetric
    Stencil s = make_stencil(1, r, "random-1d");
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (int dx = -r; dx <= r; ++dx) s.at(dx) = u(rng) < 0.25 ? 0.0 : u(rng);
    s.at(r) += 0.05;
    s.at(0) += 0.5;
    stencils.push_back(normalized(s));
  }
  const std::int64_t lengths[] = {37, 1000, 4099, 70001, 1 << 20};
  std::uint64_t seed = 5;
  for (const std::string id : {"tcstencil", "tcstencil-fp64"}) {
    const Method& m = gpu_method(id);
    if (!m.unavailable_reason().empty()) continue;
    for (const char* tma : {"1", "0"}) {
      ::setenv(id == "tcstencil" ? "SE_TCSTENCIL_FP16_TMA" : "SE_TCSTENCIL_FP64_TMA", tma, 1);
      int k = 0;
      for (const Stencil& s : stencils) {
        const PlanPtr plan = m.plan(s);
        const TCStencilPlan& tp = plan_value<TCStencilPlan>(*plan);
        CHECK(tp.matrices.size() == 1);
        for (const BoundaryKind kind : {BoundaryKind::Dirichlet, BoundaryKind::Periodic}) {
          Extent e;
          e.dims = 1;
          e.n[0] = std::max<std::int64_t>(lengths[k++ % 5], 2 * s.radius + 1);
          const int steps = k % 3 == 0 ? 101 : 4;
          MethodRun r;
          r.stencil = s;
          r.extent = e;
          r.steps = steps;
          r.boundary = {kind, kind == BoundaryKind::Dirichlet ? 0.25 : 0.0};
          r.values = initial_values(e, InitialCondition::Random, ++seed);
          const std::vector<double> initial = r.values;
          const std::vector<double> ref = reference_after(s, e, r.values, steps, r.boundary);
          std::vector<double> emulated = r.values;
          if (m.precision == Precision::FP64) tcstencil_advance(tp, e, emulated, steps, r.boundary, {});
          const MethodTiming t = m.run(*plan, r);
          const ErrorMetrics err = compare(r.values, ref);
          INFO(id << " TMA=" << tma << " " << s.name << " r" << s.radius << " n " << e.n[0] << " " << to_string(kind)
                  << " " << steps << " steps: rel L2 " << err.rel_l2);
          CHECK(t.steps_done == steps);
          CHECK(err.finite);
          CHECK(err.rel_l2 <= error_bound(s, m.precision, steps, r.boundary, initial, ref));
          if (m.precision == Precision::FP64) CHECK(compare(r.values, emulated).max_abs <= 1e-13);
        }
      }
    }
    ::unsetenv("SE_TCSTENCIL_FP16_TMA");
    ::unsetenv("SE_TCSTENCIL_FP64_TMA");
  }
}

TEST_CASE("tcstencil refuses FP16 overflow and 3D with a reason", "[tcstencil-gpu]") {
  const Method& m = gpu_method("tcstencil");
  const Extent e = extent_2d(40, 30);
  MethodRun r;
  r.stencil = preset("heat-2d");
  r.extent = e;
  r.steps = 4;
  r.values.assign(static_cast<std::size_t>(e.points()), 1e5); // beyond FP16's 65504
  CHECK_THROWS_AS(m.run(*m.plan(r.stencil), r), InputError);
  for (const std::string id : {"tcstencil", "tcstencil-fp64"}) {
    const Method& g = gpu_method(id);
    CHECK_NOTHROW(g.plan(preset("heat-1d")));
    CHECK_THROWS_WITH(g.plan(preset("heat-3d")), Catch::Contains("3D"));
  }
}

// The FP16 step's two kernels (on sm_90 TMA boxes in and TMA strip stores out; SE_TCSTENCIL_FP16_TMA=0 the cp.async
// and lane-store kernel of other GPUs) on awkward grids (blocks clipped at the edges, periodic faces storing
// images) and a 4096 x 3000 one, whose interior blocks take the plain-store path.
TEST_CASE("tcstencil's FP16 kernels agree with the FP64 reference", "[tcstencil-gpu]") {
  const Method& m = gpu_method("tcstencil");
  if (!m.unavailable_reason().empty()) return;
  std::mt19937_64 rng(7);
  const auto check = [&](const Stencil& s, const Extent& e, BoundaryKind kind, int steps) {
    MethodRun r;
    r.stencil = s;
    r.extent = e;
    r.steps = steps;
    r.boundary = {kind, 0.0};
    r.values = initial_values(e, InitialCondition::Random, 3);
    const std::vector<double> initial = r.values;
    const std::vector<double> ref = reference_after(s, e, r.values, steps, r.boundary);
    m.run(*m.plan(s), r);
    const ErrorMetrics err = compare(r.values, ref);
    INFO(s.name << " r" << s.radius << " " << e.to_string() << " " << to_string(kind) << ": rel L2 " << err.rel_l2);
    CHECK(err.finite);
    CHECK(err.rel_l2 <= error_bound(s, Precision::FP16, steps, r.boundary, initial, ref));
  };
  for (const char* tma : {"1", "0"}) {
    INFO("SE_TCSTENCIL_FP16_TMA=" << tma);
    ::setenv("SE_TCSTENCIL_FP16_TMA", tma, 1);
    for (const Stencil& s : {preset("heat-2d"), preset("box-2d25p"), preset("box-2d49p"), random_2d(2, true, false, rng),
                             random_2d(1, false, false, rng), random_2d(5, true, false, rng)})
      for (const BoundaryKind kind : {BoundaryKind::Dirichlet, BoundaryKind::Periodic}) {
        check(s, extent_2d(300, 290), kind, 5);
        check(s, extent_2d(17, 130), kind, 3);
      }
    check(preset("box-2d25p"), extent_2d(4096, 3000), BoundaryKind::Periodic, 2);
    check(preset("heat-2d"), extent_2d(4096, 3000), BoundaryKind::Dirichlet, 2);
  }
  ::unsetenv("SE_TCSTENCIL_FP16_TMA");
}

// The FP16 stars of radius 1-2 run two steps per launch on sm_90 (step2_fp16; the plan fuses 2). Both schedules, the
// two-step kernel and one launch a step (SE_TCSTENCIL_FUSE=1), against the reference and each other, on grids
// smaller than a block, clipped at the edges and a large one, odd and even step counts, both boundaries.
TEST_CASE("tcstencil's two-steps-per-launch kernel agrees with the reference and with one launch a step", "[tcstencil-gpu]") {
  const Method& m = gpu_method("tcstencil");
  if (!m.unavailable_reason().empty()) return;
  std::mt19937_64 rng(21);
  const bool fused_kernel = tma_supported();
  for (const Stencil& s : {preset("heat-2d"), random_2d(1, true, false, rng), random_2d(2, true, true, rng),
                           random_2d(2, true, false, rng)}) {
    const PlanPtr plan = m.plan(s);
    CHECK(plan->fused_steps == 2);
    for (const Extent& e : {extent_2d(17, 16), extent_2d(300, 290), extent_2d(129, 257), extent_2d(2000, 1100)})
      for (const BoundaryKind kind : {BoundaryKind::Dirichlet, BoundaryKind::Periodic})
        for (const int steps : {1, 2, 7, 40}) {
          const Boundary b{kind, kind == BoundaryKind::Dirichlet ? 0.25 : 0.0};
          const std::vector<double> initial = initial_values(e, InitialCondition::Random, 5 + steps);
          const std::vector<double> ref = reference_after(s, e, initial, steps, b);
          std::vector<double> got[2];
          for (const int force_one : {0, 1}) {
            if (force_one) ::setenv("SE_TCSTENCIL_FUSE", "1", 1);
            MethodRun r{s, e, steps, b, initial, {}};
            const MethodTiming t = m.run(*plan, r);
            ::unsetenv("SE_TCSTENCIL_FUSE");
            INFO(s.name << " r" << s.radius << " " << e.to_string() << " " << to_string(kind) << " " << steps
                        << " steps, " << (force_one ? "one step per launch" : "the plan's schedule") << ": " << t.passes);
            CHECK(t.steps_done == steps);
            CHECK(t.fused_steps == (fused_kernel && !force_one ? 2 : 1));
            if (fused_kernel && !force_one && steps >= 2) CHECK_THAT(t.passes, Catch::Contains("T=2"));
            const ErrorMetrics err = compare(r.values, ref);
            CHECK(err.finite);
            CHECK(err.rel_l2 <= error_bound(s, Precision::FP16, steps, b, initial, ref));
            got[force_one] = std::move(r.values);
          }
          // The two schedules round the same sums at the same points, with the tile border cut elsewhere in step 1.
          INFO(s.name << " " << e.to_string() << " " << to_string(kind) << " " << steps << " steps: fused vs one-step");
          CHECK(compare(got[0], got[1]).rel_l2 <= error_bound(s, Precision::FP16, steps, Boundary{kind, 0.0}, initial, ref));
        }
  }
}

// Not run by default ('.'): GStencil/s of both FP16 kernels (TMA and cp.async) and of FP64 at 10240^2, from the
// stepper alone (CUDA stream synchronised around 200 steps; no reference).
TEST_CASE("tcstencil configurations timed at 10240^2", "[.tcstencil-perf]") {
  const Extent e = extent_2d(10240, 10240);
  Stencil star9 = make_stencil(2, 2, "star-2d9p");
  for (const int d : {-2, -1, 1, 2}) star9.at(d, 0) = star9.at(0, d) = (std::abs(d) == 1 ? 16.0 : -1.0) * 0.1 / 12.0;
  star9.at(0, 0) = 0.5;
  const std::vector<double> values = initial_values(e, InitialCondition::Random, 1);
  const Boundary boundary{BoundaryKind::Dirichlet, 0.0};
  const auto rate = [&](const std::string& id, const Stencil& s) {
    const Method& m = gpu_method(id);
    auto stepper = make_gpu_stepper(m, *m.plan(s), e, boundary);
    stepper->upload(values);
    stepper->advance(10);
    stepper->synchronize();
    const int steps = 200;
    const auto t0 = std::chrono::steady_clock::now();
    stepper->advance(steps);
    stepper->synchronize();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return static_cast<double>(e.points()) * steps / seconds / 1e9;
  };
  for (const Stencil& s : {preset("heat-2d"), preset("box-2d9p"), preset("box-2d25p"), star9}) {
    for (const char* tma : {"1", "0"}) {
      ::setenv("SE_TCSTENCIL_FP16_TMA", tma, 1);
      std::printf("tcstencil TMA=%s %-10s %7.1f GStencil/s\n", tma, s.name.c_str(), rate("tcstencil", s));
    }
    ::unsetenv("SE_TCSTENCIL_FP16_TMA");
    std::printf("tcstencil-fp64     %-10s %7.1f GStencil/s\n", s.name.c_str(), rate("tcstencil-fp64", s));
  }
}

// The live view's weight edits: a running grid takes another plan of the method in place (any radius up to 7:
// the halo is 8), keeping its values.
TEST_CASE("tcstencil steppers swap stencils in place, radius included", "[tcstencil-gpu]") {
  const Extent e = extent_2d(61, 47);
  for (const std::string id : {"tcstencil", "tcstencil-fp64"}) {
    const Method& m = gpu_method(id);
    if (!m.unavailable_reason().empty()) continue;
    const Stencil a = preset("heat-2d"), b = preset("box-2d49p");
    const Boundary boundary{BoundaryKind::Periodic, 0.0};
    const std::vector<double> initial = initial_values(e, InitialCondition::Random, 11);
    auto stepper = make_gpu_stepper(m, *m.plan(a), e, boundary);
    stepper->upload(initial);
    stepper->advance(3);
    // Each stencil's steps against the reference from where they started, within that stencil's bound.
    std::vector<double> middle(initial.size());
    stepper->download(middle);
    const std::vector<double> want_a = reference_after(a, e, initial, 3, boundary);
    INFO(id);
    CHECK(compare(middle, want_a).rel_l2 <= error_bound(a, m.precision, 3, boundary, initial, want_a));
    REQUIRE(stepper->set_stencil(*m.plan(b)));
    stepper->advance(4);
    std::vector<double> got(initial.size());
    stepper->download(got);
    const std::vector<double> want = reference_after(b, e, middle, 4, boundary);
    CHECK(compare(got, want).rel_l2 <= error_bound(b, m.precision, 4, boundary, middle, want));
  }
}
