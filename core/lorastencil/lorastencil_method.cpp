// LoRAStencil's descriptor: the emulation's plan (the paper's m8n8k4 tile, cost-model fusion), its CPU run, the
// model line, and the teaching views that draw it.
#include "core/lorastencil/lorastencil_method.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/lorastencil/lorastencil_emulation.hpp"

namespace se {

PlanSummary plan_summary_lorastencil(const Stencil& s, const Extent& extent) {
  return lorastencil_summary(make_lorastencil_plan(s), extent);
}

std::string lorastencil_model_line(const LoraStencilPlan& plan, double gstencils) {
  const FusionCandidate* c = nullptr;
  for (const FusionCandidate& f : plan.fusion_candidates)
    if (f.steps == plan.fused_steps) c = &f;
  if (c == nullptr || c->estimated_ps_per_point <= 0 || gstencils <= 0) return {};
  const MmaShapeInfo& shape = mma_info(plan.options.shape);
  const double predicted = 1e3 / c->estimated_ps_per_point;
  const double tensor_flops = c->mma_per_point * 2.0 * shape.m * shape.n * shape.k;
  const RooflineDevice& device = plan.options.device;
  return fmt::format("cost model (core's plan for the kernel's {} tile, T={}): {:.3f} MMAs, {:.2f} bytes, {:.0f} tensor "
                     "FLOP per point and step (intensity {:.1f} FLOP/B), {}-bound on {} ({:.0f} GB/s, {:.1f} TFLOP/s): "
                     "predicts {:.1f} GStencil/s; measured {:.1f} = {:.0f}% of it ({:.0f} GB/s, {:.1f} TFLOP/s)",
                     shape.id.substr(0, shape.id.find('.')), plan.fused_steps, c->mma_per_point,
                     c->global_bytes_per_point, tensor_flops,
                     c->global_bytes_per_point > 0 ? tensor_flops / c->global_bytes_per_point : 0.0, c->bound,
                     device.name, device.memory_gbs, device.tensor_fp64_tflops, predicted, gstencils,
                     100.0 * gstencils / predicted, gstencils * c->global_bytes_per_point, gstencils * tensor_flops / 1e3);
}

PlanPtr wrap_lorastencil_plan(const Stencil& s, const PlanRequest& request, LoraStencilPlan plan) {
  auto p = wrap_plan("lorastencil", s, request, std::move(plan));
  const LoraStencilPlan& l = p->value;
  p->fused_steps = l.fused_steps;
  p->cost = l.cost;
  std::string kinds;
  for (const LoraPlane& plane : l.planes)
    if (plane.kind == PlaneKind::TensorCores &&
        kinds.find(std::string(to_string(plane.decomposition.kind))) == std::string::npos)
      kinds += fmt::format("{}{}", kinds.empty() ? "" : "/", to_string(plane.decomposition.kind));
  p->brief = fmt::format("W^{} (radius {}) on {}: {} tensor-core term(s){}, {} on CUDA cores, {:.4f} MMA per point and "
                         "step", l.fused_steps, l.kernel.radius, mma_info(l.options.shape).id, l.tensor_core_terms(),
                         kinds.empty() ? std::string() : fmt::format(" ({})", kinds), l.cuda_core_terms(), l.cost.mma_per_point);
  return p;
}

DescriptorPtr lorastencil_descriptor() {
  auto d = make_descriptor("lorastencil", "LoRAStencil", "Zhang et al., SC'24", Precision::FP64,
                           "LoRAStencil on the CPU, fragment by fragment: rank-1 pyramid (or SVD) of the weights, U·X·V "
                           "chains on m8n8k4.f64 with butterfly vector swapping, temporal fusion chosen by the cost "
                           "model");
  d->tensor_cores = true; // its arithmetic runs on MMAs (the Baselines view sorts by it)
  d->plan = [](const Stencil& s, const PlanRequest& request) {
    LoraStencilOptions options;
    options.fused_steps = request.fused_steps;
    return wrap_lorastencil_plan(s, request, make_lorastencil_plan(s, options));
  };
  use_plan_type<LoraStencilPlan>(*d, lorastencil_summary, lorastencil_advance);
  d->model_beside = [](const MethodPlan& p, double gstencils) {
    return lorastencil_model_line(plan_value<LoraStencilPlan>(p), gstencils);
  };
  d->views = {
      {"pyramid", "pyramid", "LoRAStencil: a pyramid of rank-1 matrices",
       "A radially symmetric W is peeled ring by ring: C = u·vᵀ equals W on its outer ring, W − C is a smaller "
       "symmetric matrix, down to a 1×1 apex left to CUDA cores. Equal colours are equal weights.",
       1,
       {true, true, true},
       "A 1D stencil's weights are a single row, already rank 1 (W = u·vᵀ with u = [1]): no pyramid is peeled and no "
       "apex is left to CUDA cores. The whole row goes to the tensor cores as one term."},
      {"pyramid", "rdg", "LoRAStencil: gathering one rank-1 term",
       "Each C = u·vᵀ is applied as Y = U·X·V: the banded U gathers down the columns, the banded V along the rows. "
       "The input window X is loaded once and reused by every term.",
       1,
       {true, true, true},
       "A 1D stencil is one gather, Y = X·V: each row of X holds the inputs of a run of consecutive outputs, and the "
       "banded V holds the weights, one shifted copy per output column."},
      {"fragments", "loop:lorastencil", "LoRAStencil: butterfly vector swapping",
       "The accumulator of U·X becomes the A operand of T·V without leaving its lane: T is read with its columns "
       "in butterfly order and V's rows are permuted the same way, which leaves the product unchanged.",
       4,
       {false, true, true}}, // a 1D stencil runs one product (X·V): nothing to feed
  };
  d->compare_rank = 0;
  return d;
}

} // namespace se
