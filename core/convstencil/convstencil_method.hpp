// ConvStencil's cost model (per updated point and base step; LoRAStencil's Eq. 13-14 and SPIDER's Table 2 beside
// ours), the plan summary `stencil-bench plan` prints, and its descriptor.
#pragma once
#include "core/convstencil/convstencil_plan.hpp"
#include "core/cost.hpp"
#include "core/method.hpp"

namespace se {

CostReport convstencil_cost(const ConvStencilPlan& plan);

// The memory volume LoRAStencil (Sec. III-B) compares against: fragments ConvStencil loads from shared memory.
// Eq. 13 for an a x b grid and kernel radius h is 2 ceil((2h+1)^2/4) ceil(a/(16(h+1))) b; per point for large a:
double lorastencil_eq13_fragments_per_point(int h);
// Eq. 14: that over RDG's a b / 8, i.e. ceil((2h+1)^2/4) / (h+1): 3.25 at h = 3, 4.2 at h = 4.
double lorastencil_eq14_ratio(int h);

// Plan text + JSON + cost for `stencil-bench plan`; throws InputError when the grid cannot take the plan.
PlanSummary convstencil_summary(const ConvStencilPlan& plan, const Extent& extent);
PlanSummary plan_summary_convstencil(const Stencil& s, const Extent& extent); // planned with the paper's fusion

DescriptorPtr convstencil_descriptor(); // "convstencil": FP64 mma.m8n8k4, CPU emulation

} // namespace se
