// ConvStencil: the stencil2row layout against the paper's lookup-table formulas, the triangular kernel matrices
// of dual tessellation, temporal fusion, the m8n8k4 emulation against the FP64 reference, and the cost model
// against LoRAStencil's Eq. 13-14 and SPIDER's Table 2.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "core/convstencil/convstencil_emulation.hpp"
#include "core/convstencil/convstencil_method.hpp"
#include "core/error.hpp"
#include "test_tcstencil_support.hpp"

using namespace se;
using namespace se::test;

namespace {

double entry(const std::vector<double>& m, const ConvStencilPlan& p, int row, int col) {
  return m[static_cast<std::size_t>(row * p.n_padded + col)];
}

// Sizes that are not multiples of the 8U-wide tile (and awkward along the other axes too).
Extent awkward_extent(int dims) {
  return dims == 1 ? extent_of(1, 150) : dims == 2 ? extent_of(2, 70, 13) : extent_of(3, 19, 9, 8);
}

ErrorMetrics convstencil_error(const Stencil& s, const ConvStencilOptions& o, const Extent& e, int steps,
                               const Boundary& b, std::uint64_t seed) {
  const ConvStencilPlan plan = make_convstencil_plan(s, o);
  return error_against_reference(s, e, steps, b, seed, [&](std::vector<double>& v) {
    REQUIRE(convstencil_advance(plan, e, v, steps, b) == steps);
  });
}

} // namespace

TEST_CASE("stencil2row matches the lookup tables of the paper's kernels for a 7-wide kernel", "[convstencil]") {
  // The public 2D kernel (k = 7, tiles of 64 outputs and 70 input columns) fills A where (j+1) % 8 != 0 and
  // j < 63, at segment j / 8, offset j % 8; and B where (j+2) % 8 != 0 and j > 6, at (j-7) / 8, (j-7) % 8.
  const ConvStencilPlan p = make_convstencil_plan(preset("box-2d49p"));
  REQUIRE(p.k == 7);
  REQUIRE(p.segment == 8);
  const Stencil2RowLayout& l = p.layout;
  REQUIRE(l.input_columns == 70);
  for (int j = 0; j < 70; ++j) {
    const auto u = static_cast<std::size_t>(j);
    const bool in_a = (j + 1) % 8 != 0 && j < 63, in_b = (j + 2) % 8 != 0 && j > 6;
    CHECK(l.a_segment[u] == (in_a ? j / 8 : -1));
    CHECK(l.a_offset[u] == (in_a ? j % 8 : -1));
    CHECK(l.b_segment[u] == (in_b ? (j - 7) / 8 : -1));
    CHECK(l.b_offset[u] == (in_b ? (j - 7) % 8 : -1));
  }
  CHECK(l.overlap == 7 * 6); // A of segment s+1 repeats k-1 columns of B of segment s
  CHECK(p.k_columns == 49);
  CHECK(p.k_padded == 52);
  CHECK(p.chunks() == 13);
  CHECK(p.mma_per_tile_row() == 26);
  CHECK(p.outputs_per_tile_row() == 64);
}

TEST_CASE("dual tessellation: kernel_a is lower and kernel_b strictly upper triangular per kernel row", "[convstencil]") {
  const Stencil s = seeded_stencil(2, 2, 7, false);
  const ConvStencilPlan p = make_convstencil_plan(s); // r = 2: no fusion, k = 5, U = 6
  REQUIRE(p.fused_steps == 1);
  REQUIRE(p.kernels.size() == 1);
  const auto& kern = p.kernels[0];
  for (int row = 0; row < p.k_padded; ++row)
    for (int t = 0; t < p.n_padded; ++t) {
      const int i = row / p.k, j = row % p.k;
      const bool real = row < p.k_columns && t < p.segment;
      CHECK(entry(kern.kernel_a, p, row, t) == (real && j >= t ? s.at(j - t - 2, i - 2) : 0.0));
      CHECK(entry(kern.kernel_b, p, row, t) == (real && j < t ? s.at(j + 5 - t - 2, i - 2) : 0.0));
    }
  // A * kernel_a + B * kernel_b, as plain products, is the stencil along a row: a 1D check of the identity.
  const Stencil w = seeded_stencil(1, 3, 8, false);
  const ConvStencilPlan q = make_convstencil_plan(w);
  REQUIRE(q.k == 7);
  std::vector<double> row(static_cast<std::size_t>(q.layout.input_columns));
  for (std::size_t c = 0; c < row.size(); ++c) row[c] = std::sin(0.7 * static_cast<double>(c)) + 0.1 * static_cast<double>(c);
  for (int seg = 0; seg < 8; ++seg)
    for (int t = 0; t < q.segment; ++t) {
      double mm = 0, direct = 0;
      for (int j = 0; j < q.k; ++j) {
        mm += row[static_cast<std::size_t>(seg * q.segment + j)] * entry(q.kernels[0].kernel_a, q, j, t);
        mm += row[static_cast<std::size_t>(seg * q.segment + q.k + j)] * entry(q.kernels[0].kernel_b, q, j, t);
        direct += w.at(j - 3) * row[static_cast<std::size_t>(seg * q.segment + t + j)];
      }
      CHECK(mm == Approx(direct).epsilon(1e-14));
    }
}

TEST_CASE("ConvStencil fuses 3 steps of radius-1 kernels into W^3", "[convstencil]") {
  for (const char* name : {"heat-1d", "heat-2d", "box-2d9p", "heat-3d", "box-3d27p"}) {
    INFO(name);
    const ConvStencilPlan p = make_convstencil_plan(preset(name));
    CHECK(p.fused_steps == 3);
    CHECK(p.fused.radius == 3);
    CHECK(p.k == 7);
    CHECK(p.segment == 8);
    CHECK(p.n_tiles() == 1);
    CHECK(p.fused.sum() == Approx(std::pow(p.stencil.sum(), 3)).epsilon(1e-14));
  }
  for (const char* name : {"1d5p", "star-2d13p", "box-2d49p"}) CHECK(make_convstencil_plan(preset(name)).fused_steps == 1);
  // W^3 of the 5-point star is the diamond |dx| + |dy| <= 3: 25 non-zero weights.
  CHECK(make_convstencil_plan(preset("heat-2d")).fused.nonzero_count() == 25);
  const Stencil w2 = fused_kernel(preset("heat-1d"), 2);
  const Stencil h = preset("heat-1d"); // a, b, a: W^2 = a^2, 2ab, b^2 + 2a^2, 2ab, a^2
  const double a = h.at(-1), b = h.at(0);
  CHECK(w2.at(-2) == Approx(a * a));
  CHECK(w2.at(-1) == Approx(2 * a * b));
  CHECK(w2.at(0) == Approx(b * b + 2 * a * a));
}

TEST_CASE("convstencil equals the FP64 reference for every preset, both boundaries, awkward sizes", "[convstencil]") {
  for (const std::string& name : preset_names()) {
    const Stencil s = preset(name);
    REQUIRE(convstencil_unsupported_reason(s).empty());
    for (const Boundary& b : kBoundaries) {
      INFO(name << " " << to_string(b.kind));
      // 4 steps: one fused pass of 3 and a remainder of 1 for radius-1 kernels, 4 passes for the others.
      Extent e = awkward_extent(s.dims);
      for (int d = 0; d < s.dims; ++d) e.n[d] = std::max<std::int64_t>(e.n[d], 2 * s.radius + 3); // box-2d225p
      CHECK(convstencil_error(s, {}, e, 4, b, 21).rel_l2 < 1e-12);
    }
  }
}

TEST_CASE("convstencil on seeded random stencils, symmetric and not, and every fusion depth", "[convstencil]") {
  std::uint64_t seed = 500;
  for (const int dims : {1, 2, 3})
    for (const int r : {1, 2, 3})
      for (const bool symmetric : {true, false}) {
        if (dims == 3 && r == 3) continue; // the 3D 7x7x7 kernel is covered by the fused radius-1 presets
        ++seed;
        INFO("dims " << dims << " r " << r << (symmetric ? " symmetric" : " asymmetric"));
        const Stencil s = seeded_stencil(dims, r, seed, symmetric);
        const Boundary& b = kBoundaries[seed % 2];
        CHECK(convstencil_error(s, {}, awkward_extent(dims), 2, b, seed).rel_l2 < 1e-12);
      }
  // Fusing 2 steps of radius 2 or 3 gives 9- and 13-wide kernels: U = 10 or 14 outputs need two n = 8 tiles.
  for (const int r : {1, 2, 3})
    for (const int fused : {2, 3}) {
      if (fused * r > kMaxRadius) continue;
      INFO("r " << r << " fused " << fused);
      const Stencil s = seeded_stencil(2, r, 600 + r, false);
      const ConvStencilPlan p = make_convstencil_plan(s, {fused});
      CHECK(p.n_tiles() == (p.segment > 8 ? 2 : 1));
      for (const Boundary& b : kBoundaries)
        CHECK(convstencil_error(s, {fused}, awkward_extent(2), fused + 1, b, 601).rel_l2 < 1e-12);
    }
}

TEST_CASE("ConvStencil rejects what it cannot take, with a reason a person can act on", "[convstencil]") {
  CHECK_THAT(convstencil_unsupported_reason(preset("box-2d49p"), {3}), Catch::Contains("radius 9") && Catch::Contains("fuse fewer"));
  CHECK_THROWS_AS(make_convstencil_plan(preset("box-2d49p"), {3}), InputError);
  CHECK_THAT(convstencil_unsupported_reason(preset("heat-2d"), {4}), Catch::Contains("1 to 3"));
  CHECK_THAT(convstencil_unsupported_reason(preset("heat-2d"), {-1}), Catch::Contains("got -1"));
  Stencil bad = preset("heat-2d");
  bad.weights.pop_back();
  CHECK_FALSE(convstencil_unsupported_reason(bad).empty());
  CHECK_THROWS_AS(fused_kernel(preset("box-2d49p"), 3), InputError);
  const ConvStencilPlan p = make_convstencil_plan(preset("heat-2d"));
  std::vector<double> v(100, 0.0);
  CHECK_THROWS_AS(convstencil_advance(p, extent_of(3, 10, 10, 1), v, 1, {}), InputError); // 2D stencil, 3D grid
  CHECK_THROWS_AS(convstencil_advance(p, extent_of(2, 10, 10), v, -1, {}), InputError);
}

TEST_CASE("ConvStencil cost model: LoRAStencil Eq. 13-14 and SPIDER Table 2 from our plan", "[convstencil]") {
  const ConvStencilPlan box = make_convstencil_plan(preset("box-2d49p")); // h = 3, no fusion
  const CostReport c = convstencil_cost(box);
  CHECK(c.method == "convstencil");
  CHECK(c.fused_steps == 1);
  CHECK(c.mma_per_point == Approx(26.0 / 64));
  // LoRAStencil Eq. 13 per point: 2 * ceil(49/4) / 64 fragments; over RDG's 1/8 (Eq. 12) that is 3.25 (Eq. 14).
  CHECK(lorastencil_eq13_fragments_per_point(3) == Approx(26.0 / 64));
  CHECK(box.fragment_loads_per_tile_row() / 64.0 == Approx(lorastencil_eq13_fragments_per_point(3)));
  CHECK(box.fragment_loads_per_tile_row() / 64.0 / (1.0 / 8) == Approx(3.25));
  CHECK(lorastencil_eq14_ratio(3) == Approx(3.25));
  CHECK(lorastencil_eq14_ratio(4) == Approx(4.2));
  // h = 4: U = 10 needs two n-tiles, but each A fragment serves both, so the loads still follow Eq. 13.
  const ConvStencilPlan h4 = make_convstencil_plan(seeded_stencil(2, 4, 3, true));
  CHECK(h4.fragment_loads_per_tile_row() / 80.0 == Approx(lorastencil_eq13_fragments_per_point(4)));
  CHECK(h4.mma_per_tile_row() == 2 * h4.fragment_loads_per_tile_row());
  // SPIDER Table 2, Box-2D3R: 104 MACs and 13 input elements per point.
  CHECK(c.executed_flops_per_point == Approx(2 * 104.0));
  CHECK(c.shared_bytes_per_point == Approx(13.0 * 8));
  CHECK(c.useful_flops_per_point == 98.0);
  // kernel_a and kernel_b each hold 7 rows x 28 weights of 52 x 8 = 416 entries: 440 zeros in 26 chunks.
  CHECK(c.fragment_zero_fraction == Approx(440.0 / (26 * 64)));
  CHECK(c.global_bytes_per_point == Approx(8.0 * (70.0 * 38 / (64.0 * 32) + 1)));
  CHECK(c.cuda_core_flops_per_point == 0.0);
  // Fusion divides the per-pass work by 3 base steps.
  const CostReport heat = convstencil_cost(make_convstencil_plan(preset("heat-2d")));
  CHECK(heat.fused_steps == 3);
  CHECK(heat.mma_per_point == Approx(26.0 / 64 / 3));
  CHECK(heat.fragment_zero_fraction > c.fragment_zero_fraction); // the diamond W^3 has 24 zero weights
  CHECK(heat.useful_flops_per_point == 10.0);
}

TEST_CASE("ConvStencil method and plan summary", "[convstencil]") {
  const Method m = cpu_variant(convstencil_descriptor());
  CHECK(m.id == "convstencil");
  CHECK(m.backend == Backend::Emulate);
  CHECK(m.precision == Precision::FP64);
  CHECK(m.unavailable_reason().empty());
  const Extent e = extent_of(2, 40, 21);
  CHECK(m.unsupported_reason(preset("heat-2d"), e).empty());
  CHECK_FALSE(m.unsupported_reason(preset("heat-2d"), extent_of(1, 40)).empty());
  // 7 steps: passes of 3, 3 and a remainder of 1.
  MethodRun run = method_run(preset("box-2d9p"), e, 7, {BoundaryKind::Dirichlet, 0.5}, InitialCondition::HotSpot);
  const auto expect = reference_result(run);
  std::vector<int> reported;
  run.progress = [&](int done, int total) {
    CHECK(total == 7);
    reported.push_back(done);
    return true;
  };
  const MethodTiming t = m.run(run);
  CHECK(t.steps_done == 7);
  CHECK(t.fused_steps == 3);
  CHECK(reported == std::vector<int>{3, 6, 7});
  CHECK(compare(run.values, expect).rel_l2 < 1e-12);
  run.progress = [](int, int) { return false; };
  CHECK(m.run(run).steps_done == 3);

  const PlanSummary sum = plan_summary_convstencil(preset("box-2d49p"), extent_of(2, 100, 50));
  CHECK(sum.method == "convstencil");
  CHECK_THAT(sum.text, Catch::Contains("stencil2row") && Catch::Contains("kernel_a") && Catch::Contains("kernel_b") &&
                           Catch::Contains("LoRAStencil Eq. 13") && Catch::Contains("2 tiles"));
  CHECK(sum.json["kernels"].size() == 1);
  CHECK(sum.json["stencil2row"]["overlap"] == 42);
  CHECK(plan_summary_convstencil(preset("box-3d27p"), extent_of(3, 8, 8, 8)).json["kernels"].size() == 7);
  CHECK_THROWS_AS(plan_summary_convstencil(preset("heat-2d"), extent_of(2, 2, 40)), InputError);
}
