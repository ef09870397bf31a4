// FlashFFTStencil's 3D pass on FP64 tensor cores (mma.m16n8k4). One block of 8 warps takes a double-layer cube
// pair: two overlapping 16 (y) x 16 (x) x 8 (z) segments of the grid (the first as the real, the second as the
// imaginary layer). Warp w takes slice z = w of both cubes through the 2D chain of flashfft_kernel_1d.cu (step 1
// from the staged slice in shared memory, step 2 fed from step 1's accumulators in registers: the (y, x) DFT);
// its accumulators go to the warp's slot of the block's spectrum buffer, in the accumulator layout (lane
// fastest: conflict-free). Then each of the 256 threads owns one complex (ky, kx) cell: the z DFT over the 8
// slots on CUDA cores, k_f^T / N, and the inverse z DFT for the Sz output slices only, written back to slots
// 0..Sz-1. Warp w < Sz then runs steps 4 and 5 (the inverse (y, x) DFT, fed register to register through the
// plan's swizzled matrices) on slot w and stitches its central Sx x Sy outputs of both cubes out. A warp's
// staging slice and its spectrum slot share memory (the slot is written after the slice is consumed). A lane
// loads its 16 values of the next pair's slices into registers right after staging the current ones, so the
// global loads run under the pair's products.
#include <cuda_runtime.h>

#include <algorithm>
#include <string>

#include "core/error.hpp"
#include "kernels/common/mma_ptx.cuh"
#include "kernels/flashfft/flashfft_launch.hpp"

namespace se::flashfft_gpu {
namespace {

constexpr int kLz = kCubeDepth; // slices per cube: one per warp
constexpr int kP = 16, kXS = kP + 4;
constexpr int kSlot = 2 * kP * kXS; // 640 doubles: the staged slice pair, later the slice's spectrum (512)
constexpr int nFR = 2 * 8 * 64, nGC = 8 * 4 * 32, nGI = 2 * 8 * 64, nFI = 8 * 4 * 32;
constexpr int nMat = nFR + nGC + nGI + nFI;
constexpr int nSP = kLz * 256 * 2; // k_f^T / N per (kz, thread's cell), (re, im)
constexpr int nTW = kLz * kLz * 2; // Fz (re, im), row kz
constexpr int kConsts = nMat + nSP + nTW;

// The cube of tile index ti (x fastest, then y, then z), in 32-bit arithmetic: the host keeps tile counts below
// 2^31, and a 64-bit division is a long subroutine where a 32-bit one is a few instructions.
struct Cube {
  int x0, y0, z0; // first stitched output of the cube (grid sides fit in int)
};
__device__ __forceinline__ Cube cube_of(long long ti, const Pass3dArgs& a) {
  const unsigned t = static_cast<unsigned>(ti), cx = static_cast<unsigned>(a.cx);
  const unsigned cxy = cx * static_cast<unsigned>(a.cy);
  const unsigned tz = t / cxy, rem = t - tz * cxy, ty = rem / cx, tx = rem - ty * cx;
  return {static_cast<int>(tx) * a.Sx, static_cast<int>(ty) * a.Sy, static_cast<int>(tz) * a.Sz};
}

__global__ void __launch_bounds__(kWarps * 32, 2) flashfft_pass_3d(const Pass3dArgs a) {
  extern __shared__ __align__(16) double sm[];
  for (int i = threadIdx.x; i < kConsts; i += blockDim.x) sm[i] = a.consts[i];
  __syncthreads();
  const double2* FR = reinterpret_cast<const double2*>(sm);
  const double* GC = sm + nFR;
  const double2* GI = reinterpret_cast<const double2*>(sm + nFR + nGC);
  const double* FI = sm + nFR + nGC + nGI;
  const double2* SP = reinterpret_cast<const double2*>(sm + nMat);
  const double2* TW = reinterpret_cast<const double2*>(sm + nMat + nSP);
  double* slots = sm + kConsts;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
  double* X = slots + warp * kSlot;
  const int Sx = a.Sx, Sy = a.Sy, Sz = a.Sz, R = a.R;

  // Slice z = warp of both cubes of a pair, 8 values per lane and layer (cell i = lane + 32 k: row i / 16 = y,
  // column i % 16 = x), every load issued before any is used; a missing second cube is zero.
  const auto load_slice = [&](long long pair, double (&v)[2][8]) {
#pragma unroll
    for (int layer = 0; layer < 2; ++layer) {
      const long long ti = 2 * pair + layer;
      if (pair >= a.pairs || ti >= a.tiles) {
#pragma unroll
        for (int k = 0; k < 8; ++k) v[layer][k] = 0.0;
        continue;
      }
      const Cube c = cube_of(ti, a);
      const long long x0 = c.x0 - R, y0 = c.y0 - R;
      long long gz = c.z0 - R + warp;
      bool zin = gz >= 0 && gz < a.nz;
      if (!zin && a.periodic) {
        gz = ((gz % a.nz) + a.nz) % a.nz;
        zin = true;
      }
#pragma unroll
      for (int k = 0; k < 8; ++k) {
        const int i = lane + 32 * k, y = i >> 4, x = i & 15;
        long long gx = x0 + x, gy = y0 + y;
        bool ok = zin;
        if (gx < 0 || gx >= a.nx) {
          if (a.periodic) gx = ((gx % a.nx) + a.nx) % a.nx;
          else ok = false;
        }
        if (gy < 0 || gy >= a.ny) {
          if (a.periodic) gy = ((gy % a.ny) + a.ny) % a.ny;
          else ok = false;
        }
        v[layer][k] = ok ? a.in[(gz * a.ny + gy) * a.nx + gx] : a.boundary_value;
      }
    }
  };
  double v[2][8];
  load_slice(blockIdx.x, v);

  for (long long pair = blockIdx.x; pair < a.pairs; pair += gridDim.x) {
    // ---- stage slice z = warp of both cubes (loaded during the previous pair), then load the next pair's
#pragma unroll
    for (int layer = 0; layer < 2; ++layer)
#pragma unroll
      for (int k = 0; k < 8; ++k) {
        const int i = lane + 32 * k;
        X[(layer * kP + (i >> 4)) * kXS + (i & 15)] = v[layer][k];
      }
    load_slice(pair + gridDim.x, v);
    __syncwarp();

    // ---- step 1: [Pr; Pi] = FR x X
    double c1[2][2][4];
#pragma unroll
    for (int mi = 0; mi < 2; ++mi)
#pragma unroll
      for (int nj = 0; nj < 2; ++nj)
#pragma unroll
        for (int r = 0; r < 4; ++r) c1[mi][nj][r] = 0.0;
#pragma unroll
    for (int kk = 0; kk < 8; ++kk) {
      double b[2];
#pragma unroll
      for (int nj = 0; nj < 2; ++nj) b[nj] = X[(4 * kk + t) * kXS + 8 * nj + g];
#pragma unroll
      for (int mi = 0; mi < 2; ++mi) {
        const double2 av = FR[(mi * 8 + kk) * 32 + lane];
#pragma unroll
        for (int nj = 0; nj < 2; ++nj) ptx::mma_m16n8k4_f64(c1[mi][nj], av.x, av.y, b[nj]);
      }
    }
    // ---- step 2: [Qr | Qi] = [Pr | Pi] x G, A from c1
    double c2[4][4];
#pragma unroll
    for (int nj = 0; nj < 4; ++nj)
#pragma unroll
      for (int r = 0; r < 4; ++r) c2[nj][r] = 0.0;
#pragma unroll
    for (int kc = 0; kc < 4; ++kc)
#pragma unroll
      for (int j = 0; j < 2; ++j) {
        const int kk = 2 * kc + j;
        double b[4];
#pragma unroll
        for (int nj = 0; nj < 4; ++nj) b[nj] = GC[(kk * 4 + nj) * 32 + lane];
        const double a0 = kc < 2 ? c1[0][kc][j] : c1[1][kc - 2][j];
        const double a1 = kc < 2 ? c1[0][kc][2 + j] : c1[1][kc - 2][2 + j];
#pragma unroll
        for (int nj = 0; nj < 4; ++nj) ptx::mma_m16n8k4_f64(c2[nj], a0, a1, b[nj]);
      }
    __syncwarp(); // every lane has read its staged slice: the slot now takes the spectrum
#pragma unroll
    for (int nj = 0; nj < 4; ++nj)
#pragma unroll
      for (int r = 0; r < 4; ++r) X[(nj * 4 + r) * 32 + lane] = c2[nj][r];
    __syncthreads();

    // ---- z DFT, k_f^T / N, inverse z DFT for the output slices: thread = (c, r, lane), one complex cell
    {
      const int cell = threadIdx.x; // (c * 4 + r) * 32 + lane, c in 0..1: Re at tile c, Im at tile c + 2
      double zr[kLz], zi[kLz];
#pragma unroll
      for (int z = 0; z < kLz; ++z) {
        zr[z] = slots[z * kSlot + cell];
        zi[z] = slots[z * kSlot + cell + 256];
      }
      double fr[kLz], fi[kLz];
#pragma unroll
      for (int k = 0; k < kLz; ++k) {
        double sr = 0.0, si = 0.0;
#pragma unroll
        for (int z = 0; z < kLz; ++z) {
          const double2 w = TW[k * kLz + z];
          sr = fma(zr[z], w.x, fma(-zi[z], w.y, sr));
          si = fma(zr[z], w.y, fma(zi[z], w.x, si));
        }
        const double2 s = SP[k * 256 + cell];
        fr[k] = sr * s.x - si * s.y;
        fi[k] = sr * s.y + si * s.x;
      }
      for (int o = 0; o < Sz; ++o) { // output slice o is cube slice R + o: conj(Fz) row
        const int z = R + o;
        double yr = 0.0, yi = 0.0;
#pragma unroll
        for (int k = 0; k < kLz; ++k) {
          const double2 w = TW[k * kLz + z]; // conj: (w.x, -w.y)
          yr = fma(fr[k], w.x, fma(fi[k], w.y, yr));
          yi = fma(fi[k], w.x, fma(-fr[k], w.y, yi));
        }
        slots[o * kSlot + cell] = yr;
        slots[o * kSlot + cell + 256] = yi;
      }
    }
    __syncthreads();

    if (warp < Sz) {
      double q[4][4];
#pragma unroll
      for (int nj = 0; nj < 4; ++nj)
#pragma unroll
        for (int r = 0; r < 4; ++r) q[nj][r] = X[(nj * 4 + r) * 32 + lane];
      // ---- step 4: [Rr'; Ri'] = G' x Q', B from q transposed
      double c4[2][2][4];
#pragma unroll
      for (int mo = 0; mo < 2; ++mo)
#pragma unroll
        for (int nb = 0; nb < 2; ++nb)
#pragma unroll
          for (int r = 0; r < 4; ++r) c4[mo][nb][r] = 0.0;
#pragma unroll
      for (int kc = 0; kc < 4; ++kc)
#pragma unroll
        for (int j = 0; j < 2; ++j) {
          const int kk = 2 * kc + j;
#pragma unroll
          for (int mo = 0; mo < 2; ++mo) {
            const double2 av = GI[(mo * 8 + kk) * 32 + lane];
#pragma unroll
            for (int nb = 0; nb < 2; ++nb) ptx::mma_m16n8k4_f64(c4[mo][nb], av.x, av.y, q[kc][nb * 2 + j]);
          }
        }
      // ---- step 5: [yr' | yi'] = [Rr' | Ri'] x FR, A from c4
      double c5[4][4];
#pragma unroll
      for (int oc = 0; oc < 4; ++oc)
#pragma unroll
        for (int r = 0; r < 4; ++r) c5[oc][r] = 0.0;
#pragma unroll
      for (int kc = 0; kc < 4; ++kc)
#pragma unroll
        for (int j = 0; j < 2; ++j) {
          const int kk = 2 * kc + j;
          double b[4];
#pragma unroll
          for (int oc = 0; oc < 4; ++oc) b[oc] = FI[(kk * 4 + oc) * 32 + lane];
          const double a0 = kc < 2 ? c4[0][kc][j] : c4[1][kc - 2][j];
          const double a1 = kc < 2 ? c4[0][kc][2 + j] : c4[1][kc - 2][2 + j];
#pragma unroll
          for (int oc = 0; oc < 4; ++oc) ptx::mma_m16n8k4_f64(c5[oc], a0, a1, b[oc]);
        }
      __syncwarp(); // the slot's spectrum is in registers: it takes the outputs
#pragma unroll
      for (int oc = 0; oc < 4; ++oc)
#pragma unroll
        for (int r = 0; r < 4; ++r) {
          const int n2 = g + (r >= 2 ? 8 : 0);
          const int layer = oc >= 2 ? 1 : 0;
          const int n1 = 8 * (oc - layer * 2) + 2 * t + (r & 1);
          X[(layer * kP + n1) * kXS + n2] = c5[oc][r];
        }
      __syncwarp();
      for (int layer = 0; layer < 2; ++layer) {
        const long long ti = 2 * pair + layer;
        if (ti >= a.tiles) break;
        const Cube c = cube_of(ti, a);
        const long long ox = c.x0, oy = c.y0, oz = c.z0 + warp;
        if (oz >= a.nz) continue;
        const double* Xl = X + layer * kP * kXS;
        // i / Sx for i < 256 as a multiply and shift: with m = ceil(2^16 / Sx) the error i m / 2^16 - i / Sx stays
        // below 256 / 2^16 < 1 / Sx (Sx <= 16), which never crosses the next integer.
        const unsigned inv_sx = (65536u + static_cast<unsigned>(Sx) - 1u) / static_cast<unsigned>(Sx);
        for (int i = lane; i < Sx * Sy; i += 32) {
          const int y = static_cast<int>((static_cast<unsigned>(i) * inv_sx) >> 16), x = i - y * Sx; // i / Sx
          if (ox + x < a.nx && oy + y < a.ny) a.out[(oz * a.ny + oy + y) * a.nx + ox + x] = Xl[(y + R) * kXS + x + R];
        }
      }
    }
    __syncthreads(); // the slots are staged again next pair
  }
}

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    cudaGetLastError();
    throw InputError(std::string("FlashFFTStencil GPU: ") + what + " failed: " + cudaGetErrorString(err));
  }
}

} // namespace

std::size_t constant_doubles_3d() { return static_cast<std::size_t>(kConsts); }
std::size_t shared_bytes_3d() { return static_cast<std::size_t>(kConsts + kWarps * kSlot) * sizeof(double); }

int pass_blocks_3d() { return resident_blocks(reinterpret_cast<const void*>(&flashfft_pass_3d), shared_bytes_3d()); }

void launch_pass_3d(const Pass3dArgs& args, int blocks, cudaStream_t stream) {
  if (args.pairs <= 0) return;
  const int grid = static_cast<int>(std::min<long long>(blocks, args.pairs));
  flashfft_pass_3d<<<grid, kWarps * 32, shared_bytes_3d(), stream>>>(args);
  check(cudaGetLastError(), "the FlashFFTStencil 3D pass launch");
}

} // namespace se::flashfft_gpu
