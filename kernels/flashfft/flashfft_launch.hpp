// Host entry points of the FlashFFTStencil CUDA kernels (FP64 tensor cores, mma.m16n8k4): one fused pass of
// k_f^T over a 1D grid (prime-factor segments) or a 2D grid (row-column tiles). The constants (the plan's DFT matrices in swizzled order and k_f^T / N) are packed in
// fragment order by the runner; launches go to the caller's stream and do not wait.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>

namespace se::flashfft_gpu {

constexpr int kWarps = 8; // warps per block; each warp runs one double-layer tile pair at a time

// The geometries the 1D kernel is compiled for: P1 = 16 t1, P2 = 16 t2 (padded transform sizes).
struct Shape1d {
  int t1 = 1, t2 = 1;
};
// Doubles of the packed constants (FR, GC, GI, FI, k_f^T / N) for a shape.
std::size_t constant_doubles(Shape1d s);
// Shared memory one block needs: the constants plus one staging segment pair per warp.
std::size_t shared_bytes(Shape1d s);

struct Pass1dArgs {
  const double* in = nullptr; // the grid before the pass (nx x ny points, x fastest)
  double* out = nullptr;      // after T base steps (every point written)
  const double* consts = nullptr;
  int dims = 1;               // 1: prime-factor segments; 2: row-column tiles of L1 (y) x L2 (x)
  long long nx = 0, ny = 1;   // grid points along x and y
  int L1 = 16, L2 = 15;       // 1D: the prime-factor split of a segment, L = L1 L2; 2D: tile rows (y), cols (x)
  int Sx = 1, Sy = 1, R = 0;  // stitched outputs per tile along x and y, halo R = T r
  long long cx = 1;           // tiles along x (2D)
  long long tiles = 0, pairs = 0;
  int periodic = 0;
  double boundary_value = 0.0;
};

// Resident blocks for a persistent launch of this shape on the current device.
int pass_blocks_1d(Shape1d s);
// Resident blocks of kWarps warps for a kernel taking `shared_bytes` of dynamic shared memory (sets the limit).
int resident_blocks(const void* kernel, std::size_t shared_bytes);
void launch_pass_1d(const Pass1dArgs& args, Shape1d s, int blocks, cudaStream_t stream);

// 3D (flashfft_kernel_3d.cu): cubes of 16 (y) x 16 (x) x kCubeDepth (z), one block of kWarps warps per
// double-layer cube pair, one slice per warp; the z DFT on CUDA cores. Constants: FR, GC, GI, FI as in 1D/2D
// at t1 = t2 = 1, then k_f^T / N per (kz, cell) as (re, im) with cell = (c * 4 + r) * 32 + lane (c = 0, 1 the
// real tiles of step 2's accumulators), then Fz as (re, im), row kz.
constexpr int kCubeDepth = kWarps;
struct Pass3dArgs {
  const double* in = nullptr;
  double* out = nullptr;
  const double* consts = nullptr;
  long long nx = 0, ny = 0, nz = 0;
  int Sx = 1, Sy = 1, Sz = 1, R = 0;
  long long cx = 1, cy = 1; // cubes along x and y
  long long tiles = 0, pairs = 0;
  int periodic = 0;
  double boundary_value = 0.0;
};
std::size_t constant_doubles_3d();
std::size_t shared_bytes_3d();
int pass_blocks_3d();
void launch_pass_3d(const Pass3dArgs& args, int blocks, cudaStream_t stream);

} // namespace se::flashfft_gpu
