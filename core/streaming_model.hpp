// The one cost model of a method that streams the grid through CUDA cores (or a library): every pass reads each
// point once and writes it once, and the arithmetic is the stencil's own multiply-adds. The CUDA-core and vendor
// baselines report it, the benchmark suite's GB/s and "% of copy roof" come from it, and the roofline places them
// with it.
#pragma once
#include <string>

#include "core/cost.hpp"
#include "core/grid.hpp"
#include "core/method.hpp"
#include "core/stencil.hpp"

namespace se {

// Per point and base step: 2 x bytes_per_value(storage) / fused_steps bytes, 2 x non-zero weights FLOPs.
CostReport streaming_cost(const std::string& method, const Stencil& s, Precision storage, int fused_steps = 1);

// The plan of a streaming method: the stencil, its fusion and this cost, with a one-line brief.
PlanPtr streaming_plan(const std::string& method, const Stencil& s, const PlanRequest& request, Precision storage,
                       int fused_steps, std::string brief);
// `stencil-bench plan` for a streaming method: the brief, the passes over this grid and the cost.
PlanSummary streaming_summary(const MethodPlan& plan, const Extent& extent);

// The line `stencil-bench run` prints beside a measured rate: the model's bytes and FLOPs per point and step,
// and what the measured rate therefore moves.
std::string streaming_model_line(const CostReport& cost, double gstencils);

} // namespace se
