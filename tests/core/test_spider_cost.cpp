// SPIDER's cost model: the paper's Table 1 formulas reproduce Table 2 and the text's ratios for Box-2D3R at
// 8x8 tiles; our counts from the plan agree with the formula and with what the emulation issues.
#include <catch2/catch.hpp>

#include <string>

#include "core/error.hpp"
#include "core/spider/spider_cost.hpp"
#include "core/spider/spider_emulation.hpp"

using namespace se;

TEST_CASE("spider paper Table 1 at r = 3, c = 8 gives Table 2", "[spider]") {
  const auto table = spider_paper_table(3, 8);
  const auto& lb = paper_row(table, "Lower Bound");
  CHECK(lb.computation == 49);
  CHECK(lb.input == Approx(3.06).margin(0.005));
  CHECK(lb.parameter == Approx(0.77).margin(0.005));
  const auto& conv = paper_row(table, "ConvStencil");
  CHECK(conv.computation == 104);
  CHECK(conv.input == 13);
  CHECK(conv.parameter == 13);
  const auto& tc = paper_row(table, "TCStencil");
  CHECK(tc.computation == Approx(286.72));
  CHECK(tc.input == Approx(17.92));
  CHECK(tc.parameter == Approx(17.92));
  const auto& lora = paper_row(table, "LoRAStencil");
  CHECK(lora.computation == 144);
  CHECK(lora.input == 4);
  CHECK(lora.parameter == 12);
  const auto& spider = paper_row(table, "SPIDER");
  CHECK(spider.computation_tabulated == 56);
  CHECK(spider.computation == 64); // the printed formula, ceiling included
  CHECK(spider.input == 14);
  CHECK(spider.parameter == 7);
  CHECK_THROWS_AS(paper_row(table, "FlashFFTStencil"), InputError);

  // §2.3's ratios to the lower bound, as the paper rounds them.
  const auto ratio = [&](double v, double base) { return Approx(v / base).margin(0.006); };
  CHECK(2.12 == ratio(conv.computation, lb.computation));
  CHECK(2.94 == ratio(lora.computation, lb.computation));
  CHECK(5.85 == ratio(tc.computation, lb.computation));
  CHECK(4.24 == ratio(conv.input, lb.input));
  CHECK(1.31 == ratio(lora.input, lb.input));
  CHECK(5.85 == ratio(tc.input, lb.input));
  CHECK(16.98 == ratio(conv.parameter, lb.parameter));
  CHECK(15.67 == ratio(lora.parameter, lb.parameter));
  CHECK(23.41 == ratio(tc.parameter, lb.parameter));

  CHECK_THROWS_AS(spider_paper_table(0, 8), InputError);
  CHECK_THROWS_AS(spider_paper_table(3, 0), InputError);
}

TEST_CASE("spider cost of box-2d49p: our count is the paper's formula", "[spider]") {
  const SpiderPlan plan = make_spider_plan(preset("box-2d49p"));
  const SpiderPointCounts counts = spider_point_counts(plan);
  const auto paper = paper_row(spider_paper_table(3, 8), "SPIDER"); // a copy: the table is a temporary
  // 8 mma.sp (16 x 8 x 8 MACs) per 8 x 16 tile: 64 MACs per point, the formula with its ceiling.
  CHECK(counts.macs == paper.computation);
  CHECK(counts.input == 8); // 8 B fragments of 128 per 128 points; the paper loads 7 per 64 (14)
  CHECK(counts.parameter == 8);

  const CostReport c = spider_cost(plan);
  CHECK(c.method == "spider");
  CHECK(c.mma_shape == "mma.sp.m16n8k16.f16.f32");
  CHECK(c.mma_per_point == 8.0 / 128);
  CHECK(c.useful_flops_per_point == 98);
  CHECK(c.executed_flops_per_point == 128);
  CHECK(c.cuda_core_flops_per_point == 0);
  CHECK(c.shared_bytes_per_point == 16);
  // Compressed A: shifts -3 and 4 hold one kernel row (72 zeros of 128), the other six two rows of 7 non-zeros
  // in 8 slots (16 zeros).
  CHECK(c.fragment_zero_fraction == Approx((2 * 72 + 6 * 16) / 1024.0));
  // 64 x 64 blocks: (70 x 70 read + 64 x 64 written) x 2 bytes, plus 8 A tiles x 256 bytes and 2 metadata registers.
  CHECK(c.global_bytes_per_point == Approx((70 * 70 * 2 + 64 * 64 * 2 + 8 * 256 + 2 * 128) / 4096.0));
  CHECK(c.arithmetic_intensity() == Approx(128 / c.global_bytes_per_point));
  bool compared = false;
  for (const auto& [key, text] : c.notes)
    if (key == "paper comparison") compared = text.find("Table 2 prints 56") != std::string::npos;
  CHECK(compared);

  const CostReport dense = spider_cost(make_spider_plan(preset("box-2d49p"), {SpiderVariant::Dense, SwapParity::Odd}));
  CHECK(dense.mma_shape == "mma.m16n8k16.f16.f32");
  CHECK(dense.mma_per_point == c.mma_per_point);
  CHECK(dense.executed_flops_per_point == 2 * c.executed_flops_per_point);
  CHECK(dense.fragment_zero_fraction > 0.5);
}

TEST_CASE("spider cost agrees with what the emulation issues", "[spider]") {
  for (const char* name : {"heat-1d", "1d7p", "heat-2d", "box-2d25p", "star-2d13p"}) {
    const SpiderPlan plan = make_spider_plan(preset(name));
    const SpiderGeometry& g = plan.geometry;
    Extent e;
    e.dims = g.dims;
    e.n = {3 * g.tile_x, g.dims == 1 ? 1 : 2 * g.tile_y, 1}; // whole tiles: every issued MMA updates real points
    std::vector<double> v = initial_values(e, InitialCondition::Random, 3);
    const SpiderRunCounts counts = spider_advance(plan, e, v, 2, {});
    INFO(name);
    CHECK(spider_cost(plan).mma_per_point * static_cast<double>(e.points()) * 2 ==
          Approx(static_cast<double>(counts.mma_issued)));
  }
  const CostReport one_d = spider_cost(make_spider_plan(preset("1d5p")));
  bool noted = false;
  for (const auto& [key, text] : one_d.notes)
    if (key == "paper comparison") noted = text.find("2D box stencils only") != std::string::npos;
  CHECK(noted);
}
