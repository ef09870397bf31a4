// FlashFFTStencil's GPU kernels (1D, 2D and 3D, FP64 tensor cores) beyond the list-wide check: every preset, random
// stencils up to radius 7 (3 in 3D), awkward sizes (a prime, one segment or less, one point beyond a segment pair), 1, 7
// and 1000 steps, both boundaries, the automatic depth and fixed depths (1, 2, 14 and the deepest a segment
// holds), against the FP64 reference. Outputs start poisoned with NaN, so a point no pass writes fails.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/error_bound.hpp"
#include "core/flashfft/flashfft_plan.hpp"
#include "core/reference.hpp"
#include "kernels/common/grid_stepper.hpp"
#include "kernels/registry.hpp"

namespace {

using namespace se;

Stencil random_1d(int radius, std::mt19937_64& rng) {
  Stencil s = make_stencil(1, radius, "random");
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for_each_offset(s, [&](int dx, int, int) { s.at(dx, 0, 0) = u(rng) < 0.25 ? 0.0 : u(rng); });
  s.at(radius, 0, 0) += 0.05;
  s.at(0, 0, 0) += 0.5;
  return normalized(s);
}

Extent line(std::int64_t n) {
  Extent e;
  e.dims = 1;
  e.n[0] = n;
  return e;
}

Extent plane(std::int64_t x, std::int64_t y) {
  Extent e;
  e.dims = 2;
  e.n[0] = x;
  e.n[1] = y;
  return e;
}

Stencil random_2d(int radius, bool star, std::mt19937_64& rng) {
  Stencil s = make_stencil(2, radius, "random");
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for_each_offset(s, [&](int dx, int dy, int) {
    if (star && dx != 0 && dy != 0) return;
    s.at(dx, dy, 0) = u(rng) < 0.25 ? 0.0 : u(rng);
  });
  s.at(radius, 0, 0) += 0.05;
  s.at(0, radius, 0) += 0.05;
  s.at(0, 0, 0) += 0.5;
  return normalized(s);
}

double check_run(const Method& m, const PlanPtr& plan, const Extent& e, BoundaryKind kind, int steps, std::uint64_t seed) {
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
  INFO(r.stencil.name << " r" << r.stencil.radius << " n=" << e.n[0] << " " << to_string(kind) << " " << steps
                      << " steps, T=" << plan->fused_steps << ": rel L2 " << err.rel_l2 << ", passes " << t.passes);
  REQUIRE(err.finite);
  CHECK(err.rel_l2 <= error_bound(r.stencil, Precision::FP64, steps, r.boundary, initial, ref));
  CHECK(t.steps_done == steps);
  return err.rel_l2;
}

} // namespace

TEST_CASE("FlashFFTStencil GPU runs every 1D preset for 1, 7 and 1000 steps on awkward sizes", "[flashfft-gpu]") {
  const std::vector<Method> methods = all_methods();
  const Method& m = find_method(methods, "flashfft", Backend::GPU);
  if (const std::string why = m.unavailable_reason(); !why.empty()) {
    WARN("flashfft (gpu) not checked here: " << why);
    return;
  }
  std::uint64_t seed = 900;
  for (const auto& name : preset_names()) {
    const Stencil s = preset(name);
    if (s.dims != 1) continue;
    for (const int T : {0, 1, 2, 14}) {
      const PlanPtr plan = m.plan(s, T);
      const int side = 2 * s.radius + 1;
      // Smaller than a segment, a prime, and one point beyond a whole number of segment pairs.
      const std::int64_t S = plan_value<FlashFftPlan>(*plan).stitched[0];
      for (const std::int64_t n : {static_cast<std::int64_t>(side), std::int64_t{509}, 4 * S + 1, std::int64_t{100003}})
        for (const BoundaryKind kind : {BoundaryKind::Dirichlet, BoundaryKind::Periodic})
          for (const int steps : {1, 7, 1000}) {
            if (n > 10000 && steps == 1000) continue; // the FP64 reference's time, not the kernel's
            check_run(m, plan, line(n), kind, steps, ++seed);
          }
    }
  }
}

TEST_CASE("FlashFFTStencil GPU: random stencils up to radius 7, the deepest fusion a segment holds", "[flashfft-gpu]") {
  const std::vector<Method> methods = all_methods();
  const Method& m = find_method(methods, "flashfft", Backend::GPU);
  if (!m.unavailable_reason().empty()) return;
  std::mt19937_64 rng(11);
  std::uint64_t seed = 1900;
  for (int radius = 1; radius <= 7; ++radius) {
    const Stencil s = random_1d(radius, rng);
    const int deepest = (496 - 1) / (2 * radius);
    for (const int T : {1, 3, deepest}) {
      const PlanPtr plan = m.plan(s, T);
      for (const std::int64_t n : {std::int64_t{2 * radius + 1}, std::int64_t{1009}, std::int64_t{7919}})
        for (const BoundaryKind kind : {BoundaryKind::Dirichlet, BoundaryKind::Periodic})
          check_run(m, plan, line(n), kind, T == deepest ? 2 * T + 1 : 7, ++seed);
    }
  }
}

TEST_CASE("FlashFFTStencil GPU: set_stencil takes new weights on the running grid", "[flashfft-gpu]") {
  const std::vector<Method> methods = all_methods();
  const Method& m = find_method(methods, "flashfft", Backend::GPU);
  if (!m.unavailable_reason().empty()) return;
  const Extent e = line(5003);
  Boundary b;
  b.kind = BoundaryKind::Dirichlet;
  b.value = 0.5;
  const PlanPtr pa = m.plan(preset("heat-1d"), 5), pb = m.plan(preset("1d7p"), 3);
  const std::vector<double> initial = initial_values(e, InitialCondition::Random, 3);
  auto stepper = make_gpu_stepper(m, *pa, e, b);
  stepper->upload(initial);
  stepper->advance(12); // 5 + 5 + 2
  // Each stencil's steps against the reference from where they started, within that stencil's bound.
  std::vector<double> middle(initial.size()), want_a = initial;
  stepper->download(middle);
  ReferenceOptions opt;
  opt.boundary = b;
  reference_advance(pa->stencil, e, want_a, 12, Precision::FP64, opt);
  CHECK(compare(middle, want_a).rel_l2 <= error_bound(pa->stencil, Precision::FP64, 12, b, initial, want_a));
  REQUIRE(stepper->set_stencil(*pb));
  stepper->advance(8); // 3 + 3 + 2
  std::vector<double> got(initial.size()), ref = middle;
  stepper->download(got);
  reference_advance(pb->stencil, e, ref, 8, Precision::FP64, opt);
  const ErrorMetrics err = compare(got, ref);
  REQUIRE(err.finite);
  CHECK(err.rel_l2 <= error_bound(pb->stencil, Precision::FP64, 8, b, middle, ref));
}

TEST_CASE("FlashFFTStencil GPU runs every 2D preset for 1, 7 and 1000 steps on awkward sizes", "[flashfft-gpu]") {
  const std::vector<Method> methods = all_methods();
  const Method& m = find_method(methods, "flashfft", Backend::GPU);
  if (!m.unavailable_reason().empty()) return;
  std::uint64_t seed = 3900;
  for (const auto& name : preset_names()) {
    const Stencil s = preset(name);
    if (s.dims != 2) continue;
    for (const int T : {0, 1, 2}) {
      if (T == 2 && 4 * s.radius >= 16) continue; // the 16-point side of every 2D tile
      const PlanPtr plan = m.plan(s, T);
      const int side = 2 * s.radius + 1;
      for (const Extent& e : {plane(side, side), plane(61, 37), plane(523, 211)}) {
        for (const BoundaryKind kind : {BoundaryKind::Dirichlet, BoundaryKind::Periodic})
          for (const int steps : {1, 7, 1000}) {
            if (e.n[0] > 100 && steps == 1000) continue; // the FP64 reference's time, not the kernel's
            check_run(m, plan, e, kind, steps, ++seed);
          }
      }
    }
  }
}

TEST_CASE("FlashFFTStencil GPU: random 2D stencils up to radius 7, star and box, deepest fusion", "[flashfft-gpu]") {
  const std::vector<Method> methods = all_methods();
  const Method& m = find_method(methods, "flashfft", Backend::GPU);
  if (!m.unavailable_reason().empty()) return;
  std::mt19937_64 rng(21);
  std::uint64_t seed = 5900;
  for (int radius = 1; radius <= 7; ++radius)
    for (const bool star : {true, false}) {
      const Stencil s = random_2d(radius, star, rng);
      const int deepest = (16 - 1) / (2 * radius); // the 16-point side of every 2D tile
      for (const int T : {1, deepest}) {
        const PlanPtr plan = m.plan(s, T);
        for (const Extent& e : {plane(2 * radius + 1, 2 * radius + 1), plane(97, 41)})
          for (const BoundaryKind kind : {BoundaryKind::Dirichlet, BoundaryKind::Periodic})
            check_run(m, plan, e, kind, 2 * T + 1, ++seed);
      }
    }
}

namespace {
Extent cube(std::int64_t x, std::int64_t y, std::int64_t z) {
  Extent e;
  e.dims = 3;
  e.n[0] = x;
  e.n[1] = y;
  e.n[2] = z;
  return e;
}

Stencil random_3d(int radius, bool star, std::mt19937_64& rng) {
  Stencil s = make_stencil(3, radius, "random");
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for_each_offset(s, [&](int dx, int dy, int dz) {
    if (star && ((dx != 0) + (dy != 0) + (dz != 0)) > 1) return;
    s.at(dx, dy, dz) = u(rng) < 0.25 ? 0.0 : u(rng);
  });
  s.at(radius, 0, 0) += 0.05;
  s.at(0, radius, 0) += 0.05;
  s.at(0, 0, radius) += 0.05;
  s.at(0, 0, 0) += 0.5;
  return normalized(s);
}
} // namespace

TEST_CASE("FlashFFTStencil GPU runs every 3D preset for 1, 7 and 1000 steps on awkward sizes", "[flashfft-gpu]") {
  const std::vector<Method> methods = all_methods();
  const Method& m = find_method(methods, "flashfft", Backend::GPU);
  if (!m.unavailable_reason().empty()) return;
  std::uint64_t seed = 7900;
  for (const auto& name : preset_names()) {
    const Stencil s = preset(name);
    if (s.dims != 3) continue;
    for (const int T : {0, 1, 2, 3}) {
      if (T > 0 && 2 * T * s.radius >= 8) continue; // the 8 slices of every 3D cube
      const PlanPtr plan = m.plan(s, T);
      const int side = 2 * s.radius + 1;
      for (const Extent& e : {cube(side, side, side), cube(17, 13, 11), cube(61, 37, 23)}) {
        for (const BoundaryKind kind : {BoundaryKind::Dirichlet, BoundaryKind::Periodic})
          for (const int steps : {1, 7, 1000}) {
            if (e.n[0] > 20 && steps == 1000) continue; // the FP64 reference's time, not the kernel's
            check_run(m, plan, e, kind, steps, ++seed);
          }
      }
    }
  }
}

TEST_CASE("FlashFFTStencil GPU: random 3D stencils up to radius 3, star and box, deepest fusion", "[flashfft-gpu]") {
  const std::vector<Method> methods = all_methods();
  const Method& m = find_method(methods, "flashfft", Backend::GPU);
  if (!m.unavailable_reason().empty()) return;
  std::mt19937_64 rng(31);
  std::uint64_t seed = 9900;
  for (int radius = 1; radius <= 3; ++radius)
    for (const bool star : {true, false}) {
      const Stencil s = random_3d(radius, star, rng);
      const int deepest = (8 - 1) / (2 * radius); // the 8 slices of every 3D cube
      for (const int T : {1, deepest}) {
        const PlanPtr plan = m.plan(s, T);
        for (const Extent& e : {cube(2 * radius + 1, 2 * radius + 1, 2 * radius + 1), cube(37, 19, 29)})
          for (const BoundaryKind kind : {BoundaryKind::Dirichlet, BoundaryKind::Periodic})
            for (const int steps : {1, 2 * T + 1})
              check_run(m, plan, e, kind, steps, ++seed);
      }
    }
}

// The T sweep of issue 11 (hidden: run it by its tag): GStencil/s over the fusion depth T for flashfft and
// lorastencil on heat-2d and box-2d49p, Dirichlet, on a 4096 x 4096 grid, every depth each method's GPU plan
// accepts up to 8; a warm-up run, then a timed run of about 0.15 s (compute only, no transfers). Written as JSON
// to $SE_TSWEEP_JSON (the GPU named by $SE_GPU_NAME); the Performance view draws it.
TEST_CASE("FlashFFTStencil and LoRAStencil over the fusion depth T (timing sweep)", "[.flashfft-tsweep]") {
  const std::vector<Method> methods = all_methods();
  const char* path = std::getenv("SE_TSWEEP_JSON");
  const char* gpu = std::getenv("SE_GPU_NAME");
  nlohmann::json rows = nlohmann::json::array();
  const Extent e = plane(4096, 4096);
  const std::vector<double> initial = initial_values(e, InitialCondition::Random, 77);
  for (const char* name : {"heat-2d", "box-2d49p"})
    for (const char* id : {"flashfft", "lorastencil"}) {
      const Method& m = find_method(methods, id, Backend::GPU);
      if (!m.unavailable_reason().empty()) continue;
      const Stencil s = preset(name);
      for (int T = 1; T <= 8; ++T) {
        PlanPtr plan;
        try {
          plan = m.plan(s, T);
        } catch (const InputError&) {
          continue;
        }
        if (plan->fused_steps != T) continue;
        MethodRun r;
        r.stencil = s;
        r.extent = e;
        r.boundary.kind = BoundaryKind::Dirichlet;
        r.values = initial;
        r.steps = 4 * T;
        const MethodTiming warm = m.run(*plan, r);
        const double per_step = warm.seconds / std::max(1, warm.steps_done);
        r.values = initial;
        r.steps = std::max(T, static_cast<int>(0.15 / std::max(per_step, 1e-7)) / T * T);
        const MethodTiming t = m.run(*plan, r);
        const double gs = gstencils_per_second(e.points(), t.steps_done, t.seconds);
        std::printf("tsweep %s %s T=%d: %d steps in %.4f s, %.2f GStencil/s\n", id, name, T, t.steps_done, t.seconds, gs);
        rows.push_back({{"method", id}, {"stencil", name}, {"T", T}, {"size", "4096x4096"}, {"steps", t.steps_done},
                        {"seconds", t.seconds}, {"gstencils", gs}, {"passes", t.passes}});
        CHECK(t.steps_done == r.steps);
      }
    }
  if (path) {
    std::ofstream out(path);
    out << nlohmann::json{{"gpu", gpu ? gpu : "unknown"}, {"boundary", "dirichlet"}, {"precision", "fp64"},
                          {"tsweep", rows}}
               .dump(1)
        << "\n";
  }
}

// The 3D depths (hidden, by its tag): flashfft on heat-3d and box-3d27p at 768^3 (the public code's size), every
// T its 16 x 16 x 8 cube holds, Dirichlet; written to $SE_TSWEEP3D_JSON.
TEST_CASE("FlashFFTStencil 3D over the fusion depth T at 768^3 (timing)", "[.flashfft-tsweep3d]") {
  const std::vector<Method> methods = all_methods();
  const Method& m = find_method(methods, "flashfft", Backend::GPU);
  if (!m.unavailable_reason().empty()) return;
  const char* path = std::getenv("SE_TSWEEP3D_JSON");
  const char* gpu = std::getenv("SE_GPU_NAME");
  nlohmann::json rows = nlohmann::json::array();
  const Extent e = cube(768, 768, 768);
  const std::vector<double> initial = initial_values(e, InitialCondition::Random, 78);
  for (const char* name : {"heat-3d", "box-3d27p"})
    for (int T = 1; T <= 3; ++T) {
      const PlanPtr plan = m.plan(preset(name), T);
      MethodRun r;
      r.stencil = preset(name);
      r.extent = e;
      r.boundary.kind = BoundaryKind::Dirichlet;
      r.values = initial;
      r.steps = 2 * T;
      const MethodTiming warm = m.run(*plan, r);
      const double per_step = warm.seconds / std::max(1, warm.steps_done);
      r.values = initial;
      r.steps = std::max(T, static_cast<int>(0.5 / std::max(per_step, 1e-7)) / T * T);
      const MethodTiming t = m.run(*plan, r);
      const double gs = gstencils_per_second(e.points(), t.steps_done, t.seconds);
      std::printf("tsweep3d flashfft %s T=%d: %d steps in %.4f s, %.2f GStencil/s (%s)\n", name, T, t.steps_done,
                  t.seconds, gs, t.passes.c_str());
      rows.push_back({{"method", "flashfft"}, {"stencil", name}, {"T", T}, {"size", "768x768x768"},
                      {"steps", t.steps_done}, {"seconds", t.seconds}, {"gstencils", gs}, {"passes", t.passes}});
      CHECK(t.steps_done == r.steps);
    }
  if (path) {
    std::ofstream out(path);
    out << nlohmann::json{{"gpu", gpu ? gpu : "unknown"}, {"boundary", "dirichlet"}, {"precision", "fp64"},
                          {"tsweep", rows}}
               .dump(1)
        << "\n";
  }
}

// For compute-sanitizer (hidden, by its tag): the 3D kernel's fused passes with the Dirichlet band fix and a
// remainder pass, and a periodic run, on small grids.
TEST_CASE("FlashFFTStencil 3D fused passes on small grids (for the sanitizers)", "[.flashfft-sanitize3d]") {
  const std::vector<Method> methods = all_methods();
  const Method& m = find_method(methods, "flashfft", Backend::GPU);
  if (!m.unavailable_reason().empty()) return;
  check_run(m, m.plan(preset("box-3d27p"), 2), cube(37, 19, 29), BoundaryKind::Dirichlet, 7, 11);
  check_run(m, m.plan(preset("heat-3d"), 3), cube(21, 17, 13), BoundaryKind::Periodic, 5, 12);
}
