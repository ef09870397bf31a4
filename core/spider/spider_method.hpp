// SPIDER as the rest of the project sees it: the plan summary `stencil-bench plan` prints and the descriptors of
// `spider` (mma.sp, 2:4 sparse) and `spider-dense` (mma on the same bands unswapped, the paper's ablation).
#pragma once
#include "core/cost.hpp"
#include "core/grid.hpp"
#include "core/method.hpp"
#include "core/spider/spider_plan.hpp"

namespace se {

// Text: the plan (three stages per kernel row, input row map, MMAs, metadata, fragment layouts) and the
// cost; JSON: the plan with "cost". Throws InputError when SPIDER cannot take the stencil or the extent.
PlanSummary spider_summary(const SpiderPlan& plan, const Extent& extent);
PlanSummary plan_summary_spider(const Stencil& stencil, const Extent& extent);
PlanSummary plan_summary_spider_dense(const Stencil& stencil, const Extent& extent);

DescriptorPtr spider_descriptor();       // "spider": FP16 mma.sp, CPU emulation
DescriptorPtr spider_dense_descriptor(); // "spider-dense": FP16 mma, CPU emulation

} // namespace se
