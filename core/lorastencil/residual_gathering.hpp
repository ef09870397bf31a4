// Residual dimension gathering (LoRAStencil Eq. 5-11): the warp tile of an FP64 MMA shape, the banded U and V
// of each rank-1 term (Y = sum_i U_i X V_i), butterfly vector swapping (Fig. 6) and the 1D single gather.
#pragma once
#include <string_view>
#include <vector>

#include "core/fragment/fragment_layout.hpp"
#include "core/lorastencil/weight_decomposition.hpp"

namespace se {

// Throws InputError unless `shape` is a dense f64 MMA (m8n8k4, m16n8k4, m16n8k8, m16n8k16).
void check_lorastencil_shape(MmaShape shape);

// One warp tile of the 2D chain T = U·X (vertical gather), Y += T'·V' (horizontal gather). The window, X and
// the banded matrices describe one C fragment and a term of the full radius (the paper's picture); a warp may
// compute `warp_fragments` C fragments side by side, which share the rows of T = U·X (the GPU kernels take 4).
struct GatherTile {
  MmaShape shape = MmaShape::M8N8K4_F64;
  int m = 8, n = 8, k = 4;              // the instruction
  int radius = 0;                       // h of the weights gathered
  int tile_rows = 8, tile_cols = 8;     // outputs per tile: one C fragment, m x n
  int window_rows = 0, window_cols = 0; // the inputs those outputs depend on: tile + 2h each way
  int x_rows = 0; // window rows rounded up to k: the inner dimension of U·X
  int x_cols = 0; // window columns rounded up to n and to k: the columns of T, the inner dimension of T'·V'
  int warp_fragments = 1;               // C fragments per warp tile along x
  int step1_mma() const { return (x_rows / k) * (x_cols / n); }
  int step2_mma() const { return (x_cols / k) * (tile_cols / n); }
  int mma_per_term() const { return step1_mma() + step2_mma(); }
  int points() const { return tile_rows * tile_cols; }
  int warp_cols() const { return tile_cols * warp_fragments; }
  int warp_points() const { return points() * warp_fragments; }
};
// Throws InputError for a negative radius or fewer than 1 fragment per warp tile.
GatherTile make_gather_tile(MmaShape shape, int radius, int warp_fragments = 1);

// How a rank-1 term u v^T runs once trimmed to its non-zeros about the centre (the GPU kernels run the same):
//   Chain     - T = U·X, then Y += T'·V' from T's registers (both vectors wider than one weight)
//   Rows      - Y += U·X alone: v is one centred weight, folded into u (a column of the weights)
//   Columns   - Y += X·V alone: u is one centred weight, folded into v (a row of the weights)
//   CudaCores - both are one centred weight: a scalar times the centre point
enum class GatherKind { Chain, Rows, Columns, CudaCores };
std::string_view to_string(GatherKind k);

struct TermGather {
  GatherKind kind = GatherKind::Chain;
  int wu = 0, wv = 0;       // half-widths of u (along y) and v (along x) about the centre
  std::vector<double> u, v; // centred, 2wu+1 and 2wv+1 long; a gather's single weight is folded into the other
  double scalar() const { return u.empty() || v.empty() ? 0.0 : u[0] * v[0]; } // CudaCores
};
// The term placed in a (2 radius + 1)-wide window; throws InputError when it does not fit.
TermGather term_gather(const RankOneTerm& term, int radius);

// What one term executes on a warp tile of tile.warp_fragments C fragments (m x n each). Chain: `chunks` k-row
// chunks of U·X over `t_tiles` n-wide tiles of T (shared by the fragments), then `v_chunks` k-chunks of T'·V'
// per fragment. Rows: `chunks` of U·X per fragment. Columns: `chunks` k-column chunks of X·V per fragment.
struct TermSchedule {
  int chunks = 0, t_tiles = 0, v_chunks = 0;
  int mma = 0; // per warp tile
};
TermSchedule term_schedule(const GatherTile& tile, const TermGather& g);

// Where one A register of the horizontal gather comes from: register c_reg of accumulator fragment c_tile
// (the C of the vertical gather for T's columns [n*c_tile, n*c_tile + n)), in the same lane.
struct RegisterSource {
  int c_tile = 0, c_reg = 0;
  bool operator==(const RegisterSource&) const = default;
};

// BVS: T's accumulator registers are reused as the A operand as they lie, which reads T with its columns in
// `permutation` order; permuting V's rows the same way (Eq. 17) leaves T·V unchanged, and no lane exchanges data.
struct ButterflySwap {
  MmaShape shape = MmaShape::M8N8K4_F64;
  int inner = 0;                         // T's columns
  int a_regs = 0, c_regs = 0;            // registers per lane of A and of C
  std::vector<int> permutation;          // column k' of T' (row k' of V') is column permutation[k'] of T (row of V)
  std::vector<RegisterSource> a_sources; // [block * a_regs + reg] for the inner/k A fragments of step 2
};
// Derived from the PTX layouts: each A register takes the first unused C register whose row, lane by lane,
// is the row that A register holds; the columns then define the permutation. Throws InputError when the
// layouts admit no such assignment (they always do for the f64 shapes) or inner is not a multiple of n and k.
ButterflySwap derive_butterfly_swap(MmaShape shape, int inner);

// The matrices of one rank-1 term (placed at its offset inside the full (2h+1)^2 window).
struct BandedPair {
  std::vector<double> u_band;    // tile_rows x x_rows:  U[p][p + offset + i] = u_i   (Eq. 5, 10)
  std::vector<double> v_band;    // x_cols x tile_cols:  V[q + offset + j][q] = v_j   (Eq. 6, 11)
  std::vector<double> v_swapped; // x_cols x tile_cols:  V'[k'][q] = V[permutation[k']][q]
};
BandedPair make_banded_pair(const GatherTile& tile, const ButterflySwap& swap, const RankOneTerm& term);

// The weight operands of one trimmed term on the tile, row-major. Rows of U and V count from the term's own
// window (input row p + i - wu .. of output row p; input column q + s - wv of output column q):
//   u_band    - Chain, Rows: m x (chunks k), U[p][i] = u[i - p]
//   v_band    - Columns: (chunks k) x n; Chain: (v_chunks k) x n, T's columns in order: V[s][q] = v[s - q]
//   v_swapped - Chain: v_band's rows in the butterfly order of `swap` (derived for v_chunks k columns of T)
struct TermOperands {
  TermGather gather;
  TermSchedule schedule;
  std::vector<double> u_band, v_band, v_swapped;
  ButterflySwap swap;
};
TermOperands term_operands(const GatherTile& tile, const TermGather& g);

// 1D (paper IV-C): one gather Y = X·V; row p of X is the window of the p-th segment of n outputs.
struct LineGather {
  MmaShape shape = MmaShape::M8N8K4_F64;
  int m = 8, n = 8, k = 4;
  int radius = 0;
  int window = 0;               // n + 2h inputs per segment
  int inner = 0;                // window rounded up to k
  std::vector<double> v_band;   // inner x n: V[q + j][q] = w_j
  int mma_per_tile() const { return inner / k; }
  int points() const { return m * n; }
};
LineGather make_line_gather(MmaShape shape, const std::vector<double>& weights); // 2h+1 weights, dx = -h..h

} // namespace se
