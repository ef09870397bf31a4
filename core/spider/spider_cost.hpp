// SPIDER's cost model per updated point and base step, counted from the plan's own MMAs, and the paper's
// redundancy analysis (Table 1 evaluated per point, which Table 2 tabulates for Box-2D3R at 8x8 tiles).
#pragma once
#include <string>
#include <vector>

#include "core/cost.hpp"
#include "core/spider/spider_plan.hpp"

namespace se {

// The paper's three per-point quantities for a plan, counted the paper's way from what the emulation
// issues: MACs the tensor cores execute, B elements and A (parameter) elements loaded per warp tile.
struct SpiderPointCounts {
  double macs = 0;       // "computation operations": multiply-adds executed (mma.sp: 16 x 8 x 8 each)
  double input = 0;      // input elements loaded into B fragments
  double parameter = 0;  // kernel-matrix elements of the A fragments, counted once per warp tile as the paper does
};
SpiderPointCounts spider_point_counts(const SpiderPlan& plan);

// Global bytes: each block tile of the plan (SpiderGeometry::block_x x block_y, the GPU kernel's) reads its outputs
// plus the halo once and writes them once, in FP16, plus the A values and metadata once per block.
CostReport spider_cost(const SpiderPlan& plan);

// One row of the paper's Table 1, per updated point (A and B large, so ceil(A / x) = A / x).
struct PaperPointCosts {
  std::string method;
  double computation = 0;            // Table 1's formula as printed
  double computation_tabulated = 0;  // what Table 2 prints (SPIDER's drops a ceiling, see the note)
  double input = 0;
  double parameter = 0;
  std::string note;
};

// Table 1 of the SPIDER paper for a Box-2D stencil of radius r updating c x c points per tile: rows
// "Lower Bound", "ConvStencil", "TCStencil" (its fixed L = 16 updates (16-2r)^2 points, whatever c is),
// "LoRAStencil", "SPIDER". Throws InputError for r < 1, r > 7 or c < 1.
std::vector<PaperPointCosts> spider_paper_table(int radius, int c);
const PaperPointCosts& paper_row(const std::vector<PaperPointCosts>& table, const std::string& method);

} // namespace se
