// LoRAStencil plans: the pyramid and SVD sum back to W, banded U/V gather the stencil, butterfly swapping reuses
// C registers as A registers lane by lane, the paper's Eq. 12-16 numbers, the fusion rule, and rejections.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "core/error.hpp"
#include "core/fragment/mma_emulation.hpp"
#include "core/lorastencil/lorastencil_method.hpp"
#include "core/lorastencil/lorastencil_emulation.hpp"
#include "core/lorastencil/lorastencil_plan.hpp"
#include "core/reference.hpp"

using namespace se;

namespace {

const MmaShape kF64Shapes[] = {MmaShape::M8N8K4_F64, MmaShape::M16N8K4_F64, MmaShape::M16N8K8_F64,
                               MmaShape::M16N8K16_F64};

double max_abs_diff(const WeightMatrix& a, const WeightMatrix& b) {
  double m = 0;
  for (std::size_t i = 0; i < a.values.size(); ++i) m = std::max(m, std::abs(a.values[i] - b.values[i]));
  return m;
}

// Weights depending only on (|dx|, |dy|): mirror-symmetric along both axes, not necessarily under transposition.
WeightMatrix mirror_symmetric(int radius, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> d(0.2, 1.0);
  const int side = 2 * radius + 1;
  std::vector<double> by_distance(static_cast<std::size_t>((radius + 1) * (radius + 1)));
  for (double& v : by_distance) v = d(rng);
  WeightMatrix w{side, std::vector<double>(static_cast<std::size_t>(side * side))};
  for (int i = 0; i < side; ++i)
    for (int j = 0; j < side; ++j)
      w.at(i, j) = by_distance[static_cast<std::size_t>(std::abs(i - radius) * (radius + 1) + std::abs(j - radius))];
  return w;
}

WeightMatrix random_matrix(int radius, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  const int side = 2 * radius + 1;
  WeightMatrix w{side, std::vector<double>(static_cast<std::size_t>(side * side))};
  for (double& v : w.values) v = d(rng);
  return w;
}

std::vector<double> matmul(const std::vector<double>& a, const std::vector<double>& b, int n, int k, int m) {
  std::vector<double> c(static_cast<std::size_t>(n * m), 0.0);
  for (int i = 0; i < n; ++i)
    for (int kk = 0; kk < k; ++kk)
      for (int j = 0; j < m; ++j)
        c[static_cast<std::size_t>(i * m + j)] += a[static_cast<std::size_t>(i * k + kk)] * b[static_cast<std::size_t>(kk * m + j)];
  return c;
}

void check_ring_zero(const WeightMatrix& r, int level) {
  const int last = r.side - 1 - level;
  for (int j = level; j <= last; ++j) {
    CHECK(r.at(level, j) == 0.0);
    CHECK(r.at(last, j) == 0.0);
    CHECK(r.at(j, level) == 0.0);
    CHECK(r.at(j, last) == 0.0);
  }
}

} // namespace

TEST_CASE("the pyramid of box-2d49p is four rank-1 terms of sides 7, 5, 3, 1 that sum back to W", "[lorastencil]") {
  const WeightMatrix w = weight_matrix(preset("box-2d49p"));
  const WeightDecomposition d = pyramid_decomposition(w);
  REQUIRE(d.kind == DecompositionKind::Pyramid);
  REQUIRE(d.terms.size() == 4);
  for (int i = 0; i < 4; ++i) {
    const RankOneTerm& t = d.terms[static_cast<std::size_t>(i)];
    CHECK(t.size == 7 - 2 * i);
    CHECK(t.offset == i);
    CHECK(t.on_cuda_cores == (i == 3));
    // Each residual is zero on every ring peeled so far, and stays mirror-symmetric (a smaller radially
    // symmetric matrix, Fig. 5).
    for (int level = 0; level <= i; ++level) check_ring_zero(t.residual, level);
    for (int a = 0; a < 7; ++a)
      for (int b = 0; b < 7; ++b) CHECK(t.residual.at(a, b) == Approx(t.residual.at(6 - a, b)).margin(1e-16));
  }
  CHECK(d.tensor_core_terms() == 3);
  CHECK(d.rank == 4); // h + 1: the bound of paper II-C is reached by the 1/(1+d^2) weights
  CHECK(max_abs_diff(d.reconstruct(), w) < 1e-15 * w.max_abs() * 4);
  // C1 matches W on the outer ring: u is W's first column over the corner, v its first row (paper III-C).
  CHECK(d.terms[0].u[0] == 1.0);
  CHECK(d.terms[0].u[3] == Approx(w.at(3, 0) / w.at(0, 0)));
  CHECK(d.terms[0].v[3] == w.at(0, 3));
}

TEST_CASE("the pyramid sums back to W for every mirror-symmetric preset plane and random weights", "[lorastencil]") {
  for (const std::string& name : preset_names()) {
    const Stencil s = preset(name);
    if (s.dims == 1) continue;
    const int rz = s.dims == 3 ? s.radius : 0;
    for (int dz = -rz; dz <= rz; ++dz) {
      const WeightMatrix w = weight_matrix(s, dz);
      const std::string obstacle = pyramid_obstacle(w);
      INFO(name << " plane " << dz << ": " << obstacle);
      const bool star = s.is_star() && w.nonzero_count() > 1;
      CHECK(obstacle.empty() == !star); // stars have zero-cornered rings; every box plane is a pyramid
      const WeightDecomposition d = obstacle.empty() ? pyramid_decomposition(w) : svd_decomposition(w);
      CHECK(max_abs_diff(d.reconstruct(), w) < 1e-14 * w.max_abs());
      CHECK(static_cast<int>(d.terms.size()) <= w.radius() + 1);
    }
  }
  for (int radius = 1; radius <= 4; ++radius)
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      const WeightMatrix w = mirror_symmetric(radius, 100 * radius + seed);
      const std::string obstacle = pyramid_obstacle(w);
      INFO("radius " << radius << " seed " << seed << ": " << obstacle);
      // A large term would mean growth; these weights in [0.2, 1] keep every corner well away from zero.
      REQUIRE(obstacle.empty());
      const WeightDecomposition d = pyramid_decomposition(w);
      CHECK(static_cast<int>(d.terms.size()) == radius + 1);
      CHECK(d.rank <= radius + 1);
      CHECK(max_abs_diff(d.reconstruct(), w) < 1e-14 * w.max_abs());
    }
}

TEST_CASE("stars and non-symmetric weights take the SVD, which sums back to W with rank r", "[lorastencil]") {
  const WeightMatrix star = weight_matrix(preset("star-2d13p"));
  CHECK_THAT(pyramid_obstacle(star), Catch::Contains("zero corner"));
  const WeightDecomposition s = svd_decomposition(star);
  CHECK(s.rank == 2); // a row plus a column
  CHECK(s.terms.size() == 2);
  CHECK(max_abs_diff(s.reconstruct(), star) < 1e-14 * star.max_abs());

  const WeightMatrix w = random_matrix(2, 7);
  CHECK_THAT(pyramid_obstacle(w), Catch::Contains("not mirror-symmetric"));
  CHECK_THROWS_WITH(pyramid_decomposition(w), Catch::Contains("not mirror-symmetric"));
  const WeightDecomposition d = svd_decomposition(w);
  CHECK(d.rank == 5);
  for (const RankOneTerm& t : d.terms) CHECK((t.size == 5 && !t.on_cuda_cores));
  CHECK(max_abs_diff(d.reconstruct(), w) < 1e-14 * w.max_abs() * 5);
  // A rank-2 product of random vectors is found to have rank 2.
  WeightMatrix low{5, std::vector<double>(25)};
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 5; ++j) low.at(i, j) = (i + 1.0) * (j - 2.5) + std::sin(i) * std::cos(3.0 * j);
  CHECK(svd_decomposition(low).rank == 2);
}

TEST_CASE("U·X·V of every rank-1 term gathers exactly C's stencil over the tile", "[lorastencil]") {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  for (MmaShape shape : kF64Shapes)
    for (int radius : {1, 3}) {
      const GatherTile t = make_gather_tile(shape, radius);
      const ButterflySwap swap = derive_butterfly_swap(shape, t.x_cols);
      const WeightDecomposition dec = pyramid_decomposition(mirror_symmetric(radius, 40 + radius));
      std::vector<double> x(static_cast<std::size_t>(t.x_rows * t.x_cols));
      for (double& v : x) v = d(rng);
      for (const RankOneTerm& term : dec.terms) {
        if (term.on_cuda_cores) continue;
        const BandedPair b = make_banded_pair(t, swap, term);
        const auto tmat = matmul(b.u_band, x, t.tile_rows, t.x_rows, t.x_cols);
        const auto y = matmul(tmat, b.v_band, t.tile_rows, t.x_cols, t.tile_cols);
        const auto y_swapped_inner = [&] { // T' V' with T' = T's columns in butterfly order
          std::vector<double> tp(tmat.size());
          for (int r = 0; r < t.tile_rows; ++r)
            for (int kp = 0; kp < t.x_cols; ++kp)
              tp[static_cast<std::size_t>(r * t.x_cols + kp)] =
                  tmat[static_cast<std::size_t>(r * t.x_cols + swap.permutation[static_cast<std::size_t>(kp)])];
          return matmul(tp, b.v_swapped, t.tile_rows, t.x_cols, t.tile_cols);
        }();
        const WeightMatrix c = term.embedded(2 * radius + 1);
        for (int p = 0; p < t.tile_rows; ++p)
          for (int q = 0; q < t.tile_cols; ++q) {
            double direct = 0;
            for (int i = 0; i <= 2 * radius; ++i)
              for (int j = 0; j <= 2 * radius; ++j) direct += c.at(i, j) * x[static_cast<std::size_t>((p + i) * t.x_cols + q + j)];
            CHECK(y[static_cast<std::size_t>(p * t.tile_cols + q)] == Approx(direct).margin(1e-13));
            CHECK(y_swapped_inner[static_cast<std::size_t>(p * t.tile_cols + q)] == Approx(direct).margin(1e-13));
          }
      }
    }
}

TEST_CASE("butterfly swapping: every A register of T'·V' is the same lane's C register of U·X", "[lorastencil]") {
  const ButterflySwap s8 = derive_butterfly_swap(MmaShape::M8N8K4_F64, 16);
  // Paper Fig. 6: columns {1,3,5,7} (1-based) of T form the first A fragment, {2,4,6,8} the second.
  CHECK(s8.permutation == std::vector<int>{0, 2, 4, 6, 1, 3, 5, 7, 8, 10, 12, 14, 9, 11, 13, 15});
  CHECK(s8.a_sources == std::vector<RegisterSource>{{0, 0}, {0, 1}, {1, 0}, {1, 1}});

  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  for (MmaShape shape : kF64Shapes) {
    const MmaShapeInfo& info = mma_info(shape);
    const int inner = 32; // a multiple of n = 8 and of every k
    const ButterflySwap s = derive_butterfly_swap(shape, inner);
    const FragmentLayout a = fragment_layout(shape, Operand::A), c = fragment_layout(shape, Operand::C);
    INFO(info.id);
    // Lane by lane: the element the A register must hold (row, permuted column) lives in that very lane and
    // register of the C fragment covering that column.
    for (int block = 0; block < inner / info.k; ++block)
      for (int reg = 0; reg < a.regs_per_lane; ++reg)
        for (int lane = 0; lane < kWarpSize; ++lane) {
          const FragmentCoord need = a.at(lane, reg);
          const int t_col = s.permutation[static_cast<std::size_t>(block * info.k + need.col)];
          const FragmentOwner holder = c.owner(need.row, t_col % info.n);
          const RegisterSource src = s.a_sources[static_cast<std::size_t>(block * a.regs_per_lane + reg)];
          CHECK(holder.lane == lane);
          CHECK(src.c_tile == t_col / info.n);
          CHECK(src.c_reg == holder.reg);
        }
    // Numerically: mma U·X into C fragments, hand the registers over, mma with V' = T·V.
    const int rows = info.m;
    std::vector<double> u(static_cast<std::size_t>(rows * info.k)), x(static_cast<std::size_t>(info.k * inner)),
        v(static_cast<std::size_t>(inner * info.n));
    for (auto* m : {&u, &x, &v})
      for (double& e : *m) e = d(rng);
    std::vector<WarpFragment<double>> tfr;
    const auto ua = load_fragment(shape, Operand::A, u.data(), info.k);
    for (int nb = 0; nb < inner / info.n; ++nb) {
      std::vector<double> zero(static_cast<std::size_t>(rows * info.n), 0.0);
      tfr.push_back(load_fragment(shape, Operand::C, zero.data(), info.n));
      mma_f64(shape, ua, load_fragment(shape, Operand::B, x.data() + nb * info.n, inner), tfr.back());
    }
    std::vector<double> zero(static_cast<std::size_t>(rows * info.n), 0.0);
    auto y = load_fragment(shape, Operand::C, zero.data(), info.n);
    for (int block = 0; block < inner / info.k; ++block) {
      std::vector<double> a_init(static_cast<std::size_t>(rows * info.k), 0.0), vp(static_cast<std::size_t>(info.k * info.n));
      auto af = load_fragment(shape, Operand::A, a_init.data(), info.k);
      for (int reg = 0; reg < s.a_regs; ++reg)
        for (int lane = 0; lane < kWarpSize; ++lane) {
          const RegisterSource src = s.a_sources[static_cast<std::size_t>(block * s.a_regs + reg)];
          af.regs[static_cast<std::size_t>(lane * s.a_regs + reg)] =
              tfr[static_cast<std::size_t>(src.c_tile)].regs[static_cast<std::size_t>(lane * s.c_regs + src.c_reg)];
        }
      for (int kk = 0; kk < info.k; ++kk)
        for (int q = 0; q < info.n; ++q)
          vp[static_cast<std::size_t>(kk * info.n + q)] =
              v[static_cast<std::size_t>(s.permutation[static_cast<std::size_t>(block * info.k + kk)] * info.n + q)];
      mma_f64(shape, af, load_fragment(shape, Operand::B, vp.data(), info.n), y);
    }
    std::vector<double> got(static_cast<std::size_t>(rows * info.n));
    store_fragment(y, got.data(), info.n);
    const auto want = matmul(matmul(u, x, rows, info.k, inner), v, rows, inner, info.n);
    for (std::size_t i = 0; i < got.size(); ++i) CHECK(got[i] == Approx(want[i]).margin(1e-13));
  }
}

TEST_CASE("the paper's Eq. 12-16: 3.25x and 4.2x memory, 36/26 MMAs at h = 3, pyramid sides", "[lorastencil]") {
  CHECK(lorastencil_paper_counts(3, 1, 1).memory_ratio_limit == Approx(3.25).epsilon(1e-15));
  CHECK(lorastencil_paper_counts(4, 1, 1).memory_ratio_limit == Approx(4.2).epsilon(1e-15));
  // With a a multiple of 16(h+1) the ceiling in Eq. 13 is exact and the finite-grid ratio equals Eq. 14.
  const LoraPaperCounts h3 = lorastencil_paper_counts(3, 4096, 4096);
  CHECK(h3.rdg_fragment_loads == 4096.0 * 4096 / 8);
  CHECK(h3.memory_ratio == Approx(3.25).epsilon(1e-15));
  CHECK(h3.lorastencil_mma / h3.convstencil_mma == Approx(36.0 / 26.0).epsilon(1e-15));
  CHECK(h3.points_per_update == 64);
  CHECK(h3.pyramid_sides == std::vector<int>{7, 5, 3, 1});
  const LoraPaperCounts h4 = lorastencil_paper_counts(4, 80 * 100, 333);
  CHECK(h4.memory_ratio == Approx(4.2).epsilon(1e-15));
  CHECK(1 - 1 / h4.memory_ratio == Approx(0.7619).epsilon(1e-4)); // "eliminating 76.19%"
  CHECK(1 - 1 / h3.memory_ratio == Approx(0.6923).epsilon(1e-4)); // "eliminates 69.23%"
  CHECK_THROWS_AS(lorastencil_paper_counts(0, 8, 8), InputError);
}

TEST_CASE("our counted cost of box-2d49p: Eq. 16's 12 MMAs for the outer term, fewer for the trimmed inner "
          "terms, Eq. 12's loads, and the emulation executes it",
          "[lorastencil]") {
  LoraStencilOptions o;
  o.fused_steps = 1;
  const LoraStencilPlan plan = make_lorastencil_plan(preset("box-2d49p"), o);
  const LoraPaperCounts paper = lorastencil_paper_counts(3, 1, 1);
  CHECK(plan.tensor_core_terms() == 3);
  CHECK(plan.tile.step1_mma() == 8); // "This process requires a total of 8 MMA operations"
  CHECK(plan.tile.step2_mma() == 4); // "4 MMA operations are conducted, totaling 12"
  // Eq. 16 prices each of the h terms like the outer 7x7 one; the 5x5 and 3x3 terms, trimmed to their own
  // window, need 3 row chunks over 2 T tiles plus 4 T'·V' chunks: 10 each.
  REQUIRE(plan.planes[0].gathers.size() == 3);
  std::vector<int> term_mma;
  for (const TermGather& g : plan.planes[0].gathers) {
    CHECK(g.kind == GatherKind::Chain);
    term_mma.push_back(term_schedule(plan.tile, g).mma);
  }
  CHECK(term_mma == std::vector<int>{12, 10, 10});
  CHECK(paper.lorastencil_mma == Approx(3 * 12.0 / 64).epsilon(1e-15));
  CHECK(plan.cost.mma_per_point == Approx(32.0 / 64).epsilon(1e-15));
  // X is 16x16 doubles per 64 points, as Eq. 12's ab/8 fragments; plus the apex's read on CUDA cores.
  CHECK(plan.cost.shared_bytes_per_point == Approx(32.0 + 8.0).epsilon(1e-15));
  CHECK(plan.cost.useful_flops_per_point == 98);
  CHECK(plan.cost.executed_flops_per_point == Approx(32.0 / 64 * 512 + 2).epsilon(1e-15));
  CHECK(plan.cost.fragment_zero_fraction > 0.3);
  CHECK(plan.cost.fragment_zero_fraction < 0.7);

  // The emulation performs exactly the counted MMAs per point on a grid of whole tiles, in 1D, 2D and 3D, on the
  // paper's 8x8 tile and on the GPU kernels' warp tiles (m16n8k4; 4 fragments in 2D, 2 in 3D).
  for (const bool gpu_tile : {false, true})
    for (const char* name : {"box-2d49p", "heat-1d", "heat-2d", "heat-3d", "box-3d27p", "star-2d13p"}) {
      const Stencil s = preset(name);
      o.shape = gpu_tile ? MmaShape::M16N8K4_F64 : MmaShape::M8N8K4_F64;
      o.warp_fragments = gpu_tile ? (s.dims == 3 ? 2 : 4) : 1;
      for (int fused : {1, 2}) {
        o.fused_steps = fused;
        const LoraStencilPlan p = make_lorastencil_plan(s, o);
        Extent e;
        e.dims = s.dims;
        const std::int64_t rows = gpu_tile ? 32 : 16, cols = gpu_tile ? 32 : 16;
        e.n = s.dims == 1 ? std::array<std::int64_t, 3>{128, 1, 1}
                          : s.dims == 2 ? std::array<std::int64_t, 3>{cols, rows, 1}
                                        : std::array<std::int64_t, 3>{cols / 2, rows / 2, 7};
        std::vector<double> v(static_cast<std::size_t>(e.points()), 1.0);
        const LoraPassCounts counts = lorastencil_pass(p, e, v, Boundary{});
        INFO(name << " T=" << fused << (gpu_tile ? " on the GPU's warp tile" : ""));
        CHECK(static_cast<double>(counts.mma) / static_cast<double>(e.points()) ==
              Approx(p.cost.mma_per_point * fused).epsilon(1e-12));
        CHECK(static_cast<double>(counts.cuda_core_updates) / static_cast<double>(e.points()) ==
              Approx(p.cost.cuda_core_flops_per_point * fused / 2).epsilon(1e-12));
      }
    }
}

TEST_CASE("3D planes: single-weight planes go to CUDA cores, the others to 2D LoRAStencil", "[lorastencil]") {
  LoraStencilOptions o;
  o.fused_steps = 1;
  const LoraStencilPlan heat = make_lorastencil_plan(preset("heat-3d"), o);
  REQUIRE(heat.planes.size() == 3);
  CHECK(heat.planes[0].kind == PlaneKind::CudaCores);
  CHECK(heat.planes[0].dz == -1);
  CHECK(heat.planes[0].weight == preset("heat-3d").at(0, 0, -1));
  CHECK(heat.planes[1].kind == PlaneKind::TensorCores);
  CHECK(heat.planes[1].decomposition.kind == DecompositionKind::Cross); // the 5-point star plane: two gathers
  CHECK(heat.planes[2].kind == PlaneKind::CudaCores);
  const LoraStencilPlan box = make_lorastencil_plan(preset("box-3d27p"), o);
  for (const LoraPlane& p : box.planes) {
    CHECK(p.kind == PlaneKind::TensorCores);
    CHECK(p.decomposition.kind == DecompositionKind::Pyramid);
    CHECK(p.bands.size() == 1);
    CHECK(p.apex != 0.0);
  }
}

TEST_CASE("temporal fusion: W^T equals T reference steps, and the cost-model rule picks T", "[lorastencil]") {
  for (const char* name : {"heat-1d", "box-2d9p", "heat-3d"}) {
    const Stencil s = preset(name);
    const Stencil w3 = fused_kernel(s, 3);
    CHECK(w3.radius == 3 * s.radius);
    Extent e;
    e.dims = s.dims;
    for (int d = 0; d < s.dims; ++d) e.n[static_cast<std::size_t>(d)] = 9 + d;
    std::vector<double> a = initial_values(e, InitialCondition::Random, 5), b = a;
    ReferenceOptions periodic;
    periodic.boundary.kind = BoundaryKind::Periodic;
    reference_advance(s, e, a, 3, Precision::FP64, periodic);
    reference_advance(w3, e, b, 1, Precision::FP64, periodic);
    CHECK(compare(b, a).rel_l2 < 1e-14);
    CHECK(w3.sum() == Approx(std::pow(s.sum(), 3)).epsilon(1e-13));
  }
  // On the paper's A100 the small kernels are memory-bound and fuse; box-2d49p is already tensor-bound.
  const LoraStencilPlan heat1 = make_lorastencil_plan(preset("heat-1d"));
  CHECK(heat1.fused_steps == 3);
  CHECK(heat1.fusion_candidates.size() == 3);
  const LoraStencilPlan box49 = make_lorastencil_plan(preset("box-2d49p"));
  CHECK(box49.fused_steps == 1);
  CHECK(box49.fusion_candidates.size() == 2); // radius 3 fuses at most twice within kMaxRadius
  CHECK(box49.fusion_candidates[0].bound == "tensor cores");
  for (const char* name : {"heat-2d", "box-2d9p", "heat-3d", "box-3d27p", "1d5p"}) {
    const LoraStencilPlan p = make_lorastencil_plan(preset(name));
    INFO(name << ": " << p.fusion_rule);
    // The chosen depth is the rule's: no candidate beats it by the 2% margin a deeper one needs, and a
    // shallower one is never worse.
    const double chosen = p.fusion_candidates[static_cast<std::size_t>(p.fused_steps - 1)].estimated_ps_per_point;
    for (const FusionCandidate& c : p.fusion_candidates) {
      if (c.steps > p.fused_steps) CHECK(c.estimated_ps_per_point >= 0.98 * chosen);
      if (c.steps < p.fused_steps) CHECK(c.estimated_ps_per_point * 0.98 > chosen);
    }
    CHECK(p.cost.fused_steps == p.fused_steps);
    CHECK(p.kernel.radius == p.fused_steps * p.stencil.radius);
  }
}

TEST_CASE("LoRAStencil rejects what it cannot take, saying why", "[lorastencil]") {
  CHECK_THROWS_WITH(make_lorastencil_plan(make_stencil(2, 0, "scale")), Catch::Contains("radius 0"));
  LoraStencilOptions f16;
  f16.shape = MmaShape::M16N8K16_F16_F32;
  CHECK_THROWS_WITH(make_lorastencil_plan(preset("heat-2d"), f16), Catch::Contains("FP64 tensor cores"));
  LoraStencilOptions pyramid;
  pyramid.decomposition = DecompositionChoice::Pyramid;
  Stencil skew = preset("box-2d9p");
  skew.at(1, 0) += 0.05;
  CHECK_THROWS_WITH(make_lorastencil_plan(skew, pyramid), Catch::Contains("not mirror-symmetric along x"));
  CHECK_THROWS_WITH(make_lorastencil_plan(preset("heat-2d"), pyramid), Catch::Contains("zero corner"));
  LoraStencilOptions deep;
  deep.fused_steps = 3;
  CHECK_THROWS_WITH(make_lorastencil_plan(preset("box-2d49p"), deep), Catch::Contains("fuse at most 2 steps"));
  deep.fused_steps = -1;
  CHECK_THROWS_AS(make_lorastencil_plan(preset("box-2d49p"), deep), InputError);
  CHECK_THROWS_WITH(parse_decomposition_choice("qr"), Catch::Contains("auto, pyramid, cross or svd"));

  const Method m = cpu_variant(lorastencil_descriptor());
  CHECK(m.unsupported_reason(make_stencil(1, 0, "scale"), parse_extent("64")).find("radius 0") != std::string::npos);
  CHECK(!m.unsupported_reason(preset("box-2d49p"), parse_extent("5x40")).empty()); // smaller than the stencil
  for (const std::string& name : preset_names()) {
    const Stencil s = preset(name);
    const Extent e = parse_extent(s.dims == 1 ? "100" : s.dims == 2 ? "40x40" : "12x12x12");
    CHECK(m.unsupported_reason(s, e).empty());
  }
  std::vector<double> wrong(10);
  CHECK_THROWS_AS(lorastencil_pass(make_lorastencil_plan(preset("heat-2d")), parse_extent("8x8"), wrong, Boundary{}),
                  InputError);
}

TEST_CASE("the plan summary prints the pyramid, bands, swap and cost, and its JSON carries them", "[lorastencil]") {
  const PlanSummary s = plan_summary_lorastencil(preset("box-2d49p"), parse_extent("256x256"));
  CHECK(s.method == "lorastencil");
  CHECK_THAT(s.text, Catch::Contains("pyramid"));
  CHECK_THAT(s.text, Catch::Contains("C4: 1x1 apex"));
  CHECK_THAT(s.text, Catch::Contains("T' column k' = T column [0 2 4 6 1 3 5 7 8 10 12 14 9 11 13 15]"));
  CHECK_THAT(s.text, Catch::Contains("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64"));
  CHECK_THAT(s.text, Catch::Contains("the SVD alternative"));
  CHECK_THAT(s.text, Catch::Contains("1024 tiles, 32768 MMAs per pass"));
  CHECK(s.json["planes"][0]["decomposition"]["terms"].size() == 4);
  CHECK(s.json["planes"][0]["bands"][0]["U"].size() == 8);
  CHECK(s.json["planes"][0]["bands"][0]["U"][0].size() == 16);
  CHECK(s.json["cost"]["mma_per_point"].get<double>() == Approx(32.0 / 64));
  CHECK(s.json["svd_alternative"]["tensor_core_terms"].get<int>() == 4);
  const PlanSummary fused = plan_summary_lorastencil(preset("box-2d9p"), parse_extent("64x64"));
  CHECK(fused.cost.fused_steps > 1);
  CHECK_THAT(fused.text, Catch::Contains("the base stencil on its own"));
  const PlanSummary line = plan_summary_lorastencil(preset("1d5p"), parse_extent("1000"));
  CHECK_THAT(line.text, Catch::Contains("1D: one gather"));
  CHECK(line.json.contains("line"));
}
