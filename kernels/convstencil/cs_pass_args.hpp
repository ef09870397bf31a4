// Arguments of one ConvStencil pass on the GPU (plain C++: shared by the host side and the kernels).
#pragma once
#include <cstddef>

namespace se::conv_gpu {

// Segments of one warp tile: the m = 16 of mma.m16n8k4 (rows g and g + 8 of the A fragment).
constexpr int kSegmentsPerWarp = 16;

// The kernel's block configuration for a width-k fused kernel in `dims` dimensions; the kernels take these as
// compile-time constants and the host sizes shared memory and the grid with the same functions.
constexpr int cs_rows_per_warp(int k, int dims) { return dims == 3 ? (k <= 5 ? 8 : 4) : (k <= 7 ? 8 : 4); }
constexpr int cs_warps_y(int, int dims) { return dims == 3 ? 1 : 4; }
constexpr int cs_warps_z(int k, int dims) { return dims == 3 ? (k <= 3 ? 8 : k == 5 ? 4 : 2) : 1; }
// 1D: passes of W^T one launch runs (the intermediate ones in shared memory).
constexpr int kPassesPerLaunch1d = 3;
constexpr int cs_max_k(int dims) { return dims == 3 ? 7 : 15; }
// Position of chunk e (A's chunks, then B's) of segment s in the segment's shared-memory slots, in 4-double
// units: rotated per segment so that the 16 lanes of a half warp (4 segments x 4 consecutive K) hit 16
// different 8-byte bank pairs in every fragment load.
constexpr int cs_swizzle(int s, int e, int chunks) {
  return chunks % 2 == 0 ? (e + s) % (2 * chunks) : (e + (s >> 1)) % (2 * chunks);
}

struct CsPassArgs {
  const double* in = nullptr;
  double* out = nullptr;
  const double* kfrag = nullptr; // the triangular kernel matrices as B fragments, lane-ordered: [fragment][lane]
  const int* table = nullptr;    // stencil2row lookup table: shared-memory slot of a tile row -> input column, -1 pad
  long long nx = 1, ny = 1, nz = 1;
  int periodic = 0;
  double boundary_value = 0.0;
  int k = 1, dims = 2;           // width of W^T, dimensions
};

// The block shape one (k, dims) instance of the kernel uses, and its shared memory.
struct CsBlockShape {
  int rows_per_warp = 8;  // output rows a warp keeps in its accumulators (1D: strips of 16 segments)
  int warps_y = 4, warps_z = 1;
  int chunks = 1;         // 4-wide K chunks per kernel row and matrix: ceil(k / 4)
  int n_tiles = 1;        // n = 8 tiles per segment: ceil((k + 1) / 8)
  int kernel_fragments = 0; // B fragments of the pass: planes x kernel rows x 2 chunks x n-tiles
  bool kernel_in_registers = true;
  int row_doubles = 0;    // one stencil2row row of a warp tile in shared memory: 16 segments x (A + B) x 4 chunks
  int in_rows = 1, in_planes = 1;
  std::size_t shared_bytes = 0;
  bool twice = false;     // 1D: kPassesPerLaunch1d passes of W^T per launch (all but the last into shared memory)
  long long tiles_x = 1, tiles_y = 1, tiles_z = 1;
  int threads() const { return 32 * warps_y * warps_z; }
};

} // namespace se::conv_gpu
