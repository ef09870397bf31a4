// 2D CUDA-core step. A block owns a 128-column strip of two 32-row tiles. Rows of each tile, with the halo
// widened to a 16-byte boundary, are fetched as 16-byte cp.async chunks; both tiles are in flight as soon as
// the block starts, and the second arrives while the first is computed. Each thread slides down a column of 8
// outputs, so every shared-memory value it loads feeds up to 2R+1 outputs from registers.
// The shape was chosen by measurement on an H200 (notes/gpu.md): what matters is the bytes in flight per SM
// (two blocks of 72 KB here) with no register spills; longer pipelines per block and persistent grids were slower.
//
// The boundary is a template parameter: the periodic store, which also writes the halo images, needs index
// registers that cost the Dirichlet kernel 2-3% at its 64-register cap (measured). step_2d.cu instantiates the
// Dirichlet kernels, step_2d_periodic.cu the periodic ones, so the two compile in parallel.
#pragma once
#include "kernels/cuda_core/step_common.cuh"
#include "kernels/cuda_core/step_kernels.hpp"

namespace se {

namespace step2d {

// Tile shape per radius. Radius 1 (the bandwidth-bound presets) takes 128-wide tiles in two blocks of 512
// threads per SM at 64 registers. Wider stencils need more registers per thread (the weights and the
// partial sums of 8 rows) and would spill at that cap, so they take 64-wide tiles, three blocks of 256.
template <int R> struct Shape {
  static constexpr int kTileX = R == 1 ? 128 : 64; // threads along x, one output column each
  static constexpr int kMinBlocks = R == 1 ? 2 : 3;
};
constexpr int kThreadsY = 4;
constexpr int kRowsPerThread = 8;
constexpr int kTileY = kThreadsY * kRowsPerThread;
constexpr int kTilesPerBlock = 2; // both fetched at the start: the second lands while the first is computed

// The tiles along y that block row blockIdx.y computes: kTilesPerBlock from `first`, fewer at the grid's end.
struct BlockTiles {
  std::int64_t first;
  int count;
};
__device__ inline BlockTiles block_tiles(const PaddedLayout& L) {
  const std::int64_t tiles_y = (L.n[1] + kTileY - 1) / kTileY;
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.y) * kTilesPerBlock;
  return {first, static_cast<int>(tiles_y - first < kTilesPerBlock ? tiles_y - first : kTilesPerBlock)};
}
// The grid of those blocks over columns `tile_x` wide.
inline dim3 tile_grid(const PaddedLayout& L, int tile_x) {
  const std::int64_t tiles_y = (L.n[1] + kTileY - 1) / kTileY;
  return dim3(grid_blocks(L.n[0], tile_x), grid_blocks(tiles_y, kTilesPerBlock));
}

// FP16 at radius 1 to 3 on Dirichlet grids (step_2d_half.cu): two columns per thread. Returns false, launching nothing,
// for another radius or weight count, or where the grid's pairs do not start on 4-byte boundaries.
bool launch_half_pair(int radius, const __half* in, __half* out, const PaddedLayout& L, const std::vector<double>& weights,
                      cudaStream_t stream);

template <typename S, int R> constexpr int kRowWidth = Shape<R>::kTileX + 2 * kLeft<S, R>;

template <typename S, int R> constexpr std::size_t tile_elements() {
  return static_cast<std::size_t>(kTileY + 2 * R) * kRowWidth<S, R>;
}

// Whether the (2R + 1)^2 weights are zero off the centre row and column (star-2d13p, heat-2d).
inline bool star_weights_2d(const std::vector<double>& weights, int radius) {
  const int side = 2 * radius + 1;
  if (weights.size() != static_cast<std::size_t>(side * side)) return false;
  for (int dy = 0; dy < side; ++dy)
    for (int dx = 0; dx < side; ++dx)
      if (dy != radius && dx != radius && weights[static_cast<std::size_t>(dy * side + dx)] != 0.0) return false;
  return true;
}

// kStar (radius 1 to 3, star_weights_2d): the centre column meets every weight row, the other columns only the
// output's own row, so a thread loads 8 + 2R + 8 x 2R values for its 8 outputs and issues 4R + 1 FMAs per point
// (star-2d13p: 7.75 loads and 13 FMAs per point against 12.25 and 49 in the dense loop). H200, 10240^2, `suite
// --seconds 1`, the dense loop and this one alternated twice in one call (session 50): cuda-core star-2d13p 143.0 /
// 142.8 -> 230.3 / 230.9 GStencil/s (86% of the FP64 copy roof, 4.24 TB/s / 16 B), cuda-core-fp32 214.2 / 214.0 ->
// 380.4 / 380.2 (72% of FP32's). Radius 1 (heat-2d; session 51, the same way): cuda-core 224.9 / 225.1 -> 227.5 /
// 227.1, cuda-core-fp32 431.1 / 431.0 -> 440.9 / 440.5 (ptxas sm_90: FP64 59 registers against 64, FP32 62 against
// 56, no spill).
template <typename S, int R, bool kPeriodic, bool kStar = false>
__global__ void __launch_bounds__(Shape<R>::kTileX * kThreadsY, Shape<R>::kMinBlocks)
    step_2d_kernel(const S* __restrict__ in, S* __restrict__ out, PaddedLayout L,
                   KernelWeights<compute_t<S>, (2 * R + 1) * (2 * R + 1)> w) {
  using C = compute_t<S>;
  constexpr int kTileX = Shape<R>::kTileX;
  constexpr int kSide = 2 * R + 1, kW = kRowWidth<S, R>, kH = kTileY + 2 * R, kA = kLeft<S, R>;
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  S* buffers = reinterpret_cast<S*>(shared_bytes); // two tiles of kH x kW
  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::int64_t x0 = static_cast<std::int64_t>(blockIdx.x) * kTileX;
  const auto [first_tile, tiles] = block_tiles(L);
  const std::int64_t chunks_left = chunks_to_row_end<S>(L, x0 - kA);
  const int tid = ty * kTileX + tx;

  const auto fetch = [&](int t, S* dst) {
    const std::int64_t y0 = (first_tile + t) * kTileY;
    stage_rows_async<S, kW, kH>(dst, in + L.index(x0 - kA, y0 - R, 0), L.pitch_y, L.n[1] + R - (y0 - R), chunks_left,
                                tid, kTileX * kThreadsY);
    __pipeline_commit();
  };

  fetch(0, buffers);
  for (int t = 0; t < tiles; ++t) {
    S* tile = buffers + (t & 1) * kH * kW;
    if (t + 1 < tiles) fetch(t + 1, buffers + ((t + 1) & 1) * kH * kW);
    else __pipeline_commit(); // an empty group keeps "all but the newest group done" meaning tile t
    __pipeline_wait_prior(1);
    __syncthreads();

    C acc[kRowsPerThread];
#pragma unroll
    for (int i = 0; i < kRowsPerThread; ++i) acc[i] = C(0);
    const int y_local = ty * kRowsPerThread;
    if constexpr (kStar) {
#pragma unroll
      for (int j = 0; j < kRowsPerThread + 2 * R; ++j) { // the centre column: every weight row
        const C v = load_as<C>(tile[(y_local + j) * kW + tx + kA]);
#pragma unroll
        for (int i = 0; i < kRowsPerThread; ++i) {
          const int dy = j - i;
          if (dy >= 0 && dy < kSide) acc[i] = fma(w.w[dy * kSide + R], v, acc[i]);
        }
      }
#pragma unroll
      for (int i = 0; i < kRowsPerThread; ++i) // the centre row: the output's own input row
#pragma unroll
        for (int dx = 0; dx < kSide; ++dx)
          if (dx != R) acc[i] = fma(w.w[R * kSide + dx], load_as<C>(tile[(y_local + i + R) * kW + tx + dx + (kA - R)]), acc[i]);
    } else {
    // Columns are a run-time loop for R > 2: smaller code, and the weights are then read by index.
#pragma unroll(R <= 2 ? kSide : 1)
    for (int dx = 0; dx < kSide; ++dx)
#pragma unroll
      for (int j = 0; j < kRowsPerThread + 2 * R; ++j) {
        const C v = load_as<C>(tile[(y_local + j) * kW + tx + dx + (kA - R)]);
#pragma unroll
        for (int i = 0; i < kRowsPerThread; ++i) {
          const int dy = j - i; // row of the weight array this input meets for output row i
          if (dy >= 0 && dy < kSide) acc[i] = fma(w.w[dy * kSide + dx], v, acc[i]);
        }
      }
    }
    const std::int64_t x = x0 + tx, y0 = (first_tile + t) * kTileY + y_local;
    if (x < L.n[0]) {
#pragma unroll
      for (int i = 0; i < kRowsPerThread; ++i)
        if (y0 + i < L.n[1]) store_with_images(out, L, kPeriodic, x, y0 + i, std::int64_t(0), store_as<S>(acc[i]));
    }
    __syncthreads(); // the next iteration fetches into the buffer just read
  }
}

template <typename S, int R, bool kPeriodic, bool kStar>
void launch_kernel(const S* in, S* out, const PaddedLayout& L,
                   const KernelWeights<compute_t<S>, (2 * R + 1) * (2 * R + 1)>& w, cudaStream_t stream) {
  constexpr int kTileX = Shape<R>::kTileX;
  const dim3 grid = tile_grid(L, kTileX);
  const std::size_t smem = 2 * tile_elements<S, R>() * sizeof(S);
  // Once per kernel: the attribute holds for the process, and setting it on every launch costs host time.
  static const bool opted_in = [&] {
    if (smem > 48 * 1024)
      SE_CUDA_CHECK(cudaFuncSetAttribute(step_2d_kernel<S, R, kPeriodic, kStar>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
    return true;
  }();
  (void)opted_in;
  step_2d_kernel<S, R, kPeriodic, kStar><<<grid, dim3(kTileX, kThreadsY), smem, stream>>>(in, out, L, w);
  SE_CUDA_CHECK_LAUNCH("step_2d_kernel");
}

template <typename S, bool kPeriodic>
void launch(int radius, const S* in, S* out, const PaddedLayout& L, const std::vector<double>& weights,
            cudaStream_t stream) {
  const bool star = star_weights_2d(weights, radius);
  dispatch_radius(radius, [&](auto r) {
    constexpr int R = decltype(r)::value;
    const auto w = kernel_weights<compute_t<S>, (2 * R + 1) * (2 * R + 1)>(weights);
    if constexpr (R <= 3)
      if (star) return launch_kernel<S, R, kPeriodic, true>(in, out, L, w, stream);
    launch_kernel<S, R, kPeriodic, false>(in, out, L, w, stream);
  });
}

// Defined in step_2d_periodic.cu.
template <typename S>
void launch_periodic(int radius, const S* in, S* out, const PaddedLayout& L, const std::vector<double>& weights,
                     cudaStream_t stream);

} // namespace step2d

} // namespace se
