// 2D CUDA-core step. A block owns a 32-column strip and walks down it tile by tile (32 x 64 outputs): while
// it computes one tile from shared memory, cp.async is already fetching the next, so device memory never
// waits on arithmetic. Each thread slides down a column of 8 outputs, so every shared-memory value it loads
// feeds up to 2R+1 outputs from registers (3.75 loads per output for R=1 instead of 9).
// notes/gpu.md records the variants tried on an H200 (three-stage 16-byte fetches, a persistent grid): both
// measured slower than this one.
#include "kernels/cuda_core/step_common.cuh"
#include "kernels/cuda_core/step_kernels.hpp"

namespace se {

namespace {

constexpr int kTileX = 32; // threads along x, one output column each
constexpr int kThreadsY = 8;
constexpr int kRowsPerThread = 8;
constexpr int kTileY = kThreadsY * kRowsPerThread;
constexpr int kTilesPerBlock = 8; // tiles one block walks through (the pipeline's length)

template <typename S, int R> constexpr std::size_t tile_elements() {
  return static_cast<std::size_t>(kTileY + 2 * R) * (kTileX + 2 * R);
}

template <typename S, int R>
__global__ void __launch_bounds__(kTileX * kThreadsY, 3)
    step_2d_kernel(const S* __restrict__ in, S* __restrict__ out, PaddedLayout L, bool periodic,
                   KernelWeights<compute_t<S>, (2 * R + 1) * (2 * R + 1)> w) {
  using C = compute_t<S>;
  constexpr int kSide = 2 * R + 1, kW = kTileX + 2 * R, kH = kTileY + 2 * R;
  constexpr int kRowIters = (kH + kThreadsY - 1) / kThreadsY;
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  S* buffers = reinterpret_cast<S*>(shared_bytes); // two tiles of kH x kW
  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::int64_t x0 = static_cast<std::int64_t>(blockIdx.x) * kTileX;
  const std::int64_t tiles_y = (L.n[1] + kTileY - 1) / kTileY;
  const std::int64_t first_tile = static_cast<std::int64_t>(blockIdx.y) * kTilesPerBlock;
  const int tiles = static_cast<int>(tiles_y - first_tile < kTilesPerBlock ? tiles_y - first_tile : kTilesPerBlock);
  const std::int64_t cols_left = L.n[0] + R - (x0 - R); // columns of the padded row from the tile's first

  // Thread (tx, ty) fetches column tx (and tx + 32 for the right halo) of rows ty, ty + 8, ...: each warp
  // reads one contiguous row segment. Rows past the padding feed no output and are not fetched.
  const auto fetch = [&](int t, S* dst) {
    const std::int64_t y0 = (first_tile + t) * kTileY;
    const S* base = in + L.index(x0 - R, y0 - R, 0);
    const std::int64_t rows_left = L.n[1] + R - (y0 - R);
#pragma unroll
    for (int i = 0; i < kRowIters; ++i) {
      const int r = ty + i * kThreadsY;
      if (r < kH && r < rows_left) {
        const S* row = base + r * L.pitch_y;
        if (tx < cols_left) copy_async(dst + r * kW + tx, row + tx);
        if (tx < 2 * R && kTileX + tx < cols_left) copy_async(dst + r * kW + kTileX + tx, row + kTileX + tx);
      }
    }
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
    // Columns are a run-time loop for R > 2: smaller code, and the weights are then read by index.
#pragma unroll(R <= 2 ? kSide : 1)
    for (int dx = 0; dx < kSide; ++dx)
#pragma unroll
      for (int j = 0; j < kRowsPerThread + 2 * R; ++j) {
        const C v = load_as<C>(tile[(y_local + j) * kW + tx + dx]);
#pragma unroll
        for (int i = 0; i < kRowsPerThread; ++i) {
          const int dy = j - i; // row of the weight array this input meets for output row i
          if (dy >= 0 && dy < kSide) acc[i] = fma(w.w[dy * kSide + dx], v, acc[i]);
        }
      }
    const std::int64_t x = x0 + tx, y0 = (first_tile + t) * kTileY + y_local;
    if (x < L.n[0]) {
#pragma unroll
      for (int i = 0; i < kRowsPerThread; ++i)
        if (y0 + i < L.n[1]) store_with_images(out, L, periodic, x, y0 + i, std::int64_t(0), store_as<S>(acc[i]));
    }
    __syncthreads(); // the next iteration fetches into the buffer just read
  }
}

} // namespace

template <typename S>
void launch_step_2d(int radius, const S* in, S* out, const PaddedLayout& L, bool periodic,
                    const std::vector<double>& weights, cudaStream_t stream) {
  dispatch_radius(radius, [&](auto r) {
    constexpr int R = decltype(r)::value;
    const auto w = kernel_weights<compute_t<S>, (2 * R + 1) * (2 * R + 1)>(weights);
    const std::int64_t tiles_y = (L.n[1] + kTileY - 1) / kTileY;
    const dim3 grid(grid_blocks(L.n[0], kTileX), grid_blocks(tiles_y, kTilesPerBlock));
    const std::size_t smem = 2 * tile_elements<S, R>() * sizeof(S);
    if (smem > 48 * 1024)
      SE_CUDA_CHECK(cudaFuncSetAttribute(step_2d_kernel<S, R>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(smem)));
    step_2d_kernel<S, R><<<grid, dim3(kTileX, kThreadsY), smem, stream>>>(in, out, L, periodic, w);
    SE_CUDA_CHECK_LAUNCH("step_2d_kernel");
  });
}

SE_INSTANTIATE_STEP_LAUNCHER(launch_step_2d)

} // namespace se
