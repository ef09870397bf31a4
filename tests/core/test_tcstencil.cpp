// TCStencil: the parameter matrices and CUDA-core remainder of the plan, the FP16 (WMMA) and FP64 (m8n8k4)
// emulations against the FP64 reference, FP16 range rejections, the cost model and the method entry points.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/half.hpp"
#include "core/tcstencil/tcstencil_emulation.hpp"
#include "core/tcstencil/tcstencil_method.hpp"
#include "test_tcstencil_support.hpp"

using namespace se;
using namespace se::test;

namespace {

double at(const ParameterMatrix& p, int L, int row, int col) { return p.weights[static_cast<std::size_t>(row * L + col)]; }

Extent awkward_extent(int dims, int L) {
  // Sizes that are not multiples of the tile: a full tile plus a partial one (and a short third axis).
  // 1D: two whole L x L tiles of consecutive points and a partial third.
  return dims == 1 ? extent_of(1, 2 * L * L + 3 * L + 5)
       : dims == 2 ? extent_of(2, 2 * L + 5, L + 3)
                   : extent_of(3, L + 3, L + 1, 5);
}

ErrorMetrics tcstencil_error(const Stencil& s, Precision p, const Extent& e, int steps, const Boundary& b, std::uint64_t seed) {
  const TCStencilPlan plan = make_tcstencil_plan(s, p);
  return error_against_reference(s, e, steps, b, seed, [&](std::vector<double>& v) {
    REQUIRE(tcstencil_advance(plan, e, v, steps, b) == steps);
  });
}

// FP16: the grid is stored in FP16 (relative rounding 2^-11 per step) and the weights are rounded to FP16
// (2^-11 each); products are exact in FP32 and the FP32 sums add ~1e-7. For the positive or mildly signed
// stencils tested here (sum |w| <= 1.2 |sum w|) a step costs at most ~3 * 2^-11 * 1.2 = 1.8e-3 relative (the RMS
// is several times smaller), and a stable stencil does not amplify earlier errors, so the error grows at most
// linearly: 1.8e-3 per step (the project's bound, core/error_bound.hpp, is this analysis for each run's data).
constexpr int kFp16Steps = 3;
double fp16_bound(int steps) { return 1.8e-3 * steps; }

} // namespace

TEST_CASE("TCStencil star plan: P_ver holds the vertical slice and the centre, P_hor the horizontal one", "[tcstencil]") {
  const Stencil s = preset("star-2d13p"); // r = 3
  for (const Precision p : {Precision::FP16, Precision::FP64}) {
    const TCStencilPlan plan = make_tcstencil_plan(s, p);
    const int L = plan.L, r = 3;
    CHECK(L == (p == Precision::FP16 ? 16 : 8));
    CHECK(plan.decomposition == TCStencilDecomposition::Star);
    REQUIRE(plan.matrices.size() == 2);
    const ParameterMatrix& ver = plan.matrices[0];
    const ParameterMatrix& hor = plan.matrices[1];
    CHECK(ver.name == "P_ver");
    CHECK(ver.side == ParameterSide::Left);
    CHECK(hor.side == ParameterSide::Right);
    for (int i = 0; i < L; ++i)
      for (int j = 0; j < L; ++j) {
        const int d = j - i;
        CHECK(at(ver, L, i, j) == (std::abs(d) <= r ? s.at(0, d) : 0.0));
        CHECK(at(hor, L, j, i) == (std::abs(d) <= r && d != 0 ? s.at(d, 0) : 0.0));
      }
    // Partial coefficients: the first and last r lines have their band cut by the tile border.
    std::vector<int> partial;
    for (int l = 0; l < L; ++l)
      if (l < r || l >= L - r) partial.push_back(l);
    CHECK(ver.partial_lines == partial);
    CHECK(hor.partial_lines == partial);
    // Each off-centre tap of the star misses the tile for |d| lines of outputs: 4 * L * (1 + 2 + 3) FMAs.
    CHECK(plan.cuda_core_taps.size() == 12);
    CHECK(plan.cuda_core_fma_per_tile() == 4 * L * 6);
    CHECK(plan.mma_per_tile() == (p == Precision::FP16 ? 2 : 4));
    CHECK(plan.inner_points_per_tile() == (L - 2 * r) * (L - 2 * r));
  }
}

TEST_CASE("TCStencil 1D plan: the line as rows of L consecutive points, the whole band in P_hor", "[tcstencil]") {
  const Stencil s = preset("1d7p");
  for (const auto& [p, shape] : {std::pair{Precision::FP16, MmaShape::M16N8K16_F16_F32},
                                 std::pair{Precision::FP64, MmaShape::M16N8K4_F64}}) {
    const TCStencilPlan plan = make_tcstencil_plan(s, p, shape);
    const int L = plan.L, r = s.radius;
    CHECK(plan.decomposition == TCStencilDecomposition::Star);
    REQUIRE(plan.matrices.size() == 1); // no P_ver: the centre is on P_hor's diagonal
    const ParameterMatrix& hor = plan.matrices[0];
    CHECK(hor.name == "P_hor");
    CHECK(hor.side == ParameterSide::Right);
    for (int row = 0; row < L; ++row)
      for (int col = 0; col < L; ++col)
        CHECK(at(hor, L, row, col) == (std::abs(row - col) <= r ? s.at(row - col) : 0.0));
    // Each non-zero off-centre tap finishes the columns the row's band cuts, on every row of the tile.
    REQUIRE(plan.cuda_core_taps.size() == 6);
    for (const CudaCoreTap& t : plan.cuda_core_taps) {
      CHECK(t.dy == 0);
      CHECK(t.row_begin == 0);
      CHECK(t.row_end == L);
      CHECK(t.col_end - t.col_begin == std::abs(t.dx));
      CHECK((t.dx < 0 ? t.col_begin == 0 : t.col_end == L));
    }
    CHECK(plan.cuda_core_fma_per_tile() == 2 * (1 + 2 + 3) * L);
  }
}

TEST_CASE("TCStencil box plan: one matrix per kernel row, input shifted by the row, border columns on CUDA cores", "[tcstencil]") {
  const Stencil s = preset("box-2d25p"); // r = 2
  const TCStencilPlan plan = make_tcstencil_plan(s, Precision::FP16);
  CHECK(plan.decomposition == TCStencilDecomposition::Box);
  REQUIRE(plan.matrices.size() == 5);
  for (int i = 0; i < 5; ++i) {
    const ParameterMatrix& p = plan.matrices[static_cast<std::size_t>(i)];
    const int dy = i - 2;
    CHECK(p.row_shift == dy);
    CHECK(p.side == ParameterSide::Right);
    for (int k = 0; k < 16; ++k)
      for (int n = 0; n < 16; ++n) {
        const double expect = std::abs(k - n) <= 2 ? s.at(k - n, dy) : 0.0;
        CHECK(at(p, 16, k, n) == expect);
        CHECK(p.operand[static_cast<std::size_t>(k * 16 + n)] == round_to_half(expect));
      }
  }
  // Rows never leave what the shifted GEMMs cover; each tap with dx != 0 misses |dx| columns of every row.
  for (const CudaCoreTap& t : plan.cuda_core_taps) {
    CHECK(t.dx != 0);
    CHECK(t.row_begin == 0);
    CHECK(t.row_end == 16);
    CHECK(t.col_end - t.col_begin == std::abs(t.dx));
  }
  CHECK(plan.cuda_core_fma_per_tile() == 5 * 16 * (1 + 2) * 2);
  // 3D box: every (dy, dz) row is a GEMM on the plane dz.
  const TCStencilPlan box3 = make_tcstencil_plan(preset("box-3d27p"), Precision::FP64);
  CHECK(box3.matrices.size() == 9);
  // 3D star: the off-plane centre taps go to CUDA cores over the whole tile.
  const TCStencilPlan star3 = make_tcstencil_plan(preset("heat-3d"), Precision::FP16);
  CHECK(star3.matrices.size() == 2);
  int whole_tile = 0;
  for (const CudaCoreTap& t : star3.cuda_core_taps) whole_tile += t.dz != 0 && t.outputs() == 256;
  CHECK(whole_tile == 2);
}

TEST_CASE("tcstencil (FP16 WMMA) and tcstencil-fp64 match the FP64 reference for every preset they take", "[tcstencil]") {
  for (const Precision p : {Precision::FP64, Precision::FP16}) {
    const int L = p == Precision::FP16 ? 16 : 8, steps = p == Precision::FP16 ? kFp16Steps : 3;
    int accepted = 0, expected = 0;
    for (const std::string& name : preset_names()) {
      const Stencil s = preset(name);
      expected += 2 * s.radius + 1 < L;
      if (!tcstencil_unsupported_reason(s, p).empty()) continue;
      ++accepted;
      for (const Boundary& b : kBoundaries) {
        INFO(name << " " << to_string(p) << " " << to_string(b.kind));
        const double err = tcstencil_error(s, p, awkward_extent(s.dims, L), steps, b, 11).rel_l2;
        CHECK(err < (p == Precision::FP16 ? fp16_bound(steps) : 1e-12));
        if (p == Precision::FP16) CHECK(err > 0.0); // a zero error would mean the emulation is not FP16
      }
    }
    CHECK(accepted == expected); // every 1D, 2D and 3D preset whose radius fits L > 2r + 1
    CHECK(accepted >= 10);
  }
}

TEST_CASE("TCStencil on seeded random stencils, symmetric and not, star and box, 2D and 3D", "[tcstencil]") {
  std::uint64_t seed = 300;
  for (const int dims : {1, 2, 3})
    for (const int r : {1, 2, 3})
      for (const bool symmetric : {true, false})
        for (const bool star : {false, true}) {
          if (dims == 3 && r > 1) continue; // 3D keeps to radius 1 for test time; the planes work the same way
          ++seed;
          INFO("dims " << dims << " r " << r << (symmetric ? " symmetric" : " asymmetric") << (star ? " star" : " box"));
          Stencil s64 = seeded_stencil(dims, r, seed, symmetric);
          Stencil s16 = seeded_smoothing_stencil(dims, r, seed, symmetric);
          if (star) {
            s64 = star_part(s64);
            s16 = normalized(star_part(s16));
          }
          const Boundary& b = kBoundaries[seed % 2];
          CHECK(make_tcstencil_plan(s64, Precision::FP64).decomposition ==
                (star || dims == 1 ? TCStencilDecomposition::Star : TCStencilDecomposition::Box)); // 1D: one P_hor
          CHECK(tcstencil_error(s64, Precision::FP64, awkward_extent(dims, 8), 2, b, seed).rel_l2 < 1e-12);
          CHECK(tcstencil_error(s16, Precision::FP16, awkward_extent(dims, 16), kFp16Steps, b, seed).rel_l2 <
                fp16_bound(kFp16Steps));
        }
}

TEST_CASE("tcstencil FP16 is the FP16-operand, FP32-accumulate computation: within one FP16 ulp of it", "[tcstencil]") {
  // The same step in FP64 from FP16-rounded weights, grid and boundary, rounded to FP16 once: only the FP32
  // accumulation differs, which can move a result across an FP16 rounding boundary by at most one ulp.
  for (const char* name : {"heat-2d", "box-2d49p", "star-2d13p", "box-3d27p"})
    for (const Boundary& b : kBoundaries) {
      INFO(name << " " << to_string(b.kind));
      const Stencil s = preset(name);
      Stencil rounded = s;
      for (double& w : rounded.weights) w = round_to_half(w);
      const Extent e = awkward_extent(s.dims, 16);
      Boundary b16 = b;
      b16.value = round_to_half(b.value);
      auto values = initial_values(e, InitialCondition::Random, 5);
      for (double& v : values) v = round_to_half(v);
      auto expect = values;
      ReferenceOptions opt;
      opt.boundary = b16;
      reference_advance(rounded, e, expect, 1, Precision::FP16, opt);
      tcstencil_advance(make_tcstencil_plan(s, Precision::FP16), e, values, 1, b);
      int exact = 0;
      for (std::size_t i = 0; i < values.size(); ++i) {
        REQUIRE(values[i] == round_to_half(values[i]));
        const double ulp = std::ldexp(1.0, std::ilogb(std::max(std::abs(expect[i]), 6.1e-5)) - 10);
        REQUIRE(std::abs(values[i] - expect[i]) <= ulp);
        exact += values[i] == expect[i];
      }
      CHECK(exact > static_cast<int>(values.size()) * 9 / 10);
    }
}

TEST_CASE("TCStencil rejects what it cannot take, with a reason a person can act on", "[tcstencil]") {
  const auto reason = [](const Stencil& s, Precision p) { return tcstencil_unsupported_reason(s, p); };
  CHECK(reason(preset("heat-1d"), Precision::FP16).empty()); // 1D: rows of L consecutive points
  CHECK_THAT(reason(preset("1d15p"), Precision::FP64), Catch::Contains("at most 3"));
  Stencil wide = seeded_stencil(2, 4, 1, true);
  CHECK(reason(wide, Precision::FP16).empty());
  CHECK_THAT(reason(wide, Precision::FP64), Catch::Contains("L > 2r+1") && Catch::Contains("at most 3"));
  CHECK_THROWS_WITH(make_tcstencil_plan(wide, Precision::FP64), Catch::Contains("radius 4"));
  CHECK_THAT(reason(preset("heat-2d"), Precision::FP32), Catch::Contains("no FP32"));
  Stencil tiny = preset("heat-2d");
  tiny.at(1, 0) = 1e-7; // a subnormal in FP16: rounds to 1.19e-7
  CHECK_THAT(reason(tiny, Precision::FP16), Catch::Contains("FP16") && Catch::Contains("tcstencil-fp64"));
  CHECK(reason(tiny, Precision::FP64).empty());
  Stencil huge = preset("box-2d9p");
  for (double& w : huge.weights) w = 9000.0; // each fits FP16, their sum 81000 does not
  CHECK_THAT(reason(huge, Precision::FP16), Catch::Contains("overflow"));
  Stencil nan = preset("heat-2d");
  nan.at(0, 1) = NAN;
  CHECK_FALSE(reason(nan, Precision::FP64).empty());
}

TEST_CASE("TCStencil FP16 refuses a step that could overflow and leaves the grid as it was", "[tcstencil]") {
  Stencil s = preset("box-2d9p");
  for (double& w : s.weights) w = 1.0; // gain 9
  const TCStencilPlan plan = make_tcstencil_plan(s, Precision::FP16);
  const Extent e = extent_of(2, 20, 18);
  std::vector<double> values(static_cast<std::size_t>(e.points()), 100.0);
  const auto before = values;
  // 100 -> 900 -> 8100 -> 72900: the third step must be refused before it runs.
  CHECK_THROWS_WITH(tcstencil_advance(plan, e, values, 3, {BoundaryKind::Periodic, 0.0}), Catch::Contains("65504"));
  CHECK(values == before);
  CHECK(tcstencil_advance(plan, e, values, 2, {BoundaryKind::Periodic, 0.0}) == 2);
  CHECK(values[0] == 8100.0);
  std::vector<double> too_big(static_cast<std::size_t>(e.points()), 7e4);
  CHECK_THROWS_WITH(tcstencil_advance(make_tcstencil_plan(preset("heat-2d")), e, too_big, 1, {}), Catch::Contains("initial grid") && Catch::Contains("70000"));
}

TEST_CASE("TCStencil cost model counts the plan's MMAs, bytes, zeros and FLOPs", "[tcstencil]") {
  const TCStencilPlan heat = make_tcstencil_plan(preset("heat-2d"), Precision::FP16); // r = 1
  const CostReport c = tcstencil_cost(heat);
  CHECK(c.method == "tcstencil");
  CHECK(c.mma_per_point == Approx(2.0 / 256));
  // P_ver: a 3-wide band, 16*3 - 2 = 46 non-zeros; P_hor: the band without its diagonal, 30 non-zeros.
  CHECK(c.fragment_zero_fraction == Approx((210.0 + 226.0) / (2 * 512)));
  CHECK(c.cuda_core_flops_per_point == Approx(2.0 * 64 / 256));
  CHECK(c.executed_flops_per_point == Approx(2.0 / 256 * 8192 + 2.0 * 64 / 256));
  CHECK(c.useful_flops_per_point == 10.0);
  // Star tile + cross-shaped halo read once, one write, 2 bytes each.
  CHECK(c.global_bytes_per_point == Approx(2.0 * ((256.0 + 4 * 16) / 256 + 1)));
  CHECK(c.shared_bytes_per_point == Approx(2.0 * (2 * 256.0 + 64) / 256));
  CHECK(c.arithmetic_intensity() == Approx(c.executed_flops_per_point / c.global_bytes_per_point));

  // SPIDER Table 2 lists TCStencil at 286.72 operations per point for Box-2D3R: L^3(2r+1)/(L-2r)^2 with tiles
  // that update only their 100 inner points. Our tiles update all 256 points, so we count 7*16^3/256 = 112 MACs
  // on tensor cores plus the border FMAs (2*(1+2+3)*16*7/256 = 5.25); the note states both.
  CHECK(spider_table1_tcstencil_macs_per_point(3, 16) == Approx(286.72));
  const CostReport box = tcstencil_cost(make_tcstencil_plan(preset("box-2d49p"), Precision::FP16));
  CHECK(box.executed_flops_per_point == Approx(2 * (112.0 + 5.25)));
  const auto note = std::find_if(box.notes.begin(), box.notes.end(), [](const auto& n) { return n.first == "SPIDER Table 1"; });
  REQUIRE(note != box.notes.end());
  CHECK_THAT(note->second, Catch::Contains("286.72") && Catch::Contains("112.00"));
  const CostReport fp64 = tcstencil_cost(make_tcstencil_plan(preset("box-2d49p"), Precision::FP64));
  CHECK(fp64.mma_per_point == Approx(7.0 * 2 / 64));
  CHECK(fp64.executed_flops_per_point == Approx(7.0 * 2 / 64 * 512 + 2.0 * 12 * 8 * 7 / 64));
}

// The GPU's FP16 stars of radius 1-2 run two steps per launch (kernels/tcstencil, step2_fp16): per block of 8 x 8
// tiles, step 1 on 9 x 9 tiles and step 2 on 8 x 8, one read of the (144 + 2r)^2 input cells per two steps.
TEST_CASE("TCStencil's GPU plan fuses two steps for FP16 stars of radius 1-2, and counts the fused block", "[tcstencil]") {
  const PlanRequest gpu{Backend::GPU, 0};
  const PlanPtr heat = tcstencil_method_plan(preset("heat-2d"), gpu, Precision::FP16, MmaShape::M16N8K16_F16_F32, true);
  CHECK(heat->fused_steps == 2);
  const CostReport& c = heat->cost;
  const CostReport one = tcstencil_cost(plan_value<TCStencilPlan>(*heat), 1);
  CHECK(c.fused_steps == 2);
  CHECK(c.mma_per_point == Approx(one.mma_per_point * (81.0 + 64.0) / 128));
  CHECK(c.cuda_core_flops_per_point == Approx(one.cuda_core_flops_per_point * 145.0 / 128));
  CHECK(c.global_bytes_per_point == Approx(2.0 * (146.0 * 146.0 / (128.0 * 128.0) + 1.0) / 2)); // 2.30 bytes
  CHECK(c.global_bytes_per_point < one.global_bytes_per_point / 1.9);
  CHECK_THAT(heat->brief, Catch::Contains("two steps per launch"));
  // One step on request; boxes, radius 3, FP64 and the CPU emulation take one; deeper requests are refused.
  CHECK(tcstencil_method_plan(preset("heat-2d"), {Backend::GPU, 1}, Precision::FP16, MmaShape::M16N8K16_F16_F32, true)
            ->fused_steps == 1);
  CHECK_THROWS_AS(tcstencil_method_plan(preset("heat-2d"), {Backend::GPU, 3}, Precision::FP16,
                                        MmaShape::M16N8K16_F16_F32, true), InputError);
  CHECK_THROWS_AS(tcstencil_method_plan(preset("box-2d9p"), {Backend::GPU, 2}, Precision::FP16,
                                        MmaShape::M16N8K16_F16_F32, true), InputError);
  CHECK(tcstencil_method_plan(preset("box-2d9p"), gpu, Precision::FP16, MmaShape::M16N8K16_F16_F32, true)->fused_steps == 1);
  CHECK(tcstencil_method_plan(preset("star-2d13p"), gpu, Precision::FP16, MmaShape::M16N8K16_F16_F32, true)->fused_steps == 1);
  CHECK(tcstencil_method_plan(preset("heat-2d"), gpu, Precision::FP64, MmaShape::M16N8K4_F64, true)->fused_steps == 1);
  CHECK(tcstencil_method_plan(preset("heat-1d"), gpu, Precision::FP16, MmaShape::M16N8K16_F16_F32, true)->fused_steps == 1);
  CHECK(tcstencil_method_plan(preset("heat-2d"), {Backend::Emulate, 0}, Precision::FP16, MmaShape::M16N8K16_F16_F32)
            ->fused_steps == 1);
  CHECK_THROWS_AS(tcstencil_cost(make_tcstencil_plan(preset("box-2d9p"), Precision::FP16), 2), InputError);
}

TEST_CASE("TCStencil methods and plan summaries", "[tcstencil]") {
  const Method m16 = cpu_variant(tcstencil_descriptor()), m64 = cpu_variant(tcstencil_fp64_descriptor());
  CHECK(m16.id == "tcstencil");
  CHECK(m64.id == "tcstencil-fp64");
  CHECK(m16.backend == Backend::Emulate);
  CHECK(m16.precision == Precision::FP16);
  CHECK(m64.precision == Precision::FP64);
  CHECK(m16.unavailable_reason().empty());
  const Extent e2 = extent_of(2, 30, 20);
  CHECK(m16.unsupported_reason(preset("box-2d9p"), e2).empty());
  CHECK(m16.unsupported_reason(preset("heat-1d"), extent_of(1, 30)).empty());
  CHECK_THAT(m16.unsupported_reason(preset("box-2d9p"), extent_of(3, 10, 10, 10)), Catch::Contains("3D grid"));
  CHECK_FALSE(m64.unsupported_reason(preset("box-2d49p"), extent_of(2, 5, 20)).empty()); // smaller than the stencil

  MethodRun run = method_run(preset("heat-2d"), e2, 4, {BoundaryKind::Periodic, 0.0}, InitialCondition::Gaussian);
  const auto initial = run.values, expect = reference_result(run);
  int calls = 0;
  run.progress = [&](int done, int total) {
    ++calls;
    CHECK(total == 4);
    return done < 3; // cancel after the third step
  };
  const MethodTiming t = m64.run(run);
  CHECK(t.steps_done == 3);
  CHECK(calls == 3);
  CHECK(t.seconds >= 0.0);
  run.progress = {};
  run.values = initial;
  CHECK(m64.run(run).steps_done == 4);
  CHECK(compare(run.values, expect).rel_l2 < 1e-12);

  const PlanSummary sum = plan_summary_tcstencil(preset("heat-2d"), e2);
  CHECK(sum.method == "tcstencil");
  CHECK_THAT(sum.text, Catch::Contains("P_ver") && Catch::Contains("P_hor") && Catch::Contains("observed") &&
                           Catch::Contains("CUDA-core remainder") && Catch::Contains("2 x 2 tiles"));
  CHECK(sum.json["matrices"].size() == 2);
  CHECK(sum.json["L"] == 16);
  CHECK(sum.cost.mma_per_point == Approx(2.0 / 256));
  const PlanSummary sum64 = plan_summary_tcstencil_fp64(preset("box-3d27p"), extent_of(3, 9, 9, 9));
  CHECK(sum64.method == "tcstencil-fp64");
  CHECK(sum64.json["matrices"].size() == 9);
  const PlanSummary line = plan_summary_tcstencil(preset("1d7p"), extent_of(1, 1000));
  CHECK_THAT(line.text, Catch::Contains("rows of 16 consecutive points") && Catch::Contains("4 x 1 tiles"));
  CHECK(line.json["matrices"].size() == 1);
  CHECK(line.cost.mma_per_point == Approx(1.0 / 256)); // one WMMA 16x16x16 per tile of 256 points
  CHECK(line.cost.global_bytes_per_point == Approx(2.0 * ((256.0 + 6) / 256 + 1)));
  CHECK_THROWS_AS(plan_summary_tcstencil(preset("heat-2d"), extent_of(3, 9, 9, 9)), InputError);
}

TEST_CASE("TCStencil plans on the GPU kernels' shapes (m16n8k16 FP16, m16n8k4 FP64, L = 16) match the FP64 reference "
          "up to radius 7", "[tcstencil]") {
  CHECK(tcstencil_tile_side(MmaShape::M16N8K4_F64) == 16);
  CHECK(tcstencil_tile_side(MmaShape::M8N8K4_F64) == 8);
  Stencil r4 = make_stencil(2, 4, "r4");
  r4.at(0, 0) = 0.5;
  r4.at(4, 0) = 0.5;
  CHECK_FALSE(tcstencil_unsupported_reason(r4, Precision::FP64).empty()); // L = 8: radius <= 3
  CHECK(tcstencil_unsupported_reason(r4, Precision::FP64, MmaShape::M16N8K4_F64).empty());
  for (const std::string name : {"heat-2d", "box-2d49p", "star-2d13p"}) {
    const Stencil s = preset(name);
    for (const auto& [p, shape] : {std::pair{Precision::FP64, MmaShape::M16N8K4_F64},
                                   std::pair{Precision::FP16, MmaShape::M16N8K16_F16_F32}}) {
      const TCStencilPlan plan = make_tcstencil_plan(s, p, shape);
      CHECK(plan.L == 16);
      CHECK(plan.mma_per_gemm() == (p == Precision::FP64 ? 8 : 2));
      for (const Boundary& b : kBoundaries) {
        INFO(name << " " << to_string(p) << " " << to_string(b.kind));
        const Extent e = awkward_extent(2, 16);
        const double err = error_against_reference(s, e, 3, b, 21, [&](std::vector<double>& v) {
                             REQUIRE(tcstencil_advance(plan, e, v, 3, b) == 3);
                           }).rel_l2;
        CHECK(err < (p == Precision::FP16 ? fp16_bound(3) : 1e-12));
      }
    }
  }
  CHECK_THROWS_AS(make_tcstencil_plan(preset("heat-2d"), Precision::FP64, MmaShape::M16N8K16_F16_F32), InputError);
}
