// 3D CUDA-core step, streaming along z (2.5D): a block owns a 32 x 16 column of the grid and walks 64
// planes. Planes arrive through a ring of 4 shared-memory buffers filled by cp.async three planes ahead, so
// device memory stays busy while a plane is computed. Every thread turns its (2R+1)^2 neighbours into 2R+1
// partial sums, one per weight plane, that accumulate in a register queue of 2R+1 outputs: shared loads
// per output are (2R+1)^2 instead of (2R+1)^3, and each plane is read from device memory once (plus halos).
// Plane rows, their halo widened to 16 bytes, arrive as 16-byte cp.async chunks: 107 -> 166 GStencil/s on
// heat-3d-shaped 512^3 FP64 (H200, notes/gpu.md); wider tiles and deeper rings measured slower.
#include "kernels/cuda_core/step_common.cuh"
#include "kernels/cuda_core/step_kernels.hpp"
#include "kernels/cuda_core/tb_kernels.hpp"

namespace se {

namespace {

constexpr int kTileX = 32;
constexpr int kTileY = 16;
constexpr int kPlanesPerBlock = 64;
constexpr int kStages = 4; // plane buffers in the ring; kStages - 1 planes in flight

template <typename S, int R> constexpr int kPlaneWidth = kTileX + 2 * kLeft<S, R>;
template <typename S, int R> constexpr int kPlaneElements = (kTileY + 2 * R) * kPlaneWidth<S, R>;

template <typename S, int R>
__global__ void __launch_bounds__(kTileX * kTileY)
    step_3d_kernel(const S* __restrict__ in, S* __restrict__ out, PaddedLayout L, bool periodic,
                   KernelWeights<compute_t<S>, (2 * R + 1) * (2 * R + 1) * (2 * R + 1)> w) {
  using C = compute_t<S>;
  constexpr int kSide = 2 * R + 1, kW = kPlaneWidth<S, R>, kH = kTileY + 2 * R, kA = kLeft<S, R>;
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  S* ring = reinterpret_cast<S*>(shared_bytes);
  const std::int64_t x0 = static_cast<std::int64_t>(blockIdx.x) * kTileX;
  const std::int64_t y0 = static_cast<std::int64_t>(blockIdx.y) * kTileY;
  const std::int64_t z0 = static_cast<std::int64_t>(blockIdx.z) * kPlanesPerBlock;
  const std::int64_t z_end = z0 + kPlanesPerBlock < L.n[2] ? z0 + kPlanesPerBlock : L.n[2];
  const std::int64_t rows_left = L.n[1] + R - (y0 - R);
  const std::int64_t chunks_left = chunks_to_row_end<S>(L, x0 - kA);
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * kTileX + tx;
  const std::int64_t x = x0 + tx, y = y0 + ty;
  const bool owner = x < L.n[0] && y < L.n[1];
  const std::int64_t first = z0 - R, planes = z_end + R - first; // planes z0-R .. z_end+R-1

  const auto fetch = [&](std::int64_t i) { // plane first + i into ring slot i % kStages
    if (i < planes)
      stage_rows_async<S, kW, kH>(ring + (i % kStages) * kPlaneElements<S, R>, in + L.index(x0 - kA, y0 - R, first + i),
                                  L.pitch_y, rows_left, chunks_left, tid, kTileX * kTileY);
    __pipeline_commit(); // possibly empty: one group per plane keeps the wait count uniform
  };

  C acc[kSide]; // acc[k]: output plane (first + i) - R + k while plane first + i is processed
#pragma unroll
  for (int k = 0; k < kSide; ++k) acc[k] = C(0);
  for (int i = 0; i < kStages - 1; ++i) fetch(i);
  for (std::int64_t i = 0; i < planes; ++i) {
    fetch(i + kStages - 1);
    __pipeline_wait_prior(kStages - 1);
    __syncthreads();
    const S* plane = ring + (i % kStages) * kPlaneElements<S, R>;
    // part[dz]: this plane's contribution through weight plane dz. Rows are a run-time loop for R > 2 so the
    // registers hold one row of inputs, not the whole (2R+1)^2 neighbourhood.
    C part[kSide];
#pragma unroll
    for (int dz = 0; dz < kSide; ++dz) part[dz] = C(0);
#pragma unroll(R <= 2 ? kSide : 1)
    for (int dy = 0; dy < kSide; ++dy) {
      C v[kSide];
#pragma unroll
      for (int dx = 0; dx < kSide; ++dx) v[dx] = load_as<C>(plane[(ty + dy) * kW + tx + dx + (kA - R)]);
#pragma unroll
      for (int dz = 0; dz < kSide; ++dz)
#pragma unroll
        for (int dx = 0; dx < kSide; ++dx) part[dz] = fma(w.w[(dz * kSide + dy) * kSide + dx], v[dx], part[dz]);
    }
#pragma unroll
    for (int dz = 0; dz < kSide; ++dz) acc[2 * R - dz] += part[dz]; // plane zp meets output zp - (dz - R)
    const std::int64_t z_done = first + i - R;
    if (owner && z_done >= z0) store_with_images(out, L, periodic, x, y, z_done, store_as<S>(acc[0]));
#pragma unroll
    for (int k = 0; k + 1 < kSide; ++k) acc[k] = acc[k + 1];
    acc[kSide - 1] = C(0);
    __syncthreads(); // the slot just read is refilled by the next iteration's fetch
  }
}

// The two-row kernel (radius 1..3): 256 threads, each computing two adjacent rows of the 32 x 16 tile (the 2R + 2 rows it loads feed both, a
// third fewer shared loads per output), the boundary a template parameter (the periodic store's index registers
// stay out of the Dirichlet kernel), and for R <= 2 the plane loop unrolled 2R + 1 times so the output queue
// rotates by renaming instead of moves. H100, 512^3, 200 steps: FP64 122 -> 141 GStencil/s (65% -> 75% of the
// copy roof), FP32 140 -> 269 (notes/cuda-core-tb.md).
constexpr int kThreadsY2 = kTileY / 2;

template <typename S, int R, bool kPeriodic>
__global__ void __launch_bounds__(kTileX * kThreadsY2)
    step_3d_kernel_v2(const S* __restrict__ in, S* __restrict__ out, PaddedLayout L,
                      KernelWeights<compute_t<S>, (2 * R + 1) * (2 * R + 1) * (2 * R + 1)> w) {
  using C = compute_t<S>;
  constexpr int kSide = 2 * R + 1, kW = kPlaneWidth<S, R>, kH = kTileY + 2 * R, kA = kLeft<S, R>;
  constexpr int kUnroll = R <= 2 ? kSide : 1;
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  S* ring = reinterpret_cast<S*>(shared_bytes);
  const std::int64_t x0 = static_cast<std::int64_t>(blockIdx.x) * kTileX;
  const std::int64_t y0 = static_cast<std::int64_t>(blockIdx.y) * kTileY;
  const std::int64_t z0 = static_cast<std::int64_t>(blockIdx.z) * kPlanesPerBlock;
  const std::int64_t z_end = z0 + kPlanesPerBlock < L.n[2] ? z0 + kPlanesPerBlock : L.n[2];
  const std::int64_t rows_left = L.n[1] + R - (y0 - R);
  const std::int64_t chunks_left = chunks_to_row_end<S>(L, x0 - kA);
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * kTileX + tx;
  const std::int64_t x = x0 + tx, y = y0 + 2 * ty;
  const bool owner0 = x < L.n[0] && y < L.n[1], owner1 = x < L.n[0] && y + 1 < L.n[1];
  const std::int64_t first = z0 - R, planes = z_end + R - first;

  const auto fetch = [&](std::int64_t i) {
    if (i < planes)
      stage_rows_async<S, kW, kH>(ring + (i % kStages) * kPlaneElements<S, R>, in + L.index(x0 - kA, y0 - R, first + i),
                                  L.pitch_y, rows_left, chunks_left, tid, kTileX * kThreadsY2);
    __pipeline_commit();
  };

  C acc0[kSide], acc1[kSide]; // slot (k + phase) % kSide: output plane (first + i) - R + k
#pragma unroll
  for (int k = 0; k < kSide; ++k) acc0[k] = acc1[k] = C(0);
  for (int i = 0; i < kStages - 1; ++i) fetch(i);
#pragma unroll 1
  for (std::int64_t i0 = 0; i0 < planes; i0 += kUnroll) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const std::int64_t i = i0 + u;
      if (i >= planes) break;
      fetch(i + kStages - 1);
      __pipeline_wait_prior(kStages - 1);
      __syncthreads();
      const S* plane = ring + (i % kStages) * kPlaneElements<S, R> + 2 * ty * kW + tx + (kA - R);
      C part0[kSide], part1[kSide];
      two_row_plane_parts<S, C, R, kW>(plane, w, part0, part1);
      const std::int64_t z_done = first + i - R;
      if constexpr (kUnroll == kSide) {
#pragma unroll
        for (int dz = 0; dz < kSide; ++dz) {
          acc0[(2 * R - dz + u) % kSide] += part0[dz];
          acc1[(2 * R - dz + u) % kSide] += part1[dz];
        }
        if (z_done >= z0) {
          if (owner0) store_with_images(out, L, kPeriodic, x, y, z_done, store_as<S>(acc0[u % kSide]));
          if (owner1) store_with_images(out, L, kPeriodic, x, y + 1, z_done, store_as<S>(acc1[u % kSide]));
        }
        acc0[u % kSide] = acc1[u % kSide] = C(0);
      } else {
#pragma unroll
        for (int dz = 0; dz < kSide; ++dz) {
          acc0[2 * R - dz] += part0[dz];
          acc1[2 * R - dz] += part1[dz];
        }
        if (z_done >= z0) {
          if (owner0) store_with_images(out, L, kPeriodic, x, y, z_done, store_as<S>(acc0[0]));
          if (owner1) store_with_images(out, L, kPeriodic, x, y + 1, z_done, store_as<S>(acc1[0]));
        }
#pragma unroll
        for (int k = 0; k + 1 < kSide; ++k) acc0[k] = acc0[k + 1], acc1[k] = acc1[k + 1];
        acc0[kSide - 1] = acc1[kSide - 1] = C(0);
      }
      __syncthreads();
    }
  }
}

template <typename S, int R, bool kPeriodic>
void launch_v2(const S* in, S* out, const PaddedLayout& L,
               const KernelWeights<compute_t<S>, (2 * R + 1) * (2 * R + 1) * (2 * R + 1)>& w, cudaStream_t stream) {
  const dim3 grid(grid_blocks(L.n[0], kTileX), grid_blocks(L.n[1], kTileY), grid_blocks(L.n[2], kPlanesPerBlock));
  const std::size_t smem = static_cast<std::size_t>(kStages) * kPlaneElements<S, R> * sizeof(S);
  static const bool opted_in = [smem] {
    if (smem > 48 * 1024)
      SE_CUDA_CHECK(cudaFuncSetAttribute(step_3d_kernel_v2<S, R, kPeriodic>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
    return true;
  }();
  (void)opted_in;
  step_3d_kernel_v2<S, R, kPeriodic><<<grid, dim3(kTileX, kThreadsY2), smem, stream>>>(in, out, L, w);
  SE_CUDA_CHECK_LAUNCH("step_3d_kernel_v2");
}

} // namespace

template <typename S>
void launch_step_3d(int radius, const S* in, S* out, const PaddedLayout& L, bool periodic,
                    const std::vector<double>& weights, cudaStream_t stream) {
  // heat-3d's shape (the 7-point star, any weights; FP64, FP32, FP16): the per-point kernel of step_3d_star.cu.
  if (launch_step_3d_star<S>(in, out, L, periodic, weights, stream)) return;
  // box-3d27p (and any cube-symmetric 3x3x3 weights): the cube-symmetric kernel of cuda-core-tb at depth 1 (in FP16
  // too: box-3d27p 274.1 -> 617.6 GStencil/s over the two-row kernel below, tb_3d_sym_fp16.cu).
  TbLaunch a;
  a.radius = radius;
  a.periodic = periodic;
  a.steps = 1;
  if (launch_tb_3d_sym<S>(a, in, out, L, weights, stream)) return;
  dispatch_radius(radius, [&](auto r) {
    constexpr int R = decltype(r)::value;
    const auto w = kernel_weights<compute_t<S>, (2 * R + 1) * (2 * R + 1) * (2 * R + 1)>(weights);
    if constexpr (R <= 3) { // the 3D presets' radii: the two-row kernel (wider stencils keep the one-row kernel)
      if (periodic) launch_v2<S, R, true>(in, out, L, w, stream);
      else launch_v2<S, R, false>(in, out, L, w, stream);
      return;
    }
    const dim3 grid(grid_blocks(L.n[0], kTileX), grid_blocks(L.n[1], kTileY), grid_blocks(L.n[2], kPlanesPerBlock));
    const std::size_t smem = static_cast<std::size_t>(kStages) * kPlaneElements<S, R> * sizeof(S);
    if (smem > 48 * 1024)
      SE_CUDA_CHECK(cudaFuncSetAttribute(step_3d_kernel<S, R>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(smem)));
    step_3d_kernel<S, R><<<grid, dim3(kTileX, kTileY), smem, stream>>>(in, out, L, periodic, w);
    SE_CUDA_CHECK_LAUNCH("step_3d_kernel");
  });
}

SE_INSTANTIATE_STEP_LAUNCHER(launch_step_3d)

} // namespace se
