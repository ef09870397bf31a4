// SPIDER's kernel launches (kernels/spider/spider_kernels_{1d,2d}.cu), one base step each.
#pragma once
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/common/padded_layout.hpp"
#include "kernels/spider/spider_gpu_tables.hpp"

namespace se::spider_gpu {

struct KernelArgs {
  const __half* in = nullptr; // padded FP16 grid, halo = radius
  __half* out = nullptr;
  PaddedLayout layout{};
  int periodic = 0;
  const std::uint32_t* a = nullptr;   // Tables::a on the device
  const std::uint32_t* meta = nullptr;
  const std::int32_t* boff = nullptr;
  int sw = 0, sh = 0;
  std::int64_t tiles_x = 1, tiles_y = 1; // block tiles
};

// One step from args.in to args.out with the kernel compiled for `t` (radius, dims, sparse, accumulation).
void launch_step(const Tables& t, const KernelArgs& args, cudaStream_t stream);
void launch_step_1d(const Tables& t, const KernelArgs& args, cudaStream_t stream);
void launch_step_2d(const Tables& t, const KernelArgs& args, cudaStream_t stream);

} // namespace se::spider_gpu
