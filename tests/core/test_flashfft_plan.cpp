// FlashFFTStencil's plan: prime-factor maps and diagonal indexing, DFT matrices and their real block forms, the
// register feed derived from core/fragment's layouts (swizzled order, no shuffle), k_f^T, double-layer filling,
// the cost model against an independent count, and the actionable rejections.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <complex>
#include <numbers>
#include <random>
#include <set>

#include "core/error.hpp"
#include "core/flashfft/flashfft_emulation.hpp"
#include "core/flashfft/flashfft_method.hpp"
#include "tests/core/message_of.hpp"

using namespace se;
using cplx = std::complex<double>;

namespace {

FlashFftPlan plan_1d(int l1, int l2, int radius = 1, int fused = 1) {
  Stencil s = make_stencil(1, radius, "random-1d");
  std::mt19937_64 rng(static_cast<std::uint64_t>(l1 * 100 + l2));
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  for (double& w : s.weights) w = d(rng);
  FlashFftOptions o;
  o.rows = l1;
  o.cols = l2;
  o.fused_steps = fused;
  return make_flashfft_plan(s, o);
}

std::vector<cplx> naive_dft(const std::vector<cplx>& x) {
  const std::size_t L = x.size();
  std::vector<cplx> out(L);
  for (std::size_t k = 0; k < L; ++k)
    for (std::size_t n = 0; n < L; ++n)
      out[k] += x[n] * std::polar(1.0, -2.0 * std::numbers::pi * static_cast<double>(k * n % L) / static_cast<double>(L));
  return out;
}

std::vector<cplx> random_complex(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  std::vector<cplx> v(n);
  for (auto& c : v) c = {d(rng), d(rng)};
  return v;
}

double max_diff(const std::vector<cplx>& a, const std::vector<cplx>& b) {
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(a[i] - b[i]));
  return m;
}

int zeros_in(const FftMatrix& m) { return static_cast<int>(std::count(m.values.begin(), m.values.end(), 0.0)); }

using se::testing::message_of;

} // namespace

TEST_CASE("flashfft: the CRT input map is the paper's diagonal walk and Eq. 8 maps the frequencies", "[flashfft]") {
  for (const auto& [l1, l2] : {std::pair{8, 7}, std::pair{16, 15}, std::pair{5, 3}, std::pair{8, 23}}) {
    const FlashFftPlan p = plan_1d(l1, l2);
    const int L = l1 * l2, P2 = p.cols.padded;
    REQUIRE(p.tile[0] == L);
    REQUIRE(p.prime_factor);
    std::set<int> positions, frequencies;
    for (int n1 = 0; n1 < p.rows.padded; ++n1)
      for (int n2 = 0; n2 < P2; ++n2) {
        const int l = p.input_map[static_cast<std::size_t>(n1 * P2 + n2)];
        const int k = p.frequency_map[static_cast<std::size_t>(n1 * P2 + n2)];
        const bool inside = n1 < l1 && n2 < l2;
        CHECK((l >= 0) == inside);
        CHECK((k >= 0) == inside);
        if (!inside) continue;
        CHECK(l % l1 == n1); // Chinese remainder: l = n1 (mod L1), l = n2 (mod L2)
        CHECK(l % l2 == n2);
        CHECK(k == (n1 * l2 + n2 * l1) % L);
        positions.insert(l);
        frequencies.insert(k);
      }
    CHECK(static_cast<int>(positions.size()) == L); // both maps are bijections onto 0..L-1
    CHECK(static_cast<int>(frequencies.size()) == L);
    // The diagonal walk: each next position moves one row down and one column right, wrapping.
    REQUIRE(static_cast<int>(p.diagonal_order.size()) == L);
    for (int l = 1; l < L; ++l) {
      const int a = p.diagonal_order[static_cast<std::size_t>(l - 1)], b = p.diagonal_order[static_cast<std::size_t>(l)];
      CHECK(b / P2 == (a / P2 + 1) % l1);
      CHECK(b % P2 == (a % P2 + 1) % l2);
    }
  }
}

TEST_CASE("flashfft: F1 x F2 through the maps is the length-L DFT (prime-factor FFT)", "[flashfft]") {
  for (const auto& [l1, l2] : {std::pair{8, 7}, std::pair{16, 15}, std::pair{5, 3}}) {
    const FlashFftPlan p = plan_1d(l1, l2);
    const auto x = random_complex(static_cast<std::size_t>(l1 * l2), 11);
    CHECK(max_diff(pfa_forward(p, x), naive_dft(x)) < 1e-12);
  }
}

TEST_CASE("flashfft: DFT matrices are exact at quarter turns, zero in padding, and unitary up to L", "[flashfft]") {
  for (int L : {7, 8, 12, 15}) {
    const DftAxis a = make_dft_axis("test", L, (L + 7) / 8 * 8);
    for (int k = 0; k < a.padded; ++k)
      for (int n = 0; n < a.padded; ++n) {
        if (k >= L || n >= L) {
          CHECK(a.re.at(k, n) == 0.0);
          CHECK(a.im.at(k, n) == 0.0);
          continue;
        }
        const int m = k * n % L;
        if (4 * m % L == 0) { // exactly 1, -i, -1 or i
          CHECK(std::abs(a.re.at(k, n)) + std::abs(a.im.at(k, n)) == 1.0);
        }
        // sum_n F[k][n] conj(F[j][n]) = L delta_kj
        if (n == 0)
          for (int j = 0; j < L; ++j) {
            cplx acc = 0;
            for (int t = 0; t < L; ++t) acc += cplx(a.re.at(k, t), a.im.at(k, t)) * std::conj(cplx(a.re.at(j, t), a.im.at(j, t)));
            CHECK(std::abs(acc - (j == k ? cplx(L) : cplx(0))) < 1e-12);
          }
      }
  }
}

TEST_CASE("flashfft: the real block matrices compute the complex products, and the swizzled copies permute them",
          "[flashfft]") {
  const FlashFftPlan p = plan_1d(8, 7);
  const int P1 = p.rows.padded, P2 = p.cols.padded;
  // forward_rows x [xr; xi] = [Re F1 x; Im F1 x] for a complex column x.
  const auto x = random_complex(static_cast<std::size_t>(P1), 3);
  for (int k = 0; k < P1; ++k) {
    cplx want = 0;
    for (int n = 0; n < P1; ++n) want += cplx(p.rows.re.at(k, n), p.rows.im.at(k, n)) * x[static_cast<std::size_t>(n)];
    double re = 0, im = 0;
    for (int n = 0; n < P1; ++n) {
      re += p.forward_rows.at(k, n) * x[static_cast<std::size_t>(n)].real() + p.forward_rows.at(k, n + P1) * x[static_cast<std::size_t>(n)].imag();
      im += p.forward_rows.at(k + P1, n) * x[static_cast<std::size_t>(n)].real() + p.forward_rows.at(k + P1, n + P1) * x[static_cast<std::size_t>(n)].imag();
    }
    CHECK(std::abs(re - want.real()) < 1e-13);
    CHECK(std::abs(im - want.imag()) < 1e-13);
  }
  // [ur | ui] x G = [Re u F2 | Im u F2] for a complex row u, G undone from its swizzle.
  const auto u = random_complex(static_cast<std::size_t>(P2), 4);
  const std::vector<int>& order = p.feed_to_a.k_order;
  for (int k = 0; k < P2; ++k) {
    cplx want = 0;
    for (int n = 0; n < P2; ++n) want += u[static_cast<std::size_t>(n)] * cplx(p.cols.re.at(n, k), p.cols.im.at(n, k));
    double re = 0, im = 0;
    for (int row = 0; row < 2 * P2; ++row) {
      const int original = row / 8 * 8 + order[static_cast<std::size_t>(row % 8)];
      const double v = original < P2 ? u[static_cast<std::size_t>(original)].real() : u[static_cast<std::size_t>(original - P2)].imag();
      re += v * p.forward_cols_swizzled.at(row, k);
      im += v * p.forward_cols_swizzled.at(row, k + P2);
    }
    CHECK(std::abs(re - want.real()) < 1e-13);
    CHECK(std::abs(im - want.imag()) < 1e-13);
  }
  // Step 4's A is step 2's matrix with columns (not rows) swizzled; step 5's B is forward_rows with rows swizzled.
  for (int r = 0; r < 2 * P2; ++r)
    for (int c = 0; c < 2 * P2; ++c) {
      const int rs = r / 8 * 8 + order[static_cast<std::size_t>(r % 8)];
      const int cs = c / 8 * 8 + p.feed_to_b.k_order[static_cast<std::size_t>(c % 8)];
      CHECK(p.inverse_cols_swizzled.at(rs, c) == p.forward_cols_swizzled.at(r, cs));
    }
  for (int r = 0; r < 2 * P1; ++r)
    for (int c = 0; c < 2 * P1; ++c)
      CHECK(p.inverse_rows_swizzled.at(r, c) == p.forward_rows.at(r / 8 * 8 + order[static_cast<std::size_t>(r % 8)], c));
}

TEST_CASE("flashfft: the C -> A and C -> B feeds stay inside each lane of m8n8k4, in the swizzled order",
          "[flashfft]") {
  const FragmentLayout C = fragment_layout(MmaShape::M8N8K4_F64, Operand::C);
  for (Operand target : {Operand::A, Operand::B}) {
    const RegisterFeed f = make_register_feed(MmaShape::M8N8K4_F64, target);
    INFO(f.problem);
    REQUIRE(f.shuffle_free);
    CHECK(f.k_order == std::vector<int>{0, 2, 4, 6, 1, 3, 5, 7});
    const FragmentLayout T = fragment_layout(MmaShape::M8N8K4_F64, target);
    REQUIRE(f.entries.size() == 2u * kWarpSize * static_cast<std::size_t>(T.regs_per_lane));
    std::set<std::pair<int, int>> c_used;
    for (const RegisterFeedEntry& e : f.entries) {
      // Lane by lane against the real layouts: what the lane holds in C is what the operand wants there.
      CHECK(C.at(e.lane, e.c_reg) == e.c);
      CHECK(T.at(e.lane, e.target_reg) == e.target);
      const int free_index = target == Operand::A ? e.target.row : e.target.col;
      const int k_index = target == Operand::A ? e.target.col : e.target.row;
      CHECK(free_index == e.c.row);
      CHECK(f.k_order[static_cast<std::size_t>(e.k_step * 4 + k_index)] == e.c.col);
      c_used.insert({e.lane, e.c_reg});
    }
    CHECK(c_used.size() == 64u); // every accumulator register is used exactly once
    // Without the swizzle (k-step j reading C columns 4j..4j+3) every lane would need another lane's register.
    int lanes_needing_shuffle = 0;
    for (int lane = 0; lane < kWarpSize; ++lane) {
      const FragmentCoord t = T.at(lane, 0);
      const int free_index = target == Operand::A ? t.row : t.col, k_index = target == Operand::A ? t.col : t.row;
      bool foreign = false;
      for (int j = 0; j < 2; ++j) foreign = foreign || C.owner(free_index, 4 * j + k_index).lane != lane;
      lanes_needing_shuffle += foreign ? 1 : 0;
    }
    CHECK(lanes_needing_shuffle == kWarpSize);
  }
  // The derivation also says where a feed is impossible: m16n8k4's 16-row accumulator cannot become an 8-column B.
  const RegisterFeed to_a = make_register_feed(MmaShape::M16N8K4_F64, Operand::A);
  CHECK(to_a.shuffle_free);
  CHECK(to_a.k_order == std::vector<int>{0, 2, 4, 6, 1, 3, 5, 7});
  const RegisterFeed to_b = make_register_feed(MmaShape::M16N8K4_F64, Operand::B);
  CHECK_FALSE(to_b.shuffle_free);
  CHECK_THAT(to_b.problem, Catch::Contains("used 0 times"));
}

TEST_CASE("flashfft: k_f is the stencil's spectrum and k_f^T its T-th power, in the frequency layout", "[flashfft]") {
  const Stencil s = preset("1d5p");
  FlashFftOptions o;
  o.fused_steps = 5;
  o.rows = 8;
  o.cols = 7;
  const FlashFftPlan p = make_flashfft_plan(s, o);
  CHECK(p.halo == 10);
  CHECK(p.fused_kernel_length == 21);
  CHECK(p.stitched[0] == 56 - 20);
  const auto kf = spectrum_by_frequency(p, p.kernel_spectrum);
  CHECK(std::abs(kf[0] - cplx(s.sum())) < 1e-14);
  for (int k = 0; k < 56; ++k) {
    cplx want = 0;
    for (int d = -2; d <= 2; ++d) want += s.at(d) * std::polar(1.0, 2.0 * std::numbers::pi * k * d / 56.0);
    CHECK(std::abs(kf[static_cast<std::size_t>(k)] - want) < 1e-14);
  }
  for (std::size_t c = 0; c < p.kernel_spectrum.size(); ++c)
    CHECK(std::abs(p.fused_spectrum[c] - std::pow(p.kernel_spectrum[c], 5)) < 1e-14);
  CHECK(p.inverse_scale == Approx(1.0 / 56));
  // 2D: the spectrum of a separable-axis star is the sum of the axis spectra at (ky, kx).
  const FlashFftPlan q = make_flashfft_plan(preset("heat-2d"));
  const int Ly = q.rows.length, Lx = q.cols.length;
  for (int ky = 0; ky < Ly; ++ky)
    for (int kx = 0; kx < Lx; ++kx) {
      const double want = 0.5 + 0.25 * std::cos(2 * std::numbers::pi * ky / Ly) + 0.25 * std::cos(2 * std::numbers::pi * kx / Lx);
      CHECK(std::abs(q.kernel_spectrum[static_cast<std::size_t>(ky * q.cols.padded + kx)] - cplx(want)) < 1e-14);
    }
}

TEST_CASE("flashfft: double-layer filling separates back into the two real segments' spectra", "[flashfft]") {
  const FlashFftPlan p = plan_1d(8, 15);
  const std::size_t L = static_cast<std::size_t>(p.tile[0]);
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  std::vector<cplx> a(L), b(L), z(L);
  for (std::size_t i = 0; i < L; ++i) {
    a[i] = d(rng);
    b[i] = d(rng);
    z[i] = {a[i].real(), b[i].real()};
  }
  const DoubleLayerSpectra sep = separate_double_layer(pfa_forward(p, z));
  CHECK(max_diff(sep.first, naive_dft(a)) < 1e-12);
  CHECK(max_diff(sep.second, naive_dft(b)) < 1e-12);
}

TEST_CASE("flashfft: MMA count and fragment zeros of one tile pair match an independent count", "[flashfft]") {
  std::vector<FlashFftPlan> plans = {plan_1d(8, 7), plan_1d(16, 15, 2)};
  Stencil s2 = make_stencil(2, 1, "random-2d");
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<double> d(0.1, 1.0);
  for (double& w : s2.weights) w = d(rng);
  FlashFftOptions o2;
  o2.rows = 12;
  o2.cols = 10;
  plans.push_back(make_flashfft_plan(s2, o2));
  for (const FlashFftPlan& p : plans) {
    const int P1 = p.rows.padded, P2 = p.cols.padded, T1 = P1 / 8, T2 = P2 / 8;
    const int valid = p.rows.length * p.cols.length, pad = P1 * P2 - valid;
    const FlashFftCounters n = flashfft_tile_pair_counters(p, 3);
    CHECK(n.mma == static_cast<std::int64_t>(flashfft_pass_work(p).mma));
    CHECK(n.mma == static_cast<std::int64_t>(P1 * P2 * (P1 + P2) / 32));
    CHECK(n.operand_values == 64 * n.mma);
    // Each constant tile is used once per tile of the other output dimension; each data tile once per output
    // tile it feeds. Data zeros are the padding of the tile and of each intermediate (P, Q, R').
    const std::int64_t constant_zeros = static_cast<std::int64_t>(T2) * zeros_in(p.forward_rows) +
                                        static_cast<std::int64_t>(T1) * zeros_in(p.forward_cols_swizzled) +
                                        static_cast<std::int64_t>(T1) * zeros_in(p.inverse_cols_swizzled) +
                                        static_cast<std::int64_t>(T2) * zeros_in(p.inverse_rows_swizzled);
    const std::int64_t data_zeros = 2LL * T1 * 2 * pad       // step 1: [xr; xi], each B tile for 2 T1 row tiles
                                    + 2LL * T2 * 2 * pad     // step 2: [Pr | Pi] for 2 T2 output column tiles
                                    + 2LL * T2 * 2 * pad     // step 4: [Qr | Qi]' for 2 T2 output row tiles
                                    + 2LL * T1 * 2 * pad;    // step 5: [Rr' | Ri'] for 2 T1 output column tiles
    CHECK(n.operand_zeros == constant_zeros + data_zeros);
    const CostReport c = flashfft_cost(p);
    CHECK(c.fragment_zero_fraction == Approx(static_cast<double>(n.operand_zeros) / static_cast<double>(n.operand_values)));
  }
}

TEST_CASE("flashfft: the cost model counts per updated point and base step", "[flashfft]") {
  FlashFftOptions o;
  o.rows = 8;
  o.cols = 7;
  o.fused_steps = 2;
  const FlashFftPlan p = make_flashfft_plan(preset("heat-1d"), o);
  const CostReport c = flashfft_cost(p);
  const double S = 56 - 4, outputs = 2 * S;
  CHECK(c.method == "flashfft");
  CHECK(c.mma_shape == "mma.m8n8k4.f64");
  CHECK(c.fused_steps == 2);
  CHECK(c.mma_per_point == Approx(32.0 / outputs / 2));
  CHECK(c.global_bytes_per_point == Approx(8.0 * (2 * 56 + outputs) / outputs / 2));
  CHECK(c.useful_flops_per_point == 6.0);
  CHECK(c.cuda_core_flops_per_point == Approx(6.0 * 64 / outputs / 2));
  CHECK(c.executed_flops_per_point == Approx((32.0 * 512 + 6.0 * 64) / outputs / 2));
  CHECK(c.arithmetic_intensity() == Approx(c.executed_flops_per_point / c.global_bytes_per_point));
  // Fusing more steps divides the per-step transform cost; only the halo grows.
  o.fused_steps = 6;
  CHECK(flashfft_cost(make_flashfft_plan(preset("heat-1d"), o)).mma_per_point < c.mma_per_point);
}

TEST_CASE("flashfft: the automatic tile obeys the halo, the fragment size and shared memory", "[flashfft]") {
  for (const auto& name : preset_names()) {
    for (int T : {1, 4}) {
      FlashFftOptions o;
      o.fused_steps = T;
      const Stencil s = preset(name);
      const FlashFftPlan p = make_flashfft_plan(s, o);
      INFO(name << " T=" << T);
      CHECK(p.rows.padded % 8 == 0);
      CHECK(p.cols.padded % 8 == 0);
      CHECK(p.rows.padded * p.cols.padded * p.depth.length <= kFlashFftMaxTilePoints);
      for (int d = 0; d < s.dims; ++d) CHECK(p.stitched[d] == p.tile[d] - 2 * T * s.radius);
      if (s.dims == 1) CHECK(std::gcd(p.rows.length, p.cols.length) == 1);
    }
  }
}

TEST_CASE("flashfft: plans it cannot make are refused with a reason a person can act on", "[flashfft]") {
  FlashFftOptions o;
  o.fused_steps = 0;
  CHECK_THAT(message_of([&] { make_flashfft_plan(preset("heat-1d"), o); }), Catch::Contains("T >= 1"));
  o = {};
  o.rows = 8;
  o.cols = 14;
  CHECK_THAT(message_of([&] { make_flashfft_plan(preset("heat-1d"), o); }), Catch::Contains("coprime"));
  o.rows = 2;
  o.cols = 3;
  CHECK_THAT(message_of([&] { make_flashfft_plan(preset("1d7p"), o); }), Catch::Contains("leaves no output"));
  o = {};
  o.fused_steps = 64;
  const std::string too_big = message_of([&] { make_flashfft_plan(preset("box-2d49p"), o); });
  CHECK_THAT(too_big, Catch::Contains("shared memory"));
  CHECK_THAT(too_big, Catch::Contains("fuse at most T = 14"));
  o = {};
  o.rows = 600;
  o.cols = 7;
  CHECK_THAT(message_of([&] { make_flashfft_plan(preset("heat-1d"), o); }), Catch::Contains("between 1 and 512"));
  const Method m = cpu_variant(flashfft_descriptor());
  CHECK_THAT(message_of([&] { m.plan(preset("heat-2d"), -1); }), Catch::Contains("at least 1"));
  CHECK(m.unsupported_reason(preset("heat-2d"), parse_extent("64x64")).empty());
  CHECK_THAT(m.unsupported_reason(preset("box-2d49p"), parse_extent("5x64")), Catch::Contains("smaller"));
  CHECK_FALSE(m.unsupported_reason(preset("heat-2d"), parse_extent("64")).empty());
  CHECK_THAT(message_of([&] { m.plan(preset("heat-3d"), 64); }), Catch::Contains("fuse at most"));
}

TEST_CASE("flashfft: the plan summary prints and serialises the plan, the split and the cost", "[flashfft]") {
  const PlanSummary ps = plan_summary_flashfft(preset("heat-1d"), parse_extent("1000"));
  CHECK(ps.method == "flashfft");
  CHECK_THAT(ps.text, Catch::Contains("prime-factor FFT"));
  CHECK_THAT(ps.text, Catch::Contains("diagonal walk"));
  CHECK_THAT(ps.text, Catch::Contains("C -> A register feed"));
  CHECK_THAT(ps.text, Catch::Contains("double-layer pairs"));
  CHECK_THAT(ps.text, Catch::Contains("MMA instructions"));
  CHECK(ps.json["method"] == "flashfft");
  CHECK(ps.json["feed_to_b"]["k_order"].size() == 8u);
  CHECK(ps.json["input_map"].size() == ps.json["frequency_map"].size());
  CHECK(ps.json["cost"]["mma_per_point"].get<double>() == Approx(ps.cost.mma_per_point));
  const std::int64_t S = ps.json["stitched"][0].get<std::int64_t>();
  CHECK(ps.json["split"]["tiles"].get<std::int64_t>() == (1000 + S - 1) / S);
  const PlanSummary ps3 = plan_summary_flashfft(preset("box-3d27p"), parse_extent("40x40x40"));
  CHECK_THAT(ps3.text, Catch::Contains("slices along z"));
  CHECK(ps3.cost.cuda_core_flops_per_point > 0);
}

TEST_CASE("flashfft: the plan summary reports the measured fusion error at its T", "[flashfft]") {
  FlashFftOptions o;
  o.fused_steps = 12;
  const FlashFftPlan p = make_flashfft_plan(preset("1d7p"), o);
  const PlanSummary ps = flashfft_summary(p, parse_extent("5000"));
  CHECK_THAT(ps.text, Catch::Contains("fusion error at T = 12: rel L2"));
  CHECK_THAT(ps.text, Catch::Contains("within the 1e-10 bound"));
  const FusionErrorSample err = measure_plan_fusion_error(p);
  CHECK(err.fused_steps == 12);
  CHECK(err.finite);
  CHECK(err.rel_l2 < 1e-14);
  CHECK(ps.json["fusion_error"]["rel_l2"].get<double>() == err.rel_l2);
  CHECK(ps.json["fusion_error"]["refused_on_gpu"] == false);
  // The same figure as the last sample of the growth curve on the same tile.
  FlashFftOptions tile;
  tile.rows = p.rows.length;
  tile.cols = p.cols.length;
  CHECK(measure_fusion_error_growth(p.stencil, 12, 1, tile).back().rel_l2 == err.rel_l2);
}
