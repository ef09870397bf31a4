// The 3D LoRAStencil pass (paper Algorithm 2): a block streams one xy tile along a chunk of z, keeping the
// 2R+1 input planes it needs in a ring of 2R+3 staged planes, the next two copied in while it computes (on
// Hopper by a TMA box or a bulk copy per staged row, one mbarrier per ring slot; elsewhere by every thread's
// cp.async). With Dirichlet 0 every plane is a TMA box and the z-loop has no block barrier: the last warp done
// with a plane issues the box that replaces it.
// Warps take 16x16 outputs (not 16x32 as in 2D): the ring fills shared memory, so twice the warps per tile
// is the only way to more warps per SM, which the latency-bound 3D pass needs more than the MMA reuse.
// Each output plane sums the 2D LoRAStencil of every input plane (single-weight planes on CUDA cores); a plane
// whose mirror -dz has the same weights runs once on the two planes' sum (core's mirror folding).
#include "kernels/lorastencil/lora_device.cuh"
#include "kernels/lorastencil/lora_kernel_entry.hpp"

namespace se::lora_gpu {
namespace {

// TablesInShared false: general 3D stencils whose many SVD terms' fragments outgrow shared memory read
// them from global memory (L1-cached); a separate instantiation keeps the common path on shared loads.
// Prog >= 0: the pass matches kStaticPrograms3d[Prog] (static_program_3d), whose terms are compiled in.
template <bool TablesInShared, int Prog>
__global__ void __launch_bounds__(kThreads, 2) lora_pass_3d(const PassArgs a, const __grid_constant__ CUtensorMap map) {
  extern __shared__ __align__(16) double shared[];
  __shared__ unsigned long long full[kMaxPlanes + 2]; // bulk staging: ring slot s's copies have landed
  const double* tables = TablesInShared ? shared : a.tables;
  double* staged = staged_base(shared + (TablesInShared ? a.table_slots * 32 : 0));
  const int R = a.radius;
  const int ring = 2 * R + 3;
  __shared__ int released[kMaxPlanes + 2]; // boxes only: warps done with ring slot s's plane
  const bool bulk = use_bulk_staging(a);
  // Every plane by one TMA box (Dirichlet 0: the box's out-of-bounds zeros are the boundary values).
  const bool boxes_only = bulk && a.tensor_map && !a.periodic && a.boundary_value == 0.0;
  const int warps = static_cast<int>(blockDim.x / 32);
  if (bulk && threadIdx.x == 0)
    for (int s = 0; s < ring; ++s) {
      mbarrier_init(&full[s], boxes_only ? 1 : warps); // the issuing thread, or one arrival per warp
      released[s] = 0;
    }
  prepare_block(a, shared, staged, ring);

  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int oy0 = kWarpRows * (warp >> 2), ox0 = k3dWarpCols * (warp & 3);
  const LaneBase lb = lane_base(a.pitch, oy0, ox0);
  const int tiles = a.tiles_x * a.tiles_y, items = static_cast<int>(a.items), nz = static_cast<int>(a.nz);
  // Ring slot s holds plane z0 - R + s (mod ring) of the current item; slot indices stay below 2 ring.
  const auto wrap_slot = [&](int s) { return s >= ring ? s - ring : s; };
  const auto slot = [&](int s) { return staged + wrap_slot(s) * a.plane_stride; };
  unsigned phases = 0; // bulk: bit s = parity of the next phase of slot s to complete (same in every thread)
  const auto wait_slot = [&](int s) {
    s = wrap_slot(s);
    mbarrier_wait(&full[s], (phases >> s) & 1u);
    phases ^= 1u << s;
  };

  // Output plane z from the ring (slot `base` holds plane z - R) into the grid: every plane's terms (a plane that
  // folds its mirror runs them on the sum of both planes' staged values), then the warp's stores.
  const auto output_plane = [&](int base, int x0, int y0, int z) {
    double acc[k3dOutTilesPerWarp][4] = {};
    if constexpr (Prog >= 0) { // radius 1: plane 0, then plane -1 on the sum of planes -1 and +1 (in this order
                               // no variant spills at 128 registers)
      constexpr StaticProgram3d P = kStaticPrograms3d[Prog];
      constexpr int lower_terms = (P.lower[0] >= 0) + (P.lower[1] >= 0);
      const double* middle = slot(base + 1);
      if constexpr (P.middle[0] >= 0)
        run_term<P.middle[0], k3dOutTilesPerWarp, false>(a, a.terms[lower_terms], middle, tables, lb, acc, 0);
      if constexpr (P.middle[1] >= 0)
        run_term<P.middle[1], k3dOutTilesPerWarp, false>(a, a.terms[lower_terms + 1], middle, tables, lb, acc, 0);
      const double* lower = slot(base);
      const int dm = static_cast<int>(slot(base + 2) - lower);
      if constexpr (P.lower[0] >= 0) run_term<P.lower[0], k3dOutTilesPerWarp, true>(a, a.terms[0], lower, tables, lb, acc, dm);
      if constexpr (P.lower[1] >= 0) run_term<P.lower[1], k3dOutTilesPerWarp, true>(a, a.terms[1], lower, tables, lb, acc, dm);
    } else {
      for (int p = 0; p <= 2 * R; ++p) {
        const double* plane = slot(base + p);
        const int mirror = a.plane_mirror[p];
        if (mirror < 0) plane_terms(a, a.plane_first[p], a.plane_count[p], plane, tables, lb, acc);
        else
          plane_terms<k3dOutTilesPerWarp, true>(a, a.plane_first[p], a.plane_count[p], plane, tables, lb, acc,
                                                static_cast<int>(slot(base + mirror) - plane));
      }
    }
    const FragmentCoord y_at = lane::accumulator_16x8(lane, 0); // where this lane's accumulator lands
    store_tile(a, acc, x0 + ox0 + y_at.col, y0 + oy0 + y_at.row, z);
  };

  // Fewer than 2^31 items and tiles (make_pass_args): indices and coordinates in 32-bit arithmetic.
  for (int item = blockIdx.x; item < items; item += gridDim.x) {
    const int tile = item % tiles, chunk = item / tiles;
    const int x0 = (tile % a.tiles_x) * kTileCols, y0 = (tile / a.tiles_x) * a.tile_rows;
    const int z0 = chunk * a.z_chunk;
    const int z1 = z0 + a.z_chunk < nz ? z0 + a.z_chunk : nz;
    // Plane zp into slot s. Hopper: one TMA box, or where the box would cross a face that is not Dirichlet 0 a
    // bulk copy per staged row; elsewhere every thread's cp.async.
    const auto stage = [&](int s, int zp) {
      if (!bulk) stage_plane(a, slot(s), x0, y0, zp);
      else if (tma_fits(a, x0, y0, zp)) stage_plane_tma(a, map, slot(s), x0, y0, zp, &full[wrap_slot(s)]);
      else stage_plane_bulk(a, slot(s), x0, y0, zp, &full[wrap_slot(s)]);
    };
    if (boxes_only) {
      // No block barrier per z-step: the last warp to finish output plane z (a shared counter) issues plane
      // z + R + 3 into the slot that plane z - R leaves; a warp runs at most two planes ahead of the slowest.
      const auto box = [&](int s, int zp) { tma_copy_plane(a, map, slot(s), x0, y0, zp, &full[wrap_slot(s)]); };
      if (threadIdx.x == 0)
        for (int i = 0; i < ring && i < z1 - z0 + 2 * R; ++i) box(i, z0 - R + i);
      for (int i = 0; i < 2 * R; ++i) wait_slot(i);
      int base = 0; // slot of plane z - R
      for (int z = z0; z < z1; ++z) {
        wait_slot(base + 2 * R); // plane z+R, the one this output plane is the first to read
        output_plane(base, x0, y0, z);
        __syncwarp(); // the warp's reads of plane z - R are done
        if (lane == 0) {
          __threadfence_block();
          if (atomicAdd(&released[base], 1) == warps - 1) {
            __threadfence_block(); // every warp's release before the box overwrites the slot
            released[base] = 0;
            if (z + 3 < z1) box(base, z + R + 3);
          }
        }
        base = base + 1 == ring ? 0 : base + 1;
      }
      __syncthreads(); // every warp done with this item's planes before the next item's boxes
      continue;
    }
    for (int i = 0; i <= 2 * R; ++i) stage(i, z0 - R + i);
    if (!bulk) cp_async_commit();
    if (z0 + 1 < z1) stage(2 * R + 1, z0 + R + 1);
    if (!bulk) cp_async_commit();
    if (bulk)
      for (int i = 0; i < 2 * R; ++i) wait_slot(i);
    int base = 0; // slot of plane z - R
    for (int z = z0; z < z1; ++z) {
      // Plane z+R+2 goes into the slot of z-R-1, which the previous output plane was the last to read.
      if (z + 2 < z1) stage(base + 2 * R + 2, z + R + 2);
      if (bulk) {
        wait_slot(base + 2 * R); // plane z+R, the one this output plane is the first to read
      } else {
        cp_async_commit();
        cp_async_wait<2>();
        __syncthreads();
      }
      output_plane(base, x0, y0, z);
      base = base + 1 == ring ? 0 : base + 1;
      __syncthreads();
    }
  }
}

} // namespace

int run_pass_3d(const PassArgs& args, int blocks, std::size_t shared, cudaStream_t stream) {
  const int threads = (args.tile_rows / kWarpRows) * (kTileCols / k3dWarpCols) * 32;
  PassArgs a = args;
  CUtensorMap map{};
  a.tensor_map = blocks > 0 && encode_tile_map(a, &map) ? 1 : 0;
  static_assert(kStaticPrograms3dCount == 2, "one instantiation per static program below");
  switch (static_program_3d(a)) {
  case 0: return launch_or_occupancy(lora_pass_3d<true, 0>, threads, blocks, shared, stream, a, map);
  case 1: return launch_or_occupancy(lora_pass_3d<true, 1>, threads, blocks, shared, stream, a, map);
  default: break;
  }
  return args.tables_in_shared ? launch_or_occupancy(lora_pass_3d<true, -1>, threads, blocks, shared, stream, a, map)
                               : launch_or_occupancy(lora_pass_3d<false, -1>, threads, blocks, shared, stream, a, map);
}

} // namespace se::lora_gpu
