// The ConvStencil pass kernel (FP64 tensor cores, mma.m16n8k4), one instance per fused-kernel width K and
// dimension. A warp tile is 16 segments of U = K + 1 outputs (the m = 16 of the MMA) by RW output rows:
//
// 1. stencil2row: the block copies its input window into shared memory as the two matrices of ConvStencil,
//    A (columns [sU, sU + K) of segment s) and B (columns [sU + K, sU + 2K)), each row of a segment padded with
//    zeros to 4-wide K chunks. Which input column lands in which slot is the plan's lookup table (uploaded once;
//    the slots of a segment are rotated against bank conflicts, cs_swizzle).
// 2. dual tessellation: per input row the warp loads the A and B fragments of its 16 segments once and
//    multiplies them with the lower- (A) and strictly upper-triangular (B) kernel matrices of every kernel row
//    i, accumulating into output row y = input row - i: one fragment serves up to K output rows, whose
//    accumulators stay in registers. The kernel fragments live in registers when there are at most 32 of them,
//    else in shared memory, lane-ordered (conflict-free).
// 3. The accumulators (D[g][2q..2q+1] of segment g and g + 8) are stored to global memory; in 1D with NPASS > 1
//    they go to shared memory first and steps 1-2 repeat from there (the tile rows are strips of the line).
// Nothing outside the arrays is read: every shared-memory slot a fragment load touches is written in step 1.
#pragma once
#include <cuda_runtime.h>

#include "kernels/common/cp_async.cuh"
#include "kernels/common/mma_ptx.cuh"
#include "kernels/convstencil/cs_pass_args.hpp"

namespace se::conv_gpu {

__device__ __forceinline__ double cs_load(const CsPassArgs& a, long long gx, long long gy, long long gz) {
  const bool inside = gx >= 0 && gx < a.nx && gy >= 0 && gy < a.ny && gz >= 0 && gz < a.nz;
  if (!inside) {
    if (!a.periodic) return a.boundary_value;
    gx = ((gx % a.nx) + a.nx) % a.nx;
    gy = ((gy % a.ny) + a.ny) % a.ny;
    gz = ((gz % a.nz) + a.nz) % a.nz;
  }
  return __ldg(a.in + (gz * a.ny + gy) * a.nx + gx);
}

// NPASS (1D only): passes of W^T per launch. Pass p computes BY x 16U outputs from x0 - (NPASS - p) R into
// shared memory (P), the next pass reads them from P; the last writes (strips - 1) x 16U outputs to the grid.
template <int K, int DIMS, int NPASS>
__global__ void __launch_bounds__(32 * cs_warps_y(K, DIMS) * cs_warps_z(K, DIMS))
    cs_pass_kernel(const CsPassArgs a) {
  static_assert(NPASS == 1 || DIMS == 1, "several passes per launch are 1D only");
  constexpr bool TWICE = NPASS > 1;
  constexpr int R = (K - 1) / 2, U = K + 1, CH = (K + 3) / 4, E = 2 * CH, NT = (U + 7) / 8;
  constexpr int SS = 8 * CH, ROWD = kSegmentsPerWarp * SS, TW = kSegmentsPerWarp * U;
  constexpr int RW = cs_rows_per_warp(K, DIMS), NWY = cs_warps_y(K, DIMS), NWZ = cs_warps_z(K, DIMS);
  constexpr int KR = DIMS >= 2 ? K : 1, KP = DIMS == 3 ? K : 1;
  constexpr int BY = RW * NWY, BZ = NWZ;
  constexpr int IN_ROWS = DIMS >= 2 ? BY + 2 * R : BY, IN_PLANES = DIMS == 3 ? BZ + 2 * R : 1;
  constexpr int NKF = KP * KR * E * NT;
  constexpr bool KREG = NKF <= 32;
  extern __shared__ __align__(16) double smem[];
  double* s2r = smem;
  double* ksm = s2r + IN_PLANES * IN_ROWS * ROWD;
  double* P = ksm + (KREG ? 0 : NKF * 32); // TWICE: the first pass's BY x 16U outputs
  int* table = reinterpret_cast<int*>(P + (TWICE ? BY * TW : 0));
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  for (int i = tid; i < ROWD; i += blockDim.x) table[i] = a.table[i];
  if constexpr (!KREG)
    for (int i = tid; i < NKF * 32; i += blockDim.x) ksm[i] = a.kfrag[i];
  __syncthreads();

  constexpr int OUT_STRIPS = TWICE ? BY - 1 : BY; // 1D strips a block writes
  const long long x0 = DIMS == 1 ? static_cast<long long>(blockIdx.x) * OUT_STRIPS * TW : static_cast<long long>(blockIdx.x) * TW;
  const long long y0 = DIMS >= 2 ? static_cast<long long>(blockIdx.y) * BY : 0;
  const long long z0 = DIMS == 3 ? static_cast<long long>(blockIdx.z) * BZ : 0;

  // 1. stencil2row through the lookup table: a warp per tile row, each lane keeping its slots' columns in
  // registers. Blocks whose whole window lies inside the grid read without boundary checks.
  constexpr int SLOTS = ROWD / 32, WARPS = NWY * NWZ;
  int cols[SLOTS];
#pragma unroll
  for (int j = 0; j < SLOTS; ++j) cols[j] = table[lane + 32 * j];
  // The first pass starts (NPASS - 1) R early: its outputs cover [xs, xs + BY 16U).
  const long long xs = x0 - static_cast<long long>(NPASS - 1) * R;
  bool interior;
  if constexpr (DIMS == 1) interior = xs - R >= 0 && xs + static_cast<long long>(BY) * TW + R <= a.nx;
  else
    interior = x0 - R >= 0 && x0 + TW + R <= a.nx && y0 - R >= 0 && y0 + BY + R <= a.ny &&
               (DIMS == 2 || (z0 - R >= 0 && z0 + BZ + R <= a.nz));
  for (int rr = warp; rr < IN_PLANES * IN_ROWS; rr += WARPS) {
    const int row = rr % IN_ROWS, plane = rr / IN_ROWS;
    double* dst = s2r + rr * ROWD;
    long long gx0, gy, gz;
    if constexpr (DIMS == 1) {
      gx0 = xs + static_cast<long long>(row) * TW - R;
      gy = 0;
      gz = 0;
    } else {
      gx0 = x0 - R;
      gy = y0 + row - R;
      gz = DIMS == 3 ? z0 + plane - R : 0;
    }
    if (interior) { // asynchronous copies: every load of the block in flight at once
      const double* src = a.in + (gz * a.ny + gy) * a.nx + gx0;
#pragma unroll
      for (int j = 0; j < SLOTS; ++j) {
        if (cols[j] >= 0) {
          cp_async8(dst + lane + 32 * j, src + cols[j]);
        } else {
          dst[lane + 32 * j] = 0.0;
        }
      }
    } else {
#pragma unroll
      for (int j = 0; j < SLOTS; ++j) dst[lane + 32 * j] = cols[j] >= 0 ? cs_load(a, gx0 + cols[j], gy, gz) : 0.0;
    }
  }
  cp_async_wait_all();
  __syncthreads();

  // 2. dual tessellation on the tensor cores.
  const int wy = warp % NWY, wz = warp / NWY;
  const int g = lane >> 2, q = lane & 3;
  int off0[E], off1[E];
#pragma unroll
  for (int e = 0; e < E; ++e) {
    off0[e] = g * SS + 4 * cs_swizzle(g, e, CH) + q;
    off1[e] = (g + 8) * SS + 4 * cs_swizzle(g + 8, e, CH) + q;
  }
  double kreg[KREG ? NKF : 1];
  if constexpr (KREG) {
#pragma unroll
    for (int f = 0; f < NKF; ++f) kreg[f] = __ldg(a.kfrag + f * 32 + lane);
  }
  double acc[RW][NT][4];
  const auto compute = [&]() {
#pragma unroll
    for (int o = 0; o < RW; ++o)
#pragma unroll
      for (int nt = 0; nt < NT; ++nt)
#pragma unroll
        for (int v = 0; v < 4; ++v) acc[o][nt][v] = 0.0;
    const auto plane = [&](int pz) {
      const double* base = s2r + ((wz + pz) * IN_ROWS + wy * RW) * ROWD;
#pragma unroll
      for (int ir = 0; ir < RW + KR - 1; ++ir) {
        const double* row = base + ir * ROWD;
        double f0[E], f1[E];
#pragma unroll
        for (int e = 0; e < E; ++e) {
          f0[e] = row[off0[e]];
          f1[e] = row[off1[e]];
        }
#pragma unroll
        for (int o = 0; o < RW; ++o) {
          const int i = ir - o;
          if (i < 0 || i >= KR) continue;
#pragma unroll
          for (int e = 0; e < E; ++e)
#pragma unroll
            for (int nt = 0; nt < NT; ++nt) {
              const int f = ((pz * KR + i) * E + e) * NT + nt;
              const double b = KREG ? kreg[KREG ? f : 0] : ksm[f * 32 + lane];
              ptx::mma_m16n8k4_f64(acc[o][nt], f0[e], f1[e], b);
            }
        }
      }
    };
    if constexpr (KREG) {
#pragma unroll
      for (int pz = 0; pz < KP; ++pz) plane(pz);
    } else {
#pragma unroll 1
      for (int pz = 0; pz < KP; ++pz) plane(pz);
    }
  };
  compute();

  if constexpr (TWICE) {
    // Each pass's outputs into P (outside the grid under Dirichlet: the fixed value, as the reference holds it),
    // then stencil2row of P for the next pass. P[i] is the point xs + (p - 1) R + i after pass p.
#pragma unroll 1
    for (int p = 1; p < NPASS; ++p) {
#pragma unroll
      for (int o = 0; o < RW; ++o)
#pragma unroll
        for (int nt = 0; nt < NT; ++nt)
#pragma unroll
          for (int h = 0; h < 2; ++h)
#pragma unroll
            for (int u = 0; u < 2; ++u) {
              const int t = 8 * nt + 2 * q + u;
              if (t >= U) continue;
              const int at = (wy * RW + o) * TW + (g + 8 * h) * U + t;
              const long long gx = xs + static_cast<long long>(p - 1) * R + at;
              P[at] = a.periodic || (gx >= 0 && gx < a.nx) ? acc[o][nt][2 * h + u] : a.boundary_value;
            }
      __syncthreads();
      // Strip BY - 1 reaches 2R past P: zeros there. Its last 2R outputs are wrong after each pass, so after
      // pass p the valid points end 2R (p - 1) before P's end; the last pass reads no further than
      // (BY - 1) 16U + 2R, which stays valid while 2R (NPASS - 1) <= 16U.
      static_assert(2 * R * (NPASS - 1) <= TW, "too many passes per launch for this width");
      for (int rr = warp; rr < BY; rr += WARPS) {
#pragma unroll
        for (int j = 0; j < SLOTS; ++j) {
          const int at = rr * TW + cols[j];
          s2r[rr * ROWD + lane + 32 * j] = cols[j] >= 0 && at < BY * TW ? P[at] : 0.0;
        }
      }
      __syncthreads();
      compute();
    }
  }

  // 3. store.
#pragma unroll
  for (int o = 0; o < RW; ++o) {
    long long xb, gy;
    const long long gz = z0 + wz;
    if constexpr (DIMS == 1) {
      xb = x0 + static_cast<long long>(wy * RW + o) * TW;
      gy = wy * RW + o < OUT_STRIPS ? 0 : a.ny; // TWICE: the last strip is not written
    } else {
      xb = x0;
      gy = y0 + wy * RW + o;
    }
    if (gy >= a.ny || gz >= a.nz) continue;
    double* orow = a.out + (gz * a.ny + gy) * a.nx;
#pragma unroll
    for (int nt = 0; nt < NT; ++nt)
#pragma unroll
      for (int h = 0; h < 2; ++h)
#pragma unroll
        for (int u = 0; u < 2; ++u) {
          const int t = 8 * nt + 2 * q + u;
          if (t >= U) continue;
          const long long gx = xb + (g + 8 * h) * U + t;
          if (gx < a.nx) orow[gx] = acc[o][nt][2 * h + u];
        }
  }
}

template <int K, int DIMS, int NPASS = 1>
void cs_launch(const CsPassArgs& a, const CsBlockShape& s, cudaStream_t stream) {
  const auto kernel = cs_pass_kernel<K, DIMS, NPASS>;
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(s.shared_bytes));
  const dim3 grid(static_cast<unsigned>(s.tiles_x), static_cast<unsigned>(s.tiles_y), static_cast<unsigned>(s.tiles_z));
  kernel<<<grid, s.threads(), s.shared_bytes, stream>>>(a);
}

} // namespace se::conv_gpu
