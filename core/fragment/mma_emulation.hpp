// Per-warp fragments and instruction-exact CPU emulation of mma / mma.sp / wmma, reading operands
// only through the fragment layouts; plus the 2:4 compression and metadata packing mma.sp consumes.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/fragment/fragment_layout.hpp"
#include "core/half.hpp"

namespace se {

// What one warp holds for one operand: regs[lane * layout.regs_per_lane + reg].
template <typename T> struct WarpFragment {
  FragmentLayout layout;
  std::vector<T> regs;
};

// Gather a row-major matrix (leading dimension ld >= layout.cols) into a fragment following the layout,
// and scatter it back. For sparse A, src is the compressed 16x8 value matrix.
// Instantiated for double, float and Half. Throw InputError on a null pointer or ld < cols.
template <typename T> WarpFragment<T> load_fragment(MmaShape shape, Operand operand, const T* src, int ld);
template <typename T> void store_fragment(const WarpFragment<T>& fragment, T* dst, int ld);

// D = A*B + C written into c, as the instruction computes it, operands read only through the fragments.
// Every function checks that each fragment has the layout of its shape and operand (InputError otherwise).

// f64 shapes (m8n8k4, m16n8k4/k8/k16): each output is a chain of fused multiply-adds in k order starting
// from C (d = fma(a_k, b_k, d) for k = 0..K-1), one rounding per step. DMMA is IEEE-exact per fma.
void mma_f64(MmaShape shape, const WarpFragment<double>& a, const WarpFragment<double>& b,
             WarpFragment<double>& c);

// f16 operands, f32 accumulate (m16n8k16.f16.f32 and wmma m16n16k16): a product of two f16 values is
// exact in f32, the products are added to C in f32 in k order. Hardware adds in its own (undocumented)
// order and may differ by about one f32 ulp of the largest partial sum; compare with such a tolerance.
void mma_f16_f32(MmaShape shape, const WarpFragment<Half>& a, const WarpFragment<Half>& b,
                 WarpFragment<float>& c);

// m16n8k16 f16 operands, f16 accumulate: the f32 chain above, rounded to f16 once at the end.
void mma_f16_f16(const WarpFragment<Half>& a, const WarpFragment<Half>& b, WarpFragment<Half>& c);

// mma.sp metadata: one 32-bit register per lane. For m16n8k16 .f16 only lane 4*g + selector of each
// group g of four lanes is read (selector 0..3), so four MMAs can share one metadata register per lane.
struct SparseMetadata {
  std::vector<std::uint32_t> per_lane; // 32 words
  int selector = 0;                    // 0..3
};

// mma.sp.m16n8k16 .f16 -> .f32: for each kept value the metadata picks the row of B it multiplies; the
// eight kept products of a row are added to C in f32 in increasing k order. This equals mma_f16_f32 on
// the decompressed A bit for bit (the skipped products are exact zeros), except when B holds Inf/NaN or
// every term is a signed zero. Throws InputError for metadata the ISA leaves undefined (an index pair
// that is not strictly increasing).
void mma_sp_f16_f32(const WarpFragment<Half>& a_compressed, const SparseMetadata& meta,
                    const WarpFragment<Half>& b, WarpFragment<float>& c);

// 2:4 structured sparsity along rows: every aligned group of 4 in a row has at most 2 nonzeros.
// Throws InputError for null data, non-positive sizes or ld < cols; false when cols is not a multiple of 4.
bool is_2to4(const double* dense, int rows, int cols, int ld);

// A 2:4 matrix as mma.sp wants it: the two kept values of each group of 4, in column order, and their
// 2-bit positions inside the group (strictly increasing; a group with fewer than two nonzeros keeps
// zeros as placeholders at the lowest free positions).
struct Compressed24 {
  std::vector<double> values;         // rows x cols/2, row-major
  std::vector<std::uint8_t> indices;  // rows x cols/2, each 0..3
  int rows = 0, cols = 0;             // the dense shape
};

Compressed24 compress_2to4(const double* dense, int rows, int cols, int ld); // throws InputError if not 2:4
std::vector<double> decompress_2to4(const Compressed24& compressed);         // exact inverse, rows x cols

// The metadata registers of mma.sp.m16n8k16 .f16 for a 16x16 compressed A: lane 4*g + selector holds
// rows g (bits 0-15) and g+8 (bits 16-31), one nibble per group of 4 columns, low nibble first, each
// nibble = first index | second index << 2. Other lanes hold 0.
SparseMetadata pack_metadata(const Compressed24& a16x16, int selector);

// "lane 4: 0x88888888" lines for the lanes that carry metadata, for plan printouts.
std::string to_string(const SparseMetadata& meta);

} // namespace se
