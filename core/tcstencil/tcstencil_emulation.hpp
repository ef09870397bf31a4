// TCStencil executed on the CPU tile by tile: operands go into WarpFragments with the instruction's register
// layouts and through mma_f16_f32 (WMMA, FP16 -> FP32) or mma_f64 (m8n8k4); the border remainder runs as CUDA-core FMAs.
#pragma once
#include <vector>

#include "core/grid.hpp"
#include "core/reference.hpp"
#include "core/tcstencil/tcstencil_plan.hpp"

namespace se {

// Advances `values` (laid out as `extent`, x fastest) by `steps` steps with the plan's arithmetic. Every point of
// the grid is updated every step; neighbours outside read the boundary rule. The FP16 variant stores the grid
// in FP16 (the result is FP16-representable), rounds the weights and the Dirichlet value to FP16, and throws
// InputError before a step whose result could exceed FP16's 65504. Returns the number of steps done (fewer
// only when `progress` cancels).
int tcstencil_advance(const TCStencilPlan& plan, const Extent& extent, std::vector<double>& values, int steps,
                      const Boundary& boundary, const StepProgress& progress = {});

} // namespace se
