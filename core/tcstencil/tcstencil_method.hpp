// TCStencil's cost model (per updated point and base step, with the paper's and SPIDER's counts beside ours),
// the plan summary `stencil-bench plan` prints, and the descriptors of its two variants (FP16 and FP64).
#pragma once
#include "core/cost.hpp"
#include "core/method.hpp"
#include "core/tcstencil/tcstencil_plan.hpp"

namespace se {

// fused_steps 2: the FP16 GPU kernel's two steps per launch (tcstencil_max_fused_steps), counted on its block of
// kFusedBlockTiles x kFusedBlockTiles tiles.
CostReport tcstencil_cost(const TCStencilPlan& plan, int fused_steps = 1);

// The GPU's two-steps-per-launch schedule (kernels/tcstencil/tc_kernel.cuh, step2_fp16): a block of 8 x 8 output
// tiles computes step 1 on the (8 + 1) x (8 + 1) tiles that cover them and R around them, keeps it in shared memory
// as FP16 (what a launch of its own would store) and computes step 2 from it. It takes FP16 2D stars of radius 1
// and 2; everything else runs one step per launch.
constexpr int kFusedBlockTiles = 8;
int tcstencil_max_fused_steps(const TCStencilPlan& plan);

// SPIDER's Table 1 count of TCStencil's multiply-adds per updated point for a box stencil of radius r, whose
// tiles it takes to update only the (L-2r)^2 inner points: L^3 (2r+1) / (L-2r)^2 (286.72 for r = 3, L = 16).
double spider_table1_tcstencil_macs_per_point(int radius, int L);

// Plan text + JSON + cost for `stencil-bench plan`: the plan and how it tiles this grid. Throws InputError when the
// grid cannot take the plan's stencil.
// fused_steps: the plan's (2 for the GPU's two-step schedule, tcstencil_cost).
PlanSummary tcstencil_summary(const TCStencilPlan& plan, const Extent& extent, int fused_steps = 1);
// The same from a stencil (planned with the method's options); throw InputError when the method cannot take it.
PlanSummary plan_summary_tcstencil(const Stencil& s, const Extent& extent);      // id "tcstencil", FP16 WMMA
PlanSummary plan_summary_tcstencil_fp64(const Stencil& s, const Extent& extent); // id "tcstencil-fp64", m8n8k4

// The method's plan for `request` on an MMA shape (cost and brief filled): the descriptors' CPU plans take the
// paper's WMMA (FP16) and m8n8k4 (FP64); the GPU kernels take mma.m16n8k16 and mma.m16n8k4 (kernels/tcstencil/).
// gpu_schedule: the plan of the GPU kernels, which fuse up to tcstencil_max_fused_steps (the CPU emulation runs one
// step per pass); a request of 0 takes the deepest, a deeper request than that is an InputError.
PlanPtr tcstencil_method_plan(const Stencil& s, const PlanRequest& request, Precision precision, MmaShape shape,
                              bool gpu_schedule = false);

DescriptorPtr tcstencil_descriptor();      // "tcstencil": FP16 WMMA, CPU emulation
DescriptorPtr tcstencil_fp64_descriptor(); // "tcstencil-fp64": FP64 mma.m8n8k4, CPU emulation

} // namespace se
