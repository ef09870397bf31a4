// The 1D LoRAStencil pass (paper IV-C): one gather Y = X·V, the rows of X being 16 consecutive segments of
// 128 points; persistent blocks keep three 2048-point tiles in flight (cp.async) while computing one.
#include "kernels/lorastencil/lora_device.cuh"
#include "kernels/lorastencil/lora_kernel_entry.hpp"

namespace se::lora_gpu {
namespace {

constexpr long long kLinePoints = static_cast<long long>(kLineRows) * kLineCols;

__device__ __forceinline__ void stage_line(const PassArgs& a, double* dst, long long base) {
  const int pairs = kLineCols / 2 + a.halo;
  if (base - a.halo >= 0 && base + kLinePoints + a.halo <= a.nx) { // interior: one pointer per segment
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    for (int g = warp; g < kLineRows; g += kLineThreads / 32) {
      const double* s = a.in + base + g * kLineCols - a.halo;
      double* d = dst + g * a.pitch;
      for (int k = lane; k < pairs; k += 32) cp_async16(d + 2 * k, s + 2 * k);
    }
    return;
  }
  for (int idx = threadIdx.x; idx < kLineRows * pairs; idx += blockDim.x) {
    const int g = idx / pairs, k = idx - g * pairs;
    stage_pair(a, dst + g * a.pitch + 2 * k, base + g * kLineCols - a.halo + 2 * k, 0, 0);
  }
}

__global__ void __launch_bounds__(kLineThreads, 3) lora_pass_1d(const PassArgs a) {
  extern __shared__ __align__(16) double shared[];
  const double* tables = shared; // 1D and 2D tables always fit (make_pass_args)
  double* staged = shared + a.table_slots * 32;
  prepare_block(a, shared, staged, kLineStages);

  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  // X is the A operand of the X·V gather; the accumulator's elements go straight to global memory.
  const FragmentCoord x_at = lane::f64_a_16xk(lane, 0), y_at = lane::accumulator_16x8(lane, 0);
  const TermDesc& t = a.terms[0];
  const int col0 = warp * kWarpCols; // this warp's first output column in every segment
  const auto buffer = [&](int k) { return staged + (k % kLineStages) * a.plane_stride; };

  // Prologue: the first kLineStages - 1 tiles of this block, one commit group each.
  for (int s = 0; s < kLineStages - 1; ++s) {
    const long long item = blockIdx.x + static_cast<long long>(s) * gridDim.x;
    if (item < a.items) stage_line(a, buffer(s), item * kLinePoints);
    cp_async_commit();
  }
  int k = 0;
  for (long long item = blockIdx.x; item < a.items; item += gridDim.x, ++k) {
    const long long ahead = item + static_cast<long long>(kLineStages - 1) * gridDim.x;
    if (ahead < a.items) stage_line(a, buffer(k + kLineStages - 1), ahead * kLinePoints);
    cp_async_commit();
    cp_async_wait<kLineStages - 1>();
    __syncthreads();
    double acc[4][4] = {};
    col_term_any<4>(t.kc, buffer(k) + x_at.row * a.pitch + col0 + a.halo - t.wv + x_at.col, a.pitch, tables + t.table * 32 + lane,
                 acc);
    const long long first = item * kLinePoints + y_at.row * kLineCols + col0 + y_at.col;
#pragma unroll
    for (int half = 0; half < 2; ++half)
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const long long c = first + 8 * half * kLineCols + 8 * j;
        if (c + 1 < a.nx) *reinterpret_cast<double2*>(a.out + c) = make_double2(acc[j][2 * half], acc[j][2 * half + 1]);
        else if (c < a.nx) a.out[c] = acc[j][2 * half];
      }
    __syncthreads();
  }
}

} // namespace

int run_pass_1d(const PassArgs& args, int blocks, std::size_t shared, cudaStream_t stream) {
  return launch_or_occupancy(lora_pass_1d, kLineThreads, blocks, shared, stream, args);
}

} // namespace se::lora_gpu
