// The 2D radius-1 step for FP16 storage on Dirichlet grids, two columns per thread (cuda-core-fp16 heat-2d,
// box-2d9p). step_2d.cuh's kernel takes one FP16 value per shared load and converts each to float, so in FP16 it is
// bound by instruction issue (heat-2d 480 GStencil/s on an H200, 46% of the FP16 copy roof, where FP32 reaches
// 78%). Here a thread owns the output columns c and c + 1 (c even) of 8 rows: per input row it reads three 4-byte
// half2 values at even offsets (columns c - 2 .. c + 3, of which c - 1 .. c + 2 are used) instead of six 2-byte
// ones, and stores a half2. kStar: the 3x3 weights' corners are zero (heat-2d), so their FMAs are left out (5
// instead of 9 per point). Same tiles as step_2d.cuh (two 32-row tiles per block in flight through 16-byte cp.async
// chunks), 256 columns wide (128 threads x 2).
// Per point and step: 4 bytes of device memory (2 read, 2 written) and 17 (box) or 9 (star) useful FLOP.
// H200, 10240^2 FP16, `suite --seconds 1`, the old kernel and this one alternated twice in one call (session 49):
// heat-2d 480.5 / 480.4 -> 772.1 / 772.8 GStencil/s (the star form; all 9 weights gave 656.2 / 655.5), box-2d9p
// 480.9 / 481.5 -> 657.0 / 655.4. Not measured on an H100.
#include "kernels/cuda_core/step_2d.cuh"

namespace se::step2d {

namespace {

constexpr int kPairThreadsX = 128;
constexpr int kPairCols = 2 * kPairThreadsX;
constexpr int kPairA = kLeft<__half, 1>;             // 8 staged columns left of the tile (a 16-byte chunk)
constexpr int kPairW = kPairCols + 2 * kPairA;         // 272 halves: 544 bytes, whole chunks
constexpr int kPairH = kTileY + 2;

template <bool kStar>
__global__ void __launch_bounds__(kPairThreadsX * kThreadsY, 2)
    step_2d_half_pair_kernel(const __half* __restrict__ in, __half* __restrict__ out, PaddedLayout L,
                             KernelWeights<float, 9> w) {
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  __half* buffers = reinterpret_cast<__half*>(shared_bytes); // two tiles of kPairH x kPairW
  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::int64_t x0 = static_cast<std::int64_t>(blockIdx.x) * kPairCols;
  const auto [first_tile, tiles] = block_tiles(L);
  const std::int64_t chunks_left = chunks_to_row_end<__half>(L, x0 - kPairA);
  const int tid = ty * kPairThreadsX + tx;
  const auto fetch = [&](int t, __half* dst) {
    const std::int64_t y0 = (first_tile + t) * kTileY;
    stage_rows_async<__half, kPairW, kPairH>(dst, in + L.index(x0 - kPairA, y0 - 1, 0), L.pitch_y, L.n[1] + 1 - (y0 - 1),
                                             chunks_left, tid, kPairThreadsX * kThreadsY);
    __pipeline_commit();
  };
  const int c = 2 * tx; // the thread's first output column within the tile
  fetch(0, buffers);
  for (int t = 0; t < tiles; ++t) {
    const __half* tile = buffers + (t & 1) * kPairH * kPairW;
    if (t + 1 < tiles) fetch(t + 1, buffers + ((t + 1) & 1) * kPairH * kPairW);
    else __pipeline_commit();
    __pipeline_wait_prior(1);
    __syncthreads();
    float a0[kRowsPerThread], a1[kRowsPerThread]; // columns c and c + 1
#pragma unroll
    for (int i = 0; i < kRowsPerThread; ++i) a0[i] = a1[i] = 0.0f;
    const int y_local = ty * kRowsPerThread;
#pragma unroll
    for (int j = 0; j < kRowsPerThread + 2; ++j) {
      const __half* row = tile + (y_local + j) * kPairW + kPairA + c;
      const float2 l = __half22float2(*reinterpret_cast<const __half2*>(row - 2));
      const float2 m = __half22float2(*reinterpret_cast<const __half2*>(row));
      const float2 r = __half22float2(*reinterpret_cast<const __half2*>(row + 2));
      const float vm = l.y, v0 = m.x, v1 = m.y, v2 = r.x; // columns c - 1 .. c + 2
#pragma unroll
      for (int i = 0; i < kRowsPerThread; ++i) {
        const int dy = j - i;
        if (dy < 0 || dy > 2) continue;
        if (!kStar || dy == 1) {
          a0[i] = fmaf(w.w[dy * 3 + 0], vm, a0[i]);
          a1[i] = fmaf(w.w[dy * 3 + 0], v0, a1[i]);
          a0[i] = fmaf(w.w[dy * 3 + 2], v1, a0[i]);
          a1[i] = fmaf(w.w[dy * 3 + 2], v2, a1[i]);
        }
        a0[i] = fmaf(w.w[dy * 3 + 1], v0, a0[i]);
        a1[i] = fmaf(w.w[dy * 3 + 1], v1, a1[i]);
      }
    }
    const std::int64_t x = x0 + c, y0 = (first_tile + t) * kTileY + y_local;
    if (x < L.n[0]) {
#pragma unroll
      for (int i = 0; i < kRowsPerThread; ++i) {
        if (y0 + i >= L.n[1]) continue;
        if (x + 1 < L.n[0]) {
          *reinterpret_cast<__half2*>(out + L.index(x, y0 + i, 0)) = __floats2half2_rn(a0[i], a1[i]);
        } else {
          out[L.index(x, y0 + i, 0)] = __float2half_rn(a0[i]);
        }
      }
    }
    __syncthreads();
  }
}

template <bool kStar> void launch_pair(const __half* in, __half* out, const PaddedLayout& L, const KernelWeights<float, 9>& w,
                                       cudaStream_t stream) {
  const dim3 grid = tile_grid(L, kPairCols);
  constexpr std::size_t smem = 2 * static_cast<std::size_t>(kPairH) * kPairW * sizeof(__half);
  step_2d_half_pair_kernel<kStar><<<grid, dim3(kPairThreadsX, kThreadsY), smem, stream>>>(in, out, L, w);
  SE_CUDA_CHECK_LAUNCH("step_2d_half_pair_kernel");
}

} // namespace

bool launch_half_pair(int radius, const __half* in, __half* out, const PaddedLayout& L, const std::vector<double>& weights,
                      cudaStream_t stream) {
  if (radius != 1 || weights.size() != 9 || L.dims != 2 || L.origin[0] % 2 != 0 || L.pitch_y % 2 != 0) return false;
  const auto w = kernel_weights<float, 9>(weights);
  const bool star = weights[0] == 0.0 && weights[2] == 0.0 && weights[6] == 0.0 && weights[8] == 0.0;
  if (star) launch_pair<true>(in, out, L, w, stream);
  else launch_pair<false>(in, out, L, w, stream);
  return true;
}

} // namespace se::step2d
