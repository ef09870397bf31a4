// LoRAStencil's cross split and star expansion: terms sum back to every plane of W^T, single gathers where a
// vector is one weight, the MMA counts on the GPU's warp tiles, the cost-model choice and its stated reason.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/lorastencil/cross_decomposition.hpp"
#include "core/lorastencil/lorastencil_method.hpp"
#include "core/lorastencil/lorastencil_plan.hpp"

using namespace se;

namespace {

double max_abs_diff(const WeightMatrix& a, const WeightMatrix& b) {
  double m = 0;
  for (std::size_t i = 0; i < a.values.size(); ++i) m = std::max(m, std::abs(a.values[i] - b.values[i]));
  return m;
}

// Arms of independent random weights of both signs (not symmetric), and a random centre.
Stencil random_star(int dims, int radius, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  Stencil s = make_stencil(dims, radius, "random-star");
  s.at(0, 0, 0) = d(rng);
  for (int k = -radius; k <= radius; ++k) {
    if (k == 0) continue;
    s.at(k, 0, 0) = d(rng);
    if (dims >= 2) s.at(0, k, 0) = d(rng);
    if (dims >= 3) s.at(0, 0, k) = d(rng);
  }
  return s;
}

// The paper's 8x8 tile, or the GPU kernels' warp tile: m16n8k4 with 4 fragments in 2D, 2 in 3D.
LoraStencilOptions tile_options(bool gpu_tile, int dims, int fused, DecompositionChoice choice) {
  LoraStencilOptions o;
  o.fused_steps = fused;
  o.decomposition = choice;
  if (gpu_tile) {
    o.shape = MmaShape::M16N8K4_F64;
    o.warp_fragments = dims == 3 ? 2 : 4;
  }
  return o;
}

int only_nonzero(const std::vector<double>& v) {
  int at = -1, count = 0;
  for (std::size_t i = 0; i < v.size(); ++i)
    if (v[i] != 0.0) at = static_cast<int>(i), ++count;
  return count == 1 ? at : -1;
}

} // namespace

TEST_CASE("the cross split: the centre row as an X·V gather, the column without its centre as a U·X gather",
          "[lorastencil][cross]") {
  for (const char* name : {"heat-2d", "star-2d13p"}) {
    const Stencil s = preset(name);
    const WeightMatrix w = weight_matrix(s);
    const int h = w.radius();
    INFO(name);
    REQUIRE(cross_obstacle(w).empty());
    const WeightDecomposition d = cross_decomposition(w);
    CHECK(d.kind == DecompositionKind::Cross);
    REQUIRE(d.terms.size() == 2);
    // Row term: u = δ at the centre, v = the centre row (centre included).
    CHECK(only_nonzero(d.terms[0].u) == h);
    for (int j = 0; j < w.side; ++j) CHECK(d.terms[0].u[static_cast<std::size_t>(h)] * d.terms[0].v[static_cast<std::size_t>(j)] == w.at(h, j));
    // Column term: v = δ at the centre, u = the centre column with a zero centre.
    CHECK(only_nonzero(d.terms[1].v) == h);
    CHECK(d.terms[1].u[static_cast<std::size_t>(h)] == 0.0);
    for (int i = 0; i < w.side; ++i)
      if (i != h) CHECK(d.terms[1].u[static_cast<std::size_t>(i)] * d.terms[1].v[static_cast<std::size_t>(h)] == w.at(i, h));
    // Products of a weight with 1 are exact: the split leaves no residual at all.
    CHECK(max_abs_diff(d.reconstruct(), w) == 0.0);
    CHECK(max_abs_diff(d.terms.back().residual, WeightMatrix{w.side, std::vector<double>(w.values.size(), 0.0)}) == 0.0);
    const TermGather row = term_gather(d.terms[0], h), column = term_gather(d.terms[1], h);
    CHECK(row.kind == GatherKind::Columns);
    CHECK(row.wu == 0);
    CHECK(row.wv == h);
    CHECK(column.kind == GatherKind::Rows);
    CHECK(column.wu == h);
    CHECK(column.wv == 0);
    CHECK_THAT(d.reason, Catch::Contains("cross"));
  }
  const WeightMatrix box = weight_matrix(preset("box-2d9p"));
  CHECK_THAT(cross_obstacle(box), Catch::Contains("w(dx=-1,dy=-1)"));
  CHECK_THROWS_WITH(cross_decomposition(box), Catch::Contains("not a cross"));
  // A plane holding only a row is one X·V gather.
  WeightMatrix row{5, std::vector<double>(25, 0.0)};
  row.at(2, 0) = 0.25;
  row.at(2, 2) = 0.5;
  row.at(2, 4) = 0.25;
  const WeightDecomposition r = cross_decomposition(row);
  REQUIRE(r.terms.size() == 1);
  CHECK(term_gather(r.terms[0], 2).kind == GatherKind::Columns);
  CHECK(max_abs_diff(r.reconstruct(), row) == 0.0);
}

TEST_CASE("a fused star expands into T+1 rank-1 terms that sum back to every plane of W^T", "[lorastencil][cross]") {
  // heat-2d: W^T = sum_k C(T,k) X^k ⊗ Y^(T-k); the k = 0 and k = T parts are single gathers, the others chains of
  // 1D kernels of half-widths (T - j, j).
  const Stencil heat = preset("heat-2d");
  for (int steps = 1; steps <= 3; ++steps) {
    const WeightDecomposition d = star_power_decomposition(heat, steps, 0);
    const WeightMatrix w = weight_matrix(fused_kernel(heat, steps));
    INFO("heat-2d T=" << steps << ": " << d.reason);
    CHECK(max_abs_diff(d.weights, w) == 0.0);
    CHECK(max_abs_diff(d.reconstruct(), w) < 1e-15 * w.max_abs() * 4);
    REQUIRE(static_cast<int>(d.terms.size()) == steps + 1);
    CHECK(term_gather(d.terms[0], steps).kind == GatherKind::Columns);
    CHECK(term_gather(d.terms[0], steps).wv == steps);
    CHECK(term_gather(d.terms[1], steps).kind == GatherKind::Rows);
    CHECK(term_gather(d.terms[1], steps).wu == steps);
    for (int j = 1; j < steps; ++j) {
      const TermGather g = term_gather(d.terms[static_cast<std::size_t>(j + 1)], steps);
      CHECK(g.kind == GatherKind::Chain);
      CHECK(g.wu == steps - j);
      CHECK(g.wv == j);
    }
    if (steps > 1) CHECK_THAT(d.reason, Catch::Contains("multinomial"));
  }
  // Random stars of both signs, not symmetric, 2D and 3D: every plane of every fusion depth.
  std::uint64_t seed = 1;
  for (int dims : {2, 3})
    for (int radius : {1, 2})
      for (int steps = 1; steps * radius <= (dims == 3 ? 4 : 6) && steps <= 3; ++steps) {
        const Stencil s = random_star(dims, radius, seed++);
        const Stencil power = fused_kernel(s, steps);
        const int rz = dims == 3 ? power.radius : 0;
        for (int dz = -rz; dz <= rz; ++dz) {
          INFO(dims << "D r=" << radius << " T=" << steps << " dz=" << dz);
          REQUIRE(star_power_obstacle(s, steps, dz).empty());
          const WeightDecomposition d = star_power_decomposition(s, steps, dz);
          const WeightMatrix w = weight_matrix(power, dz);
          CHECK(max_abs_diff(d.reconstruct(), w) < 1e-14 * std::max(w.max_abs(), 1e-300));
          CHECK(static_cast<int>(d.terms.size()) <= steps + 1);
          int gathers = 0;
          for (const RankOneTerm& t : d.terms)
            gathers += !t.on_cuda_cores && term_gather(t, power.radius).kind != GatherKind::Chain;
          CHECK(gathers <= 2);
        }
      }
  CHECK_THAT(star_power_obstacle(preset("box-2d9p"), 2, 0), Catch::Contains("not a star"));
  CHECK_THAT(star_power_obstacle(preset("heat-1d"), 2, 0), Catch::Contains("1D"));
  CHECK_THAT(star_power_obstacle(preset("heat-3d"), 2, 3), Catch::Contains("outside"));
  CHECK_THROWS_AS(star_power_decomposition(preset("box-3d27p"), 1, 0), InputError);
}

TEST_CASE("MMAs on the GPU's warp tiles: the cross split against the SVD, exactly as the kernels count them",
          "[lorastencil][cross]") {
  // m16n8k4 on 16x32 warp tiles (4 fragments sharing T): a chain of half-widths (wu, wv) takes
  // (4 + ceil(wu/2)) * (3 or 4 T tiles) + 4 * (2 or 3 V' offsets) * 2; a U·X gather 4 * (4 + ceil(wu/2));
  // an X·V gather 4 * (2 + ceil(wv/2)).
  struct Expected {
    const char* name;
    int fused;
    int auto_mma, svd_mma;
  };
  const Expected cases[] = {
      {"heat-2d", 1, 12 + 20, 2 * 41},            // row (wv 1) + column (wu 1), against two 3x3 chains
      {"heat-2d", 2, 12 + 20 + 41, 3 * 41},       // X^2, Y^2, 2 X ⊗ Y, against three 5x5 chains
      {"heat-2d", 3, 16 + 24 + 41 + 41, 4 * 46}, // X^3, Y^3, the 2x1 and 1x2 chains, against four 7x7 chains
      {"star-2d13p", 1, 16 + 24, 2 * 46},         // the notes' 80 FLOP per point, against 184
  };
  for (const Expected& c : cases) {
    INFO(c.name << " T=" << c.fused);
    const LoraStencilPlan plan = make_lorastencil_plan(preset(c.name), tile_options(true, 2, c.fused, DecompositionChoice::Auto));
    const LoraStencilPlan svd = make_lorastencil_plan(preset(c.name), tile_options(true, 2, c.fused, DecompositionChoice::Svd));
    CHECK(plan.planes[0].decomposition.kind == DecompositionKind::Cross);
    CHECK(plan.tile.warp_points() == 512);
    CHECK(plan.cost.mma_per_point * c.fused * 512 == Approx(c.auto_mma).epsilon(1e-12));
    CHECK(svd.cost.mma_per_point * c.fused * 512 == Approx(c.svd_mma).epsilon(1e-12));
    CHECK_THAT(plan.planes[0].decomposition.reason,
               Catch::Contains(fmt::format("chosen by the cost model: {} MMAs per 16x32 warp tile", c.auto_mma)));
    CHECK_THAT(plan.planes[0].decomposition.reason, Catch::Contains("svd"));
    CHECK(plan.cuda_core_terms() == 0);
  }
  // heat-3d on 16x16 warp tiles: the centre plane's two gathers (2 x 3 + 2 x 5 MMAs), the others on CUDA cores.
  const LoraStencilPlan heat3 = make_lorastencil_plan(preset("heat-3d"), tile_options(true, 3, 1, DecompositionChoice::Auto));
  CHECK(heat3.cost.mma_per_point * 256 == Approx(16).epsilon(1e-12));
  CHECK(heat3.cuda_core_terms() == 2);
  // Boxes keep the pyramid: nothing else gathers them in fewer MMAs.
  for (const char* name : {"box-2d9p", "box-2d49p", "box-3d27p"}) {
    const Stencil s = preset(name);
    const LoraStencilPlan p = make_lorastencil_plan(s, tile_options(true, s.dims, 1, DecompositionChoice::Auto));
    for (const LoraPlane& plane : p.planes) {
      INFO(name << " plane " << plane.dz << ": " << plane.decomposition.reason);
      CHECK(plane.decomposition.kind == DecompositionKind::Pyramid);
    }
  }
}

TEST_CASE("a forced cross split takes stars and their fused powers and refuses other planes, saying why",
          "[lorastencil][cross]") {
  for (const char* name : {"heat-2d", "star-2d13p", "heat-3d"})
    for (int fused = 1; fused <= 2; ++fused) {
      const Stencil s = preset(name);
      const LoraStencilPlan p = make_lorastencil_plan(s, tile_options(false, s.dims, fused, DecompositionChoice::Cross));
      for (const LoraPlane& plane : p.planes)
        if (plane.kind == PlaneKind::TensorCores) CHECK(plane.decomposition.kind == DecompositionKind::Cross);
    }
  CHECK_THROWS_WITH(make_lorastencil_plan(preset("box-2d9p"), tile_options(false, 2, 1, DecompositionChoice::Cross)),
                    Catch::Contains("cross split cannot take plane dz = 0") && Catch::Contains("not a cross"));
  CHECK(parse_decomposition_choice("cross") == DecompositionChoice::Cross);
  LoraStencilOptions bad;
  bad.warp_fragments = 0;
  CHECK_THROWS_WITH(make_lorastencil_plan(preset("heat-2d"), bad), Catch::Contains("1 to 16 C fragments"));
  // The plan text names the split and why it was chosen.
  const PlanSummary summary = plan_summary_lorastencil(preset("heat-2d"), parse_extent("64x64"));
  CHECK_THAT(summary.text, Catch::Contains("cross (") && Catch::Contains("chosen by the cost model"));
  CHECK_THAT(summary.text, Catch::Contains("X·V gather"));
}
