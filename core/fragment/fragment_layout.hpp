// Tensor-core fragment layouts: which lane and register of a warp holds which element of an MMA operand.
// Taken from the PTX ISA's "Matrix Fragments for mma..." sections; one printable, testable value per shape.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "core/fragment/lane_coords.hpp"
#include "core/grid.hpp"

namespace se {

// The warp-level instructions the methods use. Ids (see mma_shapes()) name them in the CLI and plans.
enum class MmaShape {
  M8N8K4_F64,             // mma.m8n8k4 .f64 (sm_80+): ConvStencil, LoRAStencil
  M16N8K4_F64,            // mma.m16n8k4 .f64 (sm_90+)
  M16N8K8_F64,            // mma.m16n8k8 .f64 (sm_90+)
  M16N8K16_F64,           // mma.m16n8k16 .f64 (sm_90+)
  M16N8K16_F16_F32,       // mma.m16n8k16 .f16 operands, .f32 accumulate
  M16N8K16_F16_F16,       // mma.m16n8k16 .f16 operands, .f16 accumulate
  SP_M16N8K16_F16_F32,    // mma.sp.m16n8k16 .f16, 2:4-sparse A given compressed (16x8) plus metadata
  WMMA_M16N16K16_F16_F32, // wmma m16n16k16 .f16 -> .f32 (TCStencil); register layout not specified by NVIDIA
};

enum class Operand { A, B, C }; // C is also the layout of D, the result

struct MmaShapeInfo {
  MmaShape shape;
  std::string id;  // "m16n8k16.f16.f32", ...
  std::string ptx; // the full instruction the GPU kernels issue
  int m = 0, n = 0, k = 0;
  Precision operands = Precision::FP64;
  Precision accumulate = Precision::FP64;
  bool sparse = false;
  bool layout_observed = false; // true where NVIDIA leaves the layout unspecified and we record what GPUs do
  std::string note;
};

const std::vector<MmaShapeInfo>& mma_shapes();
const MmaShapeInfo& mma_info(MmaShape shape);
MmaShape parse_mma_shape(std::string_view id); // throws InputError listing the known ids
std::string_view to_string(MmaShape shape);    // the id
std::string_view to_string(Operand operand);   // "A", "B", "C"


struct FragmentOwner {
  int lane = 0, reg = 0;
  bool operator==(const FragmentOwner&) const = default;
};

// A bijection between (lane, reg) and (row, col) of one operand tile, CuTe-style: a value to print,
// draw and test. Registers count scalar elements: each f16 of an f16x2 register is one reg, in the
// PTX "elements (low to high)" order, so reg i is the PTX element a_i / b_i / c_i.
struct FragmentLayout {
  MmaShape shape = MmaShape::M8N8K4_F64;
  Operand operand = Operand::A;
  int rows = 0, cols = 0;  // A: m x k (sparse A: the compressed m x k/2), B: k x n, C: m x n
  int regs_per_lane = 0;   // rows * cols == 32 * regs_per_lane
  std::vector<FragmentCoord> coords; // coords[lane * regs_per_lane + reg]

  FragmentCoord at(int lane, int reg) const;    // throws InputError when out of range
  FragmentOwner owner(int row, int col) const;  // throws InputError when out of range
  std::string to_string() const; // a title line, then a rows x cols table of "lane:reg"
};

// The same layout without a copy (built once per shape and operand).
const FragmentLayout& hardware_fragment_layout(MmaShape shape, Operand operand);
FragmentLayout fragment_layout(MmaShape shape, Operand operand);

constexpr int kWarpSize = 32;

} // namespace se
