// SPIDER on the CPU, fragment by fragment: B fragments gathered from an FP16 halo-padded grid through the
// plan's input row map, mma.sp (or mma for spider-dense) emulated exactly, FP32 results rounded to FP16.
#pragma once
#include <cstdint>
#include <vector>

#include "core/grid.hpp"
#include "core/reference.hpp"
#include "core/spider/spider_plan.hpp"

namespace se {

struct SpiderRunCounts {
  int steps_done = 0;
  std::int64_t tiles_per_step = 0; // warp tiles covering the grid (partial tiles at the far edges included)
  std::int64_t mma_issued = 0;     // tensor-core instructions emulated over all steps
};

// Advances `values` (x fastest, FP64 in) by `steps` base-stencil steps with the plan's method; on return
// they hold the FP16 grid as doubles. Every point of the extent is updated each step; neighbours outside
// read the Dirichlet value (rounded to FP16) or wrap periodically. Throws InputError when the extent does
// not fit the stencil, an initial value or the boundary value is not a finite FP16 number, or a step's
// result overflows FP16 (naming the step and the limit). Stops early when `progress` returns false.
SpiderRunCounts spider_advance(const SpiderPlan& plan, const Extent& extent, std::vector<double>& values, int steps,
                               const Boundary& boundary, const StepProgress& progress = {});

} // namespace se
