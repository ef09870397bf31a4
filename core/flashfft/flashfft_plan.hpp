// FlashFFTStencil's plan: kernel tailoring (segments of length L stitched into S outputs), the prime-factor
// index maps, the DFT matrices as real block products in swizzled order, double-layer filling and k_f^T.
#pragma once
#include <array>
#include <complex>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/fragment/fragment_layout.hpp"
#include "core/stencil.hpp"

namespace se {

struct FlashFftOptions {
  int fused_steps = 1; // T: base steps fused into one pass by multiplying with k_f^T
  // Transform sizes; 0 lets the cost model choose. 1D: the segment is a rows x cols = L1 x L2 matrix with
  // coprime factors (prime-factor FFT), L = L1 L2. 2D/3D: each slice is rows (y) x cols (x); 3D stacks
  // `depth` slices along z.
  int rows = 0, cols = 0, depth = 0;
  // The grid is periodic and exactly one tile: the circular convolution of the DFT is then the whole answer,
  // so no halo is needed (S = L). Used to measure k_f^T on its own; the emulation checks the grid fits.
  bool whole_period = false;
};

// A real row-major matrix as the plan stores it and the kernels load it.
struct FftMatrix {
  int rows = 0, cols = 0;
  std::vector<double> values;
  double at(int r, int c) const { return values[static_cast<std::size_t>(r) * static_cast<std::size_t>(cols) + static_cast<std::size_t>(c)]; }
};

// One axis of the segment matrix and its DFT F[k][n] = exp(-2 pi i k n / length), zero-padded to a multiple of
// the fragment size (the padding rows and columns are zero, so they neither add nor receive anything).
struct DftAxis {
  std::string role;  // "L1 (n1, k1)", "y", ...
  int length = 1;    // DFT size
  int padded = 1;    // length rounded up to the fragment's 8 (the z axis, on CUDA cores, is not padded)
  FftMatrix re, im;  // padded x padded
};

// How an accumulator fragment (C) of one MMA becomes the A or B operand of the next without leaving its lane.
// For m8n8k4 a lane holds C[g][2t] and C[g][2t+1]; A wants A[g][t] and B wants B[t][g]. So k-step j of the next
// MMA reads C column k_order[4j + t]: the next matrix's K index must run in that (swizzled) order.
struct RegisterFeedEntry {
  int k_step = 0, lane = 0;
  int target_reg = 0;        // register of the A/B fragment being formed
  FragmentCoord target;      // (row, col) it holds in the A (8x4) or B (4x8) tile
  int c_reg = 0;             // register of the same lane's C fragment that supplies it
  FragmentCoord c;           // (row, col) that register holds in the 8x8 C tile
};
struct RegisterFeed {
  MmaShape shape = MmaShape::M8N8K4_F64;
  Operand target = Operand::A;
  std::vector<int> k_order;               // k_order[k_step * K + k] = C column read as k index k
  std::vector<RegisterFeedEntry> entries; // one per (k-step, lane, target register)
  bool shuffle_free = false;
  std::string problem; // why not, when a lane would need another lane's register
};

// Derives the feed from core/fragment's layouts (no hard-coded permutation): lane by lane, the C registers whose
// row is the target's free index (A: its row, B: its column), taken in column order.
RegisterFeed make_register_feed(MmaShape shape, Operand target);

struct FlashFftPlan {
  Stencil stencil;
  int dims = 1;
  int fused_steps = 1;         // T
  int halo = 0;                // R = T r: how far the fused kernel reaches on each side (0 in whole-period mode)
  int fused_kernel_length = 1; // M = 2 T r + 1 along each axis
  bool whole_period = false;
  // Kernel tailoring per grid axis (x, y, z; 1 on inactive axes): segments of `tile` points are split from the
  // halo-padded input every `stitched` points, and each gives back its `stitched` = L - (M - 1) central outputs.
  std::array<int, 3> tile{1, 1, 1};
  std::array<int, 3> stitched{1, 1, 1};

  // The segment as a (depth x) rows x cols complex matrix. 1D: rows x cols = L1 x L2 (prime-factor FFT);
  // 2D: y x x; 3D: y x x per slice and `depth` slices along z, whose DFT runs on CUDA cores.
  DftAxis rows, cols, depth;
  bool prime_factor = false;
  // padded rows x cols cells; the segment position each holds (1D: l; else y * Lx + x), -1 for padding. In 1D
  // this is the Chinese-remainder map n1 = l mod L1, n2 = l mod L2, which is the paper's diagonal indexing.
  std::vector<int> input_map;
  // padded rows x cols cells; the frequency each holds after the transform (1D: k = (k1 L2 + k2 L1) mod L, the
  // paper's Eq. 8; else ky * Lx + kx), -1 for padding.
  std::vector<int> frequency_map;
  // 1D: the cell (n1 * padded cols + n2) of segment position l = 0, 1, 2, ...: the diagonal walk; empty otherwise.
  std::vector<int> diagonal_order;

  // The complex products as real block products on m8n8k4.f64 (Fr, Fi: real and imaginary parts):
  //   step 1  [Pr; Pi]      = forward_rows x [xr; xi]            forward_rows = [[Fr, -Fi], [Fi, Fr]] of rows
  //   step 2  [Qr | Qi]     = [Pr | Pi] x G                      G = [[Fr, Fi], [-Fi, Fr]] of cols
  //   step 3  Q             = Q * k_f^T / N                      (and the z DFT, multiply, inverse in 3D)
  //   step 4  [Rr'; Ri']    = G' x [Qr | Qi]'                    (' = transpose; G is its own inverse's transpose)
  //   step 5  [yr' | yi']   = [Rr' | Ri'] x forward_rows         (conj(F) as a real block is forward_rows)
  // Steps 2, 4 and 5 take their data operand straight from the previous C fragments, so the constant matrix's
  // K index runs in the feed's swizzled order; these are the swizzled copies the kernels load.
  FftMatrix forward_rows;          // step 1 A, 2 Pr x 2 Pr
  FftMatrix forward_cols_swizzled; // step 2 B: G with rows in swizzled order, 2 Pc x 2 Pc
  FftMatrix inverse_cols_swizzled; // step 4 A: G with columns in swizzled order
  FftMatrix inverse_rows_swizzled; // step 5 B: forward_rows with rows in swizzled order
  RegisterFeed feed_to_a, feed_to_b;

  // k_f[k] = sum_d w[d] exp(+2 pi i k.d / L) (the stencil reads x[n + d]) and k_f^T, in the frequency layout:
  // depth x padded rows x padded cols, zero in padding. The kernel multiplies by fused_spectrum * inverse_scale.
  std::vector<std::complex<double>> kernel_spectrum;
  std::vector<std::complex<double>> fused_spectrum;
  double inverse_scale = 1.0; // 1 / (number of DFT points): the inverse DFT's factor, folded into k_f^T
  MmaShape shape = MmaShape::M8N8K4_F64;
  std::string tile_choice; // how the tile was chosen
};

// Plans FlashFFTStencil for a stencil. Throws InputError when it cannot: T < 1, non-coprime or too small 1D
// factors, a tile that leaves no output for the fused kernel, or one too large for shared memory.
FlashFftPlan make_flashfft_plan(const Stencil& s, const FlashFftOptions& options = {});

// The largest tile (complex points of one segment pair's working set) the plan accepts: 128 KiB of the 227 KiB
// of shared memory an H100 block may use, leaving room for the DFT matrices.
constexpr int kFlashFftMaxTilePoints = 8192;

// Analytic work of one pass over one double-layer tile pair, from the geometry alone (the cost model and the
// automatic tile choice use it; the emulation's counters must agree).
struct FlashFftPassWork {
  double mma = 0;             // m8n8k4 instructions
  double cuda_core_flops = 0; // spectrum multiply (and the z DFTs in 3D)
  double outputs = 0;         // points stitched back (two segments)
  double inputs = 0;          // points read, halos included (two segments)
};
FlashFftPassWork flashfft_pass_work(const FlashFftPlan& plan);

// The DFT matrix of size n padded to `padded`, entries exact at multiples of a quarter turn.
DftAxis make_dft_axis(std::string role, int length, int padded);

nlohmann::json to_json(const FlashFftPlan& plan);
std::string to_string(const FlashFftPlan& plan); // matrices with aligned columns, maps, feed table

// k in 0..L-1 order (1D plans only): the spectrum the PFA layout holds, read back through frequency_map.
std::vector<std::complex<double>> spectrum_by_frequency(const FlashFftPlan& plan,
                                                        const std::vector<std::complex<double>>& layout);

// The forward transform of one complex 1D segment (L values) through the plan's maps and DFT matrices in plain
// FP64 (no fragments): x -> F1 x F2 in the PFA layout, returned in k order. Teaches and checks the CRT maps.
std::vector<std::complex<double>> pfa_forward(const FlashFftPlan& plan, const std::vector<std::complex<double>>& segment);

// Double-layer filling: z = a + i b for two real segments. Their spectra come back from Z by conjugate
// symmetry, A[k] = (Z[k] + conj Z[-k]) / 2 and B[k] = (Z[k] - conj Z[-k]) / 2i. The stencil output needs no
// separation (the kernel is real, so Re y belongs to a and Im y to b); the spectra do.
struct DoubleLayerSpectra {
  std::vector<std::complex<double>> first, second;
};
DoubleLayerSpectra separate_double_layer(const std::vector<std::complex<double>>& z_spectrum);

} // namespace se
