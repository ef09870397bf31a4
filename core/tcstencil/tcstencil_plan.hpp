// TCStencil's plan: the banded L x L parameter matrices (star: P_ver and P_hor; box: one per kernel row, the
// input shifted one row per GEMM), the partial-coefficient lines at the tile border, and the taps left to CUDA cores.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/fragment/fragment_layout.hpp"
#include "core/grid.hpp"
#include "core/stencil.hpp"

namespace se {

// Which side of the GEMM the parameter matrix sits on: P_ver multiplies the tile from the left (weighted sums
// down each column), P_hor and the box-row matrices from the right (weighted sums along each row).
enum class ParameterSide { Left, Right };

struct ParameterMatrix {
  std::string name;           // "P_ver", "P_hor", "P_row(dy=-1)", with the plane "(dz=..)" in 3D
  ParameterSide side = ParameterSide::Right;
  int plane = 0;              // dz of the kernel slice it holds (0 in 2D)
  int row_shift = 0;          // dy: its GEMM reads the input tile shifted dy rows (box rows); 0 for star matrices
  std::vector<double> weights; // L x L row-major, the stencil's FP64 weights
  std::vector<double> operand; // L x L as the tensor core reads them (rounded to FP16 in the FP16 variant)
  // Rows (Left) or columns (Right) whose (2r+1)-wide band the tile border cuts: they hold partial coefficients,
  // and the rest of those sums comes from the CUDA-core taps.
  std::vector<int> partial_lines;
  int zero_count() const; // zeros in `operand`
};

// One stencil tap that some outputs of a tile cannot take from the tensor cores because its neighbour lies
// outside the tile (or, in 3D star stencils, in another plane): those outputs add weight * neighbour on CUDA cores.
struct CudaCoreTap {
  int dx = 0, dy = 0, dz = 0;
  double weight = 0;  // FP64
  double operand = 0; // as the CUDA cores use it (FP16-rounded in the FP16 variant)
  int row_begin = 0, row_end = 0, col_begin = 0, col_end = 0; // the tile outputs [rows) x [cols) that need it
  std::int64_t outputs() const {
    return static_cast<std::int64_t>(row_end - row_begin) * (col_end - col_begin);
  }
};

enum class TCStencilDecomposition { Star, Box };
std::string_view to_string(ParameterSide side);       // "P x A'" or "A' x P"
std::string_view to_string(TCStencilDecomposition d); // "star" or "box"

struct TCStencilPlan {
  Stencil stencil;
  Precision precision = Precision::FP16; // FP16: the paper's WMMA 16x16x16; FP64: our variant on mma.m8n8k4
  MmaShape shape = MmaShape::WMMA_M16N16K16_F16_F32;
  int L = 16;                            // the tile side and parameter-matrix side
  TCStencilDecomposition decomposition = TCStencilDecomposition::Star;
  std::vector<ParameterMatrix> matrices; // one GEMM each per tile
  std::vector<CudaCoreTap> cuda_core_taps;

  int mma_per_gemm() const;                        // (L/m)(L/n)(L/k) instructions for one L x L x L product
  int mma_per_tile() const { return static_cast<int>(matrices.size()) * mma_per_gemm(); }
  std::int64_t cuda_core_fma_per_tile() const;     // sum of the taps' outputs
  // The paper's inner region: points whose whole stencil the GEMMs cover when tiles only update (L-2r)^2 points.
  int inner_points_per_tile() const;
  // Points of a tile (per plane) that no CUDA-core tap touches: their whole stencil comes from the GEMMs in this
  // plan. Box rows read the shifted input, so only columns are cut: L (L - 2r) for a full box, not (L-2r)^2.
  int gemm_only_points_per_tile() const;
  // The CUDA-core taps that finish the partial sums of this matrix's GEMM (same plane; Right: same kernel row,
  // Left: the vertical taps). Their neighbours outside the GEMM's operand are what this GEMM needs but cannot read.
  std::vector<const CudaCoreTap*> taps_completing(const ParameterMatrix& p) const;
};

// Empty when TCStencil can take this stencil in this precision; otherwise why not, in words a person can act on:
// 1D stencils, the radius limit L > 2r+1, and (FP16) weights FP16 cannot hold.
std::string tcstencil_unsupported_reason(const Stencil& s, Precision precision);

// The plan for a stencil: FP16 -> WMMA m16n16k16 (L = 16), FP64 -> mma.m8n8k4 (L = 8).
// Throws InputError with tcstencil_unsupported_reason's text when the stencil cannot be taken.
TCStencilPlan make_tcstencil_plan(const Stencil& s, Precision precision = Precision::FP16);
// The same decomposition on another MMA shape: the GPU kernels run FP16 on mma.m16n8k16 (L = 16, two per 16x16x16
// product) and FP64 on mma.m16n8k4 (L = 16, eight per product, radius up to 7 like FP16).
TCStencilPlan make_tcstencil_plan(const Stencil& s, Precision precision, MmaShape shape);
// The tile side a shape gives TCStencil: 16 for the m16 shapes and WMMA, 8 for m8n8k4.
int tcstencil_tile_side(MmaShape shape);
std::string tcstencil_unsupported_reason(const Stencil& s, Precision precision, MmaShape shape);

// Readable dump: metadata, every parameter matrix with aligned columns, partial lines, CUDA-core taps.
std::string to_string(const TCStencilPlan& plan);
nlohmann::json to_json(const TCStencilPlan& plan);

// The largest |stencil result| an FP16 TCStencil step can produce without overflowing 65504, per unit of input:
// sum of |FP16 weights|. A grid whose max |value| times this exceeds 65504 is rejected before the step.
double tcstencil_fp16_gain(const TCStencilPlan& plan);

} // namespace se
