// FlashFFTStencil's cost model, its plan summary for `stencil-bench plan` and the views, and its descriptor.
#pragma once
#include "core/cost.hpp"
#include "core/flashfft/flashfft_plan.hpp"
#include "core/grid.hpp"
#include "core/method.hpp"

namespace se {

// Per updated point and base step, for a large grid (interior tiles). MMA count, bytes and FLOPs are the
// analytic counts of flashfft_pass_work; the fragment zero fraction is measured on one tile pair.
CostReport flashfft_cost(const FlashFftPlan& plan);

// The plan, how it splits this grid, and its cost.
PlanSummary flashfft_summary(const FlashFftPlan& plan, const Extent& extent);
PlanSummary plan_summary_flashfft(const Stencil& s, const Extent& extent, const FlashFftOptions& options = {});

// "flashfft": the CPU emulation, T = 1 unless a plan asks for more fused steps (k_f^T).
DescriptorPtr flashfft_descriptor();

} // namespace se
