// TCStencil's step on tensor cores (Liu et al., ICS'22, notes in papers/tcstencil-notes-zh.md), one template for
// FP16 (mma.m16n8k16, FP32 accumulate) and FP64 (mma.m16n8k4).
//
// A block stages its input region (16*WX columns x 16*TY rows plus the halo: R rows above and below, 8 columns
// left and right) in shared memory (one TMA box on sm_90, else cp.async; stage_region); each warp owns one
// 16-column strip of 16 x 16 tiles (the paper's brick) and keeps the parameter matrices for all of them (parameter
// reuse along the strip).
// Per tile: star stencils are P_ver x A' + A' x P_hor (A' the tile itself), box stencils sum A'(dy) x P_row(dy)
// over the kernel rows, A'(dy) the tile shifted dy rows. The band of each parameter matrix is cut at the tile
// border (the partial coefficients): the products with neighbours outside the 16 x 16 tile are added on CUDA
// cores from shared memory, straight into the accumulator fragments, before the one rounding to the grid's type.
// A box's border runs on all 32 lanes (a lane per tile row and side, then shuffles to the accumulators' lanes):
// on an H100 that took FP16 box-2d25p from 310 to 405 GStencil/s and box-2d49p from 177 to 268
// (notes/tcstencil-gpu.md); before, only the 4-8 lanes holding border columns worked, one branch at a time.
#pragma once
#include <cuda_fp16.h>

#include <cstdint>

#include "kernels/common/cp_async.cuh"
#include "kernels/common/device_grid.hpp"
#include "kernels/common/mma_ptx.cuh"
#include "kernels/common/tma.cuh"
#include "kernels/tcstencil/tc_kernels.hpp"

namespace se::tc {

template <typename S> struct Traits;
template <> struct Traits<__half> {
  using C = float;
  static constexpr int WX = 8, TY = 4; // 128 x 64 outputs per block, 8 warps (the launcher may take TY = 8)
  static constexpr int PITCH = 152;    // 304-byte rows: ldmatrix's eight 16-byte rows land in distinct banks
};
template <> struct Traits<double> {
  using C = double;
  static constexpr int WX = 4, TY = 2; // 64 x 32 outputs per block, 4 warps
  static constexpr int PITCH = 84;     // 672-byte rows: a fragment's eight rows spread over the banks
};

template <typename S, int R, int TY_ = Traits<S>::TY> struct Geometry {
  static constexpr int WX = Traits<S>::WX, TY = TY_, P = Traits<S>::PITCH;
  static constexpr int BX = 16 * WX, BY = 16 * TY, ROWS = BY + 2 * R, COLS = BX + 2 * kHalo;
  static constexpr int VEC = 16 / static_cast<int>(sizeof(S)), VPR = COLS / VEC;
  static constexpr int THREADS = 32 * WX;
  static constexpr int TAPS = (2 * R + 1) * (2 * R + 1);
  static_assert(COLS <= P, "shared rows too short");
};

constexpr int kStagePitch = 24; // FP16 output staging: 48-byte rows, a fragment's 8 rows in distinct banks

// FP64 shared bytes: the tile region, the border weights (and their mirror) and the parameter matrices.
template <int R> constexpr std::size_t shared_bytes_fp64(bool star) {
  using G = Geometry<double, R>;
  std::size_t b = sizeof(double) * (G::ROWS * G::P + 2 * G::TAPS + 256 * (star ? 2 : 2 * R + 1));
  return (b + 15) / 16 * 16;
}

// FP16 shared memory, in bytes from the (128-byte aligned) start: the tile region (the TMA box lands there), the
// border weights and their mirror, then the output staging: per warp either a 16 x 16 tile of kStagePitch rows
// (16-byte stores by the lanes) or, with TMA, the warp's whole 16-column strip (BY rows of 16, the box's layout).
// Every part starts 128 bytes aligned.
template <int R, int TY> struct Fp16Smem {
  using G = Geometry<__half, R, TY>;
  static constexpr std::size_t up(std::size_t b) { return (b + 127) / 128 * 128; }
  static constexpr std::size_t TILE = 0, TAPS = up(sizeof(__half) * G::ROWS * G::P), STAGE = TAPS + up(2 * sizeof(float) * G::TAPS);
  static constexpr std::size_t LANE_STAGE = sizeof(__half) * G::WX * 16 * kStagePitch;
  static constexpr std::size_t STRIP = sizeof(__half) * 16 * G::BY; // one warp's strip
  static constexpr std::size_t bytes(bool tma) { return STAGE + (tma ? G::WX * STRIP : LANE_STAGE); }
};

// Four 8x8 b16 matrices, row addresses from lanes 8i..8i+7 for matrix i; TRANS delivers each transposed (the
// B operand from a row-major k x n tile).
template <bool TRANS> __device__ __forceinline__ void ldmatrix_x4(std::uint32_t (&r)[4], const void* p) {
  const unsigned s = shared_address(p);
  if constexpr (TRANS)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(s) : "memory");
  else
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(s) : "memory");
}

__device__ __forceinline__ std::uint32_t pack2(__half lo, __half hi) {
  __half2 h = __halves2half2(lo, hi);
  return *reinterpret_cast<std::uint32_t*>(&h);
}

template <typename C, typename S> __device__ __forceinline__ C as_c(S v) {
  if constexpr (sizeof(S) == 2) return __half2float(v);
  else return v;
}

// Stages `rows` rows of `in` from row gy0 and columns x0-8 .. x0+BX+7 into shared rows (first + i) & mask; what
// lies beyond the grid's halo (the row padding, rows past the allocation) becomes 0, so a zero coefficient never
// meets a NaN or an unread value.
template <typename S, int R>
__device__ __forceinline__ void stage_rows(const PaddedLayout& L, const S* __restrict__ in, S* tile, std::int64_t x0,
                                           std::int64_t gy0, int rows, int first, int mask) {
  using G = Geometry<S, R>;
  const std::int64_t nx = L.n[0], ny = L.n[1];
  for (int i = threadIdx.x; i < rows * G::VPR; i += G::THREADS) {
    const int row = i / G::VPR, v = i - row * G::VPR;
    const std::int64_t gy = gy0 + row, gx = x0 - kHalo + v * G::VEC;
    S* dst = tile + ((first + row) & mask) * G::P + v * G::VEC;
    const bool row_ok = gy < ny + kHalo;
    if (row_ok && gx + G::VEC <= nx + kHalo) {
      cp_async16(dst, in + L.index(gx, gy, 0));
    } else {
#pragma unroll
      for (int e = 0; e < G::VEC; ++e) dst[e] = row_ok && gx + e < nx + kHalo ? in[L.index(gx + e, gy, 0)] : S(0);
    }
  }
}

// The block's region (outputs from (x0, y0), ROWS rows of P from (x0 - 8, y0 - R)) into `tile`. TMA: thread 0
// initialises `bar` and loads it as one box of the padded input's tensor map (zeros beyond the padded grid); wait on
// `bar` after the block barrier that publishes the initialisation. Otherwise every thread's cp.async
// (cp_async_wait_all before that barrier).
template <typename S, int R, int P, int ROWS, bool TMA>
__device__ __forceinline__ void stage_region(const PaddedLayout& L, const S* __restrict__ in, S* tile, const CUtensorMap& map,
                                             std::int64_t x0, std::int64_t y0, unsigned long long* bar) {
  if constexpr (TMA) {
    if (threadIdx.x == 0) {
      tma::barrier_init(bar, 1);
      tma::load_box_2d(tile, map, static_cast<int>(x0), static_cast<int>(y0 - R + kHalo),
                       static_cast<unsigned>(sizeof(S) * P * ROWS), bar);
    }
  } else {
    stage_rows<S, R>(L, in, tile, x0, y0 - R, ROWS, 0, -1);
  }
}

// The taps into shared memory, and their left-right mirror (row-wise reversed) for the box remainder.
template <typename C>
__device__ __forceinline__ void load_taps(const C* border, C* w, C* wm, int width, int taps, int threads) {
  for (int i = threadIdx.x; i < taps; i += threads) {
    const int row = i / width, col = i - row * width;
    w[i] = border[i];
    wm[i] = border[row * width + width - 1 - col];
  }
}

// Lane (rho, side) holds `sum`, an output's border sum at tile row rho, column k from the left edge (side 0) or
// 15 - k (side 1); shuffles add each to the accumulator that holds its output (rows g and g + 8 of this lane).
template <typename C> __device__ __forceinline__ void add_side_sums(C (&acc)[2][4], C sum, int k, int g, int t) {
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const C vl = __shfl_sync(0xffffffffu, sum, g + 8 * h);      // left: row g + 8h, column k
    const C vr = __shfl_sync(0xffffffffu, sum, 16 + g + 8 * h); // right: row g + 8h, column 15 - k
    if (t == (k >> 1)) acc[0][2 * h + (k & 1)] += vl;
    if (t == ((7 - k) >> 1)) acc[1][2 * h + ((7 - k) & 1)] += vr;
  }
}

// The CUDA-core remainder, shared by both precisions. acc[j][q]: the m16n8 accumulator layout, rows g (q = 0, 1)
// and g+8 (q = 2, 3), columns 8j + 2t + (q & 1). w: the taps, (dy + R) * W + dx + R.
//
// A box: the products with the R columns beyond each side of the tile, on all 32 lanes. wm holds the taps
// mirrored left to right (wm[.. + R + m] = w[.. + R - m]), so that both sides read +m.
template <typename S, int R, int P = Geometry<S, R>::P, typename C>
__device__ __forceinline__ void box_border(C (&acc)[2][4], const S* tile, const C* w, const C* wm, int r0, int mask,
                                           int c0, int g, int t) {
  constexpr int W = 2 * R + 1;
  const auto at = [&](int row, int col) { return as_c<C>(tile[((r0 + row) & mask) * P + c0 + col]); };
  // Lane (rho, side) sums the R border outputs of tile row rho on its side (left: column k; right: column
  // 15 - k, for k < R) over every kernel row, then the sums move to the lanes whose accumulators hold those outputs
  // (one shuffle per border column and row half). Input column i + 1 beyond the edge meets output k at
  // |dx| = 1 + i + k <= R.
  const int lane = 4 * g + t, rho = lane & 15, side = lane >> 4;
  const C* wb = side ? w : wm;
  const int col0 = side ? 16 : -1, step = side ? 1 : -1;
  C rem[R];
#pragma unroll
  for (int k = 0; k < R; ++k) rem[k] = C(0);
#pragma unroll
  for (int dy = -R; dy <= R; ++dy) {
    C x[R];
#pragma unroll
    for (int i = 0; i < R; ++i) x[i] = at(rho + dy, col0 + step * i);
#pragma unroll
    for (int k = 0; k < R; ++k)
#pragma unroll
      for (int i = 0; i + k < R; ++i) rem[k] += wb[(dy + R) * W + R + 1 + i + k] * x[i];
  }
#pragma unroll
  for (int k = 0; k < R; ++k) add_side_sums(acc, rem[k], k, g, t);
}

// A star: the lanes whose accumulators hold the tile's border rows and columns add the centre row's and column's
// taps beyond the tile.
template <typename S, int R, int P = Geometry<S, R>::P, typename C>
__device__ __forceinline__ void star_border(C (&acc)[2][4], const S* tile, const C* w, int r0, int mask, int c0, int g,
                                            int t) {
  constexpr int W = 2 * R + 1;
  const auto at = [&](int row, int col) { return as_c<C>(tile[((r0 + row) & mask) * P + c0 + col]); };
#pragma unroll
  for (int j = 0; j < 2; ++j)
#pragma unroll
    for (int e = 0; e < 2; ++e) {
      const int c = 8 * j + 2 * t + e; // the tile column of acc[j][e] and acc[j][2 + e]
#pragma unroll
      for (int d = 1; d <= R; ++d) {
        // Left half: neighbours left of the tile (columns < 0); right half: right of it (R <= 7 keeps them apart).
        if (j == 0 ? c < d : c + d > 15) {
          const int dx = j == 0 ? -d : d;
          const C wv = w[R * W + dx + R];
          acc[j][e] += wv * at(g, c + dx);
          acc[j][2 + e] += wv * at(g + 8, c + dx);
        }
      }
    }
  // P_ver's band cut at the top (rows g < d) and bottom (rows g + 8 + d > 15)
#pragma unroll
  for (int d = 1; d <= R; ++d) {
    if (g < d) {
      const C wv = w[(R - d) * W + R];
#pragma unroll
      for (int j = 0; j < 2; ++j)
#pragma unroll
        for (int e = 0; e < 2; ++e) acc[j][e] += wv * at(g - d, 8 * j + 2 * t + e);
    }
    if (g + 8 + d > 15) {
      const C wv = w[(R + d) * W + R];
#pragma unroll
      for (int j = 0; j < 2; ++j)
#pragma unroll
        for (int e = 0; e < 2; ++e) acc[j][2 + e] += wv * at(g + 8 + d, 8 * j + 2 * t + e);
    }
  }
}

// A star's border on all 32 lanes (the FP16 two-step kernel; the same sums as star_border, grouped per side): lane (rho, side) sums the R border outputs of tile row
// rho (left or right side) and of tile column rho (top or bottom side) over the taps beyond the tile, then shuffles
// move the sums to the lanes whose accumulators hold those outputs.
template <int R, int P>
__device__ __forceinline__ void star_border_lanes(float (&acc)[2][4], const __half* tile, const float* w, int r0, int c0,
                                                  int g, int t) {
  constexpr int W = 2 * R + 1;
  const int lane = 4 * g + t, rho = lane & 15, side = lane >> 4;
  const auto at = [&](int row, int col) { return __half2float(tile[(r0 + row) * P + c0 + col]); };
  float hs[R], vs[R]; // row rho's border column k (left k, right 15 - k); column rho's border row k (top k, bottom 15 - k)
#pragma unroll
  for (int k = 0; k < R; ++k) {
    hs[k] = 0.f;
    vs[k] = 0.f;
#pragma unroll
    for (int d = k + 1; d <= R; ++d) {
      const int o = side ? 15 - k + d : k - d; // the neighbour's column (or row) beyond the tile
      hs[k] += w[R * W + R + (side ? d : -d)] * at(rho, o);
      vs[k] += w[(R + (side ? d : -d)) * W + R] * at(o, rho);
    }
  }
#pragma unroll
  for (int k = 0; k < R; ++k) {
    add_side_sums(acc, hs[k], k, g, t);
#pragma unroll
    for (int j = 0; j < 2; ++j)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int c = 8 * j + 2 * t + e;
        const float vt = __shfl_sync(0xffffffffu, vs[k], c);      // top: row k, column c
        const float vb = __shfl_sync(0xffffffffu, vs[k], 16 + c); // bottom: row 15 - k, column c
        if (g == k) acc[j][e] += vt;
        if (g == 7 - k) acc[j][2 + e] += vb;
      }
  }
}

template <typename S, int R, bool STAR, int P = Geometry<S, R>::P, typename C>
__device__ __forceinline__ void finish_tile(C (&acc)[2][4], const S* tile, const C* w, const C* wm, int r0, int mask,
                                            int c0, int g, int t) {
  if constexpr (STAR) star_border<S, R, P>(acc, tile, w, r0, mask, c0, g, t);
  else box_border<S, R, P>(acc, tile, w, wm, r0, mask, c0, g, t);
}

// A 1D line's point at view (x, y) (StepArgs::line): stored when it is on the line, and (periodic) into every image
// within the halo on either side.
template <typename S>
__device__ __forceinline__ void store_on_line(S* out, const PaddedLayout& L, bool periodic, std::int64_t line,
                                              std::int64_t x, std::int64_t y, S v) {
  const std::int64_t i = y * L.n[0] + x;
  if (x >= L.n[0] || i >= line) return;
  S* p = out + L.index(0, 0, 0); // the line's first point
  p[i] = v;
  if (!periodic) return;
  for (std::int64_t j = i - line; j >= -kHalo; j -= line) p[j] = v;
  for (std::int64_t j = i + line; j < line + kHalo; j += line) p[j] = v;
}

template <typename S, typename C>
__device__ __forceinline__ void store_tile(const C (&acc)[2][4], S* __restrict__ out, const PaddedLayout& L,
                                           bool periodic, bool fast, std::int64_t x, std::int64_t y, int t,
                                           std::int64_t line) {
  // (x, y): the tile's corner; this lane holds rows y+g, y+g+8 (g folded into y by the caller) and columns
  // x + 8j + 2t + {0, 1}.
#pragma unroll
  for (int j = 0; j < 2; ++j)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const std::int64_t gx = x + 8 * j + 2 * t, gy = y + 8 * h;
      const S v0 = store_as<S>(acc[j][2 * h]), v1 = store_as<S>(acc[j][2 * h + 1]);
      if (fast) {
        S* p = out + L.index(gx, gy, 0);
        if constexpr (sizeof(S) == 2) *reinterpret_cast<__half2*>(p) = __halves2half2(v0, v1);
        else *reinterpret_cast<double2*>(p) = make_double2(v0, v1);
      } else if (line > 0) {
        store_on_line(out, L, periodic, line, gx, gy, v0);
        store_on_line(out, L, periodic, line, gx + 1, gy, v1);
      } else if (gy < L.n[1]) {
        if (gx < L.n[0]) store_with_images(out, L, periodic, gx, gy, 0, v0);
        if (gx + 1 < L.n[0]) store_with_images(out, L, periodic, gx + 1, gy, 0, v1);
      }
    }
}

// Outputs [x0, x0+w) x [y0, y0+h) all lie inside the grid, and (periodic) none has an image in the halo: plain
// paired stores.
__device__ __forceinline__ bool region_is_plain(const PaddedLayout& L, bool periodic, std::int64_t x0, std::int64_t y0,
                                                int w, int h) {
  const std::int64_t m = periodic ? kHalo : 0;
  return x0 >= m && y0 >= m && x0 + w + m <= L.n[0] && y0 + h + m <= L.n[1];
}

// The same for the step's grid: a 1D line's view region (line > 0) is plain when all its points lie on the line and
// (periodic) none within the halo of either end. The kernels pass the line as 0 where it cannot be one (the TMA
// kernels: the host runs lines on the cp.async kernels), which leaves their code as it was for 2D grids.
__device__ __forceinline__ bool region_is_plain(const StepArgs& a, std::int64_t line, std::int64_t x0, std::int64_t y0,
                                                int w, int h) {
  if (line == 0) return region_is_plain(a.layout, a.periodic, x0, y0, w, h);
  const std::int64_t n0 = a.layout.n[0], m = a.periodic ? kHalo : 0;
  return x0 + w <= n0 && y0 * n0 + x0 >= m && (y0 + h - 1) * n0 + x0 + w - 1 + m < line;
}

// ------------------------------------------------------------------------------------------------ FP16 step
// A tile's outputs rounded to FP16 into shared rows `pitch` halves apart (this lane: rows g and g + 8, columns
// 8j + 2t and 8j + 2t + 1): the per-warp staging tile of the lanes' 16-byte stores, or a TMA strip.
__device__ __forceinline__ void stage_tile_fp16(const float (&acc)[2][4], __half* dst, int pitch, int g, int t) {
#pragma unroll
  for (int j = 0; j < 2; ++j)
#pragma unroll
    for (int h = 0; h < 2; ++h)
      *reinterpret_cast<__half2*>(dst + (g + 8 * h) * pitch + 8 * j + 2 * t) =
          __floats2half2_rn(acc[j][2 * h], acc[j][2 * h + 1]);
}

// A warp's strip, staged in shared memory in the store box's layout, out as one TMA store of 16 x BY at grid (tx0,
// y0) by lane 0, which waits until the store has read the strip (before the block may exit).
__device__ __forceinline__ void store_strip(const CUtensorMap& out_map, const __half* strip, std::int64_t tx0,
                                            std::int64_t y0, int lane) {
  tma::fence_shared_to_async();
  __syncwarp();
  if (lane == 0) {
    tma::store_box_2d(out_map, static_cast<int>(tx0), static_cast<int>(y0), strip);
    tma::wait_stores_read();
  }
}

// Tile rows per block: 128 x 128 outputs up to radius 2, 128 x 64 beyond (the larger box's fragments and border
// leave no registers for the taller block; notes/tcstencil-gpu.md timed the shapes).
template <int R> constexpr int fp16_tile_rows() { return R <= 2 ? 8 : 4; }

// Parameter matrices a warp holds as fragments: a star's P_ver and P_hor, a box's one per kernel row.
template <int R, bool STAR> constexpr int fp16_matrices() { return STAR ? 2 : 2 * R + 1; }

// The parameter matrices as fragments (built once per warp from the plan's FP16 operands, 16 x 16 row-major each):
// pb the B operands (right matrices) [matrix][column half j][register], pa a star's P_ver as the A operand.
template <int R, bool STAR>
__device__ __forceinline__ void load_fragments_fp16(const __half* m, std::uint32_t (&pa)[4],
                                                    std::uint32_t (&pb)[fp16_matrices<R, STAR>()][2][2], int g, int t) {
#pragma unroll
  for (int q = 0; q < fp16_matrices<R, STAR>(); ++q) {
    const __half* Mq = m + q * 256;
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      pb[q][j][0] = pack2(Mq[(2 * t) * 16 + 8 * j + g], Mq[(2 * t + 1) * 16 + 8 * j + g]);
      pb[q][j][1] = pack2(Mq[(2 * t + 8) * 16 + 8 * j + g], Mq[(2 * t + 9) * 16 + 8 * j + g]);
    }
  }
  if constexpr (STAR) {
    pa[0] = pack2(m[g * 16 + 2 * t], m[g * 16 + 2 * t + 1]);
    pa[1] = pack2(m[(g + 8) * 16 + 2 * t], m[(g + 8) * 16 + 2 * t + 1]);
    pa[2] = pack2(m[g * 16 + 2 * t + 8], m[g * 16 + 2 * t + 9]);
    pa[3] = pack2(m[(g + 8) * 16 + 2 * t + 8], m[(g + 8) * 16 + 2 * t + 9]);
  }
}

// The tensor-core part of one FP16 tile, the 16 x 16 outputs whose input lies at shared row r0, column c0 of `tile`
// (rows P halves apart), into acc: a star P_ver x A' + A' x P_hor (A' the tile), a box the sum of A'(dy) x P_row(dy)
// over the kernel rows (A'(dy) the tile shifted dy rows). lrow, lcol: this lane's ldmatrix row address.
template <int R, bool STAR, int P>
__device__ __forceinline__ void tile_mma_fp16(float (&acc)[2][4], const __half* tile, int r0, int c0, int lrow, int lcol,
                                              unsigned matrix_mask, const std::uint32_t (&pa)[4],
                                              const std::uint32_t (&pb)[fp16_matrices<R, STAR>()][2][2]) {
  if constexpr (STAR) {
    const __half* base = tile + (r0 + lrow) * P + c0 + lcol;
    if (matrix_mask & 1u) { // P_ver x A': the tile as the B operand (k = rows)
      std::uint32_t b[4];
      ldmatrix_x4<true>(b, base);
      const std::uint32_t b0[2] = {b[0], b[1]}, b1[2] = {b[2], b[3]};
      ptx::mma_m16n8k16_f16_f32(acc[0], pa, b0);
      ptx::mma_m16n8k16_f16_f32(acc[1], pa, b1);
    }
    if (matrix_mask & 2u) { // A' x P_hor
      std::uint32_t af[4];
      ldmatrix_x4<false>(af, base);
      ptx::mma_m16n8k16_f16_f32(acc[0], af, pb[1][0]);
      ptx::mma_m16n8k16_f16_f32(acc[1], af, pb[1][1]);
    }
  } else {
#pragma unroll
    for (int q = 0; q < fp16_matrices<R, STAR>(); ++q) {
      if (!(matrix_mask >> q & 1u)) continue;
      std::uint32_t af[4]; // A'(dy): the tile shifted dy = q - R rows
      ldmatrix_x4<false>(af, tile + (r0 + q - R + lrow) * P + c0 + lcol);
      ptx::mma_m16n8k16_f16_f32(acc[0], af, pb[q][0]);
      ptx::mma_m16n8k16_f16_f32(acc[1], af, pb[q][1]);
    }
  }
}

// A block stages 16*TY + 2R rows of a 128-column strip (plus 8 halo columns each side), then each warp runs its
// 16-column strip of TY tiles with the parameter fragments kept in registers (parameter reuse).
// TMA (sm_90, both tensor maps encoded): one thread loads the region as one TMA box (P x ROWS of the padded grid,
// landing with the conflict-free pitch; what lies beyond the padded grid arrives as 0), and each warp writes its
// strip's outputs into shared memory in the box's layout, then one lane stores it with one TMA store of 16 x BY,
// clipped at the grid's last row (strips across the right edge, and periodic blocks near a face, which also write
// the images in the halo, store from the accumulators instead). Otherwise 16-byte cp.async by every thread, and
// each tile goes out through a per-warp shared tile, one 16-byte store per lane (whole 32-byte sectors), or from the
// accumulators where it has periodic images or crosses the grid's edge. Blocks per SM: 3 (80 registers) up to radius 3
// for stars and radius 2 for boxes; a radius-3 box at 3 spilled 88 bytes and ran 267 GStencil/s against 309 at 2
// (no spill) on an H100, while radius 2 at 2 lost 2.5% (notes/tcstencil-gpu.md).
template <int R, bool STAR, bool TMA>
__global__ void __launch_bounds__(Geometry<__half, R, fp16_tile_rows<R>()>::THREADS, (STAR ? R <= 3 : R <= 2) ? 3 : 2)
    step_fp16(StepArgs a, const __half* __restrict__ in, __half* __restrict__ out, const __grid_constant__ CUtensorMap in_map,
              const __grid_constant__ CUtensorMap out_map) {
#if !SE_TMA
  if constexpr (TMA) return; // the host launches the TMA kernels on sm_90 only
#endif
  constexpr int TY = fp16_tile_rows<R>();
  using G = Geometry<__half, R, TY>;
  using M = Fp16Smem<R, TY>;
  constexpr int P = G::P;
  extern __shared__ __align__(128) unsigned char smem_raw[];
  __shared__ unsigned long long loaded; // TMA: the box's mbarrier
  __half* tile = reinterpret_cast<__half*>(smem_raw + M::TILE);
  float* w = reinterpret_cast<float*>(smem_raw + M::TAPS);
  float* wm = w + G::TAPS;
  __half* stage = reinterpret_cast<__half*>(smem_raw + M::STAGE);
  const PaddedLayout& L = a.layout;
  const std::int64_t x0 = static_cast<std::int64_t>(blockIdx.x) * G::BX, y0 = static_cast<std::int64_t>(blockIdx.y) * G::BY;
  stage_region<__half, R, P, G::ROWS, TMA>(L, in, tile, in_map, x0, y0, &loaded);
  load_taps(static_cast<const float*>(a.border), w, wm, 2 * R + 1, G::TAPS, G::THREADS);

  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, g = lane >> 2, t = lane & 3;
  // The parameter matrices as fragments, built once per warp from the plan's FP16 operands.
  constexpr int NM = fp16_matrices<R, STAR>();
  std::uint32_t pb[NM][2][2]; // B operands (right matrices): [matrix][column half j][register]
  std::uint32_t pa[4];        // star: P_ver as the A operand
  load_fragments_fp16<R, STAR>(static_cast<const __half*>(a.matrices), pa, pb, g, t);
  if constexpr (!TMA) cp_async_wait_all();
  __syncthreads(); // the taps, the cp.async rows, the mbarrier's initialisation
  if constexpr (TMA) tma::barrier_wait(&loaded, 0);

  const int lrow = (lane & 7) + ((lane >> 3) & 1) * 8, lcol = (lane >> 4) * 8; // ldmatrix row addresses
  const int c0 = kHalo + 16 * warp;
  const std::int64_t tx0 = x0 + 16 * warp;
  const std::int64_t line = TMA ? 0 : a.line; // lines run on the cp.async kernel
  // The strip goes out as one TMA store when it lies inside the grid along x (rows past the last are clipped) and,
  // periodic, writes no image into the halo. Strips clipped inside a row gave wrong results on an H200 (the tests'
  // Dirichlet grids 300 x 290 and 17 x 130, whose widths end inside a 16-byte chunk; 1000 x 700 was right).
  const bool strip_store = TMA && (a.periodic ? region_is_plain(L, true, x0, y0, G::BX, G::BY) : tx0 + 16 <= L.n[0]);
  __half* strip = stage + warp * (M::STRIP / sizeof(__half)); // TMA: [BY rows][16 columns]
#pragma unroll 1
  for (int ty = 0; ty < TY; ++ty) {
    const int r0 = R + 16 * ty; // shared row of the tile's first row
    float acc[2][4] = {};
    tile_mma_fp16<R, STAR, P>(acc, tile, r0, c0, lrow, lcol, a.matrix_mask, pa, pb);
    finish_tile<__half, R, STAR>(acc, tile, w, wm, r0, -1, c0, g, t);
    if (strip_store) {
      stage_tile_fp16(acc, strip + 16 * 16 * ty, 16, g, t);
      continue;
    }
    const std::int64_t ty0 = y0 + 16 * ty;
    const bool plain = region_is_plain(a, line, tx0, ty0, 16, 16);
    if (!TMA && plain) {
      __half* st = stage + warp * 16 * kStagePitch;
      stage_tile_fp16(acc, st, kStagePitch, g, t);
      __syncwarp();
      const int row = lane >> 1, part = lane & 1;
      *reinterpret_cast<uint4*>(out + L.index(tx0 + 8 * part, ty0 + row, 0)) =
          *reinterpret_cast<const uint4*>(st + row * kStagePitch + 8 * part);
      __syncwarp();
    } else {
      store_tile<__half>(acc, out, L, a.periodic, plain, tx0, ty0 + g, t, line);
    }
  }
  if (strip_store) store_strip(out_map, strip, tx0, y0, lane);
}

// ------------------------------------------------------------------------------------------ FP16, two steps fused
// Two base steps per launch (sm_90, TMA only; stars of radius 1 and 2: a box's border costs more than the halved
// traffic returns, notes/tcstencil-gpu.md). The block's outputs are 128 x 128 as in step_fp16,
// and its input region grows by R on every side: one TMA box of IP x IN_ROWS from grid (x0 - 16, y0 - 2R) lands in
// `in_s`. Step 1 computes the 9 x (TY + 1) tiles of 16 x 16 that cover the outputs and R around them, from grid
// (x0 - 8, y0 - R), with the same fragments, rounds them to FP16 (the grid's type, as a launch of its own would
// store them) into `mid`, in step_fp16's region layout; outside the grid a Dirichlet point keeps its input (the
// boundary value), a periodic one is what the halo's images give. Step 2 is step_fp16's loop on `mid`, its strips
// staged where the input was. A tile's split between tensor and CUDA cores depends on where the tile lies, so step
// 1's values may differ from a step of their own in the last FP32 bit before rounding; the FP16 bound holds either
// way (tests/gpu/test_gpu_tcstencil.cpp). Both steps run two tiles at a time per warp (two independent chains), and
// the border on all 32 lanes (star_border_lanes: 19% faster than star_border here on an H200). Core's cost model
// counts the same block (core/tcstencil/tcstencil_method.hpp, kFusedBlockTiles).
template <int R> struct Fused2Geometry {
  static constexpr int TY = 8, WX = 8, BX = 128, BY = 16 * TY, THREADS = 32 * WX;
  static constexpr int SX = 9, SY = TY + 1, S1_TILES = SX * SY; // step 1's tiles: 144 columns x 16 (TY + 1) rows
  static constexpr int MP = Traits<__half>::PITCH, MID_ROWS = 16 * SY;
  static constexpr int IP = 168, IN_ROWS = MID_ROWS + 2 * R; // 160 columns needed; 84-word rows: ldmatrix conflict-free
  static constexpr int TAPS = (2 * R + 1) * (2 * R + 1);
  static constexpr std::size_t up(std::size_t b) { return (b + 127) / 128 * 128; }
  static constexpr std::size_t IN = 0, MID = up(sizeof(__half) * IP * IN_ROWS),
                               W = MID + up(sizeof(__half) * MP * MID_ROWS), BYTES = W + up(2 * sizeof(float) * TAPS);
  static constexpr std::size_t STRIP = sizeof(__half) * 16 * BY;
  static_assert(WX * STRIP <= MID, "the output strips reuse the input region");
  static_assert(2 * R <= 8, "step 1 reads 2R beyond the grid: the halo's images must reach");
};

template <int R>
__global__ void __launch_bounds__(256, 2)
    step2_fp16(StepArgs a, __half* __restrict__ out, const __grid_constant__ CUtensorMap in_map,
               const __grid_constant__ CUtensorMap out_map) {
#if SE_TMA
  using F = Fused2Geometry<R>;
  constexpr int TY = F::TY;
  constexpr bool STAR = true;
  extern __shared__ __align__(128) unsigned char smem_raw[];
  __shared__ unsigned long long loaded;
  __half* in_s = reinterpret_cast<__half*>(smem_raw + F::IN);
  __half* mid = reinterpret_cast<__half*>(smem_raw + F::MID);
  float* w = reinterpret_cast<float*>(smem_raw + F::W);
  float* wm = w + F::TAPS; // load_taps' mirror (a box's border; unused by the stars here)
  const PaddedLayout& L = a.layout;
  const std::int64_t nx = L.n[0], ny = L.n[1];
  const std::int64_t x0 = static_cast<std::int64_t>(blockIdx.x) * F::BX, y0 = static_cast<std::int64_t>(blockIdx.y) * F::BY;
  if (threadIdx.x == 0) {
    tma::barrier_init(&loaded, 1);
    // the padded map's corner is grid (-kHalo, -kHalo)
    tma::load_box_2d(in_s, in_map, static_cast<int>(x0 - 16 + kHalo), static_cast<int>(y0 - 2 * R + kHalo),
                     static_cast<unsigned>(sizeof(__half) * F::IP * F::IN_ROWS), &loaded);
  }
  load_taps(static_cast<const float*>(a.border), w, wm, 2 * R + 1, F::TAPS, F::THREADS);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, g = lane >> 2, t = lane & 3;
  constexpr int NM = fp16_matrices<R, STAR>();
  std::uint32_t pb[NM][2][2];
  std::uint32_t pa[4];
  load_fragments_fp16<R, STAR>(static_cast<const __half*>(a.matrices), pa, pb, g, t);
  __syncthreads(); // the taps, the mbarrier's initialisation
  tma::barrier_wait(&loaded, 0);
  const int lrow = (lane & 7) + ((lane >> 3) & 1) * 8, lcol = (lane >> 4) * 8;
  // Two tiles at shared (r0, c0) and (r1, c1) of `src` (pitch SP): MMAs, then the border sums.
  const auto two_tiles = [&]<int SP>(float (&acc0)[2][4], float (&acc1)[2][4], const __half* src, int r0, int c0, int r1,
                                     int c1) {
    tile_mma_fp16<R, STAR, SP>(acc0, src, r0, c0, lrow, lcol, a.matrix_mask, pa, pb);
    tile_mma_fp16<R, STAR, SP>(acc1, src, r1, c1, lrow, lcol, a.matrix_mask, pa, pb);
    star_border_lanes<R, SP>(acc0, src, w, r0, c0, g, t);
    star_border_lanes<R, SP>(acc1, src, w, r1, c1, g, t);
  };

  // Step 1: tile k = (sx, sy) has its outputs at grid (x0 - 8 + 16 sx, y0 - R + 16 sy), its input at in_s
  // (R + 16 sy, 8 + 16 sx), and goes to mid (16 sy, 16 sx). A warp takes k and k + 8 at a time (the second clamped
  // to the last tile, and not stored, past it).
  const auto step1_store = [&](float (&acc)[2][4], int k) {
    const int sy = k / F::SX, sx = k - sy * F::SX, r0 = R + 16 * sy, c0 = 8 + 16 * sx;
    __half* dst = mid + 16 * sy * F::MP + 16 * sx;
    const std::int64_t gx = x0 - 8 + 16 * sx, gy = y0 - R + 16 * sy;
    if (a.periodic || (gx >= 0 && gy >= 0 && gx + 16 <= nx && gy + 16 <= ny)) {
      stage_tile_fp16(acc, dst, F::MP, g, t);
      return;
    }
#pragma unroll
    for (int j = 0; j < 2; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int row = g + 8 * h, col = 8 * j + 2 * t + e;
          const bool inside = gx + col >= 0 && gx + col < nx && gy + row >= 0 && gy + row < ny;
          dst[row * F::MP + col] = inside ? __float2half_rn(acc[j][2 * h + e]) : in_s[(r0 + row) * F::IP + c0 + col];
        }
  };
#pragma unroll 1
  for (int k = warp; k < F::S1_TILES; k += 2 * F::WX) {
    const int k1 = min(k + F::WX, F::S1_TILES - 1);
    const int sy0 = k / F::SX, sx0 = k - sy0 * F::SX, sy1 = k1 / F::SX, sx1 = k1 - sy1 * F::SX;
    float acc0[2][4] = {}, acc1[2][4] = {};
    two_tiles.template operator()<F::IP>(acc0, acc1, in_s, R + 16 * sy0, 8 + 16 * sx0, R + 16 * sy1, 8 + 16 * sx1);
    step1_store(acc0, k);
    if (k + F::WX < F::S1_TILES) step1_store(acc1, k1);
  }
  __syncthreads(); // mid complete; in_s is free for the strips

  // Step 2: step_fp16's loop on mid (its row 0 is grid row y0 - R, its column 8 grid column x0), two tiles at a time.
  const int c0 = kHalo + 16 * warp;
  const std::int64_t tx0 = x0 + 16 * warp;
  const bool strip_store = a.periodic ? region_is_plain(L, true, x0, y0, F::BX, F::BY) : tx0 + 16 <= nx;
  __half* strip = in_s + warp * (F::STRIP / sizeof(__half));
  const auto step2_store = [&](float (&acc)[2][4], int ty) {
    if (strip_store) {
      stage_tile_fp16(acc, strip + 16 * 16 * ty, 16, g, t);
      return;
    }
    const std::int64_t ty0 = y0 + 16 * ty;
    store_tile<__half>(acc, out, L, a.periodic, region_is_plain(L, a.periodic, tx0, ty0, 16, 16), tx0, ty0 + g, t, 0);
  };
#pragma unroll 1
  for (int ty = 0; ty < TY; ty += 2) {
    const int ty1 = min(ty + 1, TY - 1);
    float acc0[2][4] = {}, acc1[2][4] = {};
    two_tiles.template operator()<F::MP>(acc0, acc1, mid, R + 16 * ty, c0, R + 16 * ty1, c0);
    step2_store(acc0, ty);
    if (ty + 1 < TY) step2_store(acc1, ty1);
  }
  if (strip_store) store_strip(out_map, strip, tx0, y0, lane);
#endif
}

// ------------------------------------------------------------------------------------------------ FP64 step
// mma.m16n8k4: A 16x4 (a0 = A[g][t], a1 = A[g+8][t]), B 4x8 (b = B[t][g]); a 16x16x16 product is 2 column
// halves x 4 K chunks. A right matrix's block (K chunk kc, column half j) is all zero when its rows 4kc..4kc+3
// and columns 8j..8j+7 lie more than R apart: those MMAs are not issued.
__host__ __device__ constexpr bool band_block_live(int kc, int j, int R) {
  const int k_lo = 4 * kc, k_hi = 4 * kc + 3, n_lo = 8 * j, n_hi = 8 * j + 7;
  const int gap = k_hi < n_lo ? n_lo - k_hi : (k_lo > n_hi ? k_lo - n_hi : 0);
  return gap <= R;
}

// TMA (sm_90, the tensor map encoded): thread 0 loads the block's region as one TMA box of P x ROWS (the box lands
// with the 672-byte pitch; beyond the padded grid arrive zeros), overlapping the taps' and matrices' loads;
// otherwise 16-byte cp.async by every thread. The outputs leave from the accumulators (double2 per lane: each row's
// 64 bytes are two whole sectors).
template <int R, bool STAR, bool TMA>
__global__ void __launch_bounds__(Geometry<double, R>::THREADS)
    step_fp64(StepArgs a, const double* __restrict__ in, double* __restrict__ out,
              const __grid_constant__ CUtensorMap in_map) {
#if !SE_TMA
  if constexpr (TMA) return; // the host launches the TMA kernels on sm_90 only
#endif
  using G = Geometry<double, R>;
  constexpr int P = G::P, NM = STAR ? 2 : 2 * R + 1;
  extern __shared__ __align__(128) unsigned char smem_raw[];
  __shared__ unsigned long long loaded; // TMA: the box's mbarrier
  double* tile = reinterpret_cast<double*>(smem_raw);
  double* w = tile + G::ROWS * P;
  double* wm = w + G::TAPS;
  double* mats = wm + G::TAPS;
  const PaddedLayout& L = a.layout;
  const std::int64_t x0 = static_cast<std::int64_t>(blockIdx.x) * G::BX, y0 = static_cast<std::int64_t>(blockIdx.y) * G::BY;
  stage_region<double, R, P, G::ROWS, TMA>(L, in, tile, in_map, x0, y0, &loaded);
  load_taps(static_cast<const double*>(a.border), w, wm, 2 * R + 1, G::TAPS, G::THREADS);
  const double* m = static_cast<const double*>(a.matrices);
  for (int i = threadIdx.x; i < NM * 256; i += G::THREADS) mats[i] = m[i];
  if constexpr (!TMA) cp_async_wait_all();
  __syncthreads(); // the taps, the matrices, the cp.async rows, the mbarrier's initialisation
  if constexpr (TMA) tma::barrier_wait(&loaded, 0);

  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, g = lane >> 2, t = lane & 3;
  const std::int64_t line = TMA ? 0 : a.line; // lines run on the cp.async kernel
  const bool fast = region_is_plain(a, line, x0, y0, G::BX, G::BY);
  const int c0 = kHalo + 16 * warp;
#pragma unroll 1
  for (int ty = 0; ty < G::TY; ++ty) {
    const int r0 = R + 16 * ty;
    double acc[2][4] = {};
    if constexpr (STAR) {
      if (a.matrix_mask & 1u) { // P_ver x A': P_ver as A (16 x 4 chunks), the tile as B
        const double* V = mats;
#pragma unroll
        for (int kc = 0; kc < 4; ++kc) {
          const double a0 = V[g * 16 + 4 * kc + t], a1 = V[(g + 8) * 16 + 4 * kc + t];
#pragma unroll
          for (int j = 0; j < 2; ++j) ptx::mma_m16n8k4_f64(acc[j], a0, a1, tile[(r0 + 4 * kc + t) * P + c0 + 8 * j + g]);
        }
      }
      if (a.matrix_mask & 2u) {
        const double* H = mats + 256;
#pragma unroll
        for (int kc = 0; kc < 4; ++kc) {
          const double a0 = tile[(r0 + g) * P + c0 + 4 * kc + t], a1 = tile[(r0 + g + 8) * P + c0 + 4 * kc + t];
#pragma unroll
          for (int j = 0; j < 2; ++j)
            if (band_block_live(kc, j, R)) ptx::mma_m16n8k4_f64(acc[j], a0, a1, H[(4 * kc + t) * 16 + 8 * j + g]);
        }
      }
    } else {
#pragma unroll
      for (int q = 0; q < NM; ++q) {
        if (!(a.matrix_mask >> q & 1u)) continue;
        const double* M = mats + q * 256;
        const int rq = r0 + q - R;
#pragma unroll
        for (int kc = 0; kc < 4; ++kc) {
          const double a0 = tile[(rq + g) * P + c0 + 4 * kc + t], a1 = tile[(rq + g + 8) * P + c0 + 4 * kc + t];
#pragma unroll
          for (int j = 0; j < 2; ++j)
            if (band_block_live(kc, j, R)) ptx::mma_m16n8k4_f64(acc[j], a0, a1, M[(4 * kc + t) * 16 + 8 * j + g]);
        }
      }
    }
    finish_tile<double, R, STAR>(acc, tile, w, wm, r0, -1, c0, g, t);
    store_tile<double>(acc, out, L, a.periodic, fast, x0 + 16 * warp, y0 + 16 * ty + g, t, line);
  }
}

} // namespace se::tc
