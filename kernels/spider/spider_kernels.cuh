// SPIDER's step kernel: a block stages its input tile (halo included, zeros past the padded grid) in shared memory
// as FP16, from x = bx0 - 8 (a 16-byte boundary): on sm_90 as one TMA box (2D) or one bulk copy (1D) per tile,
// double-buffered, elsewhere through registers; each warp keeps every A fragment of the plan (compressed 2:4 values
// and packed metadata, or the dense band) in registers for the whole run and computes two warp tiles at a time: per
// shift and K chunk one 32-bit shared load per B register (sparse radius 3 and 7: one 64- or 128-bit load for the
// shift's registers, core's lane order), at the lane's offset from core's input row map (the strided swap's row swap
// is only a different offset there: no instruction of its own), then mma.sp (spider) or mma (spider-dense).
#pragma once
#include <cuda_fp16.h>

#include <cstdint>
#include <stdexcept>
#include <utility>

#include "kernels/common/cuda_check.hpp"
#include "kernels/common/device_grid.hpp"
#include "kernels/common/mma_ptx.cuh"
#include "kernels/common/tensor_map.hpp"
#include "kernels/common/tma.cuh"
#include "kernels/spider/spider_launch.hpp"

namespace se::spider_gpu {

template <bool SPARSE, bool ACC16, int IDX, int AREGS> struct Mma;

template <int IDX> struct Mma<true, false, IDX, 2> {
  __device__ __forceinline__ static void run(float (&acc)[4], const std::uint32_t (&a)[2], const std::uint32_t (&b)[2],
                                             std::uint32_t meta) {
    ptx::mma_sp_m16n8k16_f16_f32_sel<IDX % 4>(acc, a, b, meta);
  }
};
template <int IDX> struct Mma<true, true, IDX, 2> {
  __device__ __forceinline__ static void run(std::uint32_t (&acc)[2], const std::uint32_t (&a)[2],
                                             const std::uint32_t (&b)[2], std::uint32_t meta) {
    ptx::mma_sp_m16n8k16_f16_f16_sel<IDX % 4>(acc, a, b, meta);
  }
};
template <int IDX> struct Mma<false, false, IDX, 4> {
  __device__ __forceinline__ static void run(float (&acc)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2],
                                             std::uint32_t) {
    ptx::mma_m16n8k16_f16_f32(acc, a, b);
  }
};
template <int IDX> struct Mma<false, true, IDX, 4> {
  __device__ __forceinline__ static void run(std::uint32_t (&acc)[2], const std::uint32_t (&a)[4],
                                             const std::uint32_t (&b)[2], std::uint32_t) {
    ptx::mma_m16n8k16_f16_f16(acc, a, b);
  }
};

template <bool ACC16> struct Acc;
template <> struct Acc<false> {
  float v[4];
  __device__ __forceinline__ void zero() { v[0] = v[1] = v[2] = v[3] = 0.f; }
  __device__ __forceinline__ __half at(int i) const { return __float2half_rn(v[i]); }
  // Elements 2h, 2h + 1 as one FP16 pair (the lower in the low half).
  __device__ __forceinline__ std::uint32_t pair(int h) const {
    const __half2 p = __floats2half2_rn(v[2 * h], v[2 * h + 1]);
    return *reinterpret_cast<const std::uint32_t*>(&p);
  }
  __device__ __forceinline__ auto& regs() { return v; }
};
template <> struct Acc<true> {
  std::uint32_t v[2];
  __device__ __forceinline__ void zero() { v[0] = v[1] = 0u; }
  __device__ __forceinline__ __half at(int i) const {
    const std::uint32_t w = v[i >> 1];
    return __ushort_as_half(static_cast<unsigned short>((i & 1) ? (w >> 16) : (w & 0xffffu)));
  }
  __device__ __forceinline__ std::uint32_t pair(int h) const { return v[h]; }
  __device__ __forceinline__ auto& regs() { return v; }
};

// One shift's B registers for one tile: VEC = 1, one 32-bit load per register; VEC = 2 or 4 (lane_order), the
// registers are adjacent words from the lane's first: one 64- or 128-bit load. off: the registers' byte offsets.
template <int VEC, int N>
__device__ __forceinline__ void load_b(const char* at, const int* off, std::uint32_t (&b)[N]) {
  static_assert(VEC == 1 || VEC == N, "a wide load fetches every register of the shift");
  if constexpr (VEC == 4) {
    const uint4 v = *reinterpret_cast<const uint4*>(at + off[0]);
    b[0] = v.x, b[1] = v.y, b[2] = v.z, b[3] = v.w;
  } else if constexpr (VEC == 2) {
    const uint2 v = *reinterpret_cast<const uint2*>(at + off[0]);
    b[0] = v.x, b[1] = v.y;
  } else {
#pragma unroll
    for (int i = 0; i < N; ++i) b[i] = *reinterpret_cast<const std::uint32_t*>(at + off[i]);
  }
}

// The shifts and chunks of one warp tile pair, unrolled at compile time (the selector is an immediate). row: the
// input row of shift 0. SPLIT (split_rows, one K chunk): shift S reads region S % 2 (region bytes on), row S / 2.
template <bool SPARSE, bool ACC16, int AREGS, int KC, int IDX, int END, bool SPLIT = false, int VEC = 1> struct Issue {
  __device__ __forceinline__ static void run(Acc<ACC16> (&acc)[2], const std::uint32_t (&a)[END][AREGS],
                                             const std::uint32_t* meta, const char* row, int row_bytes,
                                             const int (&off)[KC][2], int tile1_bytes, int region = 0) {
    static_assert(!SPLIT || KC == 1, "split rows take one K chunk per shift");
    static_assert(VEC == 1 || KC == 1, "wide B loads here take one K chunk per shift");
    constexpr int q = IDX % KC;
    const char* at = SPLIT ? row + (IDX & 1) * region + (IDX >> 1) * row_bytes : row;
    std::uint32_t b0[2], b1[2];
    load_b<VEC>(at, off[q], b0);
    load_b<VEC>(at + tile1_bytes, off[q], b1);
    const std::uint32_t m = SPARSE ? meta[IDX / 4] : 0u;
    Mma<SPARSE, ACC16, IDX, AREGS>::run(acc[0].regs(), a[IDX], b0, m);
    Mma<SPARSE, ACC16, IDX, AREGS>::run(acc[1].regs(), a[IDX], b1, m);
    Issue<SPARSE, ACC16, AREGS, KC, IDX + 1, END, SPLIT, VEC>::run(
        acc, a, meta, SPLIT || q != KC - 1 ? row : row + row_bytes, row_bytes, off, tile1_bytes, region);
  }
};
template <bool SPARSE, bool ACC16, int AREGS, int KC, int END, bool SPLIT, int VEC>
struct Issue<SPARSE, ACC16, AREGS, KC, END, END, SPLIT, VEC> {
  __device__ __forceinline__ static void run(Acc<ACC16> (&)[2], const std::uint32_t (&)[END][AREGS],
                                             const std::uint32_t*, const char*, int, const int (&)[KC][2], int,
                                             int = 0) {}
};

// The B registers of one shift with two K chunks (chunk 0's then chunk 1's) for both tiles of a pair, from the
// window's first row `at` (the second tile tile1_bytes to the right).
template <int VEC>
__device__ __forceinline__ void load_b_k32(const char* at, const int (&off)[2][2], int tile1_bytes,
                                           std::uint32_t (&b0)[4], std::uint32_t (&b1)[4]) {
  load_b<VEC>(at, &off[0][0], b0);
  load_b<VEC>(at + tile1_bytes, &off[0][0], b1);
}

// Sparse with two K chunks per shift (radius 4..7: a band row is wider than 16): both chunks of shift S as one
// mma.sp.m16n8k32, half the MMA instructions of the two m16n8k16 the plan counts. Chunk 0's A and B registers
// then chunk 1's; core's metadata of MMAs 2S and 2S + 1 (selectors 2S % 4 and 2S % 4 + 1 of register S / 2) is
// the k32 metadata of selector S % 2 as it stands (kernels/common/mma_ptx.cuh).
template <bool ACC16, int VEC, int S, int NS> struct IssueK32 {
  // row: the warp tile's first input row.
  __device__ __forceinline__ static void run(Acc<ACC16> (&acc)[2], const std::uint32_t (&a)[2 * NS][2],
                                             const std::uint32_t* meta, const char* row, int row_bytes,
                                             const int (&off)[2][2], int tile1_bytes) {
    std::uint32_t b0[4], b1[4];
    load_b_k32<VEC>(row, off, tile1_bytes, b0, b1);
    const std::uint32_t a4[4] = {a[2 * S][0], a[2 * S][1], a[2 * S + 1][0], a[2 * S + 1][1]};
    const std::uint32_t m = meta[S / 2];
    if constexpr (ACC16) {
      ptx::mma_sp_m16n8k32_f16_f16_sel<S % 2>(acc[0].regs(), a4, b0, m);
      ptx::mma_sp_m16n8k32_f16_f16_sel<S % 2>(acc[1].regs(), a4, b1, m);
    } else {
      ptx::mma_sp_m16n8k32_f16_f32_sel<S % 2>(acc[0].regs(), a4, b0, m);
      ptx::mma_sp_m16n8k32_f16_f32_sel<S % 2>(acc[1].regs(), a4, b1, m);
    }
    IssueK32<ACC16, VEC, S + 1, NS>::run(acc, a, meta, row + row_bytes, row_bytes, off, tile1_bytes);
  }
};
template <bool ACC16, int VEC, int NS> struct IssueK32<ACC16, VEC, NS, NS> {
  __device__ __forceinline__ static void run(Acc<ACC16> (&)[2], const std::uint32_t (&)[2 * NS][2],
                                             const std::uint32_t*, const char*, int, const int (&)[2][2], int) {}
};

// One shift S of one x tile with both K chunks of the shift (radius 4..7): sparse as one mma.sp.m16n8k32 (above),
// dense as the two m16n8k16 of chunks 0 and 1. b holds chunk 0's registers then chunk 1's.
template <bool SPARSE, bool ACC16, int S, int AREGS>
__device__ __forceinline__ void shift_mma(Acc<ACC16>& acc, const std::uint32_t (&a0)[AREGS],
                                          const std::uint32_t (&a1)[AREGS], const std::uint32_t* meta,
                                          const std::uint32_t (&b)[4]) {
  if constexpr (SPARSE) {
    const std::uint32_t a4[4] = {a0[0], a0[1], a1[0], a1[1]};
    if constexpr (ACC16) ptx::mma_sp_m16n8k32_f16_f16_sel<S % 2>(acc.regs(), a4, b, meta[S / 2]);
    else ptx::mma_sp_m16n8k32_f16_f32_sel<S % 2>(acc.regs(), a4, b, meta[S / 2]);
  } else {
    const std::uint32_t b0[2] = {b[0], b[1]}, b1[2] = {b[2], b[3]};
    Mma<false, ACC16, 2 * S, AREGS>::run(acc.regs(), a0, b0, 0u);
    Mma<false, ACC16, 2 * S + 1, AREGS>::run(acc.regs(), a1, b1, 0u);
  }
}

// Radius 4..7 in 2D (two K chunks per shift, one kernel row per 16-row A): a warp computes a strip of T row tiles of
// X x tiles (strip_tiles, strip_x_tiles, strip_interleaved). The B registers of one 8-row input window serve every
// row tile whose shifts reach it. Stacked (IL false): row tile t holds rows 8t .. 8t + 7 and takes window W (input
// rows W .. W + 7 from `row`) at shift S = W - 8t, NS + 8 (T - 1) windows for the T NS shifts of each x tile.
// Interleaved (IL): row tile i holds rows i + T n and takes window W (input rows W + T g: region W % T, row W / T
// of it, `region` bytes per class) at shift S = W - i, NS + T - 1 windows: at radius 7 and T = 8, 22 windows of B
// for 120 shifts, the same MMAs.
template <bool SPARSE, bool ACC16, int AREGS, int NS, int T, int X, bool IL, int W, int VEC = 1> struct IssueStrip {
  static constexpr int NW = IL ? NS + T - 1 : NS + 8 * (T - 1);
  // row: window 0's first input row, at the strip's first x.
  __device__ __forceinline__ static void run(Acc<ACC16> (&acc)[T][X], const std::uint32_t (&a)[2 * NS][AREGS],
                                             const std::uint32_t* meta, const char* row, int row_bytes, int region,
                                             const int (&off)[2][2], int tile1_bytes) {
    if constexpr (W < NW) {
      const char* at = IL ? row + (W % T) * region + (W / T) * row_bytes : row + W * row_bytes;
      std::uint32_t b[X][4];
      if constexpr (X == 2) load_b_k32<VEC>(at, off, tile1_bytes, b[0], b[1]);
      else load_b<VEC>(at, &off[0][0], b[0]);
      tiles(acc, a, meta, b, std::make_integer_sequence<int, T>{});
      IssueStrip<SPARSE, ACC16, AREGS, NS, T, X, IL, W + 1, VEC>::run(acc, a, meta, row, row_bytes, region, off,
                                                                      tile1_bytes);
    }
  }
  template <int... t>
  __device__ __forceinline__ static void tiles(Acc<ACC16> (&acc)[T][X], const std::uint32_t (&a)[2 * NS][AREGS],
                                               const std::uint32_t* meta, const std::uint32_t (&b)[X][4],
                                               std::integer_sequence<int, t...>) {
    (tile<IL ? W - t : W - 8 * t>(acc[t], a, meta, b), ...);
  }
  template <int S>
  __device__ __forceinline__ static void tile(Acc<ACC16> (&acc)[X], const std::uint32_t (&a)[2 * NS][AREGS],
                                              const std::uint32_t* meta, const std::uint32_t (&b)[X][4]) {
    if constexpr (S >= 0 && S < NS) {
#pragma unroll
      for (int u = 0; u < X; ++u) shift_mma<SPARSE, ACC16, S, AREGS>(acc[u], a[2 * S], a[2 * S + 1], meta, b[u]);
    }
  }
};

// The block's input tile in registers: every load of a tile issued before any is waited for (and, where the
// registers allow, the next tile's loads in flight while the warps compute on this one). The loads are 16-byte
// chunks of 8 halves starting 8 columns left of the block (x = bx0 - 8 + 8k: 16-byte aligned, since the padded
// layout starts the interior on a 128-byte boundary and block_x is a multiple of 8), spread over all threads
// (chunk c = thread + 256 j: row c / K, chunk c % K). Shared half i holds x = bx0 - 8 + i (kTileOrigin), as the B
// offsets expect, so chunk k is words 4k .. 4k + 3 of its row. Halves outside [-R, n + R) and rows outside
// [-R, ny + R) are zero, as the band's zero coefficients expect.
template <int R, int DIMS> struct TileLoader {
  static constexpr Geometry G = geometry(DIMS, R);
  // Chunks per row: enough for the halves the B loads read (sw_min, from x = bx0 - kTileOrigin, a 16-byte
  // boundary: chunk k is words 4k .. 4k + 3 of its row); a wider row stride is padding.
  static constexpr int K = (G.sw_min + 7) / 8;
  static constexpr int TOTAL = G.sh * K;
  static constexpr int CPT = (TOTAL + kWarps * 32 - 1) / (kWarps * 32);
  uint4 v[CPT];

  __device__ __forceinline__ void load(const KernelArgs& p, std::int64_t bx0, std::int64_t by0) {
    const PaddedLayout& L = p.layout;
    // 32-bit offsets from the block's first chunk (x = bx0 - 8, y = by0 - R); the bounds relative to it.
    const __half* base = p.in + L.index(bx0 - kTileOrigin, DIMS == 1 ? 0 : by0 - R, 0);
    const int pitch = static_cast<int>(L.pitch_y);
    const int x_lo = static_cast<int>(-R - (bx0 - kTileOrigin)), x_hi = static_cast<int>(L.n[0] + R - (bx0 - kTileOrigin));
    const int y_hi = DIMS == 1 ? 1 : static_cast<int>(L.n[1] + R - (by0 - R)); // rows >= 0 are >= -R
#pragma unroll
    for (int j = 0; j < CPT; ++j) {
      const int c = static_cast<int>(threadIdx.x) + kWarps * 32 * j;
      v[j] = make_uint4(0u, 0u, 0u, 0u);
      if (c >= TOTAL) continue;
      const int row = c / K, k = c - row * K;
      if (DIMS == 2 && row >= y_hi) continue;
      const int x0 = 8 * k; // relative to bx0 - 8
      const __half* src = base + (row * pitch + x0);
      if (x0 + 8 > x_lo && x0 < x_hi) {
        v[j] = __ldg(reinterpret_cast<const uint4*>(src));
        if (x0 < x_lo || x0 + 8 > x_hi) { // an edge chunk: zero the halves outside [-R, n + R)
          std::uint32_t w[4] = {v[j].x, v[j].y, v[j].z, v[j].w};
#pragma unroll
          for (int h = 0; h < 8; ++h)
            if (x0 + h < x_lo || x0 + h >= x_hi) w[h >> 1] &= (h & 1) ? 0x0000ffffu : 0xffff0000u;
          v[j] = make_uint4(w[0], w[1], w[2], w[3]);
        }
      }
    }
  }

  __device__ __forceinline__ void store(const KernelArgs& p, std::uint32_t* smem) const {
    const int wpr = p.sw / 2;
#pragma unroll
    for (int j = 0; j < CPT; ++j) {
      const int c = static_cast<int>(threadIdx.x) + kWarps * 32 * j;
      if (c >= TOTAL) continue;
      const int row = c / K, k = c - row * K;
      const std::uint32_t w[4] = {v[j].x, v[j].y, v[j].z, v[j].w};
      std::uint32_t* dst = smem + row * wpr + 4 * k;
      const int wlim = wpr - 4 * k;
#pragma unroll
      for (int q = 0; q < 4; ++q)
        if (q < wlim) dst[q] = w[q];
    }
  }
};

// A warp's pair of output tiles through its scratch and out as the widest vector the pair's alignment allows: the
// pair starts at a multiple of 2 tile_x halves from the 128-byte aligned x = 0.
// Where a fragment's eight M rows are eight adjacent output columns (rpp a multiple of 8: radius 1, 3 and 7), each
// 8x8 quarter of the accumulators is one transposed stmatrix (sm_90): accumulator column n, the output row or
// column group, becomes a 16-byte scratch row. In 2D the scratch then holds output row y at row (y % py) 8 + y / py,
// so that a matrix's eight rows are consecutive, with a row stride of an odd number of 16-byte units: conflict-free.
// Elsewhere one element at a time, in output order.
template <int R, int DIMS> struct StagedStore {
  static constexpr Geometry G = geometry(DIMS, R);
  static constexpr int PW = 2 * G.tile_x;         // halves of a pair's output row
  static constexpr bool STM = G.rpp % 8 == 0;      // quarters as stmatrix (the layout is the same without it)
  static constexpr int SPW = DIMS == 2 && STM && (PW / 8) % 2 == 0 ? PW + 8 : PW; // halves per scratch row
  static constexpr int ROW_BYTES = 2 * PW;
  static constexpr int C = (ROW_BYTES % 16 == 0) ? 16 : (ROW_BYTES % 8 == 0) ? 8 : 4; // bytes per vector
  static constexpr int CR = ROW_BYTES / C;         // vectors per row
  static_assert(G.tile_y * SPW * 2 <= kScratchBytes, "a warp's scratch holds its pair of tiles");
  static_assert(!STM || SPW % 8 == 0, "stmatrix rows are 16-byte aligned");

  // The scratch half of output row y - y0, column x - x0 (1D: one row).
  __device__ __forceinline__ static int index(int row, int col) {
    if constexpr (DIMS == 2 && STM) return ((row % G.py) * 8 + row / G.py) * SPW + col;
    else return row * SPW + col;
  }
  // Output (row, column) of accumulator element (m, n) of tile u.
  __device__ __forceinline__ static bool place(int u, int m, int n, int& row, int& col) {
    if constexpr (DIMS == 1) {
      col = u * G.tile_x + n * G.rpp + m;
      row = 0;
      return m < G.rpp;
    } else {
      const int part = m / G.rpp, within = m - part * G.rpp;
      col = u * G.tile_x + within;
      row = G.py * n + part;
      return part < G.py;
    }
  }

  // The pair's outputs into the scratch.
  template <bool ACC16>
  __device__ __forceinline__ static void stage(const Acc<ACC16> (&acc)[2], __half* scratch, int lane) {
    __syncwarp(); // the previous pair's vectors are read
#if SE_STMATRIX
    if constexpr (STM) {
      // Matrix j = (tile u, M half h); lane 8j + c addresses its memory row c (accumulator column n = c).
      constexpr bool BOTH = 16 <= G.rpp * G.py; // M rows 8..15 are outputs (not 1D at rpp = 8)
      const int j = lane >> 3, c = lane & 7;
      const int u = BOTH ? j >> 1 : j & 1, h = BOTH ? j & 1 : 0;
      int row, col;
      place(u, 8 * h, c, row, col);
      __half* at = scratch + index(row, col);
      if constexpr (BOTH) {
        const std::uint32_t r[4] = {acc[0].pair(0), acc[0].pair(1), acc[1].pair(0), acc[1].pair(1)};
        ptx::stmatrix_x4_trans(at, r);
      } else {
        const std::uint32_t r[2] = {acc[0].pair(0), acc[1].pair(0)};
        ptx::stmatrix_x2_trans(at, r);
      }
      __syncwarp();
      return;
    }
#endif
    const int g = lane >> 2, t = lane & 3;
#pragma unroll
    for (int u = 0; u < 2; ++u)
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        int row, col;
        if (place(u, g + 8 * (i >> 1), 2 * t + (i & 1), row, col)) scratch[index(row, col)] = acc[u].at(i);
      }
    __syncwarp();
  }
  // The scratch out to the grid as aligned vectors (every output of the pair interior).
  __device__ __forceinline__ static void vectors(const __half* scratch, __half* out, std::int64_t pitch, int lane) {
    char* o = reinterpret_cast<char*>(out);
#pragma unroll
    for (int c = lane; c < G.tile_y * CR; c += 32) {
      const int row = c / CR, v = c - row * CR;
      const char* from = reinterpret_cast<const char*>(scratch + index(row, 0)) + v * C;
      char* to = o + 2 * (row * pitch) + v * C;
      if constexpr (C == 16) *reinterpret_cast<uint4*>(to) = *reinterpret_cast<const uint4*>(from);
      else if constexpr (C == 8) *reinterpret_cast<uint2*>(to) = *reinterpret_cast<const uint2*>(from);
      else *reinterpret_cast<std::uint32_t*>(to) = *reinterpret_cast<const std::uint32_t*>(from);
    }
  }
};

// One output element at (x, y) inside the grid. Periodic grids also get the element's images in the halo
// (x + kx nx, y + ky ny within [-R, n + R)); the stepper's grids are at least 2R + 1 wide, so kx and ky lie in -1..1
// (the generic store_with_images divides in 64 bits, whose registers would spill this kernel).
template <int R, int DIMS>
__device__ __forceinline__ void store_element(const KernelArgs& p, std::int64_t x, std::int64_t y, __half v) {
  const PaddedLayout& L = p.layout;
  const std::int64_t nx = L.n[0], ny = DIMS == 1 ? 1 : L.n[1];
  __half* at = p.out + L.index(x, y, 0);
  *at = v;
  if (!p.periodic) return;
  const int kx_lo = x - nx >= -R ? -1 : 0, kx_hi = x + nx < nx + R ? 1 : 0; // x' = x + kx nx in [-R, nx + R)
  const int ky_lo = DIMS == 1 ? 0 : (y - ny >= -R ? -1 : 0), ky_hi = DIMS == 1 ? 0 : (y + ny < ny + R ? 1 : 0);
#pragma unroll 1
  for (int ky = ky_lo; ky <= ky_hi; ++ky)
#pragma unroll 1
    for (int kx = kx_lo; kx <= kx_hi; ++kx)
      if (kx | ky) at[(ky * ny) * L.pitch_y + kx * nx] = v;
}

// A pair at the grid's edge: one element at a time from the scratch.
template <int R, int DIMS>
__device__ __forceinline__ void store_pair_elements(const KernelArgs& p, const __half* scratch, std::int64_t x0,
                                                    std::int64_t y0, int count, int row_halves, int lane) {
  const std::int64_t nx = p.layout.n[0], ny = DIMS == 1 ? 1 : p.layout.n[1];
#pragma unroll 1
  for (int e = lane; e < count; e += 32) {
    const int row = e / row_halves, col = e - row * row_halves;
    const std::int64_t x = x0 + col, y = y0 + row;
    if (x >= nx || y >= ny) continue;
    store_element<R, DIMS>(p, x, y, scratch[StagedStore<R, DIMS>::index(row, col)]);
  }
}

// The block-wide output tile (block_store): even rows then odd rows, rows of block_store_stride halves.
// Interleaved strips (IL, T row tiles): row y at ((y % T) (block_y / T) + y / T) SST, so that the eight rows of a
// row tile's quarter (rows i + T c) are consecutive rows of the tile.
template <int R, bool IL = false> struct BlockStore {
  static constexpr Geometry G = geometry(2, R);
  static constexpr int SST = block_store_stride(2, R), REGION = block_store_region(2, R);
  static constexpr int VPR = G.block_x / 8; // 16-byte vectors per row
  static constexpr bool SPLIT = split_rows(2, R);
  static constexpr int T = kInterleavedTiles;
  static_assert(SPLIT != IL, "block tiles of split rows or of interleaved strips");
  __device__ __forceinline__ static int index(int row, int col) {
    if constexpr (SPLIT) return (row & 1) * REGION + (row >> 1) * SST + col;
    else return ((row % T) * (G.block_y / T) + row / T) * SST + col;
  }

  // A warp's pair of tiles at (x_local, y_local) of the block (y_local even): one transposed stmatrix.
  template <bool ACC16>
  __device__ __forceinline__ static void stage(const Acc<ACC16> (&acc)[2], __half* tile, int x_local, int y_local,
                                               int lane) {
    const int j = lane >> 3, c = lane & 7, u = j >> 1, h = j & 1;
    int row, col;
    StagedStore<R, 2>::place(u, 8 * h, c, row, col);
    const std::uint32_t r[4] = {acc[0].pair(0), acc[0].pair(1), acc[1].pair(0), acc[1].pair(1)};
    ptx::stmatrix_x4_trans(tile + index(y_local + row, x_local + col), r);
  }
  // An interleaved strip (its first row is the block's) at x_local into the tile: row tile i's accumulator column n
  // is output row i + T n. Where a fragment's M rows are 16 output columns (radius 7) each pair of row tiles is one
  // transposed stmatrix, matrix j = (row tile i + j / 2, M half j % 2), memory row c = column n = c; elsewhere
  // (radius 4..6: rpp output columns of 16) one element at a time.
  template <bool ACC16>
  __device__ __forceinline__ static void stage_strip(const Acc<ACC16> (&acc)[T][1], __half* tile, int x_local,
                                                     int lane) {
    static_assert(IL && G.py == 1 && T * 8 == G.block_y, "fragment columns are output rows");
#if SE_STMATRIX
    if constexpr (G.rpp == 16) {
      const int j = lane >> 3, c = lane & 7;
#pragma unroll
      for (int i = 0; i < T; i += 2) {
        const std::uint32_t r[4] = {acc[i][0].pair(0), acc[i][0].pair(1), acc[i + 1][0].pair(0), acc[i + 1][0].pair(1)};
        ptx::stmatrix_x4_trans(tile + index(i + (j >> 1) + T * c, x_local + 8 * (j & 1)), r);
      }
      return;
    }
#endif
    const int g = lane >> 2, t = lane & 3;
#pragma unroll
    for (int i = 0; i < T; ++i)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int m = g + 8 * (e >> 1), n = 2 * t + (e & 1); // accumulator element e: (m, n)
        if (m < G.rpp) tile[index(i + T * n, x_local + m)] = acc[i][0].at(e);
      }
  }
  // The block's tile out to the grid (after a barrier): whole vectors inside (and, if periodic, clear of the
  // images), elements at the edges.
  __device__ __forceinline__ static void write(const KernelArgs& p, const __half* tile, std::int64_t bx0,
                                               std::int64_t by0) {
    const PaddedLayout& L = p.layout;
    const std::int64_t nx = L.n[0], ny = L.n[1];
#pragma unroll 2
    for (int v = static_cast<int>(threadIdx.x); v < G.block_y * VPR; v += kWarps * 32) {
      const int row = v / VPR, ch = v - row * VPR;
      const std::int64_t x = bx0 + 8 * ch, y = by0 + row;
      if (x >= nx || y >= ny) continue;
      const __half* src = tile + index(row, 8 * ch);
      bool whole = x + 8 <= nx;
      if (p.periodic) whole = whole && x >= R && x + 8 <= nx - R && y >= R && y < ny - R;
      if (whole) {
        *reinterpret_cast<uint4*>(p.out + L.index(x, y, 0)) = *reinterpret_cast<const uint4*>(src);
      } else {
#pragma unroll 1
        for (int e = 0; e < 8 && x + e < nx; ++e) store_element<R, 2>(p, x + e, y, src[e]);
      }
    }
  }
};

// Blocks per SM the registers are capped for: the A fragments a lane holds decide (small radii keep few). Four blocks
// (64 registers) only for sparse radius 1 in 2D: it fits them without spilling (+4-6% on heat-2d and box-2d9p,
// H100); dense radius 1 and sparse radius 2 and 3 spill at 64, and the 1D kernels' code changed under that cap
// (1d15p measured 3-4% slower in the one suite that ran it), so they keep 3. Sparse radius 4..7 in 2D take 2 (128
// registers, no spill, with strips of four): their 8 warps per SM left every warp's chain of shared loads and MMAs
// exposed (ncu at radius 7, one block: issue active 27%, stalls mostly short scoreboard and fixed-latency waits).
constexpr int min_blocks(int dims, int r, bool sparse) {
  const int a_regs = geometry(dims, r).nmma * (sparse ? 2 : 4);
  if (dims == 2 && a_regs <= 8) return 4;
  if (dims == 2 && sparse && a_regs <= 64) return 2; // sparse radius 4..7: 2 blocks (128 registers, no spill)
  return a_regs <= 16 ? 3 : a_regs <= 32 ? 2 : 1;
}

// The TMA tiles' tensor maps, one per row class (row_classes; map 0 alone where the tile has one), a kernel parameter.
struct TileMaps {
  CUtensorMap m[kMaxRowClasses];
};

// TMA (sm_90, the tensor map encoded): each block tile arrives as one TMA box of sw x sh halves (the
// padded input's map starts at x = -8, y = -R and ends at x = nx + R, y = ny + R; the box starting at x = bx0 - 8
// places x = bx0 - 8 + i at shared half i, where the tables' B offsets look for it (kTileOrigin), and what lies
// outside arrives as 0), in two buffers: thread 0 issues the next tile's box as soon as every warp is done with the
// buffer it lands in, so a tile's load overlaps the previous tile's MMAs with no registers held for it. Otherwise
// TileLoader.
template <int R, int DIMS, bool SPARSE, bool ACC16, bool TMA>
__global__ void __launch_bounds__(kWarps * 32, min_blocks(DIMS, R, SPARSE))
    spider_step(KernelArgs p, const __grid_constant__ TileMaps maps) {
#if !SE_TMA
  if constexpr (TMA) return; // the host launches the TMA kernels on sm_90 only
#endif
  constexpr Geometry G = geometry(DIMS, R);
  constexpr int NM = G.nmma, KC = G.kc;
  constexpr int AREGS = SPARSE ? 2 : 4;
  constexpr int NMETA = SPARSE ? (NM + 3) / 4 : 1;
  extern __shared__ __align__(128) std::uint32_t smem_words[];
  __shared__ unsigned long long loaded[TMA ? kTmaBuffers : 1]; // TMA: one mbarrier per tile buffer
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;

  std::uint32_t a[NM][AREGS];
#pragma unroll
  for (int i = 0; i < NM; ++i)
#pragma unroll
    for (int j = 0; j < AREGS; ++j) a[i][j] = p.a[(i * AREGS + j) * 32 + lane];
  std::uint32_t meta[NMETA];
#pragma unroll
  for (int i = 0; i < NMETA; ++i) meta[i] = SPARSE ? p.meta[i * 32 + lane] : 0u;
  int off[KC][2]; // bytes
#pragma unroll
  for (int q = 0; q < KC; ++q)
#pragma unroll
    for (int h = 0; h < 2; ++h) off[q][h] = 2 * p.boff[(q * 2 + h) * 32 + lane];

  const PaddedLayout& L = p.layout;
  const std::int64_t nx = L.n[0], ny = DIMS == 1 ? 1 : L.n[1];
  const std::int64_t tiles = p.tiles_x * p.tiles_y;
  // TMA: the two tile buffers from the first 128-byte boundary of the dynamic shared memory (a box's destination
  // must be 128-byte aligned; the host adds the 128 bytes this may skip).
  char* const tiles_at = reinterpret_cast<char*>(smem_words) +
                         (TMA ? (128 - (shared_address(smem_words) & 127u)) & 127u : 0u);
  const char* sbytes = tiles_at;
  const int row_bytes = 2 * p.sw;
  constexpr bool SPLIT = TMA && split_rows(DIMS, R); // even rows, then odd rows (maps 0 and 1)
  constexpr int CLASSES = TMA ? row_classes(DIMS, R, TMA) : 1; // box row y in region y % CLASSES
  const int tile_stride = tma_tile_stride(p.sw, p.sh, CLASSES); // TMA: bytes from one tile buffer to the next
  const int region = tma_region_bytes(p.sw, (p.sh + CLASSES - 1) / CLASSES); // from one row class to the next
  char* const scratch_at = tiles_at + (TMA ? kTmaBuffers * tile_stride : tile_bytes_aligned(p.sw, p.sh));
  __half* scratch = reinterpret_cast<__half*>(scratch_at) + warp * (kScratchBytes / 2);
  constexpr bool BSTORE = TMA && block_store(DIMS, R); // the block's output tile after the scratch
  __half* const out_tile = reinterpret_cast<__half*>(scratch_at + kWarps * kScratchBytes);

  constexpr int STRIP = strip_tiles(DIMS, R, SPARSE, TMA), SX = strip_x_tiles(DIMS, R, TMA);
  constexpr bool IL = strip_interleaved(DIMS, R, TMA);
  constexpr int VEC = b_load_words(DIMS, R, SPARSE);
  static_assert(STRIP == 0 || (G.shift0 == -R && G.warp_tiles == 64 && G.wtx == 8 && STRIP <= 8 &&
                               (STRIP & (STRIP - 1)) == 0),
                "strips tile the block (8 x 8 warp tiles)");
  static_assert(!IL || (SX == 1 && BSTORE && CLASSES == STRIP && 8 * STRIP == G.block_y),
                "an interleaved strip is a whole column of the block, its outputs through the block tile");
  // Prefetch the next tile during this one's MMAs where the A fragments leave the registers for it.
  constexpr bool PREFETCH = NM * AREGS <= 80;
  TileLoader<R, DIMS> loader;
  const auto corner = [&](std::int64_t tile, std::int64_t& bx0, std::int64_t& by0) {
    bx0 = (tile % p.tiles_x) * G.block_x;
    by0 = (tile / p.tiles_x) * G.block_y;
  };
  // TMA: thread 0 loads the tile at `t` into buffer `buf`, completing on its mbarrier. The box starts at x = bx0 - 8,
  // which is map coordinate bx0 (the map starts at x = -8): a 16-byte aligned start.
  // 1D: one bulk copy of the row from x = bx0 - 8, cut at the padded row's end (the columns past n + R there are 0,
  // spider_stepper.cu); both buffers start zeroed, so what a cut copy leaves is finite.
  const int tiles_x32 = static_cast<int>(p.tiles_x);
  const auto load_box = [&](int t, int buf) {
    if constexpr (DIMS == 1) {
      const std::int64_t x0 = static_cast<std::int64_t>(t) * G.block_x - kTileOrigin;
      const std::int64_t room = p.layout.pitch_y - p.layout.origin[0] - x0; // halves to the padded row's end
      const unsigned bytes = static_cast<unsigned>(2 * (room < p.sw ? room : p.sw));
      tma::load_bulk(tiles_at + buf * tile_stride, p.in + p.layout.index(x0, 0, 0), bytes, &loaded[buf]);
    } else {
      const int ty = t / tiles_x32, x = (t - ty * tiles_x32) * G.block_x;
      char* const dst = tiles_at + buf * tile_stride;
      // Row classes: box row CLASSES i + j (padded row by0 - R + CLASSES i + j) is map j's row by0 / CLASSES + i.
      if constexpr (CLASSES > 1) {
        tma::expect_bytes(&loaded[buf], static_cast<unsigned>(2 * p.sw * p.sh));
#pragma unroll
        for (int j = 0; j < CLASSES; ++j)
          tma::copy_box_2d(dst + j * region, maps.m[j], x, ty * (G.block_y / CLASSES), &loaded[buf]);
      } else {
        tma::load_box_2d(dst, maps.m[0], x, ty * G.block_y, static_cast<unsigned>(2 * p.sw * p.sh), &loaded[buf]);
      }
    }
  };
  constexpr int nbuf = TMA ? kTmaBuffers : 1;
  if constexpr (TMA) {
    if constexpr (DIMS == 1) {
      for (int i = static_cast<int>(threadIdx.x); i < nbuf * tile_stride / 16; i += kWarps * 32)
        reinterpret_cast<uint4*>(tiles_at)[i] = make_uint4(0u, 0u, 0u, 0u);
      tma::fence_shared_to_async(); // the zeros before the copies that land on them
      __syncthreads();
    }
    if (threadIdx.x == 0) {
      for (int b = 0; b < nbuf; ++b) tma::barrier_init(&loaded[b], 1);
      // The ring's first nbuf - 1 tiles (the block's tiles are blockIdx.x + k gridDim.x).
      for (int b = 0; b + 1 < nbuf; ++b) {
        const std::int64_t t = blockIdx.x + static_cast<std::int64_t>(b) * gridDim.x;
        if (t < tiles) load_box(static_cast<int>(t), b);
      }
    }
    __syncthreads(); // the mbarriers' initialisation
  } else if (blockIdx.x < tiles) {
    std::int64_t bx0, by0;
    corner(blockIdx.x, bx0, by0);
    loader.load(p, bx0, by0);
  }
  int k = 0, buf = 0; // this block's tiles so far; the buffer tile k is in (k mod nbuf)
  for (std::int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x, ++k) {
    std::int64_t bx0, by0;
    corner(tile, bx0, by0);
    const std::int64_t next = tile + gridDim.x;
    if constexpr (TMA) {
      // Every warp is done with tile k - 1, whose buffer takes tile k + nbuf - 1.
      if (k > 0) __syncthreads();
      const std::int64_t ahead = tile + static_cast<std::int64_t>(nbuf - 1) * gridDim.x;
      if (threadIdx.x == 0 && ahead < tiles) load_box(static_cast<int>(ahead), buf == 0 ? nbuf - 1 : buf - 1);
      tma::barrier_wait(&loaded[buf], static_cast<unsigned>((k / nbuf) & 1));
      sbytes = tiles_at + buf * tile_stride;
      buf = buf + 1 == nbuf ? 0 : buf + 1;
    } else {
      __syncthreads(); // the previous tile's reads are done
      loader.store(p, smem_words);
      __syncthreads();
      if (PREFETCH && next < tiles) {
        std::int64_t nx0, ny0;
        corner(next, nx0, ny0);
        loader.load(p, nx0, ny0);
      }
    }

    // A pair of x-adjacent warp tiles' outputs, x0 .. x0 + 2 tile_x - 1, y0 .. y0 + tile_y - 1. Where all of them
    // are interior (and, if periodic, none has an image), they go through the warp's scratch and leave as whole
    // aligned vectors; elsewhere (the grid's edges) one element at a time, images included.
    const auto store_pair = [&](const Acc<ACC16> (&acc)[2], int x_local, int y_local) {
      const std::int64_t x0 = bx0 + x_local, y0 = DIMS == 1 ? 0 : by0 + y_local;
      const std::int64_t x1 = x0 + 2 * G.tile_x, y1 = y0 + G.tile_y; // exclusive
      bool whole = x1 <= nx && (DIMS == 1 || y1 <= ny);
      if (p.periodic) whole = whole && x0 >= R && x1 <= nx - R && (DIMS == 1 || (y0 >= R && y1 <= ny - R));
      StagedStore<R, DIMS>::stage(acc, scratch, lane);
      if (whole) {
        StagedStore<R, DIMS>::vectors(scratch, p.out + L.index(x0, y0, 0), L.pitch_y, lane);
      } else {
        store_pair_elements<R, DIMS>(p, scratch, x0, y0, G.tile_y * 2 * G.tile_x, 2 * G.tile_x, lane);
      }
    };

    if constexpr (STRIP > 0) {
      // Strips of STRIP row tiles by SX x tiles: 8 / SX across the block tile's 8 x tiles, 8 / STRIP down (IL: one).
      constexpr int ACROSS = 8 / SX;
      for (int sidx = warp; sidx < ACROSS * (8 / STRIP); sidx += kWarps) {
        const int x_local = (sidx % ACROSS) * SX * G.tile_x, y_local = (sidx / ACROSS) * STRIP * G.tile_y;
        Acc<ACC16> acc[STRIP][SX];
#pragma unroll
        for (int t = 0; t < STRIP; ++t)
#pragma unroll
          for (int u = 0; u < SX; ++u) acc[t][u].zero();
        const char* row = sbytes + 2 * ((IL ? 0 : y_local) * p.sw + x_local);
        IssueStrip<SPARSE, ACC16, AREGS, G.nshift, STRIP, SX, IL, 0, VEC>::run(acc, a, meta, row, row_bytes, region,
                                                                               off, 2 * G.tile_x);
        if constexpr (IL) {
          BlockStore<R, true>::stage_strip(acc, out_tile, x_local, lane);
        } else {
#pragma unroll
          for (int t = 0; t < STRIP; ++t) store_pair(acc[t], x_local, y_local + t * G.tile_y);
        }
      }
      if constexpr (IL) {
        __syncthreads(); // every warp's rows are in the tile (the next tile's first barrier guards its reuse)
        BlockStore<R, true>::write(p, out_tile, bx0, by0);
      }
    } else {
      for (int j = 2 * warp; j < G.warp_tiles; j += 2 * kWarps) {
        // warp tiles j and j + 1 (adjacent along x)
        int x_local, y_local;
        if (DIMS == 1) {
          x_local = j * G.tile_x;
          y_local = 0;
        } else {
          x_local = (j % G.wtx) * G.tile_x;
          y_local = (j / G.wtx) * G.tile_y;
        }
        Acc<ACC16> acc[2];
        acc[0].zero();
        acc[1].zero();
        const int y_in = DIMS == 1 ? 0 : y_local + G.shift0 + R; // shift 0's tile row (even where SPLIT)
        const char* row = sbytes + 2 * ((SPLIT ? y_in / 2 : y_in) * p.sw + x_local);
        if constexpr (SPARSE && KC == 2)
          IssueK32<ACC16, VEC, 0, NM / 2>::run(acc, a, meta, row, row_bytes, off, 2 * G.tile_x);
        else
          Issue<SPARSE, ACC16, AREGS, KC, 0, NM, SPLIT, VEC>::run(acc, a, meta, row, row_bytes, off, 2 * G.tile_x,
                                                                  region);
        if constexpr (BSTORE) BlockStore<R>::stage(acc, out_tile, x_local, y_local, lane);
        else store_pair(acc, x_local, y_local);
      }
      if constexpr (BSTORE) {
        __syncthreads(); // every warp's quarters are in the tile (the next tile's first barrier guards its reuse)
        BlockStore<R>::write(p, out_tile, bx0, by0);
      }
    }
    if (!TMA && !PREFETCH && next < tiles) {
      std::int64_t nx0, ny0;
      corner(next, nx0, ny0);
      loader.load(p, nx0, ny0);
    }
  }
}

// The padded input as the TMA tiles' tensor maps: x from -8 (16-byte aligned, the layout's interior starts on a
// 128-byte boundary) to nx + R, y from -R to ny + R, a box of one block tile (sw x sh). Row classes (split rows,
// interleaved strips): map j holds the padded rows y = -R + j + classes q (rows `classes` pitches apart), each a box
// of sw x ceil((sh - j) / classes). False if one does not encode.
inline bool encode_tile_maps(const KernelArgs& a, int radius, int classes, TileMaps& maps) {
  const PaddedLayout& L = a.layout;
  if (L.halo[0] != radius || L.halo[1] != radius || L.origin[0] < 8 || classes < 1 || classes > kMaxRowClasses)
    return false;
  const std::uint64_t rows = static_cast<std::uint64_t>(L.n[1] + 2 * radius), width = L.n[0] + 8 + radius;
  const std::uint64_t pitch = static_cast<std::uint64_t>(L.pitch_y) * sizeof(__half);
  for (int j = 0; j < classes; ++j) {
    const std::uint64_t dims[2] = {width, (rows - j + classes - 1) / classes}, strides[1] = {classes * pitch};
    const std::uint32_t box[2] = {static_cast<std::uint32_t>(a.sw),
                                  static_cast<std::uint32_t>((a.sh - j + classes - 1) / classes)};
    if (!encode_tensor_map(&maps.m[j], a.in + L.index(-8, j - radius, 0), 2, 2, dims, strides, box)) return false;
  }
  return true;
}

template <int DIMS, int R, bool SPARSE, bool ACC16, bool TMA>
void launch_one(const Tables& t, const KernelArgs& args, const TileMaps& maps, cudaStream_t stream) {
  auto kernel = spider_step<R, DIMS, SPARSE, ACC16, TMA>;
  if (t.bvec != b_load_words(DIMS, R, SPARSE))
    throw std::logic_error("SPIDER: the tables' B load width differs from the kernel's");
  const int smem = static_cast<int>(t.shared_bytes());
  // The launch shape per device and shared size, asked once: a 1D step can take 20 us, the queries a few us of
  // host time per launch.
  struct Shape {
    int device = -1, smem = -1, resident = 0;
  };
  static thread_local Shape shape;
  int device = 0;
  SE_CUDA_CHECK(cudaGetDevice(&device));
  if (shape.device != device || shape.smem != smem) {
    if (smem > 48 * 1024)
      SE_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    int sms = 0, per_sm = 0;
    SE_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    SE_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kWarps * 32, smem));
    shape = {device, smem, sms * (per_sm > 0 ? per_sm : 1)};
  }
  const std::int64_t tiles = args.tiles_x * args.tiles_y;
  const std::int64_t resident = shape.resident;
  const unsigned blocks = static_cast<unsigned>(tiles < resident ? tiles : resident);
  kernel<<<blocks, kWarps * 32, smem, stream>>>(args, maps);
  SE_CUDA_CHECK_LAUNCH("spider_step");
}

// Tables laid out for TMA tiles (their B offsets expect shared half 0 at x = bx0 - 8) take the TMA kernel only: if
// the map does not encode, the step fails with the reason rather than run the register loader on the wrong layout.
template <int DIMS, int R, bool SPARSE, bool ACC16>
void launch_variant(const Tables& t, const KernelArgs& args, cudaStream_t stream) {
  TileMaps maps{};
  if (t.tma) {
    if (t.split != split_rows(DIMS, R) || t.classes != row_classes(DIMS, R, true))
      throw std::logic_error("SPIDER: the tables' row classes differ from the kernel's");
    if (DIMS == 2 && !encode_tile_maps(args, R, t.classes, maps))
      throw std::runtime_error("SPIDER: the TMA tile map did not encode for this grid (SE_SPIDER_TMA=0 runs the "
                               "register loader)");
    return launch_one<DIMS, R, SPARSE, ACC16, true>(t, args, maps, stream);
  }
  launch_one<DIMS, R, SPARSE, ACC16, false>(t, args, maps, stream);
}

template <int DIMS, int R> void launch_radius(const Tables& t, const KernelArgs& args, cudaStream_t stream) {
  if (t.sparse) {
    if (t.acc16) launch_variant<DIMS, R, true, true>(t, args, stream);
    else launch_variant<DIMS, R, true, false>(t, args, stream);
  } else {
    if (t.acc16) launch_variant<DIMS, R, false, true>(t, args, stream);
    else launch_variant<DIMS, R, false, false>(t, args, stream);
  }
}

template <int DIMS> void launch_dims(const Tables& t, const KernelArgs& args, cudaStream_t stream) {
  switch (t.g.radius) {
  case 1: return launch_radius<DIMS, 1>(t, args, stream);
  case 2: return launch_radius<DIMS, 2>(t, args, stream);
  case 3: return launch_radius<DIMS, 3>(t, args, stream);
  case 4: return launch_radius<DIMS, 4>(t, args, stream);
  case 5: return launch_radius<DIMS, 5>(t, args, stream);
  case 6: return launch_radius<DIMS, 6>(t, args, stream);
  case 7: return launch_radius<DIMS, 7>(t, args, stream);
  default: break;
  }
}

} // namespace se::spider_gpu
