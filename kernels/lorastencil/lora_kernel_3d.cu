// The 3D LoRAStencil pass (paper Algorithm 2): a block streams one xy tile along a chunk of z, keeping the
// 2R+1 input planes it needs in a ring of 2R+3 staged planes, the next two copied in while it computes.
// Warps take 16x16 outputs (not 16x32 as in 2D): the ring fills shared memory, so twice the warps per tile
// is the only way to more warps per SM, which the latency-bound 3D pass needs more than the MMA reuse.
// Each output plane sums the 2D LoRAStencil of every input plane (single-weight planes on CUDA cores).
#include "kernels/lorastencil/lora_device.cuh"
#include "kernels/lorastencil/lora_kernel_entry.hpp"

namespace se::lora_gpu {
namespace {

// TablesInShared false: general 3D stencils whose many SVD terms' fragments outgrow shared memory read
// them from global memory (L1-cached); a separate instantiation keeps the common path on shared loads.
template <bool TablesInShared>
__global__ void __launch_bounds__(kThreads, 2) lora_pass_3d(const PassArgs a) {
  extern __shared__ __align__(16) double shared[];
  const double* tables = TablesInShared ? shared : a.tables;
  double* staged = shared + (TablesInShared ? a.table_slots * 32 : 0);
  const int R = a.radius;
  const int ring = 2 * R + 3;
  const auto slot = [&](long long z) { return staged + wrap_index(z, ring) * a.plane_stride; };
  prepare_block(a, shared, staged, ring);

  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int oy0 = kWarpRows * (warp >> 2), ox0 = k3dWarpCols * (warp & 3);
  const long long tiles = static_cast<long long>(a.tiles_x) * a.tiles_y;

  for (long long item = blockIdx.x; item < a.items; item += gridDim.x) {
    const long long tile = item % tiles, chunk = item / tiles;
    const long long x0 = (tile % a.tiles_x) * kTileCols, y0 = (tile / a.tiles_x) * a.tile_rows;
    const long long z0 = chunk * a.z_chunk;
    const long long z1 = z0 + a.z_chunk < a.nz ? z0 + a.z_chunk : a.nz;
    for (long long z = z0 - R; z <= z0 + R; ++z) stage_plane(a, slot(z), x0, y0, z);
    cp_async_commit();
    if (z0 + 1 < z1) stage_plane(a, slot(z0 + R + 1), x0, y0, z0 + R + 1);
    cp_async_commit();
    for (long long z = z0; z < z1; ++z) {
      // Plane z+R+2 goes into the slot of z-R-1, which the previous output plane was the last to read.
      if (z + 2 < z1) stage_plane(a, slot(z + R + 2), x0, y0, z + R + 2);
      cp_async_commit();
      cp_async_wait<2>();
      __syncthreads();
      double acc[k3dOutTilesPerWarp][4] = {};
      for (int p = 0; p <= 2 * R; ++p) plane_terms(a, p, slot(z + p - R), tables, oy0, ox0, acc);
      store_tile(a, acc, x0 + ox0 + 2 * (lane & 3), y0 + oy0 + (lane >> 2), z);
      __syncthreads();
    }
  }
}

} // namespace

int run_pass_3d(const PassArgs& args, int blocks, std::size_t shared, cudaStream_t stream) {
  const int threads = (args.tile_rows / kWarpRows) * (kTileCols / k3dWarpCols) * 32;
  return args.tables_in_shared ? launch_or_occupancy(lora_pass_3d<true>, threads, args, blocks, shared, stream)
                               : launch_or_occupancy(lora_pass_3d<false>, threads, args, blocks, shared, stream);
}

} // namespace se::lora_gpu
