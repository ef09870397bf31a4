// The 2D LoRAStencil pass: persistent blocks walk 64x64 tiles; the next tile is copied global->shared with
// cp.async while the warps run the current one (16x32 outputs per warp, every rank-1 term of the plane).
#include "kernels/lorastencil/lora_device.cuh"
#include "kernels/lorastencil/lora_kernel_entry.hpp"

namespace se::lora_gpu {
namespace {

__global__ void __launch_bounds__(kThreads, 2) lora_pass_2d(const PassArgs a) {
  extern __shared__ __align__(16) double shared[];
  const double* tables = shared; // 1D and 2D tables always fit (make_pass_args)
  double* staged = shared + a.table_slots * 32;
  const int plane_values = a.plane_stride;
  prepare_block(a, shared, staged, 2);

  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int oy0 = kWarpRows * (warp >> 1), ox0 = kWarpCols * (warp & 1);
  const auto tile_origin = [&](long long item, long long& x0, long long& y0) {
    x0 = (item % a.tiles_x) * kTileCols;
    y0 = (item / a.tiles_x) * kTileRows;
  };

  long long item = blockIdx.x;
  if (item < a.items) {
    long long x0, y0;
    tile_origin(item, x0, y0);
    stage_plane(a, staged, x0, y0, 0);
  }
  cp_async_commit();
  for (int k = 0; item < a.items; item += gridDim.x, ++k) {
    const long long next = item + gridDim.x;
    if (next < a.items) {
      long long x0, y0;
      tile_origin(next, x0, y0);
      stage_plane(a, staged + ((k + 1) & 1) * plane_values, x0, y0, 0);
    }
    cp_async_commit();
    cp_async_wait<1>();
    __syncthreads();
    long long x0, y0;
    tile_origin(item, x0, y0);
    double acc[4][4] = {};
    plane_terms(a, 0, staged + (k & 1) * plane_values, tables, oy0, ox0, acc);
    store_tile(a, acc, x0 + ox0 + 2 * (lane & 3), y0 + oy0 + (lane >> 2), 0);
    __syncthreads();
  }
}

} // namespace

int run_pass_2d(const PassArgs& args, int blocks, std::size_t shared, cudaStream_t stream) {
  return launch_or_occupancy(lora_pass_2d, kThreads, args, blocks, shared, stream);
}

} // namespace se::lora_gpu
