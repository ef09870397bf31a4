// FlashFFTStencil's 1D and 2D pass on FP64 tensor cores (mma.m16n8k4). One warp takes a double-layer tile pair:
// two overlapping segments (the first as the real, the second as the imaginary layer) staged in shared memory,
// in 1D of L = L1 L2 points by diagonal indexing (position l to cell (l mod L1, l mod L2): coalesced global
// loads, no bank conflicts), in 2D as L1 (y) x L2 (x) tiles row by row; then five products without leaving the
// warp (in 2D F1 is the y DFT and F2 the x DFT, the same chain):
//   1  [Pr; Pi] = forward_rows x [xr; xi]        data operand B from shared memory
//   2  [Qr | Qi] = [Pr | Pi] x G (swizzled)      A fed from step 1's accumulators in registers
//   3  Q *= k_f^T / N                            in the accumulators (squeezing registers)
//   4  [Rr'; Ri'] = G' (swizzled) x [Qr | Qi]'   B fed from step 2's accumulators, transposed, in registers
//   5  [yr' | yi'] = [Rr' | Ri'] x forward_rows  A fed from step 4's accumulators
// The swizzled matrices are core's plan (core/flashfft): their K index runs in the register feed's order
// [0 2 4 6 1 3 5 7], which holds for m16n8k4 as for m8n8k4 (the rows g and g+8 of one lane's C both feed A).
// The stitched S central outputs go back through shared memory and out coalesced.
#include <cuda_runtime.h>

#include <algorithm>

#include <string>

#include "core/error.hpp"
#include "kernels/common/mma_ptx.cuh"
#include "kernels/flashfft/flashfft_launch.hpp"

namespace se::flashfft_gpu {
namespace {

template <int T1, int T2> struct Layout {
  static constexpr int P1 = 16 * T1, P2 = 16 * T2;
  static constexpr int XS = P2 + 4; // staging row stride: 4 t + g spreads a B fragment's half-warp over the banks
  static constexpr int nFR = (2 * T1) * (8 * T1) * 64; // step 1 A: m-tiles x k-steps x lanes x 2
  static constexpr int nGC = (8 * T2) * (4 * T2) * 32; // step 2 B: k-steps x n-tiles x lanes
  static constexpr int nGI = (2 * T2) * (8 * T2) * 64; // step 4 A
  static constexpr int nFI = (8 * T1) * (4 * T1) * 32; // step 5 B
  static constexpr int nSP = T1 * (2 * T2) * 32 * 8;   // k_f^T / N in step 2's accumulator layout (re, im) x 4
  static constexpr int consts = nFR + nGC + nGI + nFI + nSP;
  static constexpr int stage = 2 * P1 * XS; // one warp's segment pair
};

template <int T1, int T2> __global__ void __launch_bounds__(kWarps * 32) flashfft_pass_1d(const Pass1dArgs a) {
  using Lay = Layout<T1, T2>;
  constexpr int P1 = Lay::P1, XS = Lay::XS;
  extern __shared__ __align__(16) double sm[];
  for (int i = threadIdx.x; i < Lay::consts; i += blockDim.x) sm[i] = a.consts[i];
  __syncthreads();
  const double2* FR = reinterpret_cast<const double2*>(sm);
  const double* GC = sm + Lay::nFR;
  const double2* GI = reinterpret_cast<const double2*>(sm + Lay::nFR + Lay::nGC);
  const double* FI = sm + Lay::nFR + Lay::nGC + Lay::nGI;
  const double* SP = FI + Lay::nFI;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
  double* X = sm + Lay::consts + warp * Lay::stage;
  const int L1 = a.L1, L2 = a.L2, L = L1 * L2;
  const int step1 = 32 % L1, step2 = 32 % L2;

  for (long long pair = static_cast<long long>(blockIdx.x) * kWarps + warp; pair < a.pairs;
       pair += static_cast<long long>(gridDim.x) * kWarps) {
    // ---- stage the two segments (padding cells zero)
    for (int i = lane; i < Lay::stage; i += 32) X[i] = 0.0;
    __syncwarp();
    for (int layer = 0; layer < 2; ++layer) {
      const long long ti = 2 * pair + layer;
      if (ti >= a.tiles) break;
      double* Xl = X + layer * P1 * XS;
      if (a.dims == 1) { // diagonal indexing: position l to cell (l mod L1, l mod L2)
        const long long s0 = ti * a.Sx - a.R;
        int n1 = lane % L1, n2 = lane % L2;
        for (int l = lane; l < L; l += 32) {
          const long long p = s0 + l;
          double v;
          if (p >= 0 && p < a.nx) v = a.in[p];
          else if (a.periodic) v = a.in[((p % a.nx) + a.nx) % a.nx];
          else v = a.boundary_value;
          Xl[n1 * XS + n2] = v;
          n1 += step1;
          if (n1 >= L1) n1 -= L1;
          n2 += step2;
          if (n2 >= L2) n2 -= L2;
        }
      } else { // row-column: cell (y, x), rows read coalesced
        const long long x0 = (ti % a.cx) * a.Sx - a.R, y0 = (ti / a.cx) * a.Sy - a.R;
        for (int i = lane; i < L; i += 32) {
          const int y = i / L2, x = i - y * L2;
          long long gx = x0 + x, gy = y0 + y;
          double v;
          if (gx >= 0 && gx < a.nx && gy >= 0 && gy < a.ny) v = a.in[gy * a.nx + gx];
          else if (a.periodic) {
            gx = ((gx % a.nx) + a.nx) % a.nx;
            gy = ((gy % a.ny) + a.ny) % a.ny;
            v = a.in[gy * a.nx + gx];
          } else v = a.boundary_value;
          Xl[y * XS + x] = v;
        }
      }
    }
    __syncwarp();

    // ---- step 1: [Pr; Pi] = FR x X   (M = 2 P1, N = P2, K = 2 P1)
    double c1[2 * T1][2 * T2][4];
#pragma unroll
    for (int mi = 0; mi < 2 * T1; ++mi)
#pragma unroll
      for (int nj = 0; nj < 2 * T2; ++nj)
#pragma unroll
        for (int r = 0; r < 4; ++r) c1[mi][nj][r] = 0.0;
#pragma unroll
    for (int kk = 0; kk < 8 * T1; ++kk) {
      double b[2 * T2];
#pragma unroll
      for (int nj = 0; nj < 2 * T2; ++nj) b[nj] = X[(4 * kk + t) * XS + 8 * nj + g];
#pragma unroll
      for (int mi = 0; mi < 2 * T1; ++mi) {
        const double2 av = FR[(mi * 8 * T1 + kk) * 32 + lane];
#pragma unroll
        for (int nj = 0; nj < 2 * T2; ++nj) ptx::mma_m16n8k4_f64(c1[mi][nj], av.x, av.y, b[nj]);
      }
    }

    // ---- step 2: [Qr | Qi] = [Pr | Pi] x G   (M = P1, N = 2 P2, K = 2 P2), A from c1
    double c2[T1][4 * T2][4];
#pragma unroll
    for (int mi = 0; mi < T1; ++mi)
#pragma unroll
      for (int nj = 0; nj < 4 * T2; ++nj)
#pragma unroll
        for (int r = 0; r < 4; ++r) c2[mi][nj][r] = 0.0;
#pragma unroll
    for (int kc = 0; kc < 4 * T2; ++kc)
#pragma unroll
      for (int j = 0; j < 2; ++j) {
        const int kk = 2 * kc + j;
        double b[4 * T2];
#pragma unroll
        for (int nj = 0; nj < 4 * T2; ++nj) b[nj] = GC[(kk * 4 * T2 + nj) * 32 + lane];
#pragma unroll
        for (int mi = 0; mi < T1; ++mi) {
          const double a0 = kc < 2 * T2 ? c1[mi][kc][j] : c1[mi + T1][kc - 2 * T2][j];
          const double a1 = kc < 2 * T2 ? c1[mi][kc][2 + j] : c1[mi + T1][kc - 2 * T2][2 + j];
#pragma unroll
          for (int nj = 0; nj < 4 * T2; ++nj) ptx::mma_m16n8k4_f64(c2[mi][nj], a0, a1, b[nj]);
        }
      }

    // ---- step 3: Q *= k_f^T / N (Re and Im of a cell sit in the same lane and register of tiles c and c + 2 T2)
#pragma unroll
    for (int mi = 0; mi < T1; ++mi)
#pragma unroll
      for (int c = 0; c < 2 * T2; ++c) {
        const double2* s = reinterpret_cast<const double2*>(SP + ((mi * 2 * T2 + c) * 32 + lane) * 8);
#pragma unroll
        for (int r = 0; r < 4; ++r) {
          const double2 k = s[r];
          const double re = c2[mi][c][r], im = c2[mi][c + 2 * T2][r];
          c2[mi][c][r] = re * k.x - im * k.y;
          c2[mi][c + 2 * T2][r] = re * k.y + im * k.x;
        }
      }

    // ---- step 4: [Rr'; Ri'] = G' x Q'   (M = 2 P2, N = P1, K = 2 P2), B from c2 transposed
    double c4[2 * T2][2 * T1][4];
#pragma unroll
    for (int mo = 0; mo < 2 * T2; ++mo)
#pragma unroll
      for (int nb = 0; nb < 2 * T1; ++nb)
#pragma unroll
        for (int r = 0; r < 4; ++r) c4[mo][nb][r] = 0.0;
#pragma unroll
    for (int kc = 0; kc < 4 * T2; ++kc)
#pragma unroll
      for (int j = 0; j < 2; ++j) {
        const int kk = 2 * kc + j;
#pragma unroll
        for (int mo = 0; mo < 2 * T2; ++mo) {
          const double2 av = GI[(mo * 8 * T2 + kk) * 32 + lane];
#pragma unroll
          for (int nb = 0; nb < 2 * T1; ++nb) ptx::mma_m16n8k4_f64(c4[mo][nb], av.x, av.y, c2[nb >> 1][kc][(nb & 1) * 2 + j]);
        }
      }

    // ---- step 5: [yr' | yi'] = [Rr' | Ri'] x FR   (M = P2, N = 2 P1, K = 2 P1), A from c4
    double c5[T2][4 * T1][4];
#pragma unroll
    for (int mo = 0; mo < T2; ++mo)
#pragma unroll
      for (int oc = 0; oc < 4 * T1; ++oc)
#pragma unroll
        for (int r = 0; r < 4; ++r) c5[mo][oc][r] = 0.0;
#pragma unroll
    for (int kc = 0; kc < 4 * T1; ++kc)
#pragma unroll
      for (int j = 0; j < 2; ++j) {
        const int kk = 2 * kc + j;
        double b[4 * T1];
#pragma unroll
        for (int oc = 0; oc < 4 * T1; ++oc) b[oc] = FI[(kk * 4 * T1 + oc) * 32 + lane];
#pragma unroll
        for (int mo = 0; mo < T2; ++mo) {
          const double a0 = kc < 2 * T1 ? c4[mo][kc][j] : c4[mo + T2][kc - 2 * T1][j];
          const double a1 = kc < 2 * T1 ? c4[mo][kc][2 + j] : c4[mo + T2][kc - 2 * T1][2 + j];
#pragma unroll
          for (int oc = 0; oc < 4 * T1; ++oc) ptx::mma_m16n8k4_f64(c5[mo][oc], a0, a1, b[oc]);
        }
      }

    // ---- stitch: y' (row n2, column n1 of layer oc / 2 T1) back to the staging cells, then out coalesced
    __syncwarp();
#pragma unroll
    for (int mo = 0; mo < T2; ++mo)
#pragma unroll
      for (int oc = 0; oc < 4 * T1; ++oc)
#pragma unroll
        for (int r = 0; r < 4; ++r) {
          const int n2 = 16 * mo + g + (r >= 2 ? 8 : 0);
          const int layer = oc >= 2 * T1 ? 1 : 0;
          const int n1 = 8 * (oc - layer * 2 * T1) + 2 * t + (r & 1);
          X[(layer * P1 + n1) * XS + n2] = c5[mo][oc][r];
        }
    __syncwarp();
    for (int layer = 0; layer < 2; ++layer) {
      const long long ti = 2 * pair + layer;
      if (ti >= a.tiles) break;
      const double* Xl = X + layer * P1 * XS;
      if (a.dims == 1) {
        const long long o0 = ti * a.Sx;
        int n1 = (a.R + lane) % L1, n2 = (a.R + lane) % L2;
        for (int i = lane; i < a.Sx; i += 32) {
          if (o0 + i < a.nx) a.out[o0 + i] = Xl[n1 * XS + n2];
          n1 += step1;
          if (n1 >= L1) n1 -= L1;
          n2 += step2;
          if (n2 >= L2) n2 -= L2;
        }
      } else {
        const long long ox = (ti % a.cx) * a.Sx, oy = (ti / a.cx) * a.Sy;
        for (int i = lane; i < a.Sx * a.Sy; i += 32) {
          const int y = i / a.Sx, x = i - y * a.Sx;
          if (ox + x < a.nx && oy + y < a.ny) a.out[(oy + y) * a.nx + ox + x] = Xl[(y + a.R) * XS + x + a.R];
        }
      }
    }
    __syncwarp();
  }
}

template <int T1, int T2> const void* kernel_of() { return reinterpret_cast<const void*>(&flashfft_pass_1d<T1, T2>); }

const void* kernel_for(Shape1d s) {
  if (s.t1 == 1 && s.t2 == 1) return kernel_of<1, 1>();
  if (s.t1 == 2 && s.t2 == 1) return kernel_of<2, 1>();
  if (s.t1 == 1 && s.t2 == 2) return kernel_of<1, 2>();
  throw InputError("FlashFFTStencil GPU: no 1D kernel for padded transform " + std::to_string(16 * s.t1) + " x " +
                   std::to_string(16 * s.t2));
}

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    cudaGetLastError();
    throw InputError(std::string("FlashFFTStencil GPU: ") + what + " failed: " + cudaGetErrorString(err));
  }
}

} // namespace

std::size_t constant_doubles(Shape1d s) {
  const int T1 = s.t1, T2 = s.t2;
  return static_cast<std::size_t>((2 * T1) * (8 * T1) * 64 + (8 * T2) * (4 * T2) * 32 + (2 * T2) * (8 * T2) * 64 +
                                  (8 * T1) * (4 * T1) * 32 + T1 * (2 * T2) * 32 * 8);
}

std::size_t shared_bytes(Shape1d s) {
  const std::size_t stage = static_cast<std::size_t>(2 * 16 * s.t1 * (16 * s.t2 + 4));
  return (constant_doubles(s) + kWarps * stage) * sizeof(double);
}

int pass_blocks_1d(Shape1d s) { return resident_blocks(kernel_for(s), shared_bytes(s)); }

int resident_blocks(const void* k, std::size_t bytes) {
  check(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)),
        "cudaFuncSetAttribute");
  int per_sm = 0, device = 0, sms = 0;
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, kWarps * 32, bytes), "the occupancy query");
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "the SM count");
  if (per_sm < 1)
    throw InputError("FlashFFTStencil GPU: a block of " + std::to_string(bytes / 1024) +
                     " KB of shared memory does not fit this device");
  return per_sm * sms;
}

void launch_pass_1d(const Pass1dArgs& args, Shape1d s, int blocks, cudaStream_t stream) {
  if (args.pairs <= 0) return;
  const long long need = (args.pairs + kWarps - 1) / kWarps;
  const int grid = static_cast<int>(std::min<long long>(blocks, need));
  const std::size_t bytes = shared_bytes(s);
  if (s.t1 == 1 && s.t2 == 1) flashfft_pass_1d<1, 1><<<grid, kWarps * 32, bytes, stream>>>(args);
  else if (s.t1 == 2 && s.t2 == 1) flashfft_pass_1d<2, 1><<<grid, kWarps * 32, bytes, stream>>>(args);
  else if (s.t1 == 1 && s.t2 == 2) flashfft_pass_1d<1, 2><<<grid, kWarps * 32, bytes, stream>>>(args);
  else kernel_for(s); // throws
  check(cudaGetLastError(), "the FlashFFTStencil 1D pass launch");
}

} // namespace se::flashfft_gpu
