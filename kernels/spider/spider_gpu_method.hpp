// SPIDER's GPU kernels in the method registry: `spider` (mma.sp, 2:4) and `spider-dense` (mma, the paper's
// ablation), attached to core's descriptors in kernels/registry.cpp.
#pragma once
#include "core/method.hpp"
#include "core/spider/spider_plan.hpp"

namespace se {

// FP16 operands, FP32 accumulation; with the environment variable SE_SPIDER_ACCUMULATE=fp16 the kernels
// accumulate in FP16 instead (mma .f16.f16).
GpuKernel spider_gpu_kernel(SpiderVariant variant);

} // namespace se
