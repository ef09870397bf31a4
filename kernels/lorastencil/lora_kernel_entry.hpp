// Per-dimension launch functions of the pass kernels, one per .cu file so each compiles on its own;
// lora_pass_launch.cpp picks one. `blocks` 0 asks only for the resident blocks per SM (returned).
#pragma once
#include <cuda_runtime.h>

#include <cstddef>

#include "kernels/lorastencil/lora_pass_args.hpp"

namespace se::lora_gpu {

// A TMA tensor map of args.in for the 2D/3D passes (box: pitch x staged_rows, and 1 plane in 3D; out-of-bounds
// elements read as zeros), written to `map` (a CUtensorMap, 128 bytes). False where it cannot be made (no driver
// entry point, compute capability below 9.0, odd nx, a box over 256): the kernels then stage row by row.
bool encode_tile_map(const PassArgs& args, void* map);

int run_pass_1d(const PassArgs& args, int blocks, std::size_t shared, cudaStream_t stream);
int run_pass_2d(const PassArgs& args, int blocks, std::size_t shared, cudaStream_t stream);
int run_pass_3d(const PassArgs& args, int blocks, std::size_t shared, cudaStream_t stream);

} // namespace se::lora_gpu
