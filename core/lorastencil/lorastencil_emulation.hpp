// LoRAStencil executed on the CPU warp tile by warp tile: operands loaded into WarpFragments with the PTX
// register layouts, every product an mma_f64, the butterfly swap as plain register reuse.
#pragma once
#include <cstdint>
#include <vector>

#include "core/grid.hpp"
#include "core/lorastencil/lorastencil_plan.hpp"
#include "core/reference.hpp"

namespace se {

// What one pass executed, for checking the cost model against the emulation.
struct LoraPassCounts {
  std::int64_t tiles = 0;             // warp tiles, partial ones included
  std::int64_t mma = 0;               // mma_f64 calls
  std::int64_t cuda_core_updates = 0; // point-wise multiply-adds (apexes, single-weight planes)
};

// One application of the plan's kernel W^T to `values` (laid out as `extent`) over a halo-padded copy: exact
// for periodic grids; with a Dirichlet boundary exact only farther than (T-1)*r from a face (see
// fix_fused_boundary_band). Throws InputError when the extent does not fit the stencil or the sizes differ.
LoraPassCounts lorastencil_pass(const LoraStencilPlan& plan, const Extent& extent, std::vector<double>& values,
                                const Boundary& boundary);

// Advances `values` by `steps` base steps: passes of plan.fused_steps, the remainder in one shallower pass,
// the Dirichlet band recomputed after each fused pass. Returns the steps done (fewer only when cancelled).
int lorastencil_advance(const LoraStencilPlan& plan, const Extent& extent, std::vector<double>& values, int steps,
                        const Boundary& boundary, const StepProgress& progress = {});

} // namespace se
