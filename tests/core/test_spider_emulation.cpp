// SPIDER's fragment-level emulation against the FP64 reference: every accepted preset and seeded random
// stencils (symmetric and not), both boundaries, grids that are not multiples of the warp tile, both variants.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <vector>

#include "core/error.hpp"
#include "core/error_bound.hpp"
#include "core/spider/spider_emulation.hpp"
#include "core/spider/spider_method.hpp"

using namespace se;

namespace {

// Seeded weights in [-1, 1] scaled to sum|w| = 1, so many steps stay inside FP16. Symmetric stencils draw one
// weight per set of |offsets| (the papers' radially symmetric stencils).
Stencil random_stencil(std::mt19937& rng, int dims, int r, bool symmetric) {
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  Stencil s = make_stencil(dims, r, symmetric ? "random-symmetric" : "random");
  std::map<std::pair<int, int>, double> by_class;
  double sum = 0;
  for_each_offset(s, [&](int dx, int dy, int) {
    const std::pair<int, int> key = std::minmax(std::abs(dx), std::abs(dy)); // a copy: minmax returns references
    if (!by_class.count(key)) by_class[key] = dist(rng);
    s.at(dx, dy) = symmetric ? by_class[key] : dist(rng);
    sum += std::abs(s.at(dx, dy));
  });
  for (double& w : s.weights) w /= sum;
  return s;
}

// A grid that no warp tile divides: two tiles and a bit in each direction.
Extent awkward_extent(const SpiderPlan& plan) {
  const SpiderGeometry& g = plan.geometry;
  Extent e;
  e.dims = g.dims;
  e.n = {2 * g.tile_x + 3, g.dims == 1 ? 1 : 2 * g.tile_y + 5, 1};
  return e;
}

struct Outcome {
  double rel_l2 = 0;       // against the FP64 reference
  double bound = 0;        // the FP16 error bound of this run (core/error_bound.hpp)
  double worst_excess = 0; // one step: how far past the FP16-rounding allowance any point strays (<= 0 passes)
};

// One step of SPIDER against the reference given the same FP16 inputs (weights, grid, boundary rounded):
// both sum exactly rounded products, SPIDER in FP32, so an output may differ by one FP16 ulp where the FP32
// sum lands on the other side of a rounding boundary, plus the FP32 sum's own error.
double fp16_step_excess(const Stencil& s, const Extent& e, const std::vector<double>& initial,
                        const std::vector<double>& spider_result, const Boundary& boundary) {
  Stencil rounded = s;
  double abs_sum = 0;
  for (double& w : rounded.weights) {
    w = round_to_half(w);
    abs_sum += std::abs(w);
  }
  std::vector<double> v(initial.size());
  double max_in = std::abs(round_to_half(boundary.value));
  for (std::size_t i = 0; i < v.size(); ++i) {
    v[i] = round_to_half(initial[i]);
    max_in = std::max(max_in, std::abs(v[i]));
  }
  ReferenceOptions opt;
  opt.boundary = {boundary.kind, round_to_half(boundary.value)};
  reference_advance(rounded, e, v, 1, Precision::FP16, opt);
  const double sum_error = 64 * std::ldexp(abs_sum * max_in, -24);
  double worst = -1;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const double allowance = std::ldexp(std::abs(v[i]), -10) + std::ldexp(1.0, -24) + sum_error;
    worst = std::max(worst, std::abs(spider_result[i] - v[i]) - allowance);
  }
  return worst;
}

Outcome run_and_compare(const Stencil& s, SpiderVariant variant, const Extent& e, const Boundary& boundary, int steps,
                        std::uint64_t seed, SwapParity parity = SwapParity::Odd) {
  const SpiderPlan plan = make_spider_plan(s, {variant, parity});
  const std::vector<double> initial = initial_values(e, InitialCondition::Random, seed);
  std::vector<double> result = initial, reference = initial;
  const SpiderRunCounts counts = spider_advance(plan, e, result, steps, boundary);
  REQUIRE(counts.steps_done == steps);
  ReferenceOptions opt;
  opt.boundary = boundary;
  reference_advance(s, e, reference, steps, Precision::FP64, opt);
  Outcome o;
  o.rel_l2 = compare(result, reference).rel_l2;
  o.bound = error_bound(s, Precision::FP16, steps, boundary, initial, reference);
  o.worst_excess = steps == 1 ? fp16_step_excess(s, e, initial, result, boundary) : -1;
  return o;
}

const Boundary kBoundaries[] = {{BoundaryKind::Dirichlet, 0.375}, {BoundaryKind::Periodic, 0.0}};

} // namespace

// The bound: the project's FP16 error bound of each run (FP16 weights and grid, FP32 sums, for these weights, steps
// and data); the one-step check against the FP16-rounded reference is the tight one (one FP16 ulp per point).
TEST_CASE("spider emulation matches the reference on every preset it accepts", "[spider]") {
  int accepted = 0;
  for (const auto& name : preset_names()) {
    const Stencil s = preset(name);
    if (s.dims == 3) {
      CHECK_FALSE(cpu_variant(spider_descriptor()).unsupported_reason(s, parse_extent("16x16x16")).empty());
      continue;
    }
    ++accepted;
    for (const SpiderVariant variant : {SpiderVariant::Sparse, SpiderVariant::Dense})
      for (const Boundary& boundary : kBoundaries)
        for (const int steps : {1, 4}) {
          const Extent e = awkward_extent(make_spider_plan(s, {variant, SwapParity::Odd}));
          const Outcome o = run_and_compare(s, variant, e, boundary, steps, 5);
          INFO(name << " " << to_string(variant) << " " << to_string(boundary.kind) << " " << steps << " steps on "
                    << e.to_string());
          CHECK(o.rel_l2 <= o.bound);
          if (steps == 1) CHECK(o.worst_excess <= 0);
        }
  }
  CHECK(accepted == 10); // the 1D and 2D presets, box-2d225p and 1d15p included
}

// The GPU kernels' lane order (radius 3 and 7; the dense variant keeps it too): the same outputs to one FP16 ulp.
TEST_CASE("spider emulation of the lane-ordered plans matches the reference", "[spider]") {
  for (const std::string name : {"box-2d49p", "box-2d225p", "1d7p", "1d15p"})
    for (const SpiderVariant variant : {SpiderVariant::Sparse, SpiderVariant::Dense}) {
      const Stencil s = preset(name);
      const Extent e = awkward_extent(make_spider_plan(s, {variant, SwapParity::Lanes}));
      const Outcome o = run_and_compare(s, variant, e, kBoundaries[0], 1, 8, SwapParity::Lanes);
      INFO(name << " " << to_string(variant) << " on " << e.to_string());
      CHECK(o.rel_l2 <= o.bound);
      CHECK(o.worst_excess <= 0);
    }
}

TEST_CASE("spider emulation matches the reference on random stencils", "[spider]") {
  std::mt19937 rng(2024);
  int case_index = 0;
  for (int dims = 1; dims <= 2; ++dims)
    for (int r = 0; r <= kMaxRadius; ++r)
      for (const bool symmetric : {true, false}) {
        const Stencil s = random_stencil(rng, dims, r, symmetric);
        const SpiderVariant variant = case_index % 3 == 2 ? SpiderVariant::Dense : SpiderVariant::Sparse;
        const Boundary& boundary = kBoundaries[case_index % 2];
        const int steps = case_index % 4 == 0 ? 3 : 1;
        const Extent e = awkward_extent(make_spider_plan(s, {variant, SwapParity::Odd}));
        const Outcome o = run_and_compare(s, variant, e, boundary, steps, 100 + static_cast<std::uint64_t>(case_index));
        INFO(dims << "D r = " << r << (symmetric ? " symmetric " : " ") << to_string(variant) << " "
                  << to_string(boundary.kind) << " " << steps << " steps on " << e.to_string());
        CHECK(o.rel_l2 <= o.bound);
        if (steps == 1) CHECK(o.worst_excess <= 0);
        ++case_index;
      }
}

TEST_CASE("spider emulation on grids smaller than one warp tile", "[spider]") {
  std::mt19937 rng(31);
  for (const Boundary& boundary : kBoundaries) {
    const Outcome box = run_and_compare(preset("box-2d49p"), SpiderVariant::Sparse, parse_extent("7x9"), boundary, 1, 8);
    CHECK(box.rel_l2 <= box.bound);
    CHECK(box.worst_excess <= 0);
    const Stencil s = random_stencil(rng, 1, 2, false);
    const Outcome line = run_and_compare(s, SpiderVariant::Sparse, parse_extent("5"), boundary, 2, 9);
    CHECK(line.rel_l2 <= line.bound);
  }
}

TEST_CASE("spider emulation: both swap parities give the same grid", "[spider]") {
  std::mt19937 rng(9);
  const Stencil s = random_stencil(rng, 2, 3, false);
  const Extent e = parse_extent("21x35");
  const std::vector<double> initial = initial_values(e, InitialCondition::Random, 4);
  std::vector<double> odd = initial, even = initial;
  spider_advance(make_spider_plan(s, {SpiderVariant::Sparse, SwapParity::Odd}), e, odd, 2, {});
  spider_advance(make_spider_plan(s, {SpiderVariant::Sparse, SwapParity::Even}), e, even, 2, {});
  // Each output's kept products are the same set in a different k order; FP32 sums may differ in the last bit
  // before the FP16 rounding, so allow one FP16 ulp.
  for (std::size_t i = 0; i < odd.size(); ++i) CHECK(std::abs(odd[i] - even[i]) <= std::ldexp(std::abs(odd[i]), -10) + 1e-7);
}

TEST_CASE("spider emulation issues the plan's MMAs on every warp tile", "[spider]") {
  const SpiderPlan plan = make_spider_plan(preset("box-2d25p"));
  const Extent e = parse_extent("31x20");
  std::vector<double> v = initial_values(e, InitialCondition::Random, 1);
  const SpiderRunCounts counts = spider_advance(plan, e, v, 3, {});
  const std::int64_t tiles = ((31 + plan.geometry.tile_x - 1) / plan.geometry.tile_x) *
                             ((20 + plan.geometry.tile_y - 1) / plan.geometry.tile_y);
  CHECK(counts.tiles_per_step == tiles);
  CHECK(counts.mma_issued == 3 * tiles * static_cast<std::int64_t>(plan.mmas.size()));
}

TEST_CASE("spider emulation refuses values FP16 cannot hold and stops on overflow", "[spider]") {
  const SpiderPlan plan = make_spider_plan(preset("heat-2d"));
  const Extent e = parse_extent("12x12");
  std::vector<double> v(144, 1.0);
  v[5] = 1e6;
  CHECK_THROWS_WITH(spider_advance(plan, e, v, 1, {}), Catch::Contains("65504"));
  std::vector<double> ok(144, 1.0);
  CHECK_THROWS_WITH(spider_advance(plan, e, ok, 1, {BoundaryKind::Dirichlet, 1e5}), Catch::Contains("boundary value"));

  Stencil loud = make_stencil(2, 1, "loud");
  for (double& w : loud.weights) w = 100.0;
  std::vector<double> hot(144, 80.0); // 9 x 100 x 80 = 72000 > 65504 inside
  CHECK_THROWS_WITH(spider_advance(make_spider_plan(loud), e, hot, 3, {}), Catch::Contains("overflowed at step 1 of 3"));
  CHECK_THROWS_AS(spider_advance(plan, parse_extent("2x12"), ok, 1, {}), InputError);
  CHECK_THROWS_AS(spider_advance(plan, parse_extent("12x13"), ok, 1, {}), InputError);
}

TEST_CASE("spider methods run through the Method interface", "[spider]") {
  for (const Method& m : {cpu_variant(spider_descriptor()), cpu_variant(spider_dense_descriptor())}) {
    CHECK(m.backend == Backend::Emulate);
    CHECK(m.precision == Precision::FP16);
    CHECK(m.unavailable_reason().empty());
    MethodRun run;
    run.stencil = preset("star-2d13p");
    run.extent = parse_extent("40x27");
    run.steps = 5;
    run.boundary = {BoundaryKind::Periodic, 0.0};
    run.values = initial_values(run.extent, InitialCondition::Gaussian, 0);
    const std::vector<double> initial = run.values;
    std::vector<double> reference = run.values;
    int calls = 0;
    run.progress = [&](int done, int total) {
      ++calls;
      CHECK(total == 5);
      return done < 2; // cancel after the second step
    };
    const MethodTiming t = m.run(run);
    CHECK(t.steps_done == 2);
    CHECK(calls == 2);
    CHECK(t.seconds >= 0);
    ReferenceOptions opt;
    opt.boundary = run.boundary;
    reference_advance(run.stencil, run.extent, reference, 2, Precision::FP64, opt);
    CHECK(compare(run.values, reference).rel_l2 <=
          error_bound(run.stencil, Precision::FP16, 2, run.boundary, initial, reference));
  }
  CHECK(spider_descriptor()->id == "spider");
  CHECK(spider_dense_descriptor()->id == "spider-dense");
}
