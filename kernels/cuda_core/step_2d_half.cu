// The 2D step for FP16 storage on Dirichlet grids at radius 1 to 3, two columns per thread (cuda-core-fp16 heat-2d,
// box-2d9p, star-2d13p, box-2d25p, box-2d49p). step_2d.cuh's kernel takes one FP16 value per shared load and
// converts each to float, so in FP16 it is bound by instruction issue (heat-2d 480 GStencil/s on an H200, 46% of the
// FP16 copy roof, where FP32 reaches 78%). Here a thread owns the output columns c and c + 1 (c even) of 8 rows: per
// input row it reads Re + 1 half2 values at even offsets c - Re .. c + Re (Re: the radius rounded up to even; at
// radius 1 three 4-byte loads instead of six 2-byte ones) and stores a half2. kStar: the weights are zero off the
// centre row and column (heat-2d, star-2d13p), so those FMAs are left out (4R + 1 instead of (2R + 1)^2 per point).
// Same tiles as step_2d.cuh (two 32-row tiles per block in flight through 16-byte cp.async chunks), 256 columns
// wide (128 threads x 2).
// Per point and step: 4 bytes of device memory (2 read, 2 written) and 2(4R + 1) - 1 (star) or 2(2R + 1)^2 - 1 useful
// FLOP.
// H200, 10240^2 FP16, `suite --seconds 1`, the old kernel and this one alternated twice in one call (session 49):
// heat-2d 480.5 / 480.4 -> 772.1 / 772.8 GStencil/s (the star form; all 9 weights gave 656.2 / 655.5), box-2d9p
// 480.9 / 481.5 -> 657.0 / 655.4. Radius 2 and 3, the same way (session 50): star-2d13p 221.7 / 221.4 -> 553.6 / 553.8
// (52% of the FP16 copy roof, 4.23 TB/s / 4 B), box-2d25p 353.3 / 353.1 -> 457.7 / 458.1, box-2d49p 221.9 / 221.7 ->
// 323.4 / 323.6. Not measured on an H100.
#include "kernels/cuda_core/step_2d.cuh"

namespace se::step2d {

namespace {

constexpr int kPairThreadsX = 128;
constexpr int kPairCols = 2 * kPairThreadsX;
constexpr int kPairA = 8; // staged columns left of the tile: a 16-byte chunk, at least the window's reach Re
template <int R> constexpr int kPairH = kTileY + 2 * R;
constexpr int kPairW = kPairCols + 2 * kPairA; // 272 halves: 544 bytes, whole chunks

template <int R, bool kStar>
__global__ void __launch_bounds__(kPairThreadsX * kThreadsY, 2)
    step_2d_half_pair_kernel(const __half* __restrict__ in, __half* __restrict__ out, PaddedLayout L,
                             KernelWeights<float, (2 * R + 1) * (2 * R + 1)> w) {
  constexpr int kSide = 2 * R + 1, kRe = (R + 1) / 2 * 2, kH = kPairH<R>;
  static_assert(kRe <= kPairA, "the staged columns cover the window");
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  __half* buffers = reinterpret_cast<__half*>(shared_bytes); // two tiles of kH x kPairW
  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::int64_t x0 = static_cast<std::int64_t>(blockIdx.x) * kPairCols;
  const auto [first_tile, tiles] = block_tiles(L);
  const std::int64_t chunks_left = chunks_to_row_end<__half>(L, x0 - kPairA);
  const int tid = ty * kPairThreadsX + tx;
  const auto fetch = [&](int t, __half* dst) {
    const std::int64_t y0 = (first_tile + t) * kTileY;
    stage_rows_async<__half, kPairW, kH>(dst, in + L.index(x0 - kPairA, y0 - R, 0), L.pitch_y, L.n[1] + R - (y0 - R),
                                         chunks_left, tid, kPairThreadsX * kThreadsY);
    __pipeline_commit();
  };
  const int c = 2 * tx; // the thread's first output column within the tile
  fetch(0, buffers);
  for (int t = 0; t < tiles; ++t) {
    const __half* tile = buffers + (t & 1) * kH * kPairW;
    if (t + 1 < tiles) fetch(t + 1, buffers + ((t + 1) & 1) * kH * kPairW);
    else __pipeline_commit();
    __pipeline_wait_prior(1);
    __syncthreads();
    float a0[kRowsPerThread], a1[kRowsPerThread]; // columns c and c + 1
#pragma unroll
    for (int i = 0; i < kRowsPerThread; ++i) a0[i] = a1[i] = 0.0f;
    const int y_local = ty * kRowsPerThread;
#pragma unroll
    for (int j = 0; j < kRowsPerThread + 2 * R; ++j) {
      const __half* row = tile + (y_local + j) * kPairW + kPairA + c;
      float v[2 * kRe + 2]; // columns c - kRe .. c + kRe + 1
#pragma unroll
      for (int k = 0; k <= kRe; ++k) {
        const float2 f = __half22float2(*reinterpret_cast<const __half2*>(row - kRe + 2 * k));
        v[2 * k] = f.x;
        v[2 * k + 1] = f.y;
      }
#pragma unroll
      for (int i = 0; i < kRowsPerThread; ++i) {
        const int dy = j - i;
        if (dy < 0 || dy > 2 * R) continue;
        if (!kStar || dy == R) { // the row's taps off the centre column
#pragma unroll
          for (int dx = 0; dx < kSide; ++dx) {
            if (dx == R) continue;
            a0[i] = fmaf(w.w[dy * kSide + dx], v[kRe - R + dx], a0[i]);
            a1[i] = fmaf(w.w[dy * kSide + dx], v[kRe - R + dx + 1], a1[i]);
          }
        }
        a0[i] = fmaf(w.w[dy * kSide + R], v[kRe], a0[i]);
        a1[i] = fmaf(w.w[dy * kSide + R], v[kRe + 1], a1[i]);
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

template <int R, bool kStar>
void launch_pair(const __half* in, __half* out, const PaddedLayout& L,
                 const KernelWeights<float, (2 * R + 1) * (2 * R + 1)>& w, cudaStream_t stream) {
  const dim3 grid = tile_grid(L, kPairCols);
  constexpr std::size_t smem = 2 * static_cast<std::size_t>(kPairH<R>) * kPairW * sizeof(__half);
  step_2d_half_pair_kernel<R, kStar><<<grid, dim3(kPairThreadsX, kThreadsY), smem, stream>>>(in, out, L, w);
  SE_CUDA_CHECK_LAUNCH("step_2d_half_pair_kernel");
}

} // namespace

bool launch_half_pair(int radius, const __half* in, __half* out, const PaddedLayout& L, const std::vector<double>& weights,
                      cudaStream_t stream) {
  const int side = 2 * radius + 1;
  if (radius < 1 || radius > 3 || weights.size() != static_cast<std::size_t>(side * side) || L.dims != 2 ||
      L.origin[0] % 2 != 0 || L.pitch_y % 2 != 0)
    return false;
  const bool star = star_weights_2d(weights, radius);
  dispatch_radius(radius, [&](auto r) {
    constexpr int R = decltype(r)::value;
    if constexpr (R <= 3) {
      const auto w = kernel_weights<float, (2 * R + 1) * (2 * R + 1)>(weights);
      if (star) launch_pair<R, true>(in, out, L, w, stream);
      else launch_pair<R, false>(in, out, L, w, stream);
    }
  });
  return true;
}

} // namespace se::step2d
