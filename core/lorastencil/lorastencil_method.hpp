// LoRAStencil as the rest of the project sees it: the plan summary `stencil-bench plan` prints, the line a GPU
// measurement is printed beside, and its descriptor (the CPU emulation; kernels/lorastencil adds the GPU kernel).
#pragma once
#include "core/cost.hpp"
#include "core/lorastencil/lorastencil_plan.hpp"
#include "core/method.hpp"

namespace se {

// What `stencil-bench plan --method lorastencil` prints: the plan (and, when fused, the base stencil's own
// pyramid; when a structured split applies, the SVD alternative's cost), with the MMA count for this extent.
PlanSummary lorastencil_summary(const LoraStencilPlan& plan, const Extent& extent);
PlanSummary plan_summary_lorastencil(const Stencil& s, const Extent& extent); // the emulation's plan

// The cost model beside a measured rate: what core's plan predicts for its tile and fusion on the roofline it
// was chosen for, and how much of that the measurement reached.
std::string lorastencil_model_line(const LoraStencilPlan& plan, double gstencils);

// A LoRAStencil plan as a MethodPlan for `request` (its cost, fusion and a one-line brief filled in).
PlanPtr wrap_lorastencil_plan(const Stencil& s, const PlanRequest& request, LoraStencilPlan plan);

DescriptorPtr lorastencil_descriptor(); // "lorastencil": FP64, m8n8k4 CPU emulation with cost-model fusion

} // namespace se
