// ConvStencil's GPU kernel (FP64 tensor cores, mma.m16n8k4), attached to core's descriptor in the registry.
#pragma once
#include "core/method.hpp"

namespace se {

GpuKernel convstencil_gpu_kernel();

} // namespace se
