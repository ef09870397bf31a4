// FlashFFTStencil's fragment-level emulation against the FP64 reference: every preset, seeded random stencils
// (radially symmetric and not) in 1D, 2D and 3D, both boundaries, awkward sizes, temporal fusion with k_f^T
// (remainder passes, Dirichlet band) and its measured error growth up to T = 64; the executed work.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <random>

#include "core/error.hpp"
#include "core/flashfft/flashfft_emulation.hpp"
#include "core/flashfft/flashfft_method.hpp"

using namespace se;

namespace {

// FP64 throughout (DFT matrices, k_f^T, m8n8k4.f64 with one rounding per fma): the project's FP64 bound.
constexpr double kBound = 1e-12;

Stencil random_stencil(int dims, int radius, bool symmetric, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  Stencil s = make_stencil(dims, radius, symmetric ? "random-symmetric" : "random");
  std::map<std::array<int, 3>, double> by_class;
  for_each_offset(s, [&](int dx, int dy, int dz) {
    std::array<int, 3> key{std::abs(dx), std::abs(dy), std::abs(dz)};
    std::sort(key.begin(), key.begin() + dims);
    if (!symmetric) key = {dx, dy, dz};
    if (!by_class.count(key)) by_class[key] = d(rng) / static_cast<double>(s.size());
    s.at(dx, dy, dz) = by_class[key];
  });
  if (symmetric) REQUIRE(s.is_radially_symmetric());
  return s;
}

Extent extent_of(std::initializer_list<std::int64_t> n) {
  Extent e;
  e.dims = static_cast<int>(n.size());
  int d = 0;
  for (auto v : n) e.n[static_cast<std::size_t>(d++)] = v;
  return e;
}

struct RunResult {
  ErrorMetrics error;
  FlashFftCounters counters;
};

RunResult run_against_reference(const Stencil& s, const Extent& e, int steps, const Boundary& b,
                                FlashFftOptions options = {}, std::uint64_t seed = 1) {
  const std::vector<double> initial = initial_values(e, InitialCondition::Random, seed);
  std::vector<double> ref = initial, v = initial;
  ReferenceOptions ro;
  ro.boundary = b;
  ro.threads = 1;
  reference_advance(s, e, ref, steps, Precision::FP64, ro);
  FlashFftRunOptions fo;
  fo.plan = options;
  fo.threads = 1;
  RunResult r;
  REQUIRE(flashfft_advance(s, e, v, steps, b, fo, &r.counters) == steps);
  r.error = compare(v, ref);
  return r;
}

Boundary dirichlet(double value) { return {BoundaryKind::Dirichlet, value}; }
Boundary periodic() { return {BoundaryKind::Periodic, 0.0}; }

} // namespace

TEST_CASE("flashfft emulation equals the FP64 reference for every preset, both boundaries", "[flashfft]") {
  for (const auto& name : preset_names()) {
    const Stencil s = preset(name);
    // Sizes that are not multiples of any tile, with an odd tile count somewhere (a lone last tile).
    const Extent e = s.dims == 1 ? extent_of({301}) : s.dims == 2 ? extent_of({37, 29}) : extent_of({13, 11, 17});
    for (const Boundary& b : {dirichlet(0.3), periodic()}) {
      INFO(name << " " << to_string(b.kind));
      const RunResult r = run_against_reference(s, e, 2, b);
      CHECK(r.error.finite);
      CHECK(r.error.rel_l2 < kBound);
      CHECK(r.counters.points_written == 2 * e.points());
    }
  }
}

TEST_CASE("flashfft emulation equals the reference for seeded random stencils, symmetric and not", "[flashfft]") {
  std::uint64_t seed = 100;
  for (int dims = 1; dims <= 3; ++dims)
    for (int radius : dims == 3 ? std::vector<int>{1, 2} : std::vector<int>{0, 1, 3, 7})
      for (bool symmetric : {true, false}) {
        const Stencil s = random_stencil(dims, radius, symmetric, ++seed);
        const std::int64_t side = s.side();
        const Extent e = dims == 1 ? extent_of({side + 97}) : dims == 2 ? extent_of({side + 19, side + 8})
                                                                         : extent_of({side + 5, side + 3, side + 4});
        for (const Boundary& b : {dirichlet(-0.7), periodic()}) {
          INFO(dims << "D radius " << radius << (symmetric ? " symmetric " : " general ") << to_string(b.kind));
          const RunResult r = run_against_reference(s, e, 3, b, {}, seed);
          CHECK(r.error.finite);
          CHECK(r.error.rel_l2 < kBound);
        }
      }
}

TEST_CASE("flashfft emulation with explicit small tiles: partial and lone tiles, many segments", "[flashfft]") {
  FlashFftOptions o;
  o.rows = 8;
  o.cols = 7; // L = 56
  for (std::int64_t n : {7, 54, 55, 109, 163}) {
    INFO("n = " << n);
    for (const Boundary& b : {dirichlet(1.5), periodic()}) {
      const RunResult r = run_against_reference(preset("1d7p"), extent_of({n}), 4, b, o);
      CHECK(r.error.rel_l2 < kBound);
    }
  }
  FlashFftOptions o2;
  o2.rows = 12;
  o2.cols = 9; // not multiples of the fragment: padded to 16 x 16
  const RunResult r = run_against_reference(preset("box-2d25p"), extent_of({31, 26}), 2, dirichlet(0.0), o2);
  CHECK(r.error.rel_l2 < kBound);
}

TEST_CASE("flashfft temporal fusion by k_f^T: remainder passes and the Dirichlet band", "[flashfft]") {
  struct Case {
    const char* stencil;
    Extent extent;
    int fused, steps;
  };
  for (const Case& c : {Case{"heat-1d", extent_of({211}), 8, 19}, Case{"1d7p", extent_of({150}), 5, 10},
                        Case{"box-2d9p", extent_of({40, 33}), 3, 7}, Case{"star-2d13p", extent_of({30, 27}), 2, 3},
                        Case{"heat-3d", extent_of({14, 12, 13}), 2, 3}}) {
    FlashFftOptions o;
    o.fused_steps = c.fused;
    for (const Boundary& b : {dirichlet(0.25), periodic()}) {
      INFO(c.stencil << " T=" << c.fused << " steps " << c.steps << " " << to_string(b.kind));
      const RunResult r = run_against_reference(preset(c.stencil), c.extent, c.steps, b, o);
      CHECK(r.error.rel_l2 < kBound);
      CHECK(r.counters.passes == (c.steps + c.fused - 1) / c.fused);
    }
  }
}

TEST_CASE("flashfft k_f^T error growth, measured for T = 1..64, stays finite and at most linear", "[flashfft]") {
  // Stated bound: rel_l2(T) <= 2e-15 + 5e-16 T, about two ulps per fused step. The transforms add a few ulps
  // once per pass; k_f carries about one ulp of rounding, which k_f^T multiplies by T (forming the power by T
  // products or by std::pow gives the same curve), and the FP64 reference's own T steps round as well. So the
  // error may grow linearly in T but not faster. Measured worst at T = 64: 2.1e-14 (box-2d49p).
  const auto bound = [](int T) { return 2e-15 + 5e-16 * T; };
  for (const Stencil& s : {preset("heat-1d"), preset("1d7p"), preset("box-2d49p"), preset("box-3d27p"),
                           random_stencil(1, 2, false, 7), random_stencil(2, 1, true, 8)}) {
    const auto curve = measure_fusion_error_growth(s, 64, 21);
    REQUIRE(curve.size() == 64u);
    for (const FusionErrorSample& p : curve) {
      INFO(s.name << " T = " << p.fused_steps << " rel_l2 = " << p.rel_l2);
      CHECK(p.finite);
      CHECK(p.rel_l2 < bound(p.fused_steps));
    }
    CHECK(curve.front().fused_steps == 1);
    CHECK(curve.back().fused_steps == 64);
  }
  CHECK_THROWS_AS(measure_fusion_error_growth(preset("heat-1d"), 0), InputError);
}

TEST_CASE("flashfft whole-period plans need the grid to be exactly one periodic tile", "[flashfft]") {
  FlashFftOptions o;
  o.whole_period = true;
  o.rows = 8;
  o.cols = 7;
  o.fused_steps = 30; // far more reach than the 56 points: the circular convolution wraps, as the grid does
  const FlashFftPlan p = make_flashfft_plan(preset("1d5p"), o);
  CHECK(p.halo == 0);
  CHECK(p.stitched[0] == 56);
  std::vector<double> v = initial_values(extent_of({56}), InitialCondition::Random, 2), ref = v;
  flashfft_pass(p, extent_of({56}), v, periodic(), 1);
  ReferenceOptions ro;
  ro.boundary = periodic();
  reference_advance(preset("1d5p"), extent_of({56}), ref, 30, Precision::FP64, ro);
  CHECK(compare(v, ref).rel_l2 < kBound);
  CHECK_THROWS_WITH(flashfft_pass(p, extent_of({56}), v, dirichlet(0.0), 1), Catch::Contains("periodic"));
  std::vector<double> longer(57, 0.0);
  CHECK_THROWS_WITH(flashfft_pass(p, extent_of({57}), longer, periodic(), 1), Catch::Contains("56 points"));
}

TEST_CASE("flashfft emulation executes exactly the cost model's MMAs", "[flashfft]") {
  FlashFftOptions o;
  o.rows = 16;
  o.cols = 15;
  const FlashFftPlan p = make_flashfft_plan(preset("heat-1d"), o);
  const std::int64_t S = p.stitched[0];
  const Extent e = extent_of({6 * S}); // six whole tiles: three pairs
  std::vector<double> v = initial_values(e, InitialCondition::Random, 4);
  FlashFftCounters n;
  flashfft_pass(p, e, v, periodic(), 2, &n);
  const FlashFftPassWork w = flashfft_pass_work(p);
  CHECK(n.tile_pairs == 3);
  CHECK(n.mma == static_cast<std::int64_t>(3 * w.mma));
  CHECK(n.cuda_core_flops == static_cast<std::int64_t>(3 * w.cuda_core_flops));
  CHECK(n.points_written == e.points());
  CHECK(static_cast<double>(n.mma) / static_cast<double>(e.points()) == Approx(flashfft_cost(p).mma_per_point));
  // 3D: forward halves on every input slice, inverse halves on the stitched ones.
  const FlashFftPlan q = make_flashfft_plan(preset("box-3d27p"));
  const FlashFftCounters m = flashfft_tile_pair_counters(q);
  const double half = q.rows.padded * q.cols.padded * (q.rows.padded + q.cols.padded) / 64.0;
  CHECK(m.mma == static_cast<std::int64_t>((q.depth.length + q.stitched[2]) * half));
}

TEST_CASE("flashfft emulation method runs its plan, times and reports fused steps", "[flashfft]") {
  const Method m = cpu_variant(flashfft_descriptor());
  CHECK(m.id == "flashfft");
  CHECK(m.backend == Backend::Emulate);
  CHECK(m.precision == Precision::FP64);
  CHECK(m.unavailable_reason().empty());
  MethodRun run;
  run.stencil = preset("heat-2d");
  run.extent = extent_of({45, 38});
  run.steps = 7;
  run.boundary = dirichlet(0.5);
  run.values = initial_values(run.extent, InitialCondition::HotSpot, 1);
  std::vector<double> ref = run.values;
  ReferenceOptions ro;
  ro.boundary = run.boundary;
  reference_advance(run.stencil, run.extent, ref, 7, Precision::FP64, ro);
  std::vector<int> progress;
  run.progress = [&](int done, int) {
    progress.push_back(done);
    return true;
  };
  const PlanPtr plan = m.plan(run.stencil, 3); // T = 3, asked for
  CHECK(plan->fused_steps == 3);
  CHECK(m.plan(run.stencil)->fused_steps == 1); // the emulation's own choice
  const MethodTiming t = m.run(*plan, run);
  CHECK(t.steps_done == 7);
  CHECK(t.fused_steps == 3);
  CHECK(t.seconds > 0);
  CHECK(progress == std::vector<int>{3, 6, 7});
  CHECK(compare(run.values, ref).rel_l2 < kBound);
  // Cancelling after the first pass stops there.
  run.progress = [](int, int) { return false; };
  CHECK(m.run(*plan, run).steps_done == 3);
}
