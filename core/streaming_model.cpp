#include "core/streaming_model.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace se {

CostReport streaming_cost(const std::string& method, const Stencil& s, Precision storage, int fused_steps) {
  const int fused = std::max(1, fused_steps);
  CostReport c;
  c.method = method;
  c.fused_steps = fused;
  c.global_bytes_per_point = 2.0 * static_cast<double>(bytes_per_value(storage)) / fused;
  c.useful_flops_per_point = 2.0 * std::max(1, s.nonzero_count());
  c.executed_flops_per_point = c.useful_flops_per_point;
  c.cuda_core_flops_per_point = c.executed_flops_per_point;
  c.notes.emplace_back("streaming", fmt::format("{} non-zero weights x 2 FLOPs; {} bytes read + written per point per "
                                                "pass{}",
                                                s.nonzero_count(), 2 * bytes_per_value(storage),
                                                fused > 1 ? fmt::format(", {} steps per pass", fused) : ""));
  return c;
}

PlanPtr streaming_plan(const std::string& method, const Stencil& s, const PlanRequest& request, Precision storage,
                       int fused_steps, std::string brief) {
  auto p = std::make_shared<MethodPlan>();
  p->method = method;
  p->target = request.target;
  p->stencil = s;
  p->fused_steps = std::max(1, fused_steps);
  p->cost = streaming_cost(method, s, storage, p->fused_steps);
  p->brief = std::move(brief);
  return p;
}

PlanSummary streaming_summary(const MethodPlan& plan, const Extent& extent) {
  check_extent_fits_stencil(extent, plan.stencil);
  PlanSummary out;
  out.method = plan.method;
  out.cost = plan.cost;
  out.text = fmt::format("{} for '{}' ({}D, radius {}, {} non-zero weights): {}\ngrid {}: {} points per pass of {} "
                         "step(s)\n\n{}",
                         plan.method, plan.stencil.name, plan.stencil.dims, plan.stencil.radius,
                         plan.stencil.nonzero_count(), plan.brief, extent.to_string(), extent.points(), plan.fused_steps,
                         to_string(plan.cost));
  out.json = {{"brief", plan.brief}, {"fused_steps", plan.fused_steps}, {"extent", extent.to_string()},
              {"cost", to_json(plan.cost)}};
  return out;
}

std::string streaming_model_line(const CostReport& c, double gstencils) {
  const double bytes = c.global_bytes_per_point, flops = c.useful_flops_per_point;
  return fmt::format("model: {:.2f} bytes and {:.0f} useful FLOP per point and step (intensity {:.2f} FLOP/B): the "
                     "measured rate moves {:.0f} GB/s",
                     bytes, flops, bytes > 0 ? flops / bytes : 0.0, gstencils * bytes);
}

} // namespace se
