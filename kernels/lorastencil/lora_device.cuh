// Device building blocks of the LoRAStencil kernels: staging a tile (with the boundary rule)
// into shared memory, and one warp's 8x32 output tile for each kind of rank-1 term. The MMAs are the checked
// wrappers of kernels/common/mma_ptx.cuh; lanes address their operands by core/fragment/lane_coords.hpp.
#pragma once
#include <cuda.h>
#include <cuda_runtime.h>

#include "core/fragment/lane_coords.hpp"
#include "kernels/common/cp_async.cuh"
#include "kernels/common/mma_ptx.cuh"
#include "kernels/common/tma.cuh"
#include "kernels/lorastencil/lora_pass_args.hpp"

namespace se::lora_gpu {

__device__ __forceinline__ long long wrap_index(long long i, long long n) {
  const long long m = i % n;
  return m < 0 ? m + n : m;
}

// One staged value: a copy from the grid, the periodic image, or the Dirichlet value written directly.
__device__ __forceinline__ void stage_value(const PassArgs& a, double* dst, long long x, long long y, long long z) {
  if (a.periodic) {
    x = wrap_index(x, a.nx);
    y = wrap_index(y, a.ny);
    z = wrap_index(z, a.nz);
  } else if (x < 0 || x >= a.nx || y < 0 || y >= a.ny || z < 0 || z >= a.nz) {
    *dst = a.boundary_value;
    return;
  }
  cp_async8(dst, a.in + (z * a.ny + y) * a.nx + x);
}

// Two neighbouring values (x even relative to a 16-byte aligned row): one 16-byte copy when both are inside.
__device__ __forceinline__ void stage_pair(const PassArgs& a, double* dst, long long x, long long y, long long z) {
  if (a.aligned_rows && x >= 0 && x + 1 < a.nx && y >= 0 && y < a.ny && z >= 0 && z < a.nz) {
    cp_async16(dst, a.in + (z * a.ny + y) * a.nx + x);
    return;
  }
  stage_value(a, dst, x, y, z);
  stage_value(a, dst + 1, x + 1, y, z);
}

// Stage plane z of the block tile at (x0, y0): rows y0-R .. y0+staged_rows-R-1, columns x0-halo ..
// x0+64+halo-1, for any nx: one value pair at a time, each with its own bounds test (odd nx only).
__device__ __forceinline__ void stage_plane_any(const PassArgs& a, double* dst, long long x0, long long y0, long long z) {
  const int pairs = kTileCols / 2 + a.halo;
  const int total = a.staged_rows * pairs;
  for (int idx = threadIdx.x; idx < total; idx += blockDim.x) {
    const int i = idx / pairs, k = idx - i * pairs;
    stage_pair(a, dst + i * a.pitch + 2 * k, x0 - a.halo + 2 * k, y0 - a.radius + i, z);
  }
}

// Where the staged pair at grid column gx (even) comes from: gx inside the grid, its periodic image, or -1 past a
// Dirichlet face (the boundary value is written instead). With nx even a pair never straddles a face.
__device__ __forceinline__ int pair_source(const PassArgs& a, int gx) {
  if (gx >= 0 && gx < a.nx) return gx;
  return a.periodic ? static_cast<int>(wrap_index(gx, a.nx)) : -1;
}

// The same plane when nx is even (16-byte aligned rows), every tile face or not: a warp per staged row, lane l
// copying pairs l and l+32. The column sources are the same in every row, so the boundary rule costs a test per
// lane per plane and one per row, and a row costs about a dozen instructions (no division, no 64-bit index).
__device__ __forceinline__ void stage_plane(const PassArgs& a, double* dst, long long x0, long long y0, long long z) {
  if (!a.aligned_rows) {
    stage_plane_any(a, dst, x0, y0, z);
    return;
  }
  const int warp = threadIdx.x >> 5, warps = blockDim.x >> 5, lane = threadIdx.x & 31;
  const int first = static_cast<int>(x0) - a.halo + 2 * lane;
  const int c0 = pair_source(a, first);
  const int c1 = lane + 32 < kTileCols / 2 + a.halo ? pair_source(a, first + 64) : -2; // -2: no second pair
  long long zz = z;
  bool plane_inside = true;
  if (z < 0 || z >= a.nz) {
    if (a.periodic) zz = wrap_index(z, a.nz);
    else plane_inside = false;
  }
  const double* plane = a.in + zz * a.ny * a.nx;
  const unsigned lane_shared = shared_address(dst) + 16u * lane;
  const double2 fill = make_double2(a.boundary_value, a.boundary_value);
  const int row0 = static_cast<int>(y0) - a.radius;
  for (int i = warp; i < a.staged_rows; i += warps) {
    int y = row0 + i;
    bool inside = plane_inside;
    if (y < 0 || y >= a.ny) {
      if (a.periodic) y = static_cast<int>(wrap_index(y, a.ny));
      else inside = false;
    }
    const double* row = plane + static_cast<long long>(y) * a.nx;
    const unsigned s = lane_shared + 8u * static_cast<unsigned>(i * a.pitch);
    double2* d = reinterpret_cast<double2*>(dst + i * a.pitch) + lane;
    if (inside && c0 >= 0) cp_async16_at(s, row + c0);
    else *d = fill;
    if (inside && c1 >= 0) cp_async16_at(s + 512u, row + c1);
    else if (c1 != -2) d[32] = fill;
  }
}

// ---- Hopper: one bulk copy (cp.async.bulk) per staged row, completion counted on an mbarrier ----
// Every warp stages some rows of a plane (row i goes to warp i mod W, lane i / W) and issues one copy per row
// (the inside part of the row; a periodic row wraps into at most three); each warp arrives once on the plane's
// barrier, announcing its bytes, so the barrier counts W arrivals. Spreading the rows keeps the warps in step:
// a copy costs a warp a few instructions per lane (the address goes to a uniform register). Needs nx even
// (16-byte aligned rows) and, when periodic, nx at least a staged row's width (each side wraps at most once).
#define SE_LORA_BULK SE_TMA

__device__ __forceinline__ bool use_bulk_staging(const PassArgs& a) {
  return SE_LORA_BULK && a.aligned_rows && (!a.periodic || a.nx >= kTileCols + 2 * a.halo);
}

__device__ __forceinline__ void mbarrier_init(unsigned long long* bar, unsigned count) { tma::barrier_init(bar, count); }

// Waits until the current phase of `bar` with the given parity has completed (all copies landed).
__device__ __forceinline__ void mbarrier_wait(unsigned long long* bar, unsigned parity) { tma::barrier_wait(bar, parity); }

__device__ __forceinline__ void bulk_copy(double* dst, const double* src, unsigned bytes, unsigned long long* bar) {
#if SE_LORA_BULK
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                   shared_address(dst)),
               "l"(src), "r"(bytes), "r"(shared_address(bar))
               : "memory");
#endif
}

// Stage plane z of the block tile at (x0, y0) with bulk copies completing on `bar` (called by every thread of
// the block; `bar` expects one arrival per warp). A warp first writes the Dirichlet value into its rows' parts
// past a face with plain stores, then its lane 0 arrives announcing the warp's bytes, then the copies go out.
__device__ __forceinline__ void stage_plane_bulk(const PassArgs& a, double* dst, long long x0, long long y0, long long z,
                                                 unsigned long long* bar) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  const int cols = kTileCols + 2 * a.halo;
  const long long gx0 = x0 - a.halo, gx1 = gx0 + cols;
  long long zz = z;
  bool plane_inside = true;
  if (z < 0 || z >= a.nz) {
    if (a.periodic) zz = wrap_index(z, a.nz);
    else plane_inside = false;
  }
  // Columns [lo, hi) of a row lie inside the grid; [gx0, lo) and [hi, gx1) are past the faces.
  const long long lo = gx0 > 0 ? gx0 : 0, hi = gx1 < a.nx ? gx1 : a.nx;
  const long long ylo = y0 - a.radius;
  const auto row_y = [&](int i, bool& inside) {
    long long y = ylo + i;
    inside = plane_inside;
    if (y < 0 || y >= a.ny) {
      if (a.periodic) y = wrap_index(y, a.ny);
      else inside = false;
    }
    return y;
  };
  const int first = warp + lane * warps, step = 32 * warps;
  unsigned bytes = 0;
  if (a.periodic) {
    for (int i = first; i < a.staged_rows; i += step) bytes += static_cast<unsigned>(cols) * 8;
  } else {
    const double2 fill = make_double2(a.boundary_value, a.boundary_value);
    for (int i = first; i < a.staged_rows; i += step) {
      bool inside;
      row_y(i, inside);
      if (inside && lo == gx0 && hi == gx1) { // the common case: the whole row comes from the grid
        bytes += static_cast<unsigned>(cols) * 8;
        continue;
      }
      if (inside && hi > lo) bytes += static_cast<unsigned>(hi - lo) * 8;
      double* d = dst + i * a.pitch - gx0; // d[x] holds grid column x
      for (long long x = gx0; x < gx1; x += 2)
        if (!inside || x < lo || x >= hi) *reinterpret_cast<double2*>(d + x) = fill;
        else x = hi - 2; // skip the inside columns
    }
  }
  bytes = __reduce_add_sync(0xffffffffu, bytes);
  if (lane == 0) {
#if SE_LORA_BULK
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(bar)), "r"(bytes)
                 : "memory");
#else
    (void)bytes; // sm_80 builds never take this path (use_bulk_staging)
#endif
  }
  if (first >= a.staged_rows) return;
#if SE_LORA_BULK
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); // earlier plain accesses before the async writes
#endif
  for (int i = first; i < a.staged_rows; i += step) {
    bool inside;
    const long long y = row_y(i, inside);
    if (!inside) continue;
    const double* row = a.in + (zz * a.ny + y) * a.nx;
    double* d = dst + i * a.pitch - gx0; // d[x] holds grid column x
    if (hi > lo) bulk_copy(d + lo, row + lo, static_cast<unsigned>(hi - lo) * 8, bar);
    if (a.periodic) {
      if (lo > gx0) bulk_copy(d + gx0, row + gx0 + a.nx, static_cast<unsigned>(lo - gx0) * 8, bar);
      if (hi < gx1) bulk_copy(d + hi, row + hi - a.nx, static_cast<unsigned>(gx1 - hi) * 8, bar);
    }
  }
}

// Once per block: the fragment tables (the same for every tile) copied to shared memory unless the pass
// reads them from global memory (tables too large for shared memory: general 3D stencils), and zeros in
// every staged plane, so the padding columns and slack rows that no copy ever writes hold finite values.
// Ends with a barrier.
__device__ __forceinline__ void prepare_block(const PassArgs& a, double* shared_tables, double* staged, int planes) {
  if (a.tables_in_shared)
    for (int i = threadIdx.x; i < a.table_slots * 32; i += blockDim.x) shared_tables[i] = a.tables[i];
  for (int i = threadIdx.x; i < planes * a.plane_stride; i += blockDim.x) staged[i] = 0.0;
  __syncthreads();
}

// ---- One warp, one rank-1 term, 16 x 8*Tiles outputs (acc[j] is the C fragment of columns 8j..8j+7) ----
// Tiles is 4 in 1D and 2D (T's columns shared by four fragments) and 2 in 3D (twice the warps per staged
// plane ring). `x` points at the staged element this lane reads first; the offsets below step whole chunks
// and tiles. `utab` holds a U chunk as (row g, row g+8) pairs per lane; `tab` B fragments, one per lane.

// Fold (3D mirror folding, LoraPlane::folds_mirror): every staged value a term reads is the sum of this plane's
// and its mirror plane's, `dm` doubles further on (the mirror's ring slot): one add per load instead of the mirror
// plane's own MMAs.
template <bool Fold> __device__ __forceinline__ double staged(const double* x, int dm) {
  return Fold ? x[0] + x[dm] : x[0];
}

// acc[n] += U·X over KC chunks of 4 input rows and N tiles of 8 columns: the first product of a chain (N = T's
// tiles) and, on its own, a term whose v is one weight folded into u (N = the warp's output tiles).
template <int KC, int N, bool Fold = false>
__device__ __forceinline__ void gather_rows(const double* x, int pitch, const double2* utab, double (&acc)[N][4],
                                            int dm = 0) {
#pragma unroll
  for (int c = 0; c < KC; ++c) {
    const double2 u = utab[c * 32];
    const double* row = x + 4 * c * pitch;
#pragma unroll
    for (int n = 0; n < N; ++n) ptx::mma_m16n8k4_f64(acc[n], u.x, u.y, staged<Fold>(row + 8 * n, dm));
  }
}

// T = U·X over KC chunks and NT tiles, then Y += T'·V' straight from T's accumulators (butterfly swap:
// registers h and h+2 of T-tile j+d, rows g and g+8, are the A fragment of V' slot (d, h)). No shuffle and no
// shared-memory round trip between the two products.
template <int KC, bool Wide, int Tiles, bool Fold = false>
__device__ __forceinline__ void full_term(const double* x, int pitch, const double2* utab, const double* vtab,
                                          double (&acc)[Tiles][4], int dm = 0) {
  constexpr int D = Wide ? 2 : 1;
  constexpr int NT = Tiles + D;
  double t[NT][4];
#pragma unroll
  for (int tt = 0; tt < NT; ++tt) t[tt][0] = t[tt][1] = t[tt][2] = t[tt][3] = 0.0;
  gather_rows<KC, NT, Fold>(x, pitch, utab, t, dm);
#pragma unroll
  for (int d = 0; d <= D; ++d)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const double v = vtab[(2 * d + h) * 32];
#pragma unroll
      for (int j = 0; j < Tiles; ++j) ptx::mma_m16n8k4_f64(acc[j], t[j + d][h], t[j + d][h + 2], v);
    }
}

// Y += X·V: the term's u is one weight (folded into v); also the whole 1D stencil, rows being segments.
// Output tile j reads A chunks 2j .. 2j+KC-1, so each chunk is loaded once and used by up to 3 tiles.
template <int KC, int Tiles, bool Fold = false>
__device__ __forceinline__ void col_term(const double* x, int pitch, const double* tab, double (&acc)[Tiles][4],
                                         int dm = 0) {
  double v[KC];
#pragma unroll
  for (int c = 0; c < KC; ++c) v[c] = tab[c * 32];
#pragma unroll
  for (int m = 0; m < 2 * (Tiles - 1) + KC; ++m) {
    const double a0 = staged<Fold>(x + 4 * m, dm), a1 = staged<Fold>(x + 8 * pitch + 4 * m, dm);
#pragma unroll
    for (int j = 0; j < Tiles; ++j) {
      const int c = m - 2 * j;
      if (c >= 0 && c < KC) ptx::mma_m16n8k4_f64(acc[j], a0, a1, v[c]);
    }
  }
}

template <int Tiles>
__device__ __forceinline__ void col_term_any(int kc, const double* x, int pitch, const double* tab,
                                             double (&acc)[Tiles][4]) {
  switch (kc) { // kc = 2 + ceil(wv/2)
  case 3: col_term<3, Tiles>(x, pitch, tab, acc); break;
  case 4: col_term<4, Tiles>(x, pitch, tab, acc); break;
  case 5: col_term<5, Tiles>(x, pitch, tab, acc); break;
  case 6: col_term<6, Tiles>(x, pitch, tab, acc); break;
  default: break;
  }
}

// Y += s * X(dx, dy): the pyramid's apex or a single-weight plane, on CUDA cores.
template <int Tiles, bool Fold = false>
__device__ __forceinline__ void scalar_term(const double* x, int pitch, double s, double (&acc)[Tiles][4], int dm = 0) {
#pragma unroll
  for (int j = 0; j < Tiles; ++j) {
    acc[j][0] = fma(s, staged<Fold>(x + 8 * j, dm), acc[j][0]);
    acc[j][1] = fma(s, staged<Fold>(x + 8 * j + 1, dm), acc[j][1]);
    acc[j][2] = fma(s, staged<Fold>(x + 8 * pitch + 8 * j, dm), acc[j][2]);
    acc[j][3] = fma(s, staged<Fold>(x + 8 * pitch + 8 * j + 1, dm), acc[j][3]);
  }
}

// The staged-plane offsets of a lane's first read, per kind of term, for the warp tile at (oy0, ox0) of the block
// tile: row-type terms (U·X gathers and chains) read row q + 4c, column g + 8n; X·V gathers row g, column q + 4m;
// scalar terms row g, columns 2q, 2q+1. A term adds its own offset (TermDesc::offset). Computed once per kernel.
struct LaneBase {
  int rows, cols, scalar;
};
__device__ __forceinline__ LaneBase lane_base(int pitch, int oy0, int ox0) {
  const int l = threadIdx.x & 31;
  // Rows: X is the B operand of U·X (row q, column g); columns: X is the A operand of X·V (row g, column q);
  // scalars: the accumulator's own elements (row g, columns 2q, 2q+1).
  const FragmentCoord b = lane::f64_b_kx8(l, 0), a = lane::f64_a_16xk(l, 0), c = lane::accumulator_16x8(l, 0);
  return {(oy0 + b.row) * pitch + ox0 + b.col, (oy0 + a.row) * pitch + ox0 + a.col, (oy0 + c.row) * pitch + ox0 + c.col};
}

// One term of key Key (term_key(kind, kc, wide)) into this warp's accumulators. `plane` is the staged tile (row 0 =
// tile row -R, column 0 = tile column -halo); the host computed the term's offset from the lane base of its kind.
template <int Key, int Tiles, bool Fold>
__device__ __forceinline__ void run_term(const PassArgs& a, const TermDesc& t, const double* plane, const double* tables,
                                         const LaneBase& lb, double (&acc)[Tiles][4], int dm) {
  constexpr int kind = Key / 32, kc = (Key % 32) / 2;
  constexpr bool wide = Key % 2 == 1;
  const int lane = threadIdx.x & 31, P = a.pitch;
  const double* tab = tables + t.table * 32;
  const double2* utab = reinterpret_cast<const double2*>(tab) + lane;
  const double* x = plane + t.offset;
  if constexpr (kind == kFull) full_term<kc, wide, Tiles, Fold>(x + lb.rows, P, utab, tab + 2 * kc * 32 + lane, acc, dm);
  else if constexpr (kind == kRowGather) gather_rows<kc, Tiles, Fold>(x + lb.rows, P, utab, acc, dm);
  else if constexpr (kind == kColGather) col_term<kc, Tiles, Fold>(x + lb.cols, P, tab + lane, acc, dm);
  else scalar_term<Tiles, Fold>(x + lb.scalar, P, t.scalar, acc, dm);
}

// Terms first .. first+count-1 (one plane's) into this warp's accumulators: one descriptor load and one jump per
// term, the key selecting the instantiation.
template <int Tiles, bool Fold = false>
__device__ __forceinline__ void plane_terms(const PassArgs& a, int first, int count, const double* plane,
                                            const double* tables, const LaneBase& lb, double (&acc)[Tiles][4],
                                            int dm = 0) {
  for (int k = first; k < first + count; ++k) {
    const TermDesc& t = a.terms[k];
    switch (t.key) {
#define SE_LORA_KEY(KIND, KC, WIDE)                                                                                \
  case term_key(KIND, KC, WIDE): run_term<term_key(KIND, KC, WIDE), Tiles, Fold>(a, t, plane, tables, lb, acc, dm); break;
      SE_LORA_KEY(kFull, 5, 0) SE_LORA_KEY(kFull, 5, 1) SE_LORA_KEY(kFull, 6, 0) SE_LORA_KEY(kFull, 6, 1)
      SE_LORA_KEY(kFull, 7, 0) SE_LORA_KEY(kFull, 7, 1) SE_LORA_KEY(kFull, 8, 0) SE_LORA_KEY(kFull, 8, 1)
      SE_LORA_KEY(kRowGather, 5, 0) SE_LORA_KEY(kRowGather, 6, 0) SE_LORA_KEY(kRowGather, 7, 0)
      SE_LORA_KEY(kRowGather, 8, 0)
      SE_LORA_KEY(kColGather, 3, 0) SE_LORA_KEY(kColGather, 4, 0) SE_LORA_KEY(kColGather, 5, 0)
      SE_LORA_KEY(kColGather, 6, 0)
      SE_LORA_KEY(kScalar, 0, 0)
#undef SE_LORA_KEY
    default: break; // no other key is made (make_pass_args, test_lora_gpu_plan)
    }
  }
}

// Two values of a C fragment to row `row` at column c (even): one 16-byte store when the row is aligned.
__device__ __forceinline__ void store_pair(const PassArgs& a, double* row, long long c, double v0, double v1) {
  if (a.aligned_rows && c + 1 < a.nx) {
    asm volatile("st.global.v2.f64 [%0], {%1, %2};" ::"l"(row + c), "d"(v0), "d"(v1));
  } else {
    if (c < a.nx) row[c] = v0;
    if (c + 1 < a.nx) row[c + 1] = v1;
  }
}

// The warp's C fragments to the grid: rows y and y+8, columns x .. x+1 of each 8-column tile (x = tile x + 2q).
template <int Tiles>
__device__ __forceinline__ void store_tile(const PassArgs& a, const double (&acc)[Tiles][4], long long x, long long y,
                                           long long z) {
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    const long long yy = y + 8 * half;
    if (yy >= a.ny) return;
    double* row = a.out + (z * a.ny + yy) * a.nx;
#pragma unroll
    for (int j = 0; j < Tiles; ++j) store_pair(a, row, x + 8 * j, acc[j][2 * half], acc[j][2 * half + 1]);
  }
}

// The host side of every pass kernel: `blocks` 0 returns the resident blocks per SM, else launches with `params`.
template <typename Kernel, typename... Params>
int launch_or_occupancy(Kernel kernel, int threads, int blocks, std::size_t shared, cudaStream_t stream,
                        const Params&... params) {
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared));
  if (blocks == 0) {
    int per_sm = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, shared);
    return per_sm;
  }
  kernel<<<blocks, threads, shared, stream>>>(params...);
  return blocks;
}

// The 2D/3D staged planes: after the tables, rounded up to kStagedAlign bytes (shared_bytes counts the slack).
__device__ __forceinline__ double* staged_base(double* after_tables) {
  const unsigned misalign = shared_address(after_tables) & (kStagedAlign - 1);
  return after_tables + (misalign ? (kStagedAlign - misalign) / sizeof(double) : 0);
}

__device__ __forceinline__ void tma_copy_plane(const PassArgs& a, const CUtensorMap& map, double* dst, int x0, int y0,
                                               int z, unsigned long long* bar);

// Plane z of the block tile at (x0, y0) by the TMA from the pass's tensor map (box pitch x staged_rows, at
// column x0 - halo, row y0 - R), completing on `bar`, which expects one arrival per warp: lane 0 of warp 0
// announces the box's bytes and issues the copy, lane 0 of every other warp just arrives. Elements outside the
// grid arrive as zeros: callers use it where the box lies inside the grid or the boundary is Dirichlet 0.
__device__ __forceinline__ void stage_plane_tma(const PassArgs& a, const CUtensorMap& map, double* dst, int x0, int y0,
                                                int z, unsigned long long* bar) {
#if SE_LORA_BULK
  if ((threadIdx.x & 31) != 0) return;
  const unsigned b = shared_address(bar);
  if (threadIdx.x != 0) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(b) : "memory");
    return;
  }
#endif
  tma_copy_plane(a, map, dst, x0, y0, z, bar);
}

// The TMA copy itself, by one thread: announce the box's bytes on `bar` (one arrival), then issue the copy.
__device__ __forceinline__ void tma_copy_plane(const PassArgs& a, const CUtensorMap& map, double* dst, int x0, int y0,
                                               int z, unsigned long long* bar) {
  const unsigned bytes = static_cast<unsigned>(a.pitch * a.staged_rows) * sizeof(double);
  const int gx = x0 - a.halo, gy = y0 - a.radius;
  tma::expect_bytes(bar, bytes);
  if (a.dims == 2) tma::copy_box_2d(dst, map, gx, gy, bar);
  else tma::copy_box_3d(dst, map, gx, gy, z, bar);
}

// Whether the TMA box of the tile at (x0, y0), plane z, may stage it: the box lies inside the grid, or every
// element outside it is the Dirichlet value 0 (what the TMA fills in).
__device__ __forceinline__ bool tma_fits(const PassArgs& a, int x0, int y0, int z) {
  if (!a.tensor_map) return false;
  if (!a.periodic && a.boundary_value == 0.0) return true;
  const long long gx = x0 - a.halo, gy = y0 - a.radius;
  return gx >= 0 && gx + a.pitch <= a.nx && gy >= 0 && gy + a.staged_rows <= a.ny && z >= 0 && z < a.nz;
}

} // namespace se::lora_gpu
