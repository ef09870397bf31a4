// cuda-core-tb in 1D: each warp owns 32 x 16 consecutive points in registers (16 per lane) and advances them
// T steps without shared memory or barriers: per step a lane takes its R left neighbours from lane - 1 and its R
// right ones from lane + 1 by shuffles, and computes its 16 points from registers. The outer A = T R (rounded to
// a 16-byte chunk) points on each side of the warp's run are recomputed halo, so a warp writes 512 - 2A points.
// Loads (16-byte vectors) and stores are coalesced and pass through a per-warp shared block. Points outside a Dirichlet grid keep the boundary value at every step (only the
// warps that reach past an end check); on a periodic grid they are the images in the halo (at least A deep).
#include <string>

#include "core/temporal_blocking_model.hpp"
#include "kernels/cuda_core/step_common.cuh"
#include "kernels/cuda_core/tb_kernels.hpp"

namespace se {

namespace {

constexpr int kThreads = 128;
constexpr int kP = tb::kPoints1D;

template <typename S> struct Vec16;
template <> struct Vec16<double> {
  using type = double2;
};
template <> struct Vec16<float> {
  using type = float4;
};

template <typename C, int R>
__device__ inline void tb_1d_step(const C (&src)[kP], C (&dst)[kP], const KernelWeights<C, 2 * R + 1>& w) {
  C left[R], right[R];
#pragma unroll
  for (int j = 0; j < R; ++j) {
    left[j] = __shfl_up_sync(0xffffffffu, src[kP - R + j], 1);
    right[j] = __shfl_down_sync(0xffffffffu, src[j], 1);
  }
#pragma unroll
  for (int p = 0; p < kP; ++p) {
    C acc = C(0);
#pragma unroll
    for (int d = 0; d <= 2 * R; ++d) {
      const int i = p + d - R;
      const C v = i < 0 ? left[i + R] : (i >= kP ? right[i - kP] : src[i]);
      acc = fma(w.w[d], v, acc);
    }
    dst[p] = acc;
  }
}

template <typename S, int R>
__global__ void __launch_bounds__(kThreads)
    tb_1d_kernel(const S* __restrict__ in, S* __restrict__ out, PaddedLayout L, bool periodic, compute_t<S> bval, int k,
                 KernelWeights<compute_t<S>, 2 * R + 1> w) {
  using C = compute_t<S>;
  using V = typename Vec16<S>::type;
  constexpr int kC = kChunk<S>;
  const int lane = threadIdx.x & 31;
  const std::int64_t warp = (static_cast<std::int64_t>(blockIdx.x) * kThreads + threadIdx.x) >> 5;
  const int A = tb::halo_columns(k, R, static_cast<int>(sizeof(S)));
  const std::int64_t n = L.n[0];
  const std::int64_t xs = warp * (32 * kP - 2 * A) - A; // grid index of the warp's first point
  if (xs + A >= n) return; // the whole warp (xs is uniform): no shuffle loses a partner

  // Device memory is read and written in coalesced runs; a warp's shared-memory block (one padding element per
  // lane's 16 keeps both directions free of bank conflicts) turns them into 16 consecutive points per lane.
  __shared__ __align__(16) S staged[kThreads / 32][32 * (kP + 1)];
  S* const mine = staged[threadIdx.x >> 5];
  const auto slot = [](int e) { return e + e / kP; }; // padded position of the warp's e-th point
  const std::int64_t stored_end = L.pitch_y - L.origin[0]; // the padded row's end (past it: the next buffer)
#pragma unroll
  for (int j = 0; j < 32 * kP / kC / 32; ++j) {
    const int e = (j * 32 + lane) * kC; // first point of this lane's 16-byte chunk
    V v{};
    if (xs + e + kC <= stored_end) v = __ldg(reinterpret_cast<const V*>(in + L.index(xs + e, 0, 0)));
    const S* p = reinterpret_cast<const S*>(&v);
#pragma unroll
    for (int q = 0; q < kC; ++q) mine[slot(e + q)] = p[q];
  }
  __syncwarp();
  C a[kP], b[kP];
#pragma unroll
  for (int p = 0; p < kP; ++p) a[p] = load_as<C>(mine[lane * (kP + 1) + p]);
  const std::int64_t x_lane = xs + lane * kP;
  const bool edge = !periodic && (xs < 0 || xs + 32 * kP > n); // uniform per warp
  const auto clamp = [&](C(&v)[kP]) {
    if (!edge) return;
#pragma unroll
    for (int p = 0; p < kP; ++p)
      if (x_lane + p < 0 || x_lane + p >= n) v[p] = bval;
  };
  int s = 0;
  for (; s + 2 <= k; s += 2) {
    tb_1d_step<C, R>(a, b, w);
    clamp(b);
    tb_1d_step<C, R>(b, a, w);
    clamp(a);
  }
  if (s < k) {
    tb_1d_step<C, R>(a, b, w);
#pragma unroll
    for (int p = 0; p < kP; ++p) a[p] = b[p];
  }
  __syncwarp(); // every lane has read its points above
#pragma unroll
  for (int p = 0; p < kP; ++p) mine[lane * (kP + 1) + p] = store_as<S>(a[p]);
  __syncwarp();
#pragma unroll
  for (int j = 0; j < kP; ++j) {
    const int e = j * 32 + lane;
    const std::int64_t x = xs + e;
    if (e >= A && e < 32 * kP - A && x < n)
      store_with_images(out, L, periodic, x, std::int64_t(0), std::int64_t(0), mine[slot(e)]);
  }
}

} // namespace

template <typename S>
void launch_tb_1d(const TbLaunch& a, const S* in, S* out, const PaddedLayout& L, const std::vector<double>& weights,
                  cudaStream_t stream) {
  dispatch_radius(a.radius, [&](auto r) {
    constexpr int R = decltype(r)::value;
    using C = compute_t<S>;
    constexpr int kMax = tb::capacity_steps(1, R, static_cast<int>(sizeof(S)));
    if (a.steps < 1 || a.steps > kMax)
      throw InputError("cuda-core-tb: the 1D kernel fuses 1 to " + std::to_string(kMax) + " steps at radius " +
                       std::to_string(R));
    const auto w = kernel_weights<C, 2 * R + 1>(weights);
    const int A = tb::halo_columns(a.steps, R, static_cast<int>(sizeof(S)));
    const std::int64_t warps = (L.n[0] + (32 * kP - 2 * A) - 1) / (32 * kP - 2 * A);
    const unsigned blocks = static_cast<unsigned>((warps * 32 + kThreads - 1) / kThreads);
    tb_1d_kernel<S, R><<<blocks, kThreads, 0, stream>>>(in, out, L, a.periodic, static_cast<C>(a.boundary), a.steps, w);
    SE_CUDA_CHECK_LAUNCH("tb_1d_kernel");
  });
}

template void launch_tb_1d<double>(const TbLaunch&, const double*, double*, const PaddedLayout&,
                                   const std::vector<double>&, cudaStream_t);
template void launch_tb_1d<float>(const TbLaunch&, const float*, float*, const PaddedLayout&, const std::vector<double>&,
                                  cudaStream_t);

} // namespace se
