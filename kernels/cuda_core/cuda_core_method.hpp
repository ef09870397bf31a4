// The CUDA-core baselines as descriptors: GPU kernels only (the FP64 reference is their CPU counterpart), planned
// by core's streaming model.
#pragma once
#include "core/method.hpp"

namespace se {

// "cuda-core" (FP64), "cuda-core-fp32", "cuda-core-fp16" (FP16 storage, FP32 arithmetic): one launch per step.
DescriptorPtr cuda_core_descriptor(Precision storage);
// "cuda-core-tb" (FP64) and "cuda-core-tb-fp32": temporally blocked, the steps per launch from
// core/temporal_blocking_model.hpp's model (any smaller depth on request).
DescriptorPtr cuda_core_tb_descriptor(Precision storage = Precision::FP64);

} // namespace se
