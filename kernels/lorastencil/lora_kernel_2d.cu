// The 2D LoRAStencil pass: persistent blocks walk 64x64 tiles; the next tile is copied global->shared while
// the warps run the current one (16x32 outputs per warp, every rank-1 term of the plane). On Hopper the warps
// issue one bulk copy per staged row (rows spread over the warps) and wait on the buffer's mbarrier; elsewhere
// (and for odd nx) every thread copies 16 bytes at a time with cp.async.
#include "kernels/lorastencil/lora_device.cuh"
#include "kernels/lorastencil/lora_kernel_entry.hpp"

namespace se::lora_gpu {
namespace {

__global__ void __launch_bounds__(kThreads, 2) lora_pass_2d(const PassArgs a, const __grid_constant__ CUtensorMap map) {
  extern __shared__ __align__(16) double shared[];
  __shared__ unsigned long long full[2]; // bulk staging: buffer b's copies have landed
  __shared__ int released[2];            // boxes only: warps done with buffer b's tile
  const double* tables = shared; // 1D and 2D tables always fit (make_pass_args)
  double* staged = staged_base(shared + a.table_slots * 32);
  const int plane_values = a.plane_stride;
  const bool bulk = use_bulk_staging(a);
  // Every tile by one TMA box (Dirichlet 0: the box's out-of-bounds zeros are the boundary values).
  const bool boxes_only = bulk && a.tensor_map && !a.periodic && a.boundary_value == 0.0;
  if (bulk && threadIdx.x == 0) {
    const unsigned arrivals = boxes_only ? 1 : kThreads / 32; // the issuing thread, or one per warp
    mbarrier_init(&full[0], arrivals);
    mbarrier_init(&full[1], arrivals);
    released[0] = released[1] = 0;
  }
  prepare_block(a, shared, staged, 2);

  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int oy0 = kWarpRows * (warp >> 1), ox0 = kWarpCols * (warp & 1);
  const LaneBase lb = lane_base(a.pitch, oy0, ox0);
  // Fewer than 2^31 tiles (make_pass_args): tile indices and origins in 32-bit arithmetic.
  const auto tile_x0 = [&](int item) { return (item % a.tiles_x) * kTileCols; };
  const auto tile_y0 = [&](int item) { return (item / a.tiles_x) * kTileRows; };
  const int items = static_cast<int>(a.items);
  // Tile `item` into buffer b. Hopper: one TMA box, or where the box would cross a face that is not Dirichlet 0
  // a bulk copy per staged row; elsewhere every thread's cp.async (one group).
  const auto stage = [&](int item, int b) {
    const int x0 = tile_x0(item), y0 = tile_y0(item);
    if (!bulk) stage_plane(a, staged + b * plane_values, x0, y0, 0);
    else if (tma_fits(a, x0, y0, 0)) stage_plane_tma(a, map, staged + b * plane_values, x0, y0, 0, &full[b]);
    else stage_plane_bulk(a, staged + b * plane_values, x0, y0, 0, &full[b]);
  };

  if (boxes_only) {
    // No block barrier: tiles k and k+1 are in flight from the start; the last warp to finish tile k (a shared
    // counter) issues the box of tile k+2 into its buffer. A warp runs at most one tile ahead of the slowest.
    const auto box = [&](int item, int b) {
      tma_copy_plane(a, map, staged + b * plane_values, tile_x0(item), tile_y0(item), 0, &full[b]);
    };
    if (threadIdx.x == 0)
      for (int b = 0; b < 2; ++b)
        if (static_cast<int>(blockIdx.x + b * gridDim.x) < items) box(blockIdx.x + b * gridDim.x, b);
    for (int k = 0;; ++k) {
      const int item = blockIdx.x + k * gridDim.x;
      if (item >= items) break;
      const int b = k & 1;
      mbarrier_wait(&full[b], (k >> 1) & 1);
      double acc[4][4] = {};
      plane_terms(a, a.plane_first[0], a.plane_count[0], staged + b * plane_values, tables, lb, acc);
      const FragmentCoord y_at = lane::accumulator_16x8(lane, 0); // where this lane's accumulator lands
      store_tile(a, acc, tile_x0(item) + ox0 + y_at.col, tile_y0(item) + oy0 + y_at.row, 0);
      __syncwarp(); // the warp's reads of buffer b are done (their values fed the MMAs and the stores)
      if (lane == 0) {
        __threadfence_block();
        if (atomicAdd(&released[b], 1) == kThreads / 32 - 1) {
          __threadfence_block(); // every warp's release before the box overwrites the buffer
          released[b] = 0;
          const int later = item + 2 * gridDim.x;
          if (later < items) box(later, b);
        }
      }
    }
    return;
  }

  if (static_cast<int>(blockIdx.x) < items) stage(blockIdx.x, 0);
  if (!bulk) cp_async_commit();
  for (int k = 0;; ++k) {
    const int item = blockIdx.x + k * gridDim.x;
    if (item >= items) break;
    // Buffer (k+1)&1 was last read by tile k-1, which every warp finished before the barrier that ended it.
    if (item + static_cast<int>(gridDim.x) < items) stage(item + gridDim.x, (k + 1) & 1);
    if (bulk) {
      mbarrier_wait(&full[k & 1], (k >> 1) & 1);
    } else {
      cp_async_commit();
      cp_async_wait<1>();
      __syncthreads();
    }
    double acc[4][4] = {};
    plane_terms(a, a.plane_first[0], a.plane_count[0], staged + (k & 1) * plane_values, tables, lb, acc);
    const FragmentCoord y_at = lane::accumulator_16x8(lane, 0);
    store_tile(a, acc, tile_x0(item) + ox0 + y_at.col, tile_y0(item) + oy0 + y_at.row, 0);
    __syncthreads();
  }
}

} // namespace

int run_pass_2d(const PassArgs& args, int blocks, std::size_t shared, cudaStream_t stream) {
  PassArgs a = args;
  CUtensorMap map{};
  a.tensor_map = blocks > 0 && encode_tile_map(a, &map) ? 1 : 0;
  return launch_or_occupancy(lora_pass_2d, kThreads, blocks, shared, stream, a, map);
}

} // namespace se::lora_gpu
