// cuda-core-tb in 3D (radius 1..3): the 2D kernel's stage pipeline on planes. A block of 64 x 8 threads owns a
// 64 x 16 cross-section (each thread two adjacent rows, as the single-step 3D kernel) and walks z. Input planes
// arrive by 16-byte cp.async into a 4-plane ring; stage t consumes the plane stage t - 1 wrote into shared
// memory in the previous iteration (one barrier per plane for all stages), adds each weight plane's part to a
// register queue of 2R + 1 partial sums per row, and completes one output plane. The outer A = T R (rounded to a
// 16-byte chunk) columns and T R rows of the cross-section are recomputed halo: 60 x 12 of the 64 x 16 points are
// written at T = 2, R = 1 (70%). Dirichlet: points outside the grid keep the boundary value at every
// intermediate stage; periodic: the halo holds the images the previous launch wrote.
#include <string>
#include <utility>

#include "core/temporal_blocking_model.hpp"
#include "kernels/cuda_core/step_common.cuh"
#include "kernels/cuda_core/tb_kernels.hpp"

namespace se {

namespace {

constexpr int kTX = 32;          // threads along x, one column each
constexpr int kTY = 8;           // threads along y, two rows each
constexpr int kRows = 2 * kTY;   // rows of the cross-section
constexpr int kRing = 4;
constexpr int kPlanesPerBlock = 64;

template <typename S, int R> constexpr int kA3 = kLeft<S, R>;      // staged columns left of the cross-section
template <typename S, int R> constexpr int kW3 = kTX + 2 * kA3<S, R>;
template <typename S, int R> constexpr int kH3 = kRows + 2 * R;
template <typename S, int R> constexpr int kPlane3 = kW3<S, R> * kH3<S, R>;

template <typename S, int R> std::size_t shared_bytes_3d(int steps) {
  return static_cast<std::size_t>(kRing + 2 * (steps - 1)) * kPlane3<S, R> * sizeof(S);
}

template <typename S, int R, int kT>
__global__ void __launch_bounds__(kTX * kTY, 2)
    tb_3d_kernel(const S* __restrict__ in, S* __restrict__ out, PaddedLayout L, bool periodic, compute_t<S> bval,
                 KernelWeights<compute_t<S>, (2 * R + 1) * (2 * R + 1) * (2 * R + 1)> w) {
  using C = compute_t<S>;
  constexpr int kSide = 2 * R + 1, kW = kW3<S, R>, kH = kH3<S, R>, kA = kA3<S, R>, kPlane = kPlane3<S, R>;
  constexpr int kUnroll = R == 1 ? kSide : 1;
  constexpr int A = tb::halo_columns(kT, R, static_cast<int>(sizeof(S))); // recomputed columns each side
  constexpr int B = kT * R;                                                // recomputed rows each side
  extern __shared__ __align__(16) unsigned char shared_raw[];
  S* const planes = reinterpret_cast<S*>(shared_raw);
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * kTX + tx;
  constexpr int kN = kRing + 2 * (kT - 1);
  // Stage planes are written at their centre only; their border (pads) feeds halo points only: zero it once.
  for (int i = tid; i < (kN - kRing) * kPlane; i += kTX * kTY) {
    const int r = (i % kPlane) / kW, c = i % kW;
    if (r < R || r >= R + kRows || c < kA || c >= kA + kTX) planes[kRing * kPlane + i] = S(0);
  }
  S* const ring = planes;
  S* const stage = planes + kRing * kPlane; // stage t's plane of parity p: stage + (t * 2 + p) * kPlane

  const std::int64_t xs = static_cast<std::int64_t>(blockIdx.x) * (kTX - 2 * A) - A; // column of thread x 0
  const std::int64_t ys = static_cast<std::int64_t>(blockIdx.y) * (kRows - 2 * B) - B;
  const std::int64_t z0 = static_cast<std::int64_t>(blockIdx.z) * kPlanesPerBlock;
  const std::int64_t z_end = z0 + kPlanesPerBlock < L.n[2] ? z0 + kPlanesPerBlock : L.n[2];
  const std::int64_t x = xs + tx, y = ys + 2 * ty;
  const bool col_in = x >= 0 && x < L.n[0];
  const bool in0 = col_in && y >= 0 && y < L.n[1], in1 = col_in && y + 1 >= 0 && y + 1 < L.n[1];
  const bool out_x = tx >= A && tx < kTX - A && x < L.n[0];
  const bool out0 = out_x && 2 * ty >= B && 2 * ty < kRows - B && y < L.n[1];
  const bool out1 = out_x && 2 * ty + 1 >= B && 2 * ty + 1 < kRows - B && y + 1 < L.n[1];
  const std::int64_t first = z0 - kT * R;                          // input plane of iteration 0
  const std::int64_t n_load = (z_end - z0) + 2 * kT * R;
  const std::int64_t n_iter = n_load + kT - 1;
  const std::int64_t rows_left = L.n[1] + L.halo[1] - (ys - R);
  const std::int64_t chunks_left = chunks_to_row_end<S>(L, xs - kA);
  const std::int64_t plane_limit = L.n[2] + L.halo[2];

  const auto fetch = [&](std::int64_t i) {
    if (i < n_load && first + i < plane_limit)
      stage_rows_async<S, kW, kH>(ring + (i % kRing) * kPlane, in + L.index(xs - kA, ys - R, first + i), L.pitch_y,
                                  rows_left, chunks_left, tid, kTX * kTY);
    __pipeline_commit();
  };

  C acc0[kT][kSide], acc1[kT][kSide];
#pragma unroll
  for (int t = 0; t < kT; ++t)
#pragma unroll
    for (int k = 0; k < kSide; ++k) acc0[t][k] = acc1[t][k] = C(0);
  __syncthreads(); // the zeroed pads
  for (int i = 0; i < kRing - 1; ++i) fetch(i);
#pragma unroll 1
  for (std::int64_t i0 = 0; i0 < n_iter; i0 += kUnroll) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const std::int64_t i = i0 + u;
      if (i >= n_iter) break;
      __pipeline_wait_prior(kRing - 2);
      __syncthreads(); // plane i landed; last iteration's stage planes are visible; ring slot (i - 1) is free
      fetch(i + kRing - 1);
      const int par = static_cast<int>(i & 1);
#pragma unroll
      for (int t = 0; t < kT; ++t) {
        const S* src = (t == 0 ? ring + (i % kRing) * kPlane : stage + ((t - 1) * 2 + (par ^ 1)) * kPlane) +
                       2 * ty * kW + tx + (kA - R);
        C part0[kSide], part1[kSide];
        two_row_plane_parts<S, C, R, kW>(src, w, part0, part1);
        C r0, r1;
        if constexpr (kUnroll == kSide) {
#pragma unroll
          for (int dz = 0; dz < kSide; ++dz) {
            acc0[t][(2 * R - dz + u) % kSide] += part0[dz];
            acc1[t][(2 * R - dz + u) % kSide] += part1[dz];
          }
          r0 = acc0[t][u % kSide];
          r1 = acc1[t][u % kSide];
          acc0[t][u % kSide] = acc1[t][u % kSide] = C(0);
        } else {
#pragma unroll
          for (int dz = 0; dz < kSide; ++dz) {
            acc0[t][2 * R - dz] += part0[dz];
            acc1[t][2 * R - dz] += part1[dz];
          }
          r0 = acc0[t][0];
          r1 = acc1[t][0];
#pragma unroll
          for (int k = 0; k + 1 < kSide; ++k) acc0[t][k] = acc0[t][k + 1], acc1[t][k] = acc1[t][k + 1];
          acc0[t][kSide - 1] = acc1[t][kSide - 1] = C(0);
        }
        const std::int64_t z = first + i - t - (t + 1) * R; // the plane stage t + 1 completed
        if (t + 1 < kT) {
          const bool z_in = z >= 0 && z < L.n[2];
          if (!periodic && !(in0 && z_in)) r0 = bval;
          if (!periodic && !(in1 && z_in)) r1 = bval;
          S* dst = stage + (t * 2 + par) * kPlane + (R + 2 * ty) * kW + kA + tx;
          dst[0] = store_as<S>(r0);
          dst[kW] = store_as<S>(r1);
        } else if (z >= z0 && z < z_end) {
          if (out0) store_with_images(out, L, periodic, x, y, z, store_as<S>(r0));
          if (out1) store_with_images(out, L, periodic, x, y + 1, z, store_as<S>(r1));
        }
      }
    }
  }
}

template <typename S, int R, int kT>
void launch_one_3d(const TbLaunch& a, const S* in, S* out, const PaddedLayout& L,
                   const KernelWeights<compute_t<S>, (2 * R + 1) * (2 * R + 1) * (2 * R + 1)>& w, cudaStream_t stream) {
  using C = compute_t<S>;
  const std::size_t smem = shared_bytes_3d<S, R>(kT);
  static const bool opted_in = [smem] {
    if (smem > 48 * 1024)
      SE_CUDA_CHECK(cudaFuncSetAttribute(tb_3d_kernel<S, R, kT>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(smem)));
    return true;
  }();
  (void)opted_in;
  constexpr int A = tb::halo_columns(kT, R, static_cast<int>(sizeof(S)));
  const dim3 grid(grid_blocks(L.n[0], kTX - 2 * A), grid_blocks(L.n[1], kRows - 2 * kT * R),
                  grid_blocks(L.n[2], kPlanesPerBlock));
  tb_3d_kernel<S, R, kT><<<grid, dim3(kTX, kTY), smem, stream>>>(in, out, L, a.periodic, static_cast<C>(a.boundary), w);
  SE_CUDA_CHECK_LAUNCH("tb_3d_kernel");
}

} // namespace

template <typename S>
void launch_tb_3d(const TbLaunch& a, const S* in, S* out, const PaddedLayout& L, const std::vector<double>& weights,
                  cudaStream_t stream) {
  if (launch_tb_3d_sym<S>(a, in, out, L, weights, stream)) return; // heat-3d, box-3d27p
  const auto run = [&](auto r) {
    constexpr int R = decltype(r)::value;
    constexpr int kMax = tb::kMaxSteps3D;
    if (a.steps < 1 || a.steps > kMax)
      throw InputError("cuda-core-tb: the 3D kernel fuses 1 to " + std::to_string(kMax) + " steps");
    const auto w = kernel_weights<compute_t<S>, (2 * R + 1) * (2 * R + 1) * (2 * R + 1)>(weights);
    dispatch_depth<kMax>(a.steps, [&](auto t) { launch_one_3d<S, R, decltype(t)::value>(a, in, out, L, w, stream); });
  };
  switch (a.radius) {
  case 1: run(std::integral_constant<int, 1>()); break;
  case 2: run(std::integral_constant<int, 2>()); break;
  case 3: run(std::integral_constant<int, 3>()); break;
  default: throw InputError("cuda-core-tb: the 3D streaming kernel takes radius 1 to 3");
  }
}

template void launch_tb_3d<double>(const TbLaunch&, const double*, double*, const PaddedLayout&,
                                   const std::vector<double>&, cudaStream_t);
template void launch_tb_3d<float>(const TbLaunch&, const float*, float*, const PaddedLayout&, const std::vector<double>&,
                                  cudaStream_t);

} // namespace se
