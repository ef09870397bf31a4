// Host entry points of the LoRAStencil CUDA kernels: one pass of W^T, the exact Dirichlet band fix after a
// fused pass, and occupancy. Launches go to the caller's stream and do not wait.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

#include "kernels/lorastencil/lora_gpu_plan.hpp"
#include "kernels/lorastencil/lora_pass_args.hpp"

namespace se::lora_gpu {

// Resident blocks of the pass kernel for `args` on the current device (persistent grid size); throws
// InputError when the block's shared memory exceeds what the device gives one block.
int pass_blocks(const PassArgs& args);
// Launches one pass (args.in/out/tables set). Checks the launch, does not synchronize.
void launch_pass(const PassArgs& args, int blocks, cudaStream_t stream);

struct BandFixArgs {
  const double* in = nullptr;  // the values before the fused pass
  double* out = nullptr;       // the pass's result, whose band is overwritten
  const FixBox* boxes = nullptr;
  const double* weights = nullptr; // the base stencil, (2r+1)^dims values, x fastest
  long long nx = 1, ny = 1, nz = 1;
  int dims = 2, radius = 1, steps = 2;
  int box_count = 0;
  double boundary_value = 0.0;
  std::size_t shared_bytes = 0; // largest box region x 2 buffers + weights
};
// The largest shared memory a fix block may use on this device (per block, opted in).
std::size_t band_fix_shared_budget();
// Every argument of the band fix after a fused pass of `steps` steps but in and out: the boxes (`boxes` on the
// host, from band_fix_boxes; `device_boxes` their copy on the device), the stencil's weights on the device, and
// the shared memory the largest box needs (its region with the pass's halo, twice, and the weights).
BandFixArgs band_fix_args(const Extent& extent, const Stencil& stencil, const double* device_weights, int steps,
                          double boundary_value, const std::vector<FixBox>& boxes, const FixBox* device_boxes);
void launch_band_fix(const BandFixArgs& args, cudaStream_t stream);

} // namespace se::lora_gpu
