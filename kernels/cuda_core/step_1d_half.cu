// The 1D step for FP16 storage on Dirichlet grids, two points per thread (cuda-core-fp16 heat-1d, 1d5p, 1d7p, 1d15p).
// step_1d.cu's kernel loads one FP16 value per global load and per shared load and converts each to float, so in
// FP16 it is bound by instruction issue (heat-1d 438 GStencil/s on an H200, 41% of the FP16 copy roof, where FP32
// reaches 77%). Here a block stages 8192 + 16 values as 16-byte chunks (the bytes per block of the FP64 kernel's
// tile), and a thread owns the output pairs (c, c + 1), c even, of 16 pairs a warp's width apart: per pair it reads
// Re + 1 half2 values at even offsets c - Re .. c + Re (Re: the radius rounded up to even), converts them once, and
// stores a half2. Per point and step: 4 bytes of device memory (2 read, 2 written) and 2(2R + 1) - 1 useful FLOP.
// H200, 10240000 FP16 points, `suite --seconds 1`, the one-point kernel, this one at 4 pairs per thread and
// at 16 alternated twice in one call (session 50): heat-1d 439.5 / 439.6 -> 4 pairs 853.9 / 862.4 -> 16 pairs
// 919.3 / 906.9 GStencil/s, 1d5p 406.0 / 407.1 -> 792.6 / 801.9 -> 869.1 / 857.9, 1d7p 373.4 / 374.2 -> 710.8 /
// 717.9 -> 789.5 / 785.7, 1d15p 285.1 / 284.4 -> 538.5 / 538.5 -> 575.9 / 573.1. Not measured on an H100.
#include "kernels/cuda_core/step_common.cuh"
#include "kernels/cuda_core/step_kernels.hpp"

namespace se::step1d {

namespace {

constexpr int kThreads = 256;
constexpr int kPairsPerThread = 16;
constexpr int kTile = 2 * kThreads * kPairsPerThread; // 8192 outputs per block
constexpr int kLead = 8;                               // staged values left (and right) of the tile: one chunk
constexpr int kStaged = kTile + 2 * kLead;

template <int R>
__global__ void __launch_bounds__(kThreads)
    step_1d_half_pair_kernel(const __half* __restrict__ in, __half* __restrict__ out, PaddedLayout L,
                             KernelWeights<float, 2 * R + 1> w) {
  constexpr int kRe = (R + 1) / 2 * 2; // the pair's window starts at c - kRe, an even offset
  static_assert(kRe <= kLead, "the staged lead covers the window");
  __shared__ __align__(16) __half tile[kStaged];
  const std::int64_t x0 = static_cast<std::int64_t>(blockIdx.x) * kTile;
  const uint4* src = reinterpret_cast<const uint4*>(in + L.index(x0 - kLead, 0, 0));
  const std::int64_t chunks = chunks_to_row_end<__half>(L, x0 - kLead);
  uint4* dst = reinterpret_cast<uint4*>(tile);
#pragma unroll
  for (int i = threadIdx.x; i < kStaged / 8; i += kThreads)
    if (i < chunks) dst[i] = src[i];
  __syncthreads();
#pragma unroll 4
  for (int p = 0; p < kPairsPerThread; ++p) {
    const int c = 2 * (p * kThreads + static_cast<int>(threadIdx.x)); // the pair's first output, tile-relative
    float v[2 * kRe + 2];                                              // values c - kRe .. c + kRe + 1
#pragma unroll
    for (int k = 0; k <= kRe; ++k) {
      const float2 f = __half22float2(*reinterpret_cast<const __half2*>(tile + kLead + c - kRe + 2 * k));
      v[2 * k] = f.x;
      v[2 * k + 1] = f.y;
    }
    float a0 = 0.0f, a1 = 0.0f;
#pragma unroll
    for (int d = 0; d <= 2 * R; ++d) {
      a0 = fmaf(w.w[d], v[kRe - R + d], a0);
      a1 = fmaf(w.w[d], v[kRe - R + d + 1], a1);
    }
    const std::int64_t x = x0 + c;
    if (x + 1 < L.n[0]) *reinterpret_cast<__half2*>(out + L.index(x, 0, 0)) = __floats2half2_rn(a0, a1);
    else if (x < L.n[0]) out[L.index(x, 0, 0)] = __float2half_rn(a0);
  }
}

} // namespace

bool launch_half_pair(int radius, const __half* in, __half* out, const PaddedLayout& L, const std::vector<double>& weights,
                      cudaStream_t stream) {
  if (L.dims != 1 || L.origin[0] % kLead != 0 || L.pitch_y % kLead != 0 ||
      weights.size() != static_cast<std::size_t>(2 * radius + 1))
    return false;
  dispatch_radius(radius, [&](auto r) {
    constexpr int R = decltype(r)::value;
    const auto w = kernel_weights<float, 2 * R + 1>(weights);
    step_1d_half_pair_kernel<R><<<grid_blocks(L.n[0], kTile), kThreads, 0, stream>>>(in, out, L, w);
    SE_CUDA_CHECK_LAUNCH("step_1d_half_pair_kernel");
  });
  return true;
}

} // namespace se::step1d
