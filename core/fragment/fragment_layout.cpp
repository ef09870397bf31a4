#include "core/fragment/fragment_layout.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "core/error.hpp"

namespace se {
namespace {

struct TileShape {
  int rows, cols;
};

TileShape tile_shape(const MmaShapeInfo& info, Operand op) {
  switch (op) {
  case Operand::A: return {info.m, info.sparse ? info.k / 2 : info.k};
  case Operand::B: return {info.k, info.n};
  case Operand::C: return {info.m, info.n};
  }
  return {0, 0};
}

// Every formula is the PTX ISA's, in core/fragment/lane_coords.hpp (shared with the kernels).
FragmentCoord coord_of(MmaShape shape, Operand op, int lane, int i) {
  switch (shape) {
  case MmaShape::M8N8K4_F64:
    return op == Operand::A ? lane::m8n8k4_f64_a(lane, i) : op == Operand::B ? lane::m8n8k4_f64_b(lane, i)
                                                                             : lane::m8n8k4_f64_c(lane, i);
  case MmaShape::M16N8K4_F64:
  case MmaShape::M16N8K8_F64:
  case MmaShape::M16N8K16_F64:
    return op == Operand::A ? lane::f64_a_16xk(lane, i) : op == Operand::B ? lane::f64_b_kx8(lane, i)
                                                                           : lane::accumulator_16x8(lane, i);
  case MmaShape::M16N8K16_F16_F32:
  case MmaShape::M16N8K16_F16_F16:
  case MmaShape::SP_M16N8K16_F16_F32:
    // The sparse A uses the f16 A formula restricted to its 4 elements (i < 4 keeps cols < 8).
    return op == Operand::A ? lane::f16_a_16x16(lane, i) : op == Operand::B ? lane::f16_b_16x8(lane, i)
                                                                            : lane::accumulator_16x8(lane, i);
  case MmaShape::WMMA_M16N16K16_F16_F32:
    return op == Operand::A ? lane::f16_a_16x16(lane, i) : op == Operand::B ? lane::wmma_b_16x16(lane, i)
                                                                            : lane::wmma_c_16x16(lane, i);
  }
  return {};
}

std::vector<MmaShapeInfo> make_shape_table() {
  const auto f64 = Precision::FP64, f32 = Precision::FP32, f16 = Precision::FP16;
  return {
      {MmaShape::M8N8K4_F64, "m8n8k4.f64", "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64", 8, 8, 4,
       f64, f64, false, false,
       "DMMA, sm_80+; ConvStencil and LoRAStencil use it. PTX ISA 9.7.14.5.2."},
      {MmaShape::M16N8K4_F64, "m16n8k4.f64", "mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64", 16, 8, 4,
       f64, f64, false, false, "sm_90+ (PTX ISA 7.8). PTX ISA 9.7.14.5.6."},
      {MmaShape::M16N8K8_F64, "m16n8k8.f64", "mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64", 16, 8, 8,
       f64, f64, false, false, "sm_90+ (PTX ISA 7.8). PTX ISA 9.7.14.5.7."},
      {MmaShape::M16N8K16_F64, "m16n8k16.f64", "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64", 16, 8,
       16, f64, f64, false, false, "sm_90+ (PTX ISA 7.8). PTX ISA 9.7.14.5.8."},
      {MmaShape::M16N8K16_F16_F32, "m16n8k16.f16.f32", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
       16, 8, 16, f16, f32, false, false, "sm_80+. PTX ISA 9.7.14.5.8."},
      {MmaShape::M16N8K16_F16_F16, "m16n8k16.f16.f16", "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16",
       16, 8, 16, f16, f16, false, false,
       "sm_80+; C/D are two f16x2 registers, same element layout as f32. PTX ISA 9.7.14.5.8."},
      {MmaShape::SP_M16N8K16_F16_F32, "sp.m16n8k16.f16.f32",
       "mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", 16, 8, 16, f16, f32, true,
       false,
       "sm_80+. A is 2:4 sparse along k and given compressed (16x8) plus one metadata register per lane; "
       "the sparsity selector 0..3 names the lane of each group of four that supplies it. Our metadata is "
       "always in increasing order, so plain mma.sp reads it the same. PTX ISA 9.7.14.6.1, 9.7.14.6.2.1."},
      {MmaShape::WMMA_M16N16K16_F16_F32, "wmma.m16n16k16.f16.f32",
       "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32", 16, 16, 16, f16, f32, false, true,
       "TCStencil's instruction. NVIDIA leaves the register layout unspecified; this is the layout observed "
       "on sm_80/sm_90 (two m16n8k16 side by side; A and B fragments hold each value twice, x[i+8] == x[i], "
       "only the 8 distinct ones are modelled). To be confirmed on the GPU."},
  };
}

} // namespace

const std::vector<MmaShapeInfo>& mma_shapes() {
  static const std::vector<MmaShapeInfo> table = make_shape_table();
  return table;
}

const MmaShapeInfo& mma_info(MmaShape shape) {
  for (const auto& info : mma_shapes())
    if (info.shape == shape) return info;
  throw InputError(fmt::format("unknown MMA shape value {}", static_cast<int>(shape)));
}

MmaShape parse_mma_shape(std::string_view id) {
  std::string known;
  for (const auto& info : mma_shapes()) {
    if (info.id == id) return info.shape;
    known += (known.empty() ? "" : ", ") + info.id;
  }
  throw InputError(fmt::format("unknown MMA shape '{}'; known shapes: {}", id, known));
}

std::string_view to_string(MmaShape shape) { return mma_info(shape).id; }

std::string_view to_string(Operand operand) {
  switch (operand) {
  case Operand::A: return "A";
  case Operand::B: return "B";
  case Operand::C: return "C";
  }
  return "?";
}

FragmentCoord FragmentLayout::at(int lane, int reg) const {
  if (lane < 0 || lane >= kWarpSize || reg < 0 || reg >= regs_per_lane)
    throw InputError(fmt::format("{} {}: no lane {} register {}; lanes are 0-31, registers 0-{}",
                                 se::to_string(shape), se::to_string(operand), lane, reg, regs_per_lane - 1));
  return coords[static_cast<std::size_t>(lane * regs_per_lane + reg)];
}

FragmentOwner FragmentLayout::owner(int row, int col) const {
  if (row < 0 || row >= rows || col < 0 || col >= cols)
    throw InputError(fmt::format("{} {}: no element ({}, {}); the tile is {} x {}", se::to_string(shape),
                                 se::to_string(operand), row, col, rows, cols));
  const auto it = std::find(coords.begin(), coords.end(), FragmentCoord{row, col});
  if (it == coords.end())
    throw InputError(fmt::format("{} {}: element ({}, {}) is held by no lane; the layout is corrupt",
                                 se::to_string(shape), se::to_string(operand), row, col));
  const int slot = static_cast<int>(it - coords.begin());
  return {slot / regs_per_lane, slot % regs_per_lane};
}

std::string FragmentLayout::to_string() const {
  const MmaShapeInfo& info = mma_info(shape);
  std::string out = fmt::format("{} operand {}: {} x {}{}, {} elements per lane, cell = lane:reg{}\n", info.id,
                                se::to_string(operand), rows, cols,
                                info.sparse && operand == Operand::A ? " (compressed k/2 columns)" : "",
                                regs_per_lane, info.layout_observed ? " (observed layout)" : "");
  // Invert once so printing is linear in the tile size.
  std::vector<FragmentOwner> owners(static_cast<std::size_t>(rows * cols));
  for (int slot = 0; slot < static_cast<int>(coords.size()); ++slot) {
    const FragmentCoord rc = coords[static_cast<std::size_t>(slot)];
    owners[static_cast<std::size_t>(rc.row * cols + rc.col)] = {slot / regs_per_lane, slot % regs_per_lane};
  }
  out += "     ";
  for (int c = 0; c < cols; ++c) out += fmt::format(" {:>5}", c);
  out += '\n';
  for (int r = 0; r < rows; ++r) {
    out += fmt::format("{:>5}", r);
    for (int c = 0; c < cols; ++c) {
      const FragmentOwner o = owners[static_cast<std::size_t>(r * cols + c)];
      out += fmt::format(" {:>5}", fmt::format("{}:{}", o.lane, o.reg));
    }
    out += '\n';
  }
  return out;
}

namespace {

FragmentLayout build_fragment_layout(MmaShape shape, Operand operand) {
  const MmaShapeInfo& info = mma_info(shape);
  const TileShape tile = tile_shape(info, operand);
  FragmentLayout layout;
  layout.shape = shape;
  layout.operand = operand;
  layout.rows = tile.rows;
  layout.cols = tile.cols;
  layout.regs_per_lane = tile.rows * tile.cols / kWarpSize;
  layout.coords.reserve(static_cast<std::size_t>(tile.rows * tile.cols));
  for (int lane = 0; lane < kWarpSize; ++lane)
    for (int reg = 0; reg < layout.regs_per_lane; ++reg) layout.coords.push_back(coord_of(shape, operand, lane, reg));
  return layout;
}

} // namespace

// Emulations ask for layouts once per fragment, so every layout is built once.
const FragmentLayout& hardware_fragment_layout(MmaShape shape, Operand operand) {
  static const std::vector<std::array<FragmentLayout, 3>> cache = [] {
    std::vector<std::array<FragmentLayout, 3>> all;
    for (const MmaShapeInfo& info : mma_shapes())
      all.push_back({build_fragment_layout(info.shape, Operand::A), build_fragment_layout(info.shape, Operand::B),
                     build_fragment_layout(info.shape, Operand::C)});
    return all;
  }();
  const auto& shapes = mma_shapes();
  for (std::size_t i = 0; i < shapes.size(); ++i)
    if (shapes[i].shape == shape) return cache[i][static_cast<std::size_t>(operand)];
  throw InputError(fmt::format("unknown MMA shape value {}", static_cast<int>(shape)));
}

FragmentLayout fragment_layout(MmaShape shape, Operand operand) { return hardware_fragment_layout(shape, operand); }

} // namespace se
