// Device building blocks of the LoRAStencil kernels: m8n8k4 FP64 MMA and cp.async wrappers, staging a tile
// (with the boundary rule) into shared memory, and one warp's 8x32 output tile for each kind of rank-1 term.
#pragma once
#include <cuda_runtime.h>

#include "kernels/lorastencil/lora_pass_args.hpp"

namespace se::lora_gpu {

// D = A·B + D for one 16x8x4 FP64 tile: A[g][q] = a0, A[g+8][q] = a1, B[q][g] = b, and D[g][2q..2q+1] =
// d0,d1, D[g+8][2q..2q+1] = d2,d3 in lane 4g+q. Hopper runs m16n8k4 at twice the FLOP rate of m8n8k4 (66 vs
// 33 TFLOP/s measured on an H200); on Ampere, where m16n8k4 does not exist, it is the two m8n8k4 it equals.
__device__ __forceinline__ void mma1684(double (&d)[4], double a0, double a1, double b) {
#if __CUDA_ARCH__ >= 900
  asm("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
      : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
      : "d"(a0), "d"(a1), "d"(b));
#else
  asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};"
      : "+d"(d[0]), "+d"(d[1])
      : "d"(a0), "d"(b));
  asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};"
      : "+d"(d[2]), "+d"(d[3])
      : "d"(a1), "d"(b));
#endif
}

__device__ __forceinline__ void cp_async16(double* shared, const double* global) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(shared));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(s), "l"(global));
}
__device__ __forceinline__ void cp_async8(double* shared, const double* global) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(shared));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(s), "l"(global));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;"); }
template <int Pending> __device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(Pending));
}

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
// x0+64+halo-1. Interior tiles (the common case) take a plain row loop of 16-byte copies: one 64-bit
// pointer per row, no division and no bounds test per value; tiles at a face take the per-pair path.
__device__ __forceinline__ void stage_plane(const PassArgs& a, double* dst, long long x0, long long y0, long long z) {
  const int pairs = kTileCols / 2 + a.halo;
  const bool interior = a.aligned_rows && x0 - a.halo >= 0 && x0 + kTileCols + a.halo <= a.nx && y0 - a.radius >= 0 &&
                        y0 - a.radius + a.staged_rows <= a.ny && z >= 0 && z < a.nz;
  if (interior) {
    const int warp = threadIdx.x >> 5, warps = blockDim.x >> 5, lane = threadIdx.x & 31;
    const double* src = a.in + (z * a.ny + y0 - a.radius) * a.nx + x0 - a.halo;
    for (int i = warp; i < a.staged_rows; i += warps) {
      const double* s = src + i * a.nx;
      double* d = dst + i * a.pitch;
      for (int k = lane; k < pairs; k += 32) cp_async16(d + 2 * k, s + 2 * k);
    }
    return;
  }
  const int total = a.staged_rows * pairs;
  for (int idx = threadIdx.x; idx < total; idx += blockDim.x) {
    const int i = idx / pairs, k = idx - i * pairs;
    stage_pair(a, dst + i * a.pitch + 2 * k, x0 - a.halo + 2 * k, y0 - a.radius + i, z);
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

// acc[n] += U·X over KC chunks of 4 input rows and N tiles of 8 columns: the first product of a chain (N = T's
// tiles) and, on its own, a term whose v is one weight folded into u (N = the warp's output tiles).
template <int KC, int N>
__device__ __forceinline__ void gather_rows(const double* x, int pitch, const double2* utab, double (&acc)[N][4]) {
#pragma unroll
  for (int c = 0; c < KC; ++c) {
    const double2 u = utab[c * 32];
    const double* row = x + 4 * c * pitch;
#pragma unroll
    for (int n = 0; n < N; ++n) mma1684(acc[n], u.x, u.y, row[8 * n]);
  }
}

// T = U·X over KC chunks and NT tiles, then Y += T'·V' straight from T's accumulators (butterfly swap:
// registers h and h+2 of T-tile j+d, rows g and g+8, are the A fragment of V' slot (d, h)). No shuffle and no
// shared-memory round trip between the two products.
template <int KC, bool Wide, int Tiles>
__device__ __forceinline__ void full_term(const double* x, int pitch, const double2* utab, const double* vtab,
                                          double (&acc)[Tiles][4]) {
  constexpr int D = Wide ? 2 : 1;
  constexpr int NT = Tiles + D;
  double t[NT][4];
#pragma unroll
  for (int tt = 0; tt < NT; ++tt) t[tt][0] = t[tt][1] = t[tt][2] = t[tt][3] = 0.0;
  gather_rows<KC, NT>(x, pitch, utab, t);
#pragma unroll
  for (int d = 0; d <= D; ++d)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const double v = vtab[(2 * d + h) * 32];
#pragma unroll
      for (int j = 0; j < Tiles; ++j) mma1684(acc[j], t[j + d][h], t[j + d][h + 2], v);
    }
}

// Y += X·V: the term's u is one weight (folded into v); also the whole 1D stencil, rows being segments.
// Output tile j reads A chunks 2j .. 2j+KC-1, so each chunk is loaded once and used by up to 3 tiles.
template <int KC, int Tiles>
__device__ __forceinline__ void col_term(const double* x, int pitch, const double* tab, double (&acc)[Tiles][4]) {
  double v[KC];
#pragma unroll
  for (int c = 0; c < KC; ++c) v[c] = tab[c * 32];
#pragma unroll
  for (int m = 0; m < 2 * (Tiles - 1) + KC; ++m) {
    const double a0 = x[4 * m], a1 = x[8 * pitch + 4 * m];
#pragma unroll
    for (int j = 0; j < Tiles; ++j) {
      const int c = m - 2 * j;
      if (c >= 0 && c < KC) mma1684(acc[j], a0, a1, v[c]);
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
template <int Tiles>
__device__ __forceinline__ void scalar_term(const double* x, int pitch, double s, double (&acc)[Tiles][4]) {
#pragma unroll
  for (int j = 0; j < Tiles; ++j) {
    acc[j][0] = fma(s, x[8 * j], acc[j][0]);
    acc[j][1] = fma(s, x[8 * j + 1], acc[j][1]);
    acc[j][2] = fma(s, x[8 * pitch + 8 * j], acc[j][2]);
    acc[j][3] = fma(s, x[8 * pitch + 8 * j + 1], acc[j][3]);
  }
}

// Every term of one plane into this warp's accumulators. `plane` is the staged tile (row 0 = tile row -R,
// column xs = tile column -R); (oy0, ox0) is the warp's first output inside the block tile.
template <int Tiles>
__device__ __forceinline__ void plane_terms(const PassArgs& a, int plane_index, const double* plane,
                                            const double* tables, int oy0, int ox0, double (&acc)[Tiles][4]) {
  const int lane = threadIdx.x & 31, g = lane >> 2, q = lane & 3;
  const int R = a.radius, xs = a.halo - a.radius, P = a.pitch;
  const int first = a.plane_first[plane_index], count = a.plane_count[plane_index];
  for (int k = first; k < first + count; ++k) {
    const TermDesc& t = a.terms[k];
    const double* tab = tables + t.table * 32;
    const double2* utab = reinterpret_cast<const double2*>(tab) + lane;
    switch (t.kind) {
    case kFull: {
      const double* x = plane + (oy0 + R - t.wu + q) * P + ox0 + xs + R - t.wv + g;
      const double* vtab = tab + 2 * t.kc * 32 + lane;
      switch (t.kc * 2 + t.wide) { // kc = 4 + ceil(wu/2), wide = wv > 4: every pair that occurs
      case 10: full_term<5, false, Tiles>(x, P, utab, vtab, acc); break;
      case 11: full_term<5, true, Tiles>(x, P, utab, vtab, acc); break;
      case 12: full_term<6, false, Tiles>(x, P, utab, vtab, acc); break;
      case 13: full_term<6, true, Tiles>(x, P, utab, vtab, acc); break;
      case 14: full_term<7, false, Tiles>(x, P, utab, vtab, acc); break;
      case 15: full_term<7, true, Tiles>(x, P, utab, vtab, acc); break;
      case 16: full_term<8, false, Tiles>(x, P, utab, vtab, acc); break;
      case 17: full_term<8, true, Tiles>(x, P, utab, vtab, acc); break;
      default: break;
      }
      break;
    }
    case kRowGather: { // Y += U·X: the term's v is one weight (folded into u)
      const double* x = plane + (oy0 + R - t.wu + q) * P + ox0 + xs + R + g;
      switch (t.kc) {
      case 5: gather_rows<5, Tiles>(x, P, utab, acc); break;
      case 6: gather_rows<6, Tiles>(x, P, utab, acc); break;
      case 7: gather_rows<7, Tiles>(x, P, utab, acc); break;
      case 8: gather_rows<8, Tiles>(x, P, utab, acc); break;
      default: break;
      }
      break;
    }
    case kColGather:
      col_term_any<Tiles>(t.kc, plane + (oy0 + R + g) * P + ox0 + xs + R - t.wv + q, P, tab + lane, acc);
      break;
    default:
      scalar_term<Tiles>(plane + (oy0 + R + t.dy + g) * P + ox0 + xs + R + t.dx + 2 * q, P, t.scalar, acc);
      break;
    }
  }
}

// Two values of a C fragment to row `row` at column c (even): one 16-byte store when the row is aligned.
__device__ __forceinline__ void store_pair(const PassArgs& a, double* row, long long c, double v0, double v1) {
  if (a.aligned_rows && c + 1 < a.nx) {
    *reinterpret_cast<double2*>(row + c) = make_double2(v0, v1);
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

// The host side of every pass kernel: `blocks` 0 returns the resident blocks per SM, else launches.
template <typename Kernel>
int launch_or_occupancy(Kernel kernel, int threads, const PassArgs& args, int blocks, std::size_t shared,
                        cudaStream_t stream) {
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared));
  if (blocks == 0) {
    int per_sm = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, shared);
    return per_sm;
  }
  kernel<<<blocks, threads, shared, stream>>>(args);
  return blocks;
}

} // namespace se::lora_gpu
