// cuda-core-tb in 2D: streaming temporal blocking (the AN5D scheme: one axis streamed, T stages pipelined in
// registers and one shared-memory row per stage; core/temporal_blocking_model.hpp picks T).
//
// A block of 256 threads owns a 256-column strip, one column per thread; the outer A = T R (rounded to a
// 16-byte chunk) columns on each side are recomputed halo, so the strip writes 256 - 2A columns. The block walks
// its rows top to bottom. Input rows arrive through a ring of shared-memory rows filled by 16-byte cp.async
// several rows ahead. Stage t (1..T) consumes one row per iteration: stage 1 the input row that just landed,
// stage t > 1 the row stage t - 1 wrote into shared memory in the previous iteration (the skew lets every stage
// run between the same two barriers). Consuming row j, a thread loads its 2R neighbours along x from the
// shared row (its own value it computed itself and kept in a register) and adds each weight row's part to a queue of 2R + 1 partial sums (outputs j - R .. j + R); the
// oldest is then complete. Neighbours along y never leave registers. One barrier per row for all T stages.
//
// Points outside a Dirichlet grid keep the boundary value at every intermediate stage; on a periodic grid they
// are the images the previous launch wrote into the halo (at least A deep) and are computed like any other.
// Rows and columns a stage cannot compute correctly (the recomputed halo, the pipeline's first rows) hold
// values no valid output reads.
#pragma once
#include <algorithm>
#include <string>
#include <utility>

#include "core/temporal_blocking_model.hpp"
#include "kernels/cuda_core/step_common.cuh"
#include "kernels/cuda_core/tb_kernels.hpp"

namespace se::tb2d {

constexpr int kThreads = tb::kThreads2D;
constexpr int kRing = 6;     // input rows in flight: kRing - 1 ahead of the row being consumed
constexpr int kMinBlocks = 2; // 128 registers per thread at most

template <typename S, int R> constexpr int kPad = kLeft<S, R>; // >= R, a whole 16-byte chunk
template <typename S, int R> constexpr int kStride = kThreads + 2 * kPad<S, R>;
template <typename S, int R> constexpr int kMaxT = tb::capacity_steps(2, R, static_cast<int>(sizeof(S)));

template <typename S, int R> std::size_t shared_bytes(int steps) {
  return static_cast<std::size_t>(kRing + 2 * (steps - 1)) * kStride<S, R> * sizeof(S);
}

// kT: the steps this launch fuses (a template parameter, so every stage's role is known when compiling).
template <typename S, int R, bool kStar, int kT>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    tb_2d_kernel(const S* __restrict__ in, S* __restrict__ out, PaddedLayout L, bool periodic, compute_t<S> bval,
                 int rows_per_block, KernelWeights<compute_t<S>, (2 * R + 1) * (2 * R + 1)> w) {
  using C = compute_t<S>;
  constexpr int kSide = 2 * R + 1, kP = kPad<S, R>, kW = kStride<S, R>, k = kT;
  constexpr int kC = kChunk<S>;
  extern __shared__ __align__(16) unsigned char shared_raw[];
  S* const rows = reinterpret_cast<S*>(shared_raw);
  const int n_rows = kRing + 2 * (k - 1);
  const int c = threadIdx.x;

  // The pads left and right of every shared row are read by the halo columns only; zero them once.
  for (int i = c; i < n_rows * 2 * kP; i += kThreads) {
    const int row = i / (2 * kP), j = i - row * 2 * kP;
    rows[row * kW + (j < kP ? j : kThreads + j)] = S(0);
  }
  __syncthreads();

  S* const ring = rows + kP;             // slot s, column c: ring[s * kW + c]
  S* const stage = ring + kRing * kW;    // stage t's row of parity p: stage[((t - 1) * 2 + p) * kW + c]
  const int A = tb::halo_columns(k, R, static_cast<int>(sizeof(S)));
  const std::int64_t xs = static_cast<std::int64_t>(blockIdx.x) * (kThreads - 2 * A) - A; // column of thread 0
  const std::int64_t gx = xs + c;
  const bool col_inside = gx >= 0 && gx < L.n[0];
  const bool col_output = c >= A && c < kThreads - A && gx < L.n[0];
  const int ny = static_cast<int>(L.n[1]);
  const int y0 = static_cast<int>(blockIdx.y) * rows_per_block;
  const int y_end = min(y0 + rows_per_block, ny);
  const int first_in = y0 - k * R;                  // input row of iteration 0
  const int n_load = (y_end - y0) + 2 * k * R;      // input rows first_in .. y_end - 1 + kR
  const int n_iter = n_load + k - 1;                // the last stage lags k - 1 rows behind (the skew)
  const int row_limit = ny + static_cast<int>(L.halo[1]); // rows past the padding are not fetched
  const std::int64_t chunks_left = chunks_to_row_end<S>(L, xs);

  const bool fetcher = c < kThreads / kC && c < chunks_left; // this thread copies one 16-byte chunk per row
  const S* const column = in + L.index(xs + (fetcher ? c * kC : 0), first_in, 0);
  const auto fetch = [&](int i) { // input row first_in + i into ring slot i % kRing
    if (fetcher && i < n_load && first_in + i < row_limit)
      __pipeline_memcpy_async(ring + (i % kRing) * kW + c * kC, column + static_cast<std::int64_t>(i) * L.pitch_y, 16);
    __pipeline_commit(); // possibly empty: one group per row keeps the wait count uniform
  };

  // q[t][(m + phase) % kSide]: stage t + 1's partial sum of output row (consumed row) - R + m. For R <= 2 the
  // row loop is unrolled kSide times so the phase is a constant and the queue rotates by renaming (no moves).
  C q[kT][kSide];
#pragma unroll
  for (int t = 0; t < kT; ++t)
#pragma unroll
    for (int m = 0; m < kSide; ++m) q[t][m] = C(0);
  // own[t]: the value stage t + 1 gave this thread's column in the previous iteration, the centre of what stage
  // t + 2 consumes now. Stages run from the last to the first, so stage t + 2 reads own[t] before stage t + 1
  // overwrites it.
  C own[kT > 1 ? kT - 1 : 1];
#pragma unroll
  for (int t = 0; t + 1 < kT; ++t) own[t] = C(0);
  // Only blocks within k(R+1) rows of the top or bottom meet rows outside the grid; only some columns lie outside.
  const bool mask_col = !periodic && !col_inside;
  const bool mask_rows = !periodic && (y0 - k * (R + 1) < 0 || y_end + k * (R + 1) > ny);

  for (int i = 0; i < kRing - 1; ++i) fetch(i);
  constexpr int kUnroll = R <= 2 ? kSide : 1;
#pragma unroll 1
  for (int i0 = 0; i0 < n_iter; i0 += kUnroll) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int i = i0 + u;
      if (i >= n_iter) break;
      __pipeline_wait_prior(kRing - 2);
      __syncthreads(); // row i landed for every thread; last iteration's stage rows are visible; slot (i-1) is free
      fetch(i + kRing - 1);
      const int par = i & 1;
#pragma unroll
      for (int t = kT - 1; t >= 0; --t) { // stage t + 1
        const S* src = t == 0 ? ring + (i % kRing) * kW : stage + ((t - 1) * 2 + (par ^ 1)) * kW;
        C v[kSide];
#pragma unroll
        for (int dx = 0; dx < kSide; ++dx)
          if (dx != R || t == 0) v[dx] = load_as<C>(src[c + dx - R]);
        if (t > 0) v[R] = own[t - 1]; // this thread wrote it: no shared load
#pragma unroll
        for (int a = 0; a < kSide; ++a) { // weight row a (dy = a - R) meets output (consumed row) - dy: slot 2R - a
          C& acc = q[t][(2 * R - a + u) % kSide];
          if (kStar && a != R) {
            acc = fma(w.w[a * kSide + R], v[R], acc);
          } else {
#pragma unroll
            for (int dx = 0; dx < kSide; ++dx) acc = fma(w.w[a * kSide + dx], v[dx], acc);
          }
        }
        C result = q[t][u % kSide];
        if constexpr (kUnroll == kSide) {
          q[t][u % kSide] = C(0); // the completed slot is the new last one
        } else {
#pragma unroll
          for (int m = 0; m + 1 < kSide; ++m) q[t][m] = q[t][m + 1];
          q[t][kSide - 1] = C(0);
        }
        const int y = first_in + i - t - (t + 1) * R; // the row stage t + 1 completed
        if (t + 1 < k) {
          if (mask_col || (mask_rows && (y < 0 || y >= ny))) result = bval;
          const S stored = store_as<S>(result);
          stage[(t * 2 + par) * kW + c] = stored;
          own[t] = load_as<C>(stored);
        } else if (col_output && y >= y0 && y < y_end) {
          store_with_images(out, L, periodic, gx, static_cast<std::int64_t>(y), std::int64_t(0), store_as<S>(result));
        }
      }
    }
  }
}

// Rows per block so that the blocks fill the device's resident slots in one wave where the grid allows it, with
// at least 8 (2kR + k) rows each so the pipeline's warm-up stays small.
inline int rows_per_block(int ny, std::int64_t strips, int slots, int k, int radius) {
  const int min_rows = 8 * (2 * k * radius + k);
  std::int64_t chunks = std::max<std::int64_t>(1, slots / std::max<std::int64_t>(1, strips));
  chunks = std::min<std::int64_t>(chunks, std::max(1, ny / min_rows));
  return static_cast<int>((ny + chunks - 1) / chunks);
}

// Launches a 2D pipeline kernel (this one, or tb_2d_pair.cu's) of kThreads threads per block over strips of `cols`
// columns, the outer A = halo_columns(kT, R) of each side recomputed, with rows per block from the device's resident
// slots. Once per kernel: the shared-memory opt-in and the blocks per SM (both cost host time on every launch).
template <auto kKernel, typename S, int R, int kT, typename B, typename Wt>
void launch_strips(int cols, std::size_t smem, const TbLaunch& a, const S* in, S* out, const PaddedLayout& L, B bval,
                   const Wt& w, cudaStream_t stream, const char* name) {
  static const int per_sm = [smem] {
    if (smem > 48 * 1024)
      SE_CUDA_CHECK(cudaFuncSetAttribute(kKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
    int n = 0;
    SE_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kKernel, kThreads, smem));
    return std::max(1, n);
  }();
  const int A = tb::halo_columns(kT, R, static_cast<int>(sizeof(S)));
  const std::int64_t strips = (L.n[0] + (cols - 2 * A) - 1) / (cols - 2 * A);
  const int rows = rows_per_block(static_cast<int>(L.n[1]), strips, per_sm * a.sm_count, kT, R);
  const dim3 grid(static_cast<unsigned>(strips), static_cast<unsigned>((L.n[1] + rows - 1) / rows));
  kKernel<<<grid, kThreads, smem, stream>>>(in, out, L, a.periodic, bval, rows, w);
  SE_CUDA_CHECK_LAUNCH(name);
}

template <typename S, bool kStar>
void launch(const TbLaunch& a, const S* in, S* out, const PaddedLayout& L, const std::vector<double>& weights,
            cudaStream_t stream) {
  dispatch_radius(a.radius, [&](auto r) {
    constexpr int R = decltype(r)::value;
    using C = compute_t<S>;
    if (a.steps < 1 || a.steps > kMaxT<S, R>)
      throw InputError("cuda-core-tb: the 2D kernel fuses 1 to " + std::to_string(kMaxT<S, R>) + " steps at radius " +
                       std::to_string(R));
    const auto w = kernel_weights<C, (2 * R + 1) * (2 * R + 1)>(weights);
    dispatch_depth<kMaxT<S, R>>(a.steps, [&](auto t) {
      constexpr int kT = decltype(t)::value;
      launch_strips<tb_2d_kernel<S, R, kStar, kT>, S, R, kT>(kThreads, shared_bytes<S, R>(kT), a, in, out, L,
                                                             static_cast<C>(a.boundary), w, stream, "tb_2d_kernel");
    });
  });
}

} // namespace se::tb2d

namespace se {

template <typename S>
void launch_tb_2d(const TbLaunch& a, const S* in, S* out, const PaddedLayout& L, const std::vector<double>& weights,
                  cudaStream_t stream) {
  if constexpr (std::is_same_v<S, float> || std::is_same_v<S, double>)
    if (launch_tb_2d_pair<S>(a, in, out, L, weights, stream)) return;
  if (a.star) tb2d::launch<S, true>(a, in, out, L, weights, stream);
  else tb2d::launch<S, false>(a, in, out, L, weights, stream);
}

} // namespace se
