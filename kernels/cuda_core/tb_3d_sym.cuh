// The cube-symmetric radius-1 3D kernel (heat-3d, box-3d27p: weights c0 centre, c1 faces, c2 edges, c3 corners),
// for cuda-core-tb at depth T = 1..3 and for single-step cuda-core (T = 1; in FP16 too, tb_3d_sym_fp16.cu).
// EBISU-like: a large cross-section at low occupancy, the latency hidden by independent rows rather than warps. A
// block of 64 x 4 threads owns a 64 x 32 cross-section (64 x 3 threads and 64 x 24 in FP64 at T = 2,
// rows_per_block; 128 x 4 threads and 128 x 32 in FP64 at T = 1, block_cols), each thread one column of 8 consecutive rows, and streams it along z through T stages (stage t
// consumes the plane stage t - 1 wrote into shared memory in the previous iteration: one barrier per
// plane for all stages, as tb_3d.cu). Per plane and point a stage forms, with a sliding window over its rows,
//   P = a(x-1) + a(x+1),  N1 = P + a(y-1) + a(y+1),  N2 = P(y-1) + P(y+1),
//   Qm = c0 a + c1 N1 + c2 N2 (to the output in the same plane),  Qs = c1 a + c2 N1 + c3 N2 (to planes z +- 1),
// and completes out(z - 1) = pend + Qs(z), pend = Qs(z - 1) + Qm(z): 12 FP64 operations and 3.75 shared loads
// per point and step (27 FMAs and 6 loads in the dense two-row kernel). Only the final stage's centre
// 64 - 2A columns and rows - 2(T - 1) rows are written: at T = 2 in FP64, 62 x 22 of 64 x 24 (89%).
// Dirichlet: points outside the grid keep the boundary value at every intermediate stage; periodic: the halo
// holds the images the previous launch wrote.
// At T = 1 on sm_90 each ring plane is one TMA box (thread 0 issues it, an mbarrier per slot counts its bytes);
// A/B on an H100 (box-3d27p 512^3, notes/cuda-core-tb.md): FP64 151.2 -> 154.6, FP32 298.5 -> 309.8 GStencil/s.
// FP64 and FP32 box only the interior columns (128 in FP64, 64 in FP32: block_cols) and copy the two halo columns
// apart (kInner, below).
// At T = 2 the box lost (FP64 303.3 -> 295.8, FP32 564.7 -> 463.8), so deeper kernels keep cp.async.
// kKeep (Dirichlet at T = 1, keep_reads_in_l2): the boxes are read under an L2 evict_last policy, so the rows and
// planes a neighbouring block reads again as its halo stay in L2 (the streamed blocks fetch 1.24x the input from
// device memory). H200, box-3d27p 512^3, `suite --seconds 1` alternated twice in one call (session 48): FP64 206.5 /
// 206.6 -> 213.3 / 213.4 GStencil/s (evict_first on the output stores as well lost: 194.4 / 194.6); FP32 423.1 /
// 422.3 -> 425.5 / 425.9.
#pragma once
#include "core/temporal_blocking_model.hpp"
#include "kernels/common/cp_async.cuh"
#include "kernels/common/tensor_map.hpp"
#include "kernels/common/tma.cuh"
#include "kernels/cuda_core/step_common.cuh"
#include "kernels/cuda_core/tb_kernels.hpp"

namespace se::sym3d {

constexpr int kStagedTX = 64;  // threads along x, one column each (block_cols: 128 in the kInner FP64 block)
constexpr int kRY = 8;         // rows per thread; rows_per_block<S, T>() / kRY threads along y
constexpr int kStagedRing = 4; // input planes, all but one in flight (ring_planes: 6 in the kInner FP64 block)
// Rows of a block's cross-section (tb::sym3d_rows says which and why; the plan's text names them too).
template <typename S, int T> constexpr int rows_per_block() { return tb::sym3d_rows(static_cast<int>(sizeof(S)), T); }
// Planes a block streams through: measured per GPU (box-3d27p 512^3, `suite --seconds 0.5`, one call each,
// notes/cuda-core-tb.md), and the two GPUs disagree. H100 80GB HBM3, at 64 / 32 / 16 / 8 planes: T = 2 FP64 247.9 /
// 261.4 / 293.9 / 265.6 GStencil/s, FP32 463 / 532 / 525 / 434; T = 1 FP64 148.3 / 149.6 / 147.0 / 146.8, FP32
// 283.5 / 283.7 / 281.5 / 294.2. H200, at 64 / 32 / 16: T = 2 FP64 371.2 / 364.6 / 332.6, FP32 655.9 / 612.6 /
// 544.4; T = 1 FP64 195.0 / 197.6 / 197.0, FP32 372.2 / 378.2 / 382.2 (and 398.3 at 8, `--seconds 1`, the call
// before). Any other GPU takes the H200's choice (64 planes at T >= 2 in FP32, the kernel's original design); T = 3
// (no preset's model pick) takes T = 2's. 0: FP64 at T >= 2 off the H100, where the planes come from the grid's
// waves of blocks (tb::wave_planes, 32 to 128 planes: 86 at 512^3 on the H200, +1.5% over 64). T = 1 FP64 takes 64
// in the interior-box kernel, whose block is 128 columns wide (session 53, below: 230.1 / 230.2 against 229.0 / 229.6
// at 32), and 32 in the cp.async kernel that runs where no tensor map can be encoded.
template <typename S, int T, bool kInner> int planes_per_block(bool h100) {
  constexpr bool fp64 = sizeof(S) == 8;
  if constexpr (T == 1) return fp64 ? (kInner ? 64 : 32) : 8;
  else return h100 ? (fp64 ? 16 : 32) : (fp64 ? 0 : 64);
}

// Recomputed columns A each side ((T - 1) rounded so that blocks start on 16-byte chunks) and the staged columns
// kA left of the cross-section (at least 1, and A + kA a whole chunk so that every staged row is 16-byte aligned).
template <typename S> constexpr int halo_x(int steps) {
  const int half = tb::chunk_elements(static_cast<int>(sizeof(S))) / 2;
  return tb::round_up(steps - 1, half);
}
template <typename S> constexpr int staged_left(int steps) {
  const int chunk = tb::chunk_elements(static_cast<int>(sizeof(S)));
  return tb::round_up(halo_x<S>(steps) + 1, chunk) - halo_x<S>(steps);
}
template <typename S, int T> constexpr int kW = kStagedTX + 2 * staged_left<S>(T);
template <typename S, int T> constexpr int kPlane = kW<S, T> * (rows_per_block<S, T>() + 2);
// Ring planes start 128 bytes apart (a TMA box lands on a 128-byte boundary); the stage planes follow.
template <typename S, int T> constexpr int kRingPlane = (kPlane<S, T> * static_cast<int>(sizeof(S)) + 127) / 128 * 128 /
                                                        static_cast<int>(sizeof(S));
// The ring, the stage planes, the ring's mbarriers, and 128 bytes to align the ring.
template <typename S, int T> constexpr std::size_t shared_bytes() {
  return (static_cast<std::size_t>(kStagedRing) * kRingPlane<S, T> + 2 * (T - 1) * static_cast<std::size_t>(kPlane<S, T>)) *
             sizeof(S) +
         kStagedRing * sizeof(unsigned long long) + 128;
}

// kInner (T = 1 TMA, FP64 and FP32): each ring plane is the TMA box of the cross-section's kTX interior columns
// alone, whole 128-byte lines of the padded rows (row stride kTX in shared memory), and the one halo column on each
// side comes from 4- or 8-byte cp.async copies into a small plane of its own (2 values per row). The 68-column box
// (kW, which FP16 keeps: cp.async copies 4 bytes at least) starts 16 bytes before a 128-byte line and ends 16 bytes
// into one, so a row's request spans 6 lines for 4 of payload; ncu counted the box reads reaching L2 as 1.50x the
// input (session 50). Here a row requests 4 whole lines and 2 sectors. Held to 2 blocks per SM (ptxas sm_90 FP64:
// 123 registers, no spill; at the box kernel's 3 it takes 80 and spills 20 bytes). H200, box-3d27p 512^3, `suite
// --seconds 1` alternated twice in one call (notes/scratch/session51-run92.sh, session 52): FP64 68-column box
// 212.99 / 212.88, interior box at 3 blocks per SM 216.33 / 216.04, at 2 219.95 / 220.48 GStencil/s (80% -> 83% of
// the copy roof); FP32 426.47 / 426.26, 473.15 / 472.71, 472.61 / 473.63 (80% -> 89%). ncu (FP64, one launch):
// L2 read sectors 74.1M -> 62.9M, DRAM reads 1.33 -> 1.23 GB, 621 -> 598 us.
// FP64 then widens the block to 128 x 32 (128 x 4 threads, one block per SM, a ring of 6 planes, 64 planes per
// block): ncu (session 53, notes/scratch/session53-run97.sh) found L2 missing almost every re-read of a neighbour's
// halo (40.2M of 42.5M read sectors at 32 planes, 38.5M of 40.2M with one block streaming all 512 planes), so the
// halo's share of the reads is what device memory carries, and the x halo's 2 sectors per row halve with 128
// columns. H200, box-3d27p 512^3, `suite --seconds 1` twice in one call (session53-run98.sh; 64 x 32 at 32 planes
// the call before: 219.46 / 219.77 / 219.67 / 219.85): ring 4 at 32 / 64 planes 227.86 / 226.98 and 227.81 /
// 227.18, ring 6 229.00 / 230.12 and 229.59 / 230.16 GStencil/s (87% of the copy roof); DRAM reads 1.23 -> 1.18 GB,
// 598 -> 575 us (ring 4, 32 planes). FP32 lost with it (ring 4 at 8 / 16 planes 451.5 / 467.2, ring 6 466.3 /
// 464.1, against 473.3 / 474.0) and keeps 64 x 32 at two blocks per SM.
template <typename S, bool kInner> constexpr int block_cols() { return kInner && sizeof(S) == 8 ? 128 : kStagedTX; }
template <typename S, bool kInner> constexpr int ring_planes() { return kInner && sizeof(S) == 8 ? 6 : kStagedRing; }
template <typename S> constexpr int kInnerPlane = block_cols<S, true>() * (rows_per_block<S, 1>() + 2);
template <typename S> constexpr int kHaloPlane = 2 * (rows_per_block<S, 1>() + 2);
template <typename S> constexpr std::size_t shared_bytes_inner() {
  constexpr std::size_t ring = ring_planes<S, true>();
  return (ring * kInnerPlane<S> + ring * kHaloPlane<S>) * sizeof(S) + ring * sizeof(unsigned long long) + 128;
}
static_assert(shared_bytes_inner<double>() <= 227 * 1024, "the FP64 interior-box block fits one SM's shared memory");
// Blocks per SM the kernel is compiled for (its register bound).
template <typename S, int T, bool kPeriodic, bool kInner> constexpr int min_blocks() {
  return kInner ? (sizeof(S) == 8 ? 1 : 2) : T == 1 && !kPeriodic ? 3 : T <= 2 ? 2 : 1;
}
static_assert(kInnerPlane<double> * sizeof(double) % 128 == 0 && kInnerPlane<float> * sizeof(float) % 128 == 0,
              "inner ring planes start on 128-byte boundaries");

template <typename C> struct Weights {
  C c0, c1, c2, c3;
};

// kTma (sm_90, a tensor map of the padded input: box W x (rows + 2) x 1): each ring plane is one TMA box that
// thread 0 issues, completing on the slot's mbarrier; otherwise every thread copies 16-byte chunks
// (cp_async16_l2_128 of kernels/common/cp_async.cuh: whole 128-byte lines into L2).
// kOwn (own_rows_in_registers): stage t >= 1 takes the centres of the thread's own kRY rows from registers (own[t - 1]:
// what its stage t - 1 stored there in the previous iteration; the stages then run from the last to the first, so that
// stage t reads own[t - 1] before stage t - 1 overwrites it), and only the two rows beyond its column from shared
// memory: 2.75 shared loads per point instead of 3.75 at those stages.
template <typename S, int T, bool kPeriodic, bool kTma, bool kKeep, bool kOwn = false, bool kInner = false>
__global__ void __launch_bounds__(block_cols<S, kInner>() * (rows_per_block<S, T>() / kRY), min_blocks<S, T, kPeriodic, kInner>())
    tb_3d_sym_kernel(const S* __restrict__ in, S* __restrict__ out, PaddedLayout L, compute_t<S> bval,
                     Weights<compute_t<S>> c, int planes, const __grid_constant__ CUtensorMap map) {
  using C = compute_t<S>;
  constexpr int kTX = block_cols<S, kInner>(), kRing = ring_planes<S, kInner>(); // threads along x, ring planes
  constexpr int kRows = rows_per_block<S, T>(), kTY = kRows / kRY;
  constexpr int A = halo_x<S>(T), kA = staged_left<S>(T), B = T - 1, W = kW<S, T>, kP = kPlane<S, T>;
  static_assert(!kInner || (kTma && T == 1 && sizeof(S) >= 4), "the interior box: T = 1 TMA, FP64 or FP32");
  constexpr int kRP = kInner ? kInnerPlane<S> : kRingPlane<S, T>; // a ring slot's stride
  constexpr int WR = kInner ? kTX : W, kAR = kInner ? 0 : kA;       // a ring row's stride and the interior's first column
  extern __shared__ __align__(16) unsigned char shared_raw[];
  S* const ring = reinterpret_cast<S*>(shared_raw + ((128 - (shared_address(shared_raw) & 127)) & 127));
  S* const stage = ring + kRing * kRP; // stage t's plane of parity p: stage + (t * 2 + p) * kP
  S* const halo = stage;               // kInner (T = 1: no stage planes): slot s, row r, side e at halo[s * kHaloPlane + 2 r + e]
  unsigned long long* const bars =
      reinterpret_cast<unsigned long long*>(kInner ? halo + kRing * kHaloPlane<S> : stage + 2 * (T - 1) * kP);
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * kTX + tx;
  if (kTma && tid == 0)
    for (int k = 0; k < kRing; ++k) tma::barrier_init(bars + k, 1);
  // Stage planes are written at their centre only; their border feeds halo points only: zero it once.
  for (int i = tid; i < 2 * (T - 1) * kP; i += kTX * kTY) {
    const int r = (i % kP) / W, col = i % W;
    if (r < 1 || r > kRows || col < kA || col >= kA + kTX) stage[i] = S(0);
  }
  const std::int64_t xs = static_cast<std::int64_t>(blockIdx.x) * (kTX - 2 * A) - A; // column of thread x 0
  const std::int64_t ys = static_cast<std::int64_t>(blockIdx.y) * (kRows - 2 * B) - B;
  const std::int64_t z0 = static_cast<std::int64_t>(blockIdx.z) * planes;
  const std::int64_t z_end = z0 + planes < L.n[2] ? z0 + planes : L.n[2];
  const std::int64_t x = xs + tx, y0 = ys + ty * kRY;
  const std::int64_t first = z0 - T; // input plane of iteration 0
  const std::int64_t n_load = (z_end - z0) + 2 * T;
  const std::int64_t n_iter = n_load + T - 1;
  const std::int64_t plane_limit = L.n[2] + L.halo[2];
  // Per row j of the thread: inside the grid (bit j of in_rows) and written by the last stage (bit j of out_rows).
  unsigned in_rows = 0, out_rows = 0;
#pragma unroll
  for (int j = 0; j < kRY; ++j) {
    const std::int64_t y = y0 + j;
    const bool inside = x >= 0 && x < L.n[0] && y >= 0 && y < L.n[1];
    in_rows |= (inside ? 1u : 0u) << j;
    const int r = ty * kRY + j;
    out_rows |= (inside && tx >= A && tx < kTX - A && r >= B && r < kRows - B ? 1u : 0u) << j;
  }
  // The thread's share of a staged plane: the same chunks of every plane, so their offsets (within a plane, which
  // the layout keeps far below 2^31 elements) and whether they exist (rows and chunks past the padding are not
  // fetched) are worked out once.
  constexpr int kChunkElems = tb::chunk_elements(static_cast<int>(sizeof(S)));
  constexpr int kChunksRow = W / kChunkElems, kChunks = (kRows + 2) * kChunksRow;
  constexpr int kSlots = (kChunks + kTX * kTY - 1) / (kTX * kTY);
  int src_off[kSlots], dst_off[kSlots];
  unsigned slot_on = 0;
  if (!kTma) {
    const std::int64_t rows_left = L.n[1] + L.halo[1] - (ys - 1);
    const std::int64_t chunks_left = chunks_to_row_end<S>(L, xs - kA);
#pragma unroll
    for (int k = 0; k < kSlots; ++k) {
      const int idx = tid + k * kTX * kTY, r = idx / kChunksRow, col = idx - r * kChunksRow;
      slot_on |= (idx < kChunks && r < rows_left && col < chunks_left ? 1u : 0u) << k;
      src_off[k] = static_cast<int>(r * L.pitch_y) + col * kChunkElems;
      dst_off[k] = r * W + col * kChunkElems;
    }
  }
  const S* const in_plane0 = in + L.index(xs - kA, ys - 1, first);
  const int box_x = static_cast<int>(xs - kAR + L.origin[0]), box_y = static_cast<int>(ys - 1 + L.origin[1]);
  // kInner: this thread's halo value of each plane (threads 0 .. 2 (kRows + 2) - 1: row tid / 2, side tid % 2), where
  // it lies inside the padded allocation's rows, columns and planes (others are never read for a written output).
  // Worked out at each fetch from the block's indices and the layout (kernel parameters), so that none of it holds
  // a register through the loop.
  const auto fetch_halo = [&](std::int64_t i) {
    const int h_tid = threadIdx.y * kTX + threadIdx.x, h_row = h_tid >> 1;
    if (h_row >= kRows + 2 || i >= n_load) return;
    const std::int64_t h_xs = static_cast<std::int64_t>(blockIdx.x) * kTX;
    const std::int64_t h_x = (h_tid & 1) ? h_xs + kTX : h_xs - 1;
    const std::int64_t h_y = static_cast<std::int64_t>(blockIdx.y) * kRows - 1 + h_row;
    const std::int64_t h_z = static_cast<std::int64_t>(blockIdx.z) * planes - 1 + i;
    if (h_x + L.origin[0] >= L.pitch_y || h_y >= L.n[1] + L.halo[1] || h_z >= L.n[2] + L.halo[2]) return;
    S* const dst = halo + (i % kRing) * kHaloPlane<S> + h_tid;
    if constexpr (sizeof(S) == 8) cp_async8(dst, in + L.index(h_x, h_y, h_z));
    else cp_async4(dst, in + L.index(h_x, h_y, h_z));
  };
  const int box_z = static_cast<int>(first + L.origin[2]);
  const unsigned long long keep = kKeep ? tma::l2_policy_evict_last() : 0;
  const auto fetch = [&](std::int64_t i) {
    if constexpr (kTma) {
      if (tid == 0 && i < n_load) {
        S* const dst = ring + (i % kRing) * kRP;
        const int z = box_z + static_cast<int>(i);
        constexpr unsigned kBytes = static_cast<unsigned>((kInner ? kInnerPlane<S> : kP) * sizeof(S));
        if constexpr (kKeep) tma::load_box_3d(dst, map, box_x, box_y, z, kBytes, bars + i % kRing, keep);
        else tma::load_box_3d(dst, map, box_x, box_y, z, kBytes, bars + i % kRing);
      }
      if constexpr (kInner) {
        fetch_halo(i);
        __pipeline_commit();
      }
      return;
    }
    if (i < n_load && first + i < plane_limit) {
      const S* src = in_plane0 + i * L.pitch_z;
      S* dst = ring + (i % kRing) * kRP;
#pragma unroll
      for (int k = 0; k < kSlots; ++k)
        if (slot_on & (1u << k)) cp_async16_l2_128(dst + dst_off[k], src + src_off[k]);
    }
    __pipeline_commit();
  };
  S* const out_col = out + L.index(x, y0, 0); // the thread's first row in plane 0 (only used where it is inside)

  C pend[T][kRY], prev[T][kRY]; // per stage and row: Qm(q - 1) + Qs(q - 2), and Qs(q - 1), q the plane consumed
  C own[T > 1 ? T - 1 : 1][kRY]; // kOwn: per stage below the last, the values it stored in the thread's rows
#pragma unroll
  for (int t = 0; t < T; ++t)
#pragma unroll
    for (int j = 0; j < kRY; ++j) pend[t][j] = prev[t][j] = C(0);
#pragma unroll
  for (int t = 0; t < (T > 1 ? T - 1 : 1); ++t)
#pragma unroll
    for (int j = 0; j < kRY; ++j) own[t][j] = C(0);
  __syncthreads(); // the zeroed borders
  for (int i = 0; i < kRing - 1; ++i) fetch(i);
#pragma unroll 1
  for (std::int64_t i = 0; i < n_iter; ++i) {
    if constexpr (kTma) { // iterations past the last plane (T > 1) read a slot no stage result depends on
      if (i < n_load) tma::barrier_wait(bars + i % kRing, static_cast<unsigned>(i / kRing) & 1u);
      if constexpr (kInner) __pipeline_wait_prior(kRing - 2);
    }
    else __pipeline_wait_prior(kRing - 2);
    __syncthreads(); // plane i landed; last iteration's stage planes are visible; ring slot (i - 1) is free
    fetch(i + kRing - 1);
    const int par = static_cast<int>(i & 1);
#pragma unroll
    for (int tt = 0; tt < T; ++tt) {
      const int t = kOwn ? T - 1 - tt : tt;
      const bool from_own = kOwn && t >= 1;
      // src: the thread's column in the plane row above its first row.
      const S* src = (t == 0 ? ring + (i % kRing) * kRP : stage + ((t - 1) * 2 + (par ^ 1)) * kP) +
                     (t == 0 ? ty * kRY * WR + kAR : ty * kRY * W + kA) + tx;
      // The neighbours left and right of src's row r: src[r W - 1] and src[r W + 1], and in a kInner ring plane the
      // halo plane's values for the first and last threads along x.
      const S* const hrow = halo + (i % kRing) * kHaloPlane<S> + ty * kRY * 2;
      const int SW = t == 0 ? WR : W; // src's row stride
      const auto left = [&](int r) { return load_as<C>(kInner && tx == 0 ? hrow[2 * r] : src[r * SW - 1]); };
      const auto right = [&](int r) { return load_as<C>(kInner && tx == kTX - 1 ? hrow[2 * r + 1] : src[r * SW + 1]); };
      const std::int64_t z = first + i - 2 * t - 1; // the plane this stage completes
      const bool z_in = z >= 0 && z < L.n[2];
      const bool z_out = z >= z0 && z < z_end;
      S* out_row = out_col + z * L.pitch_z;
      C am = load_as<C>(src[0]), pm = left(0) + right(0);
      C a0 = from_own ? own[t - 1][0] : load_as<C>(src[SW]), p0 = left(1) + right(1);
#pragma unroll
      for (int j = 0; j < kRY; ++j) {
        const S* row = src + (j + 2) * SW;
        const C ap = from_own && j + 1 < kRY ? own[t - 1][j + 1] : load_as<C>(row[0]);
        const C pp = left(j + 2) + right(j + 2);
        const C n1 = p0 + (am + ap), n2 = pm + pp;
        const C qm = fma(c.c2, n2, fma(c.c1, n1, c.c0 * a0));
        const C qs = fma(c.c3, n2, fma(c.c2, n1, c.c1 * a0));
        C r = pend[t][j] + qs;
        pend[t][j] = prev[t][j] + qm;
        prev[t][j] = qs;
        if (t + 1 < T) {
          if (!kPeriodic && !(z_in && (in_rows & (1u << j)))) r = bval;
          stage[(t * 2 + par) * kP + (1 + ty * kRY + j) * W + kA + tx] = store_as<S>(r);
          if constexpr (kOwn) own[t][j] = load_as<C>(store_as<S>(r));
        } else if (z_out && (out_rows & (1u << j))) {
          if constexpr (kPeriodic) store_with_images(out, L, true, x, y0 + j, z, store_as<S>(r));
          else *out_row = store_as<S>(r);
        }
        out_row += L.pitch_y;
        am = a0, a0 = ap, pm = p0, p0 = pp;
      }
    }
  }
}

template <typename S, int T, bool kPeriodic, bool kTma, bool kKeep = false, bool kOwn = false, bool kInner = false>
void launch_kernel(const S* in, S* out, const PaddedLayout& L, compute_t<S> bval, const Weights<compute_t<S>>& c,
                   int planes, int sm_count, const CUtensorMap& map, cudaStream_t stream) {
  constexpr std::size_t smem = kInner ? shared_bytes_inner<S>() : shared_bytes<S, T>();
  constexpr int kTX = block_cols<S, kInner>();
  // Once per kernel: the shared-memory opt-in and the blocks per SM (both cost host time on every launch).
  static const int per_sm = [] {
    if (smem > 48 * 1024)
      SE_CUDA_CHECK(cudaFuncSetAttribute(tb_3d_sym_kernel<S, T, kPeriodic, kTma, kKeep, kOwn, kInner>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
    int n = 0;
    SE_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, tb_3d_sym_kernel<S, T, kPeriodic, kTma, kKeep, kOwn, kInner>,
                                                                kTX * (rows_per_block<S, T>() / kRY), smem));
    return std::max(1, n);
  }();
  constexpr int A = halo_x<S>(T), B = T - 1, kRows = rows_per_block<S, T>();
  const unsigned gx = grid_blocks(L.n[0], kTX - 2 * A), gy = grid_blocks(L.n[1], kRows - 2 * B);
  if (planes == 0)
    planes = tb::wave_planes(static_cast<int>(L.n[2]), static_cast<long long>(gx) * gy,
                             static_cast<long long>(per_sm) * sm_count, 2 * T, 32, 128);
  const dim3 grid(gx, gy, grid_blocks(L.n[2], planes));
  tb_3d_sym_kernel<S, T, kPeriodic, kTma, kKeep, kOwn, kInner><<<grid, dim3(kTX, kRows / kRY), smem, stream>>>(in, out, L, bval, c, planes, map);
  SE_CUDA_CHECK_LAUNCH("tb_3d_sym_kernel");
}

// Whether the T = 1 TMA kernel reads under the evict_last policy (kKeep): Dirichlet grids, where it was measured
// (FP64 and FP32, the header's figures); periodic grids were not timed with it and keep the plain loads.
template <bool kPeriodic> constexpr bool keep_reads_in_l2() { return !kPeriodic; }

// Whether the stages below the last keep the thread's own rows in registers (kOwn): FP32 at T >= 2. H200, box-3d27p
// 512^3, `suite --seconds 1`, alternated twice in one call (session 49): FP32 635.6 / 630.8 -> 660.1 / 658.2
// GStencil/s; FP64 359.2 / 359.0 -> 308.3 / 308.3 (its 8 (T - 1) more values in registers per thread cost the second
// block per SM's latency hiding: ncu counted 9% fewer shared wavefronts but the kernel took 26% longer), and 299.5 /
// 299.4 with the bound lifted to one block per SM. Not measured on an H100.
template <typename S, int T> constexpr bool own_rows_in_registers() { return T >= 2 && sizeof(S) == 4; }

// At T = 1 the TMA kernel where a tensor map of the padded input can be encoded (sm_90 and a driver that has
// the encoder), the cp.async kernel otherwise.
template <typename S, int T, bool kPeriodic>
void launch(const S* in, S* out, const PaddedLayout& L, compute_t<S> bval, const Weights<compute_t<S>>& c,
            int sm_count, cudaStream_t stream) {
  alignas(64) CUtensorMap map{};
  if constexpr (T == 1) {
    const std::uint64_t dims[3] = {static_cast<std::uint64_t>(L.pitch_y),
                                   static_cast<std::uint64_t>(L.pitch_z / L.pitch_y),
                                   static_cast<std::uint64_t>(L.total / L.pitch_z)};
    const std::uint64_t strides[2] = {static_cast<std::uint64_t>(L.pitch_y) * sizeof(S),
                                      static_cast<std::uint64_t>(L.pitch_z) * sizeof(S)};
    // FP64 and FP32: the interior box (kInner); FP16: the 68-column box.
    constexpr bool kInner = sizeof(S) >= 4;
    const std::uint32_t box[3] = {static_cast<std::uint32_t>(kInner ? block_cols<S, true>() : kW<S, T>),
                                  static_cast<std::uint32_t>(rows_per_block<S, T>() + 2), 1};
    if (encode_tensor_map(&map, in, sizeof(S), 3, dims, strides, box)) {
      static const int planes = planes_per_block<S, T, kInner>(device_is_h100());
      launch_kernel<S, T, kPeriodic, true, keep_reads_in_l2<kPeriodic>(), false, kInner>(in, out, L, bval, c, planes,
                                                                                          sm_count, map, stream);
      return;
    }
  }
  static const int planes = planes_per_block<S, T, false>(device_is_h100());
  launch_kernel<S, T, kPeriodic, false, false, own_rows_in_registers<S, T>()>(in, out, L, bval, c, planes, sm_count, map,
                                                                               stream);
}

} // namespace se::sym3d

namespace se {

template <typename S>
bool launch_tb_3d_sym(const TbLaunch& a, const S* in, S* out, const PaddedLayout& L,
                      const std::vector<double>& weights, cudaStream_t stream) {
  using C = compute_t<S>;
  double c[4] = {0, 0, 0, 0};
  if (a.radius != 1 || weights.size() != 27 || a.steps < 1 || a.steps > tb::kMaxSteps3DSym ||
      !tb::cube_symmetric_r1(weights.data(), c))
    return false;
  const sym3d::Weights<C> w{static_cast<C>(c[0]), static_cast<C>(c[1]), static_cast<C>(c[2]), static_cast<C>(c[3])};
  const C bval = static_cast<C>(a.boundary);
  const auto go = [&](auto steps) {
    constexpr int T = decltype(steps)::value;
    if (a.periodic) sym3d::launch<S, T, true>(in, out, L, bval, w, a.sm_count, stream);
    else sym3d::launch<S, T, false>(in, out, L, bval, w, a.sm_count, stream);
  };
  if (a.steps == 1) go(std::integral_constant<int, 1>());
  else if constexpr (std::is_same_v<S, __half>) return false; // FP16: single-step only (tb_3d_sym_fp16.cu)
  else if (a.steps == 2) go(std::integral_constant<int, 2>());
  else go(std::integral_constant<int, 3>());
  return true;
}

} // namespace se
