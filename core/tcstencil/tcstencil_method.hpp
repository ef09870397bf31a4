// TCStencil's cost model (per updated point and base step, with the paper's and SPIDER's counts beside ours),
// the plan summary `stencil-bench plan` prints, and the descriptors of its two variants (FP16 and FP64).
#pragma once
#include "core/cost.hpp"
#include "core/method.hpp"
#include "core/tcstencil/tcstencil_plan.hpp"

namespace se {

CostReport tcstencil_cost(const TCStencilPlan& plan);

// SPIDER's Table 1 count of TCStencil's multiply-adds per updated point for a box stencil of radius r, whose
// tiles it takes to update only the (L-2r)^2 inner points: L^3 (2r+1) / (L-2r)^2 (286.72 for r = 3, L = 16).
double spider_table1_tcstencil_macs_per_point(int radius, int L);

// Plan text + JSON + cost for `stencil-bench plan`: the plan and how it tiles this grid. Throws InputError when the
// grid cannot take the plan's stencil.
PlanSummary tcstencil_summary(const TCStencilPlan& plan, const Extent& extent);
// The same from a stencil (planned with the method's options); throw InputError when the method cannot take it.
PlanSummary plan_summary_tcstencil(const Stencil& s, const Extent& extent);      // id "tcstencil", FP16 WMMA
PlanSummary plan_summary_tcstencil_fp64(const Stencil& s, const Extent& extent); // id "tcstencil-fp64", m8n8k4

// The method's plan for `request` on an MMA shape (cost and brief filled): the descriptors' CPU plans take the
// paper's WMMA (FP16) and m8n8k4 (FP64); the GPU kernels take mma.m16n8k16 and mma.m16n8k4 (kernels/tcstencil/).
PlanPtr tcstencil_method_plan(const Stencil& s, const PlanRequest& request, Precision precision, MmaShape shape);

DescriptorPtr tcstencil_descriptor();      // "tcstencil": FP16 WMMA, CPU emulation
DescriptorPtr tcstencil_fp64_descriptor(); // "tcstencil-fp64": FP64 mma.m8n8k4, CPU emulation

} // namespace se
