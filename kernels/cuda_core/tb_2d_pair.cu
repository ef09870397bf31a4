// cuda-core-tb and cuda-core-tb-fp32 in 2D with two columns per thread. tb_2d.cuh's kernel gives each thread one
// column and so issues, per stage and point, 2R 4- or 8-byte shared loads, one shared store and the loop's
// addressing: it is instruction-bound (FP32 star-2d13p T = 3: 317 GStencil/s, 17% under the single-step star path,
// notes/cuda-core-tb.md session 50). Here a block of 256 threads owns a 512-column strip and a thread the columns
// lc = 2c and lc + 1: per stage and row it reads Re + 1 pairs (float2 or double2) at even offsets lc - Re .. lc + Re
// (Re: the radius rounded up to even; the centre pair comes from its own registers past stage 1), updates two queues
// of partial sums, and stores one pair to the next stage's row. Same pipeline, skew, ring and boundary rules as
// tb_2d.cuh (whose comment explains them); the recomputed halo A per side is the same, now of a strip twice as wide.
// Radius 1..3 at the depths that compile without spills (tb::pair_capacity_steps); others take tb_2d.cuh's kernel.
// Per point and base step: 2 sizeof(S) / T bytes of device memory, (Re + 1) / 2 pair loads and half a pair store.
// H200, 10240^2, `suite --seconds 0.5` at each plan's depth, one column -> two alternated twice in one call (session
// 51): FP64 star-2d13p (T = 2) 235.6 / 235.3 -> 330.3 / 329.7 GStencil/s, box-2d49p (T = 2) 160.9 / 161.0 -> 206.2 /
// 206.0; FP32 star-2d13p (T = 3) 318.7 / 318.7 -> 468.0 / 468.1, box-2d49p (T = 2) 200.7 / 200.9 -> 278.8 / 279.0,
// box-2d25p (T = 3) 372.8 / 372.3 -> 493.5 / 493.4. Checked against the FP64 reference on both boundaries and odd
// sizes; memcheck and racecheck clean.

#include "kernels/cuda_core/tb_2d.cuh"

namespace se::tb2dpair {

namespace {

constexpr int kThreads = tb::kThreads2D;
constexpr int kCols = 2 * kThreads; // the strip: two columns per thread
constexpr int kRing = tb2d::kRing;
template <typename S, int R> constexpr int kPad = kLeft<S, R>; // >= R rounded to even, a whole 16-byte chunk
template <typename S, int R> constexpr int kStride = kCols + 2 * kPad<S, R>;
template <typename S> struct Pair;
template <> struct Pair<float> { using type = float2; };
template <> struct Pair<double> { using type = double2; };
template <typename S> __device__ __forceinline__ typename Pair<S>::type make_pair(S a, S b) { return {a, b}; }
// The depths compiled without spills (ptxas sm_90 at 128 registers; FP32: radius 1 spills 16-244 bytes from T = 5 on,
// radius 2 from T = 4, radius 3 at T = 3 takes 120; FP64: radius 1 spills 8-24 bytes at T = 3, radius 2's star 28 at
// T = 2, radius 3 at T = 2 takes 124): core's model (tb::pair_capacity_steps) plans with the same numbers.
template <typename S, int R> constexpr int kMaxPairSteps = tb::pair_capacity_steps(R, static_cast<int>(sizeof(S)));

template <typename S, int R> std::size_t shared_bytes(int steps) {
  return static_cast<std::size_t>(kRing + 2 * (steps - 1)) * kStride<S, R> * sizeof(S);
}

template <typename S, int R, bool kStar, int kT>
__global__ void __launch_bounds__(kThreads, 2)
    tb_2d_pair_kernel(const S* __restrict__ in, S* __restrict__ out, PaddedLayout L, bool periodic, S bval,
                      int rows_per_block, KernelWeights<S, (2 * R + 1) * (2 * R + 1)> w) {
  using P = typename Pair<S>::type;
  constexpr int kSide = 2 * R + 1, kP = kPad<S, R>, kW = kStride<S, R>, k = kT;
  constexpr int kRe = (R + 1) / 2 * 2; // the pair's window starts at lc - kRe, an even offset
  static_assert(kRe <= kP, "the pads cover the window");
  constexpr int kC = kChunk<S>;
  extern __shared__ __align__(16) unsigned char shared_raw[];
  S* const rows = reinterpret_cast<S*>(shared_raw);
  const int n_rows = kRing + 2 * (k - 1);
  const int c = threadIdx.x;
  const int lc = 2 * c; // the pair's first column within the strip

  for (int i = c; i < n_rows * 2 * kP; i += kThreads) { // the pads, read by the halo columns only
    const int row = i / (2 * kP), j = i - row * 2 * kP;
    rows[row * kW + (j < kP ? j : kCols + j)] = S(0);
  }
  __syncthreads();

  S* const ring = rows + kP;          // slot s, column x: ring[s * kW + x]
  S* const stage = ring + kRing * kW; // stage t's row of parity p: stage[((t - 1) * 2 + p) * kW + x]
  const int A = tb::halo_columns(k, R, static_cast<int>(sizeof(S)));
  const std::int64_t xs = static_cast<std::int64_t>(blockIdx.x) * (kCols - 2 * A) - A; // the strip's column 0
  const std::int64_t gx0 = xs + lc, gx1 = gx0 + 1;
  const bool inside0 = gx0 >= 0 && gx0 < L.n[0], inside1 = gx1 >= 0 && gx1 < L.n[0];
  const bool output0 = lc >= A && lc < kCols - A && gx0 < L.n[0];
  const bool output1 = lc + 1 >= A && lc + 1 < kCols - A && gx1 < L.n[0];
  const int ny = static_cast<int>(L.n[1]);
  const int y0 = static_cast<int>(blockIdx.y) * rows_per_block;
  const int y_end = min(y0 + rows_per_block, ny);
  const int first_in = y0 - k * R;
  const int n_load = (y_end - y0) + 2 * k * R;
  const int n_iter = n_load + k - 1;
  const int row_limit = ny + static_cast<int>(L.halo[1]);
  const std::int64_t chunks_left = chunks_to_row_end<S>(L, xs);

  const bool fetcher = c < kCols / kC && c < chunks_left; // one 16-byte chunk of each row
  const S* const column = in + L.index(xs + (fetcher ? c * kC : 0), first_in, 0);
  const auto fetch = [&](int i) {
    if (fetcher && i < n_load && first_in + i < row_limit)
      __pipeline_memcpy_async(ring + (i % kRing) * kW + c * kC, column + static_cast<std::int64_t>(i) * L.pitch_y, 16);
    __pipeline_commit();
  };

  S q0[kT][kSide], q1[kT][kSide]; // as tb_2d.cuh's q, for the columns lc and lc + 1
#pragma unroll
  for (int t = 0; t < kT; ++t)
#pragma unroll
    for (int m = 0; m < kSide; ++m) q0[t][m] = q1[t][m] = S(0);
  P own[kT > 1 ? kT - 1 : 1]; // as tb_2d.cuh's own, the pair
#pragma unroll
  for (int t = 0; t + 1 < kT; ++t) own[t] = make_pair(S(0), S(0));
  const bool mask0 = !periodic && !inside0, mask1 = !periodic && !inside1;
  const bool mask_rows = !periodic && (y0 - k * (R + 1) < 0 || y_end + k * (R + 1) > ny);

  // The row loop repeats tb_2d.cuh's. Shared as one device helper taking the stages as a lambda, it cost the one-column
  // kernel 27% (FP64 heat-2d) to 35% (FP32 heat-2d) and 11% (FP64 box-2d25p) on an H200 (session 51, notes/cuda-core-tb.md):
  // ptxas scheduled the unrolled stages differently. Keep the two loops written out.
  for (int i = 0; i < kRing - 1; ++i) fetch(i);
  constexpr int kUnroll = R <= 2 ? kSide : 1;
#pragma unroll 1
  for (int i0 = 0; i0 < n_iter; i0 += kUnroll) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int i = i0 + u;
      if (i >= n_iter) break;
      __pipeline_wait_prior(kRing - 2);
      __syncthreads();
      fetch(i + kRing - 1);
      const int par = i & 1;
#pragma unroll
      for (int t = kT - 1; t >= 0; --t) { // stage t + 1
        const S* src = t == 0 ? ring + (i % kRing) * kW : stage + ((t - 1) * 2 + (par ^ 1)) * kW;
        S v[2 * kRe + 2]; // columns lc - kRe .. lc + kRe + 1
#pragma unroll
        for (int j = 0; j <= 2 * kRe; j += 2) { // v[j], v[j + 1]: columns lc - kRe + j and the next
          P f;
          if (t > 0 && j == kRe) f = own[t - 1]; // the centre pair: this thread wrote it, no shared load
          else f = *reinterpret_cast<const P*>(src + lc - kRe + j);
          v[j] = f.x;
          v[j + 1] = f.y;
        }
#pragma unroll
        for (int a = 0; a < kSide; ++a) { // weight row a meets output (consumed row) - (a - R): slot 2R - a
          S& acc0 = q0[t][(2 * R - a + u) % kSide];
          S& acc1 = q1[t][(2 * R - a + u) % kSide];
          if (kStar && a != R) {
            acc0 = fma(w.w[a * kSide + R], v[kRe], acc0);
            acc1 = fma(w.w[a * kSide + R], v[kRe + 1], acc1);
          } else {
#pragma unroll
            for (int dx = 0; dx < kSide; ++dx) {
              acc0 = fma(w.w[a * kSide + dx], v[kRe - R + dx], acc0);
              acc1 = fma(w.w[a * kSide + dx], v[kRe - R + dx + 1], acc1);
            }
          }
        }
        S r0 = q0[t][u % kSide], r1 = q1[t][u % kSide];
        if constexpr (kUnroll == kSide) {
          q0[t][u % kSide] = q1[t][u % kSide] = S(0);
        } else {
#pragma unroll
          for (int m = 0; m + 1 < kSide; ++m) q0[t][m] = q0[t][m + 1], q1[t][m] = q1[t][m + 1];
          q0[t][kSide - 1] = q1[t][kSide - 1] = S(0);
        }
        const int y = first_in + i - t - (t + 1) * R; // the row stage t + 1 completed
        if (t + 1 < k) {
          const bool row_out = mask_rows && (y < 0 || y >= ny);
          if (mask0 || row_out) r0 = bval;
          if (mask1 || row_out) r1 = bval;
          const P stored = make_pair(r0, r1);
          *reinterpret_cast<P*>(stage + (t * 2 + par) * kW + lc) = stored;
          own[t] = stored;
        } else if (y >= y0 && y < y_end) {
          if (output0) store_with_images(out, L, periodic, gx0, static_cast<std::int64_t>(y), std::int64_t(0), r0);
          if (output1) store_with_images(out, L, periodic, gx1, static_cast<std::int64_t>(y), std::int64_t(0), r1);
        }
      }
    }
  }
}

} // namespace

} // namespace se::tb2dpair

namespace se {

template <typename S>
bool launch_tb_2d_pair(const TbLaunch& a, const S* in, S* out, const PaddedLayout& L, const std::vector<double>& weights,
                       cudaStream_t stream) {
  if (a.radius < 1 || a.radius > 3 || L.origin[0] % kChunk<S> != 0 || L.pitch_y % kChunk<S> != 0)
    return false;
  bool launched = false;
  dispatch_radius(a.radius, [&](auto r) {
    constexpr int R = decltype(r)::value;
    if constexpr (R <= 3) {
      constexpr int kMax = tb2dpair::kMaxPairSteps<S, R>;
      if (a.steps < 1 || a.steps > kMax || weights.size() != static_cast<std::size_t>((2 * R + 1) * (2 * R + 1))) return;
      const auto w = kernel_weights<S, (2 * R + 1) * (2 * R + 1)>(weights);
      dispatch_depth<kMax>(a.steps, [&](auto t) {
        constexpr int kT = decltype(t)::value;
        const std::size_t smem = tb2dpair::shared_bytes<S, R>(kT);
        const S bval = static_cast<S>(a.boundary);
        if (a.star)
          tb2d::launch_strips<tb2dpair::tb_2d_pair_kernel<S, R, true, kT>, S, R, kT>(
              tb2dpair::kCols, smem, a, in, out, L, bval, w, stream, "tb_2d_pair_kernel");
        else
          tb2d::launch_strips<tb2dpair::tb_2d_pair_kernel<S, R, false, kT>, S, R, kT>(
              tb2dpair::kCols, smem, a, in, out, L, bval, w, stream, "tb_2d_pair_kernel");
      });
      launched = true;
    }
  });
  return launched;
}

template bool launch_tb_2d_pair<float>(const TbLaunch&, const float*, float*, const PaddedLayout&,
                                       const std::vector<double>&, cudaStream_t);
template bool launch_tb_2d_pair<double>(const TbLaunch&, const double*, double*, const PaddedLayout&,
                                        const std::vector<double>&, cudaStream_t);

} // namespace se
