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
  // A 1D line of `line` points (0: a 2D grid). `layout` is then the line's view as rows of n[0] points (point i at
  // view (i % n[0], i / n[0]), rows pitch_y = n[0] apart, so a view row's halo columns are its neighbour rows' ends):
  // the 2D star kernel with P_hor alone computes the 1D stencil; stores stop at the line's end and (periodic) write
  // the line's images.
  std::int64_t line = 0;
};

void launch_step_fp16(const StepArgs& a, const __half* in, __half* out, cudaStream_t stream);
// Two base steps in one launch (sm_90 with TMA, a 2D star of radius 1 or 2); false (nothing launched) elsewhere.
bool launch_step2_fp16(const StepArgs& a, const __half* in, __half* out, cudaStream_t stream);
void launch_step_fp64(const StepArgs& a, const double* in, double* out, cudaStream_t stream);

} // namespace se::tc
