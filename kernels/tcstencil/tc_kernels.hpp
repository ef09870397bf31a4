// TCStencil's GPU step (kernels/tcstencil/tc_kernel.cuh): one launch per base step between two padded grids
// (halo kHalo on both axes). The host side (tc_gpu_method.cpp) lays the plan's parameter matrices and its
// CUDA-core taps out as the kernels read them.
#pragma once
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>

#include "kernels/common/padded_layout.hpp"

namespace se::tc {

constexpr int kMaxRadius = 7; // L = 16 > 2r + 1
constexpr int kHalo = 8;      // the grids' halo: radius 7 fits, and a row's halo is one 16-byte chunk of FP16

struct StepArgs {
  PaddedLayout layout;
  bool periodic = false;
  bool star = false;
  int radius = 1;               // the kernel instantiated for max(1, radius)
  unsigned matrix_mask = 0;     // box: bit dy+R set when P_row(dy) holds a non-zero; star: bit 0 P_ver, bit 1 P_hor
  const void* matrices = nullptr; // 16 x 16 row-major each, in the storage type: box rows dy = -R..R, star P_ver, P_hor
  const void* border = nullptr;   // (2R+1)^2 CUDA-core tap weights [dy+R][dx+R] in the compute type (float, double)
};

void launch_step_fp16(const StepArgs& a, const __half* in, __half* out, cudaStream_t stream);
void launch_step_fp64(const StepArgs& a, const double* in, double* out, cudaStream_t stream);

} // namespace se::tc
