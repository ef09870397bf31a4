// Per-dimension launch functions of the pass kernels, one per .cu file so each compiles on its own;
// lora_pass_launch.cpp picks one. `blocks` 0 asks only for the resident blocks per SM (returned).
#pragma once
#include <cuda_runtime.h>

#include <cstddef>

#include "kernels/lorastencil/lora_pass_args.hpp"

namespace se::lora_gpu {

int run_pass_1d(const PassArgs& args, int blocks, std::size_t shared, cudaStream_t stream);
int run_pass_2d(const PassArgs& args, int blocks, std::size_t shared, cudaStream_t stream);
int run_pass_3d(const PassArgs& args, int blocks, std::size_t shared, cudaStream_t stream);

} // namespace se::lora_gpu
