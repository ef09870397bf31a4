// LoRAStencil's GPU kernel (FP64 tensor cores, mma.m16n8k4), attached to core's descriptor in the registry: its
// own plan (the kernels' warp tile and the H200 roofline), the shared-memory check, and its stepper.
#pragma once
#include "core/method.hpp"

namespace se {

GpuKernel lorastencil_gpu_kernel();

} // namespace se
