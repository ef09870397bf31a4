// FlashFFTStencil's cost model, its plan summary for `stencil-bench plan` and the views, and the CPU
// emulation as a Method (id "flashfft", Backend::Emulate, FP64).
#pragma once
#include "core/cost.hpp"
#include "core/flashfft/flashfft_plan.hpp"
#include "core/grid.hpp"
#include "core/method.hpp"

namespace se {

// Per updated point and base step, for a large grid (interior tiles). MMA count, bytes and FLOPs are the
// analytic counts of flashfft_pass_work; the fragment zero fraction is measured on one tile pair.
CostReport flashfft_cost(const FlashFftPlan& plan);

// The plan (tile chosen by the cost model for `options`), how it splits this grid, and its cost.
PlanSummary plan_summary_flashfft(const Stencil& s, const Extent& extent, const FlashFftOptions& options = {});

// The emulation as a method: fuses `fused_steps` base steps per pass (k_f^T); 1 by default.
Method flashfft_emulation_method(int fused_steps = 1);

} // namespace se
