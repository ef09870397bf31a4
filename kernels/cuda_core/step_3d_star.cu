// Single-step 3D CUDA-core kernel for the 7-point star's shape (heat-3d, any 7 weights; FP64, FP32 and FP16 storage).
// notes/cuda-core-tb.md ("Single-step 3D") measured the shapes: a z-streamed block (step_3d.cu, tb_3d_sym.cuh)
// stops at 70-79% of the copy roof, because each thread's column loop serialises its loads; many short-lived
// blocks whose loads are all independent keep more bytes in flight. Here a thread computes kZ points of one
// column: it issues its kZ + 2 column loads and 4 kZ xy-neighbour loads (L1 hits mostly) before the first FMA.
// Per point: 16 bytes of device memory (read + write once), 7 FMAs; per point of L2 traffic, the z neighbours cost
// (kZ + 2) / kZ planes instead of 3. kZ per GPU, measured (heat-3d 512^3 FP64, 32 x 8 threads): on an H100 kZ = 1,
// 2, 4 gave 88%, 90%, 92% of the copy roof; on an H200 kZ = 2, 3, 4 gave 219.9, 223.5, 219.5 GStencil/s (and 32 x 16
// threads 212; session 47: 64 x 4, 64 x 8, 32 x 16, 128 x 4, 128 x 8 all 0.4-3% below 32 x 8), so the H100 keeps 4
// and every other GPU takes 3. In FP64 off the H100 a block then runs 3 such parts one after another (star_parts:
// the next part's first planes are L1 hits, +4.2% on an H200). FP32 on GPUs other than the H100 takes two points
// along x per thread (star_r1_pair_kernel: H200 heat-3d 384 -> 422 GStencil/s, notes/cuda-core-tb.md), 4 column parts
// per block on Dirichlet grids (kPairParts: 410.6 -> 425.9). FP16 storage (FP32 arithmetic) takes the same pairs
// (__half2; before session 48 it took step_3d.cu's general plane-streaming kernel): H200 heat-3d 512^3, `suite
// --seconds 1`, 274.0 (general) -> 434.3 (one point per thread) -> 493.3 GStencil/s (pairs, 4 parts).
#include <type_traits>

#include "kernels/cuda_core/step_common.cuh"
#include "kernels/cuda_core/step_kernels.hpp"

namespace se {

namespace {

constexpr int kThreadsX = 32;
constexpr int kThreadsY = 8;

// The star's 7 weights in the dense 27-array (index (dz * 3 + dy) * 3 + dx): centre, x -+ 1, y -+ 1, z -+ 1.
constexpr int kStarTaps[7] = {13, 12, 14, 10, 16, 4, 22};

bool is_star_r1(const std::vector<double>& w) {
  if (w.size() != 27) return false;
  for (int i = 0; i < 27; ++i) {
    bool tap = false;
    for (int t : kStarTaps) tap |= (t == i);
    if (!tap && w[static_cast<std::size_t>(i)] != 0.0) return false;
  }
  return true;
}

// One column part of kPoints planes from z0 at (x, y). kInside: every plane z0 .. z0 + kPoints - 1 lies in the grid, so
// no load or store needs a guard.
template <typename S, int kPoints, bool kPeriodic, bool kInside>
__device__ __forceinline__ void star_r1_part(const S* __restrict__ in, S* __restrict__ out, PaddedLayout L,
                                             KernelWeights<compute_t<S>, 7> w, std::int64_t x, std::int64_t y,
                                             std::int64_t z0) {
  using C = compute_t<S>;
  const S* p = in + L.index(x, y, z0);
  // Every load issued before the first FMA: the column's kPoints + 2 planes and each plane's 4 xy neighbours, all
  // independent requests in flight per thread. Of the planes past the grid's end only the halo plane n_z is read,
  // and outputs past it are not stored.
  C col[kPoints + 2], nb[kPoints][4];
#pragma unroll
  for (int k = 0; k < kPoints + 2; ++k)
    col[k] = (kInside || k < 2 || z0 + k - 1 <= L.n[2]) ? load_as<C>(__ldg(p + (k - 1) * L.pitch_z)) : C(0);
#pragma unroll
  for (int k = 0; k < kPoints; ++k) {
    const S* q = p + k * L.pitch_z;
    const bool in_grid = kInside || k == 0 || z0 + k < L.n[2];
    nb[k][0] = in_grid ? load_as<C>(__ldg(q - 1)) : C(0);
    nb[k][1] = in_grid ? load_as<C>(__ldg(q + 1)) : C(0);
    nb[k][2] = in_grid ? load_as<C>(__ldg(q - L.pitch_y)) : C(0);
    nb[k][3] = in_grid ? load_as<C>(__ldg(q + L.pitch_y)) : C(0);
  }
#pragma unroll
  for (int k = 0; k < kPoints; ++k) {
    C s = w.w[0] * col[k + 1];
    s = fma(w.w[1], nb[k][0], s);
    s = fma(w.w[2], nb[k][1], s);
    s = fma(w.w[3], nb[k][2], s);
    s = fma(w.w[4], nb[k][3], s);
    s = fma(w.w[5], col[k], s);
    s = fma(w.w[6], col[k + 2], s);
    if (kInside || k == 0 || z0 + k < L.n[2]) store_with_images(out, L, kPeriodic, x, y, z0 + k, store_as<S>(s));
  }
}

// kFast (the Dirichlet kernel off the H100): a column part whose kPoints planes all lie inside the grid takes the
// unguarded body (only the grid's last part, n_z not a multiple of kPoints, is guarded), held to 32 registers (8
// blocks of 256 threads per SM, no spill). H200, heat-3d 512^3 FP64, `suite --seconds 0.5`, two calls alternated with
// the guarded kernel (32 registers): 223.3 / 223.2 / 223.4 / 223.5 -> 224.3 / 224.4 / 224.4 / 224.4 GStencil/s. The
// unguarded body without the register limit took 56 registers and lost (217.3); a 40-register limit 220.4; 32-bit
// plane offsets at 64, 40 and 32 registers (spilling) 215.9, 214.3, 211.6; the y neighbours through shared memory
// (one barrier per part) 147 (notes/cuda-core-tb.md, session 45). The guarded kernels keep no minimum (0): an explicit
// minimum of 1 block lets ptxas take more registers (FP64 kZ = 4: 58 -> 64). FP32 reaches this kernel off the H100 only
// when its x pairs are unaligned (32 registers too; not timed), FP16 likewise (one point per thread measured 434
// GStencil/s on the H200's heat-3d, the pairs 493).
//
// kParts consecutive column parts per block (kParts kPoints planes, one part after another): part m + 1 reads two
// planes part m loaded (its first two column loads) and the xy neighbours of one of them, all L1 hits, so the L2 reads
// per point fall from (kZ + 2) / kZ planes of the column to (kParts kZ + 2) / (kParts kZ). The registers stay at 32
// (the parts run one after another). H200, heat-3d 512^3 FP64, `suite --seconds 1`, alternated twice in one call
// (session 47): 1 part (before) 216.2 / 216.0, 2 parts 223.8 / 223.3, **3 parts 225.2 / 225.1 (kept, +4.2%)**, 4 parts
// 224.2 / 224.2, 8 parts 218.7 / 218.9 GStencil/s.
template <typename S> constexpr int star_parts(bool fast) { return fast && sizeof(S) == 8 ? 3 : 1; }

template <typename S, int kPoints, bool kPeriodic, bool kFast>
__global__ void __launch_bounds__(kThreadsX * kThreadsY, kFast ? 8 : 0)
    star_r1_kernel(const S* __restrict__ in, S* __restrict__ out, PaddedLayout L, KernelWeights<compute_t<S>, 7> w) {
  constexpr std::int64_t kSpan = static_cast<std::int64_t>(star_parts<S>(kFast)) * kPoints; // planes per block
  const std::int64_t x = static_cast<std::int64_t>(blockIdx.x) * kThreadsX + threadIdx.x;
  const std::int64_t y = static_cast<std::int64_t>(blockIdx.y) * kThreadsY + threadIdx.y;
  if (x >= L.n[0] || y >= L.n[1]) return;
  const auto part = [&](std::int64_t z0) {
    if (kFast && z0 + kPoints <= L.n[2]) star_r1_part<S, kPoints, kPeriodic, true>(in, out, L, w, x, y, z0);
    else star_r1_part<S, kPoints, kPeriodic, false>(in, out, L, w, x, y, z0);
  };
  for (std::int64_t zb = static_cast<std::int64_t>(blockIdx.z) * kSpan; zb < L.n[2];
       zb += static_cast<std::int64_t>(gridDim.z) * kSpan) {
    if constexpr (kSpan == kPoints) part(zb); // one part per block (the guarded kernels keep this shape)
    else {
      const std::int64_t ze = zb + kSpan < L.n[2] ? zb + kSpan : L.n[2];
#pragma unroll 1
      for (std::int64_t z0 = zb; z0 < ze; z0 += kPoints) part(z0);
    }
  }
}

// The same star with two x-neighbouring points per thread (8-byte loads and stores in FP32, 4-byte in FP16; not FP64:
// there the pairs' registers cost more resident warps than the halved load instructions gained). In FP32 a warp
// covers 64 columns, so its row is 16 whole sectors plus one halo sector each side (18 per 16, against 10 per 8 for
// one point per thread). The x neighbours outside a thread's pair come from the neighbouring lanes by shuffle; a lane
// whose neighbour lane holds no pair of the row loads it.
template <typename S> struct Pair;
template <> struct Pair<float> { using T = float2; };
template <> struct Pair<__half> { using T = __half2; };

// kParts consecutive column parts per block, as star_r1_kernel's: H200, heat-3d 512^3 FP32, `suite --seconds 1`
// alternated twice in one call (session 48): 1 part 410.7 / 410.4, 2 parts 420.6 / 420.6, 3 parts 422.8 / 422.8,
// **4 parts 426.3 / 425.6 GStencil/s (kept)**.
constexpr int kPairParts = 4;

template <typename S, int kPoints, bool kPeriodic, int kParts>
__global__ void __launch_bounds__(kThreadsX * kThreadsY)
    star_r1_pair_kernel(const S* __restrict__ in, S* __restrict__ out, PaddedLayout L, KernelWeights<compute_t<S>, 7> w) {
  using C = compute_t<S>;
  using P = typename Pair<S>::T;
  const int lane = static_cast<int>(threadIdx.x);
  const std::int64_t x = (static_cast<std::int64_t>(blockIdx.x) * kThreadsX + lane) * 2;
  const std::int64_t y = static_cast<std::int64_t>(blockIdx.y) * kThreadsY + threadIdx.y;
  if (y >= L.n[1]) return; // a whole warp: a block row is one warp
  const bool active = x < L.n[0];
  const bool load_right = lane == kThreadsX - 1 || x + 2 >= L.n[0]; // the next lane holds no pair of this row
  constexpr std::int64_t kSpan = static_cast<std::int64_t>(kParts) * kPoints; // planes per block
  // The same walk over the block's parts as star_r1_kernel's, written out: the form the kept kernel was measured in (a
  // shared helper taking the body as a lambda changed this kernel's code, session 48).
  for (std::int64_t zb = static_cast<std::int64_t>(blockIdx.z) * kSpan; zb < L.n[2]; zb += static_cast<std::int64_t>(gridDim.z) * kSpan)
#pragma unroll 1
  for (std::int64_t z0 = zb; z0 < (zb + kSpan < L.n[2] ? zb + kSpan : L.n[2]); z0 += kPoints) {
    const S* p = in + L.index(active ? x : 0, y, z0);
    P col[kPoints + 2], ym[kPoints], yp[kPoints];
    S xl[kPoints], xr[kPoints];
#pragma unroll
    for (int k = 0; k < kPoints + 2; ++k)
      col[k] = active && (k < 2 || z0 + k - 1 <= L.n[2]) ? __ldg(reinterpret_cast<const P*>(p + (k - 1) * L.pitch_z)) : P{};
#pragma unroll
    for (int k = 0; k < kPoints; ++k) {
      const S* q = p + k * L.pitch_z;
      const bool in_grid = active && (k == 0 || z0 + k < L.n[2]);
      ym[k] = in_grid ? __ldg(reinterpret_cast<const P*>(q - L.pitch_y)) : P{};
      yp[k] = in_grid ? __ldg(reinterpret_cast<const P*>(q + L.pitch_y)) : P{};
      xl[k] = in_grid && lane == 0 ? __ldg(q - 1) : S(0);
      xr[k] = in_grid && load_right ? __ldg(q + 2) : S(0);
    }
#pragma unroll
    for (int k = 0; k < kPoints; ++k) {
      const S left = __shfl_up_sync(0xffffffffu, col[k + 1].y, 1), right = __shfl_down_sync(0xffffffffu, col[k + 1].x, 1);
      const C l = load_as<C>(lane == 0 ? xl[k] : left), r = load_as<C>(load_right ? xr[k] : right);
      const C c0 = load_as<C>(col[k + 1].x), c1 = load_as<C>(col[k + 1].y);
      C s0 = w.w[0] * c0, s1 = w.w[0] * c1;
      s0 = fma(w.w[1], l, s0);
      s1 = fma(w.w[1], c0, s1);
      s0 = fma(w.w[2], c1, s0);
      s1 = fma(w.w[2], r, s1);
      s0 = fma(w.w[3], load_as<C>(ym[k].x), s0);
      s1 = fma(w.w[3], load_as<C>(ym[k].y), s1);
      s0 = fma(w.w[4], load_as<C>(yp[k].x), s0);
      s1 = fma(w.w[4], load_as<C>(yp[k].y), s1);
      s0 = fma(w.w[5], load_as<C>(col[k].x), s0);
      s1 = fma(w.w[5], load_as<C>(col[k].y), s1);
      s0 = fma(w.w[6], load_as<C>(col[k + 2].x), s0);
      s1 = fma(w.w[6], load_as<C>(col[k + 2].y), s1);
      if (!active || !(k == 0 || z0 + k < L.n[2])) continue;
      if (kPeriodic || x + 1 >= L.n[0]) {
        store_with_images(out, L, kPeriodic, x, y, z0 + k, store_as<S>(s0));
        if (x + 1 < L.n[0]) store_with_images(out, L, kPeriodic, x + 1, y, z0 + k, store_as<S>(s1));
      } else {
        P v;
        v.x = store_as<S>(s0);
        v.y = store_as<S>(s1);
        *reinterpret_cast<P*>(out + L.index(x, y, z0 + k)) = v;
      }
    }
  }
}

} // namespace

template <typename S>
bool launch_step_3d_star(const S* in, S* out, const PaddedLayout& L, bool periodic, const std::vector<double>& weights,
                         cudaStream_t stream) {
  if (!is_star_r1(weights) || L.dims != 3 || L.halo[0] < 1 || L.halo[1] < 1 || L.halo[2] < 1) return false;
  using C = compute_t<S>;
  KernelWeights<C, 7> w{};
  for (int t = 0; t < 7; ++t) w.w[t] = static_cast<C>(weights[static_cast<std::size_t>(kStarTaps[t])]);
  // Z points per block along z (a thread's points times the block's parts), `columns` per thread along x.
  const auto grid_for = [&](int z_points, int columns) {
    const std::int64_t z_blocks = (L.n[2] + z_points - 1) / z_points;
    return dim3(grid_blocks(L.n[0], columns * kThreadsX), grid_blocks(L.n[1], kThreadsY),
                static_cast<unsigned>(z_blocks < 65535 ? z_blocks : 65535));
  };
  const dim3 block(kThreadsX, kThreadsY);
  // The H100 keeps its measured guarded kernel at kZ = 4 (58 registers); periodic grids keep the guarded body (the
  // register limit would spill store_with_images' image stores).
  const auto go = [&](auto points) {
    constexpr int Z = decltype(points)::value;
    constexpr bool kFast = Z == 3;
    if (periodic) star_r1_kernel<S, Z, true, false><<<grid_for(Z, 1), block, 0, stream>>>(in, out, L, w);
    else star_r1_kernel<S, Z, false, kFast><<<grid_for(Z * star_parts<S>(kFast), 1), block, 0, stream>>>(in, out, L, w);
  };
  const auto pair = [&](auto points) {
    constexpr int Z = decltype(points)::value;
    if (periodic) star_r1_pair_kernel<S, Z, true, 1><<<grid_for(Z, 2), block, 0, stream>>>(in, out, L, w);
    else star_r1_pair_kernel<S, Z, false, kPairParts><<<grid_for(Z * kPairParts, 2), block, 0, stream>>>(in, out, L, w);
  };
  // FP32 and FP16 take pairs at 3 points per thread where every even x starts an aligned pair (H200, heat-3d 512^3:
  // FP32 384 -> 422 GStencil/s, FP16 441 -> 493); FP64 pairs hold twice the registers per point and were slower
  // (223 -> 203 at kZ = 3). The H100 keeps its measured one-point kZ = 4 in all three (pairs not measured there).
  const bool pairs_aligned = L.origin[0] % 2 == 0 && L.pitch_y % 2 == 0;
  if (device_is_h100()) go(std::integral_constant<int, 4>());
  else if constexpr (sizeof(S) <= 4) {
    if (pairs_aligned) pair(std::integral_constant<int, 3>());
    else go(std::integral_constant<int, 3>());
  } else {
    go(std::integral_constant<int, 3>());
  }
  SE_CUDA_CHECK_LAUNCH("star_r1_kernel");
  return true;
}

template bool launch_step_3d_star<double>(const double*, double*, const PaddedLayout&, bool, const std::vector<double>&,
                                          cudaStream_t);
template bool launch_step_3d_star<float>(const float*, float*, const PaddedLayout&, bool, const std::vector<double>&,
                                         cudaStream_t);
template bool launch_step_3d_star<__half>(const __half*, __half*, const PaddedLayout&, bool, const std::vector<double>&,
                                          cudaStream_t);

} // namespace se
