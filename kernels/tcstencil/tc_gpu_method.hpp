// TCStencil's GPU kernels in the method registry: tcstencil (FP16, mma.m16n8k16, FP32 accumulate) and
// tcstencil-fp64 (mma.m16n8k4), both from core's TCStencil plan on L = 16 tiles.
#pragma once
#include "core/method.hpp"

namespace se {

GpuKernel tcstencil_gpu_kernel(Precision precision); // Precision::FP16 or Precision::FP64

} // namespace se
