// TCStencil's cost model (per updated point and base step, with the paper's and SPIDER's counts beside ours),
// the plan summary `stencil-bench plan` prints, and the two CPU-emulation methods the app and the CLI list.
#pragma once
#include "core/cost.hpp"
#include "core/method.hpp"
#include "core/tcstencil/tcstencil_plan.hpp"

namespace se {

CostReport tcstencil_cost(const TCStencilPlan& plan);

// SPIDER's Table 1 count of TCStencil's multiply-adds per updated point for a box stencil of radius r, whose
// tiles it takes to update only the (L-2r)^2 inner points: L^3 (2r+1) / (L-2r)^2 (286.72 for r = 3, L = 16).
double spider_table1_tcstencil_macs_per_point(int radius, int L);

// Plan text + JSON + cost for `stencil-bench plan`; throw InputError when the method cannot take the stencil or
// the grid (wrong dims, smaller than the stencil).
PlanSummary plan_summary_tcstencil(const Stencil& s, const Extent& extent);      // id "tcstencil", FP16 WMMA
PlanSummary plan_summary_tcstencil_fp64(const Stencil& s, const Extent& extent); // id "tcstencil-fp64", m8n8k4

Method tcstencil_emulation_method();      // "tcstencil", Backend::Emulate, FP16
Method tcstencil_fp64_emulation_method(); // "tcstencil-fp64", Backend::Emulate, FP64

} // namespace se
