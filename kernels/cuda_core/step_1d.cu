// 1D CUDA-core step: a block stages 2048 + 2R points in shared memory; thread t computes points t,
// t + 256, ..., so a warp's shared loads are consecutive (no bank conflicts) for every tap. FP16 on Dirichlet grids
// takes the two-points-per-thread kernel of step_1d_half.cu.
#include "kernels/cuda_core/step_common.cuh"
#include "kernels/cuda_core/step_kernels.hpp"

namespace se {

namespace {

constexpr int kThreads = 256;
constexpr int kPointsPerThread = 8;
constexpr int kTile = kThreads * kPointsPerThread;

template <typename S, int R>
__global__ void __launch_bounds__(kThreads)
    step_1d_kernel(const S* __restrict__ in, S* __restrict__ out, PaddedLayout L, bool periodic,
                   KernelWeights<compute_t<S>, 2 * R + 1> w) {
  using C = compute_t<S>;
  __shared__ S tile[kTile + 2 * R];
  const std::int64_t x0 = static_cast<std::int64_t>(blockIdx.x) * kTile;
  const S* base = in + L.index(x0 - R, 0, 0);
  const std::int64_t left = L.n[0] + R - (x0 - R); // elements of the padded row from the tile's start
#pragma unroll
  for (int i = threadIdx.x; i < kTile + 2 * R; i += kThreads)
    if (i < left) tile[i] = base[i];
  __syncthreads();
#pragma unroll
  for (int p = 0; p < kPointsPerThread; ++p) {
    const int xl = p * kThreads + threadIdx.x;
    C acc = C(0);
#pragma unroll
    for (int dx = 0; dx <= 2 * R; ++dx) acc = fma(w.w[dx], load_as<C>(tile[xl + dx]), acc);
    const std::int64_t x = x0 + xl;
    if (x < L.n[0]) store_with_images(out, L, periodic, x, std::int64_t(0), std::int64_t(0), store_as<S>(acc));
  }
}

} // namespace

template <typename S>
void launch_step_1d(int radius, const S* in, S* out, const PaddedLayout& L, bool periodic,
                    const std::vector<double>& weights, cudaStream_t stream) {
  if constexpr (std::is_same_v<S, __half>)
    if (!periodic && step1d::launch_half_pair(radius, in, out, L, weights, stream)) return;
  dispatch_radius(radius, [&](auto r) {
    constexpr int R = decltype(r)::value;
    const auto w = kernel_weights<compute_t<S>, 2 * R + 1>(weights);
    step_1d_kernel<S, R><<<grid_blocks(L.n[0], kTile), kThreads, 0, stream>>>(in, out, L, periodic, w);
    SE_CUDA_CHECK_LAUNCH("step_1d_kernel");
  });
}

SE_INSTANTIATE_STEP_LAUNCHER(launch_step_1d)

} // namespace se
