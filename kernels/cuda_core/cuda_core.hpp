// The hand-written CUDA-core baselines as GridSteppers: one launch per step in FP64, FP32 or FP16
// storage (FP16 computes in FP32), and the FP64 temporally blocked variant (k steps per launch).
#pragma once
#include <memory>
#include <vector>

#include "core/grid.hpp"
#include "core/stencil.hpp"
#include "kernels/common/grid_stepper.hpp"

namespace se {

std::unique_ptr<GridStepper> make_cuda_core_stepper(Precision storage, const Stencil& s, const Extent& e,
                                                    const Boundary& b);

// `max_fused` steps per launch at most; fewer when the tile with its k*r halo would not fit in shared memory.
std::unique_ptr<GridStepper> make_cuda_core_tb_stepper(const Stencil& s, const Extent& e, const Boundary& b,
                                                       int max_fused);
// The steps per launch make_cuda_core_tb_stepper will use on this device (0 when none fits).
int cuda_core_tb_fused_steps(const Stencil& s, int max_fused);

// The stencil's dense weights re-centred in a (2R+1)^dims array, R >= s.radius (radius 0 runs as radius 1).
std::vector<double> weights_at_radius(const Stencil& s, int radius);

} // namespace se
