// SPIDER's plan: the band and its sparsity formula, the strided swap to 2:4, compression and packed metadata,
// the matching input row map (with the paper's offset formula), the MMA tiles, FP16 checks and rejections.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/spider/spider_method.hpp"
#include "core/spider/spider_plan.hpp"

using namespace se;

namespace {

// Non-zero weights of a 2D box so every band position is a real non-zero.
Stencil dense_box(int dims, int r, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(0.25, 1.0);
  Stencil s = make_stencil(dims, r, "dense-box");
  for (double& w : s.weights) w = round_to_half(dist(rng) * (rng() % 2 ? 1 : -1));
  return s;
}

int count_nonzero(const std::vector<double>& m) {
  return static_cast<int>(std::count_if(m.begin(), m.end(), [](double v) { return v != 0.0; }));
}

} // namespace

TEST_CASE("spider band: each kernel row on the diagonal, density (2r+1)/(2r+L)", "[spider]") {
  for (int r = 0; r <= kMaxRadius; ++r)
    for (const int L : {2 * r + 2, 2 * r + 3, 2 * r + 6}) {
      std::vector<double> row;
      for (int j = 0; j <= 2 * r; ++j) row.push_back(j + 1.0);
      const int cols = 2 * r + L;
      const auto band = spider_band(row, L, cols);
      for (int i = 0; i < L; ++i)
        for (int j = 0; j < cols; ++j) {
          const int k = j - i;
          CHECK(band[static_cast<std::size_t>(i * cols + j)] == (k >= 0 && k <= 2 * r ? k + 1.0 : 0.0));
        }
      CHECK(static_cast<double>(count_nonzero(band)) / (L * cols) == Approx(spider_sparsity_ratio(r, L)).epsilon(1e-15));
    }
  // L = 2r + 2 is the paper's choice: exactly the 50% that 2:4 allows.
  for (int r = 0; r <= kMaxRadius; ++r) CHECK(spider_sparsity_ratio(r, 2 * r + 2) == 0.5);
  CHECK(spider_sparsity_ratio(3, 7) > 0.5);
  CHECK_THROWS_AS(spider_band(std::vector<double>{1, 2, 3}, 4, 5), InputError);
  CHECK_THROWS_AS(spider_band(std::vector<double>{1, 2}, 4, 8), InputError);
}

TEST_CASE("spider strided swap makes every band 2:4 and compression round-trips exactly", "[spider]") {
  for (const SwapParity parity : {SwapParity::Odd, SwapParity::Even})
    for (int r = 0; r <= kMaxRadius; ++r) {
      const int L = 2 * r + 2, cols = 2 * L;
      std::vector<double> row;
      for (int j = 0; j <= 2 * r; ++j) row.push_back(0.5 + j);
      const auto band = spider_band(row, L, cols);
      if (r >= 1) CHECK_FALSE(is_2to4(band.data(), L, cols, cols)); // the plain band clusters its non-zeros
      const auto perm = spider_column_swap(L, cols, parity);
      std::vector<double> swapped(band.size());
      for (int i = 0; i < L; ++i)
        for (int j = 0; j < cols; ++j)
          swapped[static_cast<std::size_t>(i * cols + j)] = band[static_cast<std::size_t>(i * cols + perm[static_cast<std::size_t>(j)])];
      INFO("r = " << r << ", parity " << to_string(parity));
      CHECK(is_2to4(swapped.data(), L, cols, cols));
      for (int j = 0; j < cols; ++j) {
        const int p = perm[static_cast<std::size_t>(j)];
        CHECK(perm[static_cast<std::size_t>(p)] == j); // an involution: pairs trade places
        const int base = j % L;
        const bool moves = base % 2 == (parity == SwapParity::Odd ? 1 : 0);
        CHECK(p == (moves ? (j < L ? j + L : j - L) : j));
      }
      const Compressed24 c = compress_2to4(swapped.data(), L, cols, cols);
      CHECK(decompress_2to4(c) == swapped);
    }
}

// The GPU kernels' lane order (radius 3 and 7): still 2:4, and lane t's B registers of one MMA (K rows 2t, 2t + 1
// of every 8) are adjacent band columns in register order, so one 64- or 128-bit shared load fetches them.
TEST_CASE("spider lane-ordered swap is 2:4 and gives each lane adjacent B registers", "[spider]") {
  for (const int r : {3, 7}) {
    const int L = 2 * r + 2, cols = 2 * L, regs = cols / 8;
    const auto perm = spider_column_swap(L, cols, SwapParity::Lanes);
    std::vector<int> sorted = perm;
    std::sort(sorted.begin(), sorted.end());
    for (int j = 0; j < cols; ++j) CHECK(sorted[static_cast<std::size_t>(j)] == j);
    for (int t = 0; t < 4; ++t)
      for (int h = 0; h < regs; ++h) {
        const int k = 8 * h + 2 * t; // register h of lane t (k32: chunk h / 2, register h % 2)
        INFO("r " << r << " lane t " << t << " register " << h);
        CHECK(perm[static_cast<std::size_t>(k)] % 2 == 0);
        CHECK(perm[static_cast<std::size_t>(k + 1)] == perm[static_cast<std::size_t>(k)] + 1);
        CHECK(perm[static_cast<std::size_t>(k)] == perm[static_cast<std::size_t>(2 * t)] + 2 * h);
      }
    for (int dims = 1; dims <= 2; ++dims) {
      const SpiderPlan plan = make_spider_plan(dense_box(dims, r, static_cast<std::uint32_t>(9 * r + dims)),
                                               {SpiderVariant::Sparse, SwapParity::Lanes});
      CHECK(plan.all_2to4());
      CHECK(plan.geometry.band_offset == 1);
      CHECK(to_string(plan).find("lane-ordered") != std::string::npos);
      // The dense variant keeps the order (its A the swapped band, uncompressed): the same input rows.
      const SpiderPlan dense = make_spider_plan(plan.stencil, {SpiderVariant::Dense, SwapParity::Lanes});
      CHECK(dense.column_swap == plan.column_swap);
      REQUIRE(dense.input_rows.size() == plan.input_rows.size());
      for (std::size_t k = 0; k < plan.input_rows.size(); ++k) CHECK(dense.input_rows[k].dx == plan.input_rows[k].dx);
      CHECK(to_string(dense).find("lanes' K order") != std::string::npos);
    }
  }
  CHECK_THROWS_AS(spider_column_swap(6, 12, SwapParity::Lanes), InputError);
  CHECK_THROWS_AS(make_spider_plan(make_stencil(2, 2, "r2"), {SpiderVariant::Sparse, SwapParity::Lanes}), InputError);
}

TEST_CASE("spider figure 5 examples: E0G0 -> EG / 00 10 and 0G00 -> G0 / 01 10", "[spider]") {
  Stencil s = make_stencil(1, 3, "figure-5");
  for (int dx = -3; dx <= 3; ++dx) s.at(dx) = dx + 4; // A..G = 1..7
  const SpiderPlan plan = make_spider_plan(s);
  const SpiderKernelRow& row = plan.rows.at(0);
  const auto& c = row.compressed;
  // Row 0 after the odd swap: A0C0 | E0G0 | 0B0D | 0F00; row 7: 0C0E | 0G00 | B0D0 | F00A.
  CHECK(std::vector<double>(row.swapped.begin(), row.swapped.begin() + 16) ==
        std::vector<double>{1, 0, 3, 0, 5, 0, 7, 0, 0, 2, 0, 4, 0, 6, 0, 0});
  CHECK(c.values[2] == 5);
  CHECK(c.values[3] == 7);
  CHECK(int(c.indices[2]) == 0);
  CHECK(int(c.indices[3]) == 2);
  const std::size_t row7 = 7 * 8;
  CHECK(c.values[row7 + 2] == 7);
  CHECK(c.values[row7 + 3] == 0);
  CHECK(int(c.indices[row7 + 2]) == 1);
  CHECK(int(c.indices[row7 + 3]) == 2);
  CHECK(to_string(plan).find(" 0010") != std::string::npos);
  CHECK(to_string(plan).find(" 0110") != std::string::npos);
}

TEST_CASE("spider plans: every A is 2:4, decompresses exactly and matches its input row map", "[spider]") {
  std::mt19937 rng(7);
  for (const SwapParity parity : {SwapParity::Odd, SwapParity::Even})
    for (int dims = 1; dims <= 2; ++dims)
      for (int r = 0; r <= kMaxRadius; ++r) {
        const Stencil s = dense_box(dims, r, static_cast<std::uint32_t>(100 * dims + r));
        const SpiderPlan plan = make_spider_plan(s, {SpiderVariant::Sparse, parity});
        const SpiderGeometry& g = plan.geometry;
        INFO(dims << "D r = " << r << " parity " << to_string(parity));
        REQUIRE(plan.all_2to4());
        CHECK(g.L == 2 * r + 2);
        CHECK(g.band_cols == 2 * g.L);
        CHECK(g.k_chunks * 16 >= g.blocks_along_k * g.band_cols);
        CHECK(g.parts_along_m * g.blocks_along_k * g.L <= 16);
        CHECK(plan.mmas.size() == static_cast<std::size_t>((g.shift_end - g.shift_begin) * g.k_chunks));
        for (const auto& row : plan.rows) CHECK(decompress_2to4(row.compressed) == row.swapped);

        // Each B row carries the band column its A column was swapped from: A_swapped * B == band * X.
        for (int k = 0; k < 16 * g.k_chunks; ++k) {
          const SpiderInputRow& in = plan.input_rows[static_cast<std::size_t>(k)];
          if (in.block < 0) continue;
          CHECK(in.band_column == plan.column_swap[static_cast<std::size_t>(k % g.band_cols)]);
          CHECK(in.dx == in.block * g.L - r + in.band_column);
          CHECK(in.padding == (in.band_column >= 2 * r + g.L));
        }
        std::uniform_int_distribution<int> small(-8, 8);
        const SpiderKernelRow& row = plan.rows[plan.rows.size() / 2];
        std::vector<double> x(static_cast<std::size_t>(g.band_cols));
        for (double& v : x) v = small(rng);
        for (int i = 0; i < g.L; ++i) {
          double plain = 0, swapped = 0;
          for (int j = 0; j < g.band_cols; ++j) {
            plain += row.band[static_cast<std::size_t>(i * g.band_cols + j)] * x[static_cast<std::size_t>(j)];
            swapped += row.swapped[static_cast<std::size_t>(i * g.band_cols + j)] *
                       x[static_cast<std::size_t>(plan.column_swap[static_cast<std::size_t>(j)])];
          }
          CHECK(plain == swapped);
        }

        for (std::size_t m = 0; m < plan.mmas.size(); ++m) {
          const SpiderMma& mma = plan.mmas[m];
          CHECK(is_2to4(mma.a.data(), 16, 16, 16));
          CHECK(decompress_2to4(mma.a_compressed) == mma.a);
          // Four MMAs share a metadata register; each one's lanes hold exactly its own metadata.
          CHECK(mma.metadata.selector == static_cast<int>(m % 4));
          CHECK(mma.metadata_register == static_cast<int>(m / 4));
          const SparseMetadata own = pack_metadata(mma.a_compressed, mma.metadata.selector);
          for (int lane = mma.metadata.selector; lane < 32; lane += 4)
            CHECK(mma.metadata.per_lane[static_cast<std::size_t>(lane)] == own.per_lane[static_cast<std::size_t>(lane)]);
          if (dims == 2)
            for (int p = 0; p < g.parts_along_m; ++p) {
              const int dy = mma.shift - p;
              CHECK(mma.kernel_rows[static_cast<std::size_t>(p)] == (std::abs(dy) <= r ? dy : kNoKernelRow));
            }
        }
      }
}

TEST_CASE("spider geometry of the paper's shapes", "[spider]") {
  const SpiderPlan box49 = make_spider_plan(preset("box-2d49p"));
  CHECK(box49.geometry.L == 8);
  CHECK(box49.geometry.k_chunks == 1);
  CHECK(box49.geometry.parts_along_m == 2);
  CHECK(box49.geometry.tile_x == 8);
  CHECK(box49.geometry.tile_y == 16);
  CHECK(box49.mmas.size() == 8);
  CHECK(box49.metadata_registers.size() == 2);
  // Box-2D7R: L = 16 fills M, the 32 band columns take two mma.sp per kernel row (the paper's §3.2 example).
  const SpiderPlan r7 = make_spider_plan(dense_box(2, 7, 1));
  CHECK(r7.geometry.L == 16);
  CHECK(r7.geometry.k_chunks == 2);
  CHECK(r7.geometry.parts_along_m == 1);
  CHECK(r7.mmas.size() == 15 * 2);
  // r = 1: two band blocks side by side fill K.
  const SpiderPlan heat = make_spider_plan(preset("heat-2d"));
  CHECK(heat.geometry.blocks_along_k == 2);
  CHECK(heat.geometry.parts_along_m == 2);
  CHECK(heat.geometry.tile_x == 8);
  // Kernel rows that are all zero cost nothing: only the centre row of this 2D stencil is non-zero.
  Stencil line = make_stencil(2, 2, "row-only");
  line.at(-1, 0) = 0.25;
  line.at(0, 0) = 0.5;
  line.at(1, 0) = 0.25;
  const SpiderPlan sparse_rows = make_spider_plan(line);
  CHECK(sparse_rows.mmas.size() == 2); // shift 0 (part 0) and shift 1 (part 1)
  for (const auto& mma : sparse_rows.mmas) CHECK(count_nonzero(mma.a) > 0);
}

TEST_CASE("spider input row map reproduces the paper's offset formula for Box-2D7R", "[spider]") {
  // §3.2: B element i of lane reads row 2(lane%4) + 8 floor(i/2) + (i%2) of chunk k; with the swap it adds
  // 16 (-1)^k to the even elements. That is our even parity; the odd parity moves the odd elements instead.
  for (const SwapParity parity : {SwapParity::Even, SwapParity::Odd}) {
    const SpiderPlan plan = make_spider_plan(dense_box(2, 7, 3), {SpiderVariant::Sparse, parity});
    const int moved = parity == SwapParity::Even ? 0 : 1;
    for (int k = 0; k < 2; ++k)
      for (int lane = 0; lane < 32; ++lane)
        for (int i = 0; i < 4; ++i) {
          const int offset = 2 * (lane % 4) + 8 * (i / 2) + (i % 2);
          const int expected = 16 * k + offset + (i % 2 == moved ? 16 * (k == 0 ? 1 : -1) : 0);
          CHECK(plan.input_rows[static_cast<std::size_t>(16 * k + offset)].band_column == expected);
        }
  }
}

TEST_CASE("spider plan A fragments on mma.sp equal the dense product of the swapped band", "[spider]") {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  for (const int r : {1, 3, 7}) {
    const SpiderPlan plan = make_spider_plan(dense_box(2, r, 40u + static_cast<std::uint32_t>(r)));
    for (const SpiderMma& mma : plan.mmas) {
      std::vector<Half> a_dense(256), a_kept(128), b(128);
      for (std::size_t i = 0; i < 256; ++i) a_dense[i] = Half(mma.a[i]);
      for (std::size_t i = 0; i < 128; ++i) a_kept[i] = Half(mma.a_compressed.values[i]);
      for (Half& v : b) v = Half(dist(rng));
      WarpFragment<float> sparse{fragment_layout(MmaShape::SP_M16N8K16_F16_F32, Operand::C), std::vector<float>(128, 0.f)};
      WarpFragment<float> dense{fragment_layout(MmaShape::M16N8K16_F16_F32, Operand::C), std::vector<float>(128, 0.f)};
      mma_sp_f16_f32(load_fragment(MmaShape::SP_M16N8K16_F16_F32, Operand::A, a_kept.data(), 8), mma.metadata,
                     load_fragment(MmaShape::SP_M16N8K16_F16_F32, Operand::B, b.data(), 8), sparse);
      mma_f16_f32(MmaShape::M16N8K16_F16_F32, load_fragment(MmaShape::M16N8K16_F16_F32, Operand::A, a_dense.data(), 16),
                  load_fragment(MmaShape::M16N8K16_F16_F32, Operand::B, b.data(), 8), dense);
      CHECK(sparse.regs == dense.regs);
    }
  }
}

TEST_CASE("spider-dense plan keeps the plain band and needs no metadata", "[spider]") {
  const SpiderPlan plan = make_spider_plan(preset("box-2d49p"), {SpiderVariant::Dense, SwapParity::Odd});
  CHECK(plan.metadata_registers.empty());
  for (int j = 0; j < plan.geometry.band_cols; ++j) CHECK(plan.column_swap[static_cast<std::size_t>(j)] == j);
  for (const auto& in : plan.input_rows) CHECK_FALSE(in.swapped);
  const SpiderKernelRow& row = plan.rows[3];
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 16; ++j)
      CHECK(plan.mmas[3].a[static_cast<std::size_t>(i * 16 + j)] == row.band[static_cast<std::size_t>(i * 16 + j)]);
  CHECK_FALSE(is_2to4(plan.mmas[3].a.data(), 16, 16, 16));
}

TEST_CASE("spider rejects what it cannot run, with reasons", "[spider]") {
  const Method m = cpu_variant(spider_descriptor());
  const std::string three_d = m.unsupported_reason(preset("heat-3d"), parse_extent("16x16x16"));
  CHECK(three_d.find("1D and 2D") != std::string::npos);
  CHECK_THROWS_AS(make_spider_plan(preset("box-3d27p")), InputError);

  Stencil big = preset("heat-2d");
  big.at(1, 0) = 1e5;
  const std::string overflow = m.unsupported_reason(big, parse_extent("32x32"));
  CHECK(overflow.find("w(1,0)") != std::string::npos);
  CHECK(overflow.find("65504") != std::string::npos);
  CHECK(cpu_variant(spider_dense_descriptor()).unsupported_reason(big, parse_extent("32x32")) == overflow);

  CHECK_FALSE(m.unsupported_reason(preset("box-2d49p"), parse_extent("5x5")).empty());
  CHECK(m.unsupported_reason(preset("box-2d49p"), parse_extent("7x9")).empty());
  CHECK_THROWS_AS(plan_summary_spider(preset("heat-1d"), parse_extent("2")), InputError);
}

TEST_CASE("spider reports what FP16 does to the weights", "[spider]") {
  const SpiderPlan exact = make_spider_plan(preset("heat-2d"));
  CHECK(exact.precision_notes.front().find("exact in FP16") != std::string::npos);
  const SpiderPlan box = make_spider_plan(preset("box-2d49p"));
  CHECK(box.precision_notes.front().find("not exact in FP16") != std::string::npos);

  Stencil tiny = preset("heat-1d");
  tiny.at(-1) = 1e-9;
  tiny.at(1) = 1e-6;
  const SpiderPlan t = make_spider_plan(tiny);
  const auto mentions = [&](const std::string& what) {
    return std::any_of(t.precision_notes.begin(), t.precision_notes.end(),
                       [&](const std::string& n) { return n.find(what) != std::string::npos; });
  };
  CHECK(mentions("w(-1) = 1e-09 is below FP16's smallest subnormal"));
  CHECK(mentions("w(1) = 1e-06 is an FP16 subnormal"));
  CHECK(t.rows[0].band[0] == 0.0); // the flushed weight is gone from the band
  CHECK(t.max_abs_input == Approx(65504.0 / t.weight_abs_sum));
}

TEST_CASE("spider plan summary prints the stages and serialises the plan", "[spider]") {
  const PlanSummary s = plan_summary_spider(preset("box-2d49p"), parse_extent("64x64"));
  CHECK(s.method == "spider");
  for (const char* part : {"stage 1", "stage 2", "stage 3", "input row map", "metadata register", "selector",
                           "sp.m16n8k16.f16.f32 operand A", "cost of spider", "2:4 validator: pass"})
    CHECK(s.text.find(part) != std::string::npos);
  CHECK(s.json["mmas"].size() == 8);
  CHECK(s.json["rows"].size() == 7);
  CHECK(s.json["all_2to4"] == true);
  CHECK(s.json["cost"]["mma_per_point"].get<double>() == Approx(8.0 / 128));
  const PlanSummary d = plan_summary_spider_dense(preset("heat-1d"), parse_extent("100"));
  CHECK(d.method == "spider-dense");
  CHECK(d.text.find("stage 2") == std::string::npos);
  CHECK(d.text.find("m16n8k16.f16.f32 operand A") != std::string::npos);
  CHECK_FALSE(d.json.contains("metadata_registers"));
}
