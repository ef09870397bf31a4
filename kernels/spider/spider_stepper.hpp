// SPIDER's device grid: two padded FP16 grids (halo = radius), one kernel launch per base step.
#pragma once
#include <memory>

#include "core/spider/spider_plan.hpp"
#include "kernels/common/grid_stepper.hpp"

namespace se {

std::unique_ptr<GridStepper> make_spider_stepper(const SpiderPlan& plan, const Extent& e, const Boundary& b);

} // namespace se
