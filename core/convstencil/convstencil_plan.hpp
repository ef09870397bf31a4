// ConvStencil's plan (Chen et al., PPoPP'24): temporal fusion into W^T, the stencil2row layout (two matrices A
// and B that overlap) and the triangular kernel matrices of dual tessellation, on FP64 mma.m8n8k4.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/stencil.hpp"

namespace se {

struct ConvStencilOptions {
  int fused_steps = 0; // base steps fused into one kernel W^T, 1-3; 0 picks the paper's choice
};

// Where stencil2row puts the input columns of one tile row. A tile is 8 segments (the M of m8n8k4) of U = k + 1
// outputs; it reads 8U + 2R input columns. Segment s of A holds columns [sU, sU + k), segment s of B holds
// [sU + k, sU + 2k): every output window [sU + t, sU + t + k) is A's tail and B's head, and A of segment s+1
// repeats k - 1 of B's columns of segment s (the overlap the LoRAStencil paper calls dimension residue).
struct Stencil2RowLayout {
  int segments = 8;      // rows of A and B per tile
  int input_columns = 0; // 8U + 2R
  // Per input column of a tile row: the segment and the offset within its k values, or -1 where the column
  // is not in that matrix (the paper's lookup tables, one per matrix).
  std::vector<int> a_segment, a_offset, b_segment, b_offset;
  int overlap = 0;       // input columns per tile row held by both A and B
};

// The two kernel matrices of one plane of W^T: K_pad x N_pad (K = kernel rows x k, padded to a multiple of 4,
// N = U padded to a multiple of 8), row i*k + j for kernel row i and position j in the segment, column t for
// the output t of the segment: kernel_a[i*k+j][t] = W(i, j - t) where j >= t (lower triangular per kernel row),
// kernel_b[i*k+j][t] = W(i, j + k - t) where j < t (strictly upper triangular). A * kernel_a + B * kernel_b
// is the stencil on the segment's U outputs.
struct DualTessellationKernels {
  int plane = 0; // dz of the fused kernel's plane (0 in 1D and 2D)
  std::vector<double> kernel_a, kernel_b;
};

struct ConvStencilPlan {
  Stencil stencil;          // the base stencil
  int fused_steps = 1;      // T
  Stencil fused;            // W^T, radius R = T r
  int k = 1;                // side of W^T, 2R + 1
  int segment = 2;          // U = k + 1 outputs per segment
  int kernel_rows = 1;      // rows of W^T per plane (1 in 1D)
  int planes = 1;           // planes of W^T (1 in 1D and 2D)
  int k_columns = 1;        // K = kernel_rows * k: stencil2row columns one output row reads per plane
  int k_padded = 4;         // K rounded up to the MMA's k = 4
  int n_padded = 8;         // U rounded up to the MMA's n = 8
  Stencil2RowLayout layout;
  std::vector<DualTessellationKernels> kernels; // one per plane
  // The thread-block tile of the paper's kernels, used by the cost model: 1D 1024 outputs; 2D 64 x 32; 3D
  // 64 x 8, streaming along z.
  int block_segments = 8, block_rows = 32;

  int chunks() const { return k_padded / 4; }
  int n_tiles() const { return n_padded / 8; }
  // Per tile of 8 segments and one output row: A fragments loaded from shared memory (each used for every N
  // tile) and MMA instructions.
  int fragment_loads_per_tile_row() const { return planes * 2 * chunks(); }
  int mma_per_tile_row() const { return fragment_loads_per_tile_row() * n_tiles(); }
  int outputs_per_tile_row() const { return layout.segments * segment; }
};

// The paper fuses 3 steps for radius-1 kernels (heat-1d, heat-2d, box-2d9p, heat-3d, box-3d27p become 7-wide
// kernels whose U = 8 outputs fill the n = 8 of m8n8k4); larger kernels run unfused.
int convstencil_default_fused_steps(const Stencil& s);

std::string convstencil_unsupported_reason(const Stencil& s, const ConvStencilOptions& options = {});
ConvStencilPlan make_convstencil_plan(const Stencil& s, const ConvStencilOptions& options = {}); // throws InputError

std::string to_string(const ConvStencilPlan& plan);
nlohmann::json to_json(const ConvStencilPlan& plan);

} // namespace se
