// ConvStencil executed on the CPU: per tile, stencil2row through the plan's lookup tables, then m8n8k4 FP64 MMAs
// of A and B fragments (real register layouts, mma_f64) against the triangular kernel matrices, pass by fused pass.
#pragma once
#include <vector>

#include "core/convstencil/convstencil_plan.hpp"
#include "core/grid.hpp"
#include "core/reference.hpp"

namespace se {

// One fused pass: `values` advance by plan.fused_steps base steps as one application of W^T. With a Dirichlet
// boundary the points within (T-1) r of a face are then recomputed exactly (fix_fused_boundary_band).
void convstencil_pass(const ConvStencilPlan& plan, const Extent& extent, std::vector<double>& values,
                      const Boundary& boundary);

// Advances by `steps` base steps: passes of plan.fused_steps, the remainder with a plan fusing fewer steps.
// `progress` is called after each pass with base steps done. Returns the base steps done (fewer only when
// progress cancels).
int convstencil_advance(const ConvStencilPlan& plan, const Extent& extent, std::vector<double>& values, int steps,
                        const Boundary& boundary, const StepProgress& progress = {});

} // namespace se
