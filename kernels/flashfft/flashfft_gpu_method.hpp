// FlashFFTStencil's GPU kernel (FP64 tensor cores, mma.m16n8k4), attached to core's descriptor in the registry:
// its own plan (core's plan at a tile the kernels are compiled for, the fusion depth from the H200 roofline),
// the shared-memory check, and its stepper.
#pragma once
#include "core/flashfft/flashfft_plan.hpp"
#include "core/method.hpp"

namespace se {

GpuKernel flashfft_gpu_kernel();

namespace flashfft_gpu {
// The tiles the 1D kernel is compiled for, as (L1, L2): padded 16 x 16, 32 x 16 and 16 x 32.
struct Tile1d {
  int L1, L2, t1, t2;
};
const std::vector<Tile1d>& tiles_1d();
// The 2D tiles, as (rows = y, cols = x): 16 x 16, 32 x 16, 16 x 32.
const std::vector<Tile1d>& tiles_2d();
// The 3D tile: 16 (y) x 16 (x) slices, 8 of them along z (one per warp of the 3D kernel).
const std::vector<Tile1d>& tiles_3d();
// The compiled tile of a plan; null when no kernel takes it (whole-period, another size).
const Tile1d* tile_of(const FlashFftPlan& p);
// Core's plan for the GPU: 1D, 2D and 3D, the compiled tile with the least predicted time,
// T = fused_steps, or (0) the depth with the least predicted time per point and step (T <= 64 in 1D, 8 in 2D,
// 3 in 3D).
FlashFftPlan plan_for_gpu(const Stencil& s, int fused_steps);
// Predicted seconds per point and base step on an H200 (67 TFLOP/s FP64 m16n8k4, 4.0 TB/s copy), and the
// m16n8k4 instructions and bytes per point and step behind it.
struct GpuPrediction {
  double mma_per_point = 0, bytes_per_point = 0, seconds_per_point = 0;
};
GpuPrediction predict(const FlashFftPlan& p);
} // namespace flashfft_gpu

} // namespace se
