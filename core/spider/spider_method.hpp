// SPIDER as the rest of the project sees it: the plan summary `stencil-bench plan` prints and the CPU
// emulation methods `spider` (mma.sp) and `spider-dense` (mma, the ablation) that `run --backend emulate` runs.
#pragma once
#include "core/cost.hpp"
#include "core/grid.hpp"
#include "core/method.hpp"
#include "core/spider/spider_plan.hpp"

namespace se {

// Text: the plan (three stages per kernel row, input row map, MMAs, metadata, fragment layouts) and the
// cost; JSON: the plan with "cost". Throws InputError when SPIDER cannot take the stencil or the extent.
PlanSummary plan_summary_spider(const Stencil& stencil, const Extent& extent);
PlanSummary plan_summary_spider_dense(const Stencil& stencil, const Extent& extent);

Method spider_emulation_method();
Method spider_dense_emulation_method();

} // namespace se
