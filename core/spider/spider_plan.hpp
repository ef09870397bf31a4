// SPIDER's plan: each kernel row as an L x (2r+L) band (L = 2r+2), the strided column swap that makes it
// 2:4, its compressed values and 2-bit metadata, the matching input row map, and the MMAs of one warp tile.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/fragment/mma_emulation.hpp"
#include "core/stencil.hpp"

namespace se {

// spider runs the swapped, compressed band on mma.sp; spider-dense is the paper's "SPIDER w. TC" ablation:
// the same tiles with the plain band on dense mma.m16n8k16.
enum class SpiderVariant { Sparse, Dense };
std::string_view to_string(SpiderVariant v); // "spider", "spider-dense"

// Which band columns j < L trade places with j + L. §3.1.2 of the paper says odd columns; the offset
// formula of §3.2 (+16(-1)^k on the even elements of B) swaps the even ones. Both give 2:4.
// Pairs is the GPU kernels' form of the same stride-L swap at the granularity of column pairs: positions 4q, 4q+1
// hold band columns 2q, 2q+1 and positions 4q+2, 4q+3 hold 2q+L, 2q+L+1 (two columns L apart are never both
// non-zero in a row, so it is 2:4), which keeps the two halves of every B register adjacent in memory: one 32-bit
// shared-memory load per register instead of two 16-bit ones.
// Lanes orders the same pairs so that each lane's B registers of one MMA are adjacent: for L = 8 (one m16n8k16,
// radius 3) and L = 16 (one m16n8k32, radius 7) only. The fragment gives lane t (= lane % 4) the K rows 2t, 2t + 1
// of every 8; position k = 16c + 8h' + 2t + e holds band column 2P + e with P = (t % 2) L/2 + (t / 2) L/4 + 2c + h'.
// Lanes t = 0, 1 (and 2, 3) share a group of four and read pairs L/2 apart (never both non-zero in a row: 2:4), and
// lane t reads pairs W_t .. W_t + L/4 - 1 in register order: one 64-bit (L = 8) or 128-bit (L = 16) shared load.
// The dense variant keeps this order (its A the swapped band uncompressed: the same B loads, only the MMA differs);
// with the other parities its band is unswapped.
enum class SwapParity { Odd, Even, Pairs, Lanes };
std::string_view to_string(SwapParity p);

struct SpiderOptions {
  SpiderVariant variant = SpiderVariant::Sparse;
  SwapParity parity = SwapParity::Odd;
  // GPU kernels only: accumulate in FP16 (mma .f16.f16) instead of FP32; the CPU emulation always sums in FP32.
  bool accumulate_fp16 = false;
};

// Stage 1 of the paper's Figure 5: the 2r+1 weights of one kernel row repeated along the diagonal of an
// L x cols matrix (band[i][i + offset + j] = row[j]); the `offset` columns before the band and those past
// offset + 2r+L are zero padding. Throws InputError when the row does not fit (cols < offset + 2r + L) or L < 1.
std::vector<double> spider_band(std::span<const double> row_weights, int L, int cols, int offset = 0);

// Stage 2's permutation: column j of the swapped band is column perm[j] of the band. Columns j < L of
// the chosen parity trade with j + L; the rest stay. Throws InputError unless cols == 2L.
std::vector<int> spider_column_swap(int L, int cols, SwapParity parity);

// The paper's "sparsity ratio" of §3.1.1: the fraction of non-zeros in the unpadded band, (2r+1)/(2r+L).
// SpTCs need it at most 1/2, hence L >= 2r+2; L = 2r+2 makes it exactly 1/2.
double spider_sparsity_ratio(int radius, int L);

// One kernel row (fixed dy) through the three stages. Matrices are row-major with `band_cols` columns
// and hold the weights as the tensor cores see them (rounded to FP16).
struct SpiderKernelRow {
  int dy = 0;                         // the row's offset; 0 in 1D
  std::vector<double> weights;        // w(-r..r, dy) as given
  std::vector<double> weights_fp16;   // the same rounded to FP16
  std::vector<double> band;           // stage 1: L x band_cols
  std::vector<double> swapped;        // stage 2: L x band_cols, 2:4 along rows
  Compressed24 compressed;            // stage 3: L x band_cols/2 kept values and their 2-bit positions
  bool swapped_is_2to4 = false;       // the 2:4 validator on `swapped`
};

// Where row k of the B operand (k over all K chunks, 16 per chunk) reads the input: x offset `dx` from the
// first output column of the tile. A padding row meets only zero weights; the emulation feeds it zeros.
struct SpiderInputRow {
  int block = -1;        // which band block along K (-1: past the last block)
  int band_column = -1;  // the stage-1 band column it carries (the swapped partner where swapped)
  int dx = 0;            // block * L - r - band_offset + band_column
  bool padding = true;   // band_column >= 2r + L, or no block
  bool swapped = false;  // the strided swap moved it (the paper's "offset term")
};

// One tensor-core instruction of the warp tile's inner loop. A is 16 x 16: band blocks b = 0..P_x-1 on
// the diagonal (rows b*L.., columns b*2L..) for each part p = 0..P_y-1 stacked below (rows p*P_x*L..).
// In 2D, part p holds kernel row dy = shift - p, and B column c reads input row y0 + P_y*c + shift, so the
// parts share B and part p accumulates output row y0 + P_y*c + p.
struct SpiderMma {
  int shift = 0;                   // 2D: which input rows B reads (see above); 1D: 0
  int k_chunk = 0;                 // which 16-wide slice of K
  std::vector<int> kernel_rows;    // dy per part; kNoKernelRow where shift - p is outside -r..r
  std::vector<double> a;           // 16 x 16: swapped blocks (sparse) or plain band blocks (dense), FP16 values
  Compressed24 a_compressed;       // sparse: 16 x 8 kept values and positions
  int metadata_register = -1;      // sparse: which packed metadata register (SpiderPlan::metadata_registers)
  SparseMetadata metadata;         // sparse: that register's 32 words and this MMA's selector
};
constexpr int kNoKernelRow = -1000;

struct SpiderGeometry {
  int dims = 2;
  int radius = 1;
  int L = 4;                 // outputs per band block: 2r + 2
  int band_cols = 8;         // 2L: the band padded to whole groups of four, the swap's span
  // Pairs at odd r: the band starts one column in (one zero column first), so that every B register's pair starts
  // at an even input x and the GPU's shared tiles can start on 16-byte boundaries (TMA boxes, aligned chunks).
  // The run of 2r+1 = L-1 non-zeros still never holds two columns L apart: the swap stays 2:4. 0 otherwise.
  int band_offset = 0;
  int k_chunks = 1;          // ceil(band_cols * blocks_along_k / 16): MMAs per shift
  int blocks_along_k = 1;    // P_x: band blocks side by side on A's diagonal
  int parts_along_m = 1;     // P_y: kernel rows stacked in A's 16 rows sharing one B (1 in 1D)
  int tile_x = 0, tile_y = 1; // outputs of one warp tile: 2D P_x*L by 8*P_y; 1D 8*P_x*L (one column per band group)
  int shift_begin = 0, shift_end = 0; // 2D: shifts -r .. r + P_y - 1 (end exclusive); 1D: 0 .. 1
  // Outputs of one thread block's tile, as the GPU kernels run them (kernels/spider, which check they agree) and the
  // cost model counts its halo: 1D 32 warp tiles; 2D 8 warp tiles across and 64 rows, at radius 1 16 across and 32
  // rows (the wider box stages fewer halo columns per output; notes/spider-gpu.md, tenth step).
  int block_x = 0, block_y = 1;
  int tile_points() const { return tile_x * tile_y; }
};

// The geometry of a radius-r plan. constexpr: the GPU kernels compile their tiles from this very function
// (kernels/spider/spider_gpu_tables.hpp), so plan, cost model, views and kernels cannot disagree.
constexpr SpiderGeometry spider_geometry(int dims, int r, SwapParity parity) {
  constexpr int kK = 16, kM = 16; // m16n8k16: A is 16 x 16
  SpiderGeometry g;
  g.dims = dims;
  g.radius = r;
  g.L = 2 * r + 2;
  g.band_cols = 2 * g.L;
  g.band_offset = (parity == SwapParity::Pairs || parity == SwapParity::Lanes) && r % 2 != 0 ? 1 : 0;
  const int chunks = (g.band_cols + kK - 1) / kK;
  // Blocks side by side fill K (two for r <= 1); kernel rows stacked fill M (2D only: one row has no partner).
  g.blocks_along_k = chunks * kK / g.band_cols;
  g.k_chunks = (g.blocks_along_k * g.band_cols + kK - 1) / kK;
  const int rows_per_part = g.blocks_along_k * g.L;
  g.parts_along_m = dims == 1 || kM / rows_per_part < 1 ? 1 : kM / rows_per_part;
  if (dims == 1) {
    g.tile_x = 8 * rows_per_part;
    g.tile_y = 1;
    g.shift_begin = 0;
    g.shift_end = 1;
    g.block_x = 32 * g.tile_x;
  } else {
    g.tile_x = rows_per_part;
    g.tile_y = 8 * g.parts_along_m;
    g.shift_begin = -r;
    g.shift_end = r + g.parts_along_m;
    const int across = r == 1 ? 16 : 8;
    g.block_x = across * g.tile_x;
    g.block_y = 64 * 8 / across;
  }
  return g;
}

struct SpiderPlan {
  Stencil stencil; // as given (FP64 weights; the rows hold them rounded to FP16)
  SpiderOptions options;
  SpiderGeometry geometry;
  std::vector<SpiderKernelRow> rows;           // dy = -r..r in 2D, one row in 1D
  std::vector<int> column_swap;                // per band column (identity for the dense variant)
  std::vector<SpiderInputRow> input_rows;      // per K row of B, 16 * k_chunks
  std::vector<SpiderMma> mmas;                 // in issue order (shift, then chunk); all-zero A tiles are skipped
  std::vector<std::vector<std::uint32_t>> metadata_registers; // sparse: four MMAs share one via the selector
  int nonzero_weights = 0;                     // of the FP16 stencil
  double weight_abs_sum = 0;                   // sum |w| of the FP16 weights
  double max_abs_input = 0;                    // largest |input| whose outputs stay finite in FP16: 65504 / sum|w|
  std::vector<std::string> precision_notes;    // what FP16 does to these weights
  bool all_2to4() const;                       // every stage-2 row and every sparse A passes the validator
};

// Throws InputError with the reason when SPIDER cannot take the stencil: 3D (the paper's transformation is
// 1D/2D), invalid weights, or a weight beyond FP16's range.
SpiderPlan make_spider_plan(const Stencil& stencil, const SpiderOptions& options = {});

nlohmann::json to_json(const SpiderPlan& plan);
std::string to_string(const SpiderPlan& plan); // the three stages per row, the input row map, the MMAs

} // namespace se
