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

// cuda-core-tb (FP64 or FP32 storage): `max_fused` steps per launch at most; fewer where the kernel's capacity
// (core/temporal_blocking_model.hpp) or, in 3D, the shared memory for a tile with its k*r halo is short.
std::unique_ptr<GridStepper> make_cuda_core_tb_stepper(Precision storage, const Stencil& s, const Extent& e,
                                                       const Boundary& b, int max_fused);
// The steps per launch make_cuda_core_tb_stepper will use on this device (0 when none fits).
int cuda_core_tb_fused_steps(const Stencil& s, Precision storage, int max_fused);

// The stencil's dense weights re-centred in a (2R+1)^dims array, R >= s.radius (radius 0 runs as radius 1).
std::vector<double> weights_at_radius(const Stencil& s, int radius);

} // namespace se
