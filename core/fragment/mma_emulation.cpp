#include "core/fragment/mma_emulation.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"

namespace se {
namespace {

constexpr int kMaxTileElements = 256; // the largest operand tile: 16 x 16

// Where each (row, col) of a fragment's tile lives in regs. Building it also proves the layout is a
// bijection onto the tile, so a hand-edited or mismatched fragment is rejected instead of misread.
using SlotTable = std::array<int, kMaxTileElements>;

// Builds the table and so proves the layout is a bijection onto the tile.
SlotTable build_slot_table(const FragmentLayout& l, const char* role) {
  SlotTable table;
  table.fill(-1);
  for (std::size_t s = 0; s < l.coords.size(); ++s) {
    const FragmentCoord rc = l.coords[s];
    const bool inside = rc.row >= 0 && rc.row < l.rows && rc.col >= 0 && rc.col < l.cols;
    if (!inside || table[static_cast<std::size_t>(rc.row * l.cols + rc.col)] != -1)
      throw InputError(fmt::format("{}: the layout of {} operand {} is not a bijection onto its tile", role,
                                   to_string(l.shape), to_string(l.operand)));
    table[static_cast<std::size_t>(rc.row * l.cols + rc.col)] = static_cast<int>(s);
  }
  return table;
}

// The hardware layouts' tables, built once: emulations issue millions of MMAs on the same few layouts.
const SlotTable& canonical_slot_table(MmaShape shape, Operand operand) {
  static const std::vector<std::array<SlotTable, 3>> tables = [] {
    std::vector<std::array<SlotTable, 3>> all;
    for (const MmaShapeInfo& info : mma_shapes())
      all.push_back({build_slot_table(hardware_fragment_layout(info.shape, Operand::A), "A"),
                     build_slot_table(hardware_fragment_layout(info.shape, Operand::B), "B"),
                     build_slot_table(hardware_fragment_layout(info.shape, Operand::C), "C")});
    return all;
  }();
  const auto& shapes = mma_shapes();
  std::size_t i = 0;
  while (shapes[i].shape != shape) ++i; // mma_info has already rejected unknown shapes
  return tables[i][static_cast<std::size_t>(operand)];
}

// Where each (row, col) of a fragment's tile lives in regs. A fragment whose layout is not the hardware's
// is still read through its own layout, after checking it is a bijection, so it is never misread.
template <typename T>
SlotTable slot_table(const WarpFragment<T>& f, MmaShape shape, Operand operand, const char* role) {
  const FragmentLayout& l = f.layout;
  if (l.shape != shape || l.operand != operand)
    throw InputError(fmt::format("{}: expected a fragment of {} operand {}, got {} operand {}", role,
                                 to_string(shape), to_string(operand), to_string(l.shape), to_string(l.operand)));
  const MmaShapeInfo& info = mma_info(shape);
  const int rows = operand == Operand::B ? info.k : info.m;
  const int cols = operand == Operand::A ? (info.sparse ? info.k / 2 : info.k) : info.n;
  const std::size_t slots = static_cast<std::size_t>(rows * cols);
  if (l.rows != rows || l.cols != cols || l.regs_per_lane * kWarpSize != rows * cols || l.coords.size() != slots ||
      f.regs.size() != slots)
    throw InputError(fmt::format("{}: fragment of {} operand {} holds {} values for a {} x {} tile; expected {}",
                                 role, to_string(shape), to_string(operand), f.regs.size(), rows, cols, slots));
  static const auto same_coords = [](const FragmentLayout& a, const FragmentLayout& b) {
    return std::equal(a.coords.begin(), a.coords.end(), b.coords.begin(), b.coords.end(),
                      [](FragmentCoord x, FragmentCoord y) { return x.row == y.row && x.col == y.col; });
  };
  if (same_coords(l, hardware_fragment_layout(shape, operand))) return canonical_slot_table(shape, operand);
  return build_slot_table(l, role);
}

// Each output of C runs through `step(acc, a_k, b_k)` for k = 0..K-1 in order, starting from `start(c)`
// and ending with `finish(acc)`; operand values are fetched from the registers that hold them.
template <typename In, typename Out, typename Start, typename Step, typename Finish>
void dense_mma(MmaShape shape, const WarpFragment<In>& a, const WarpFragment<In>& b, WarpFragment<Out>& c,
               Start start, Step step, Finish finish) {
  const SlotTable a_slot = slot_table(a, shape, Operand::A, "A");
  const SlotTable b_slot = slot_table(b, shape, Operand::B, "B");
  slot_table(c, shape, Operand::C, "C");
  const int k_size = a.layout.cols, n_size = b.layout.cols;
  for (std::size_t s = 0; s < c.regs.size(); ++s) {
    const FragmentCoord rc = c.layout.coords[s];
    auto acc = start(c.regs[s]);
    for (int k = 0; k < k_size; ++k) {
      const In av = a.regs[static_cast<std::size_t>(a_slot[static_cast<std::size_t>(rc.row * k_size + k)])];
      const In bv = b.regs[static_cast<std::size_t>(b_slot[static_cast<std::size_t>(k * n_size + rc.col)])];
      acc = step(acc, av, bv);
    }
    c.regs[s] = finish(acc);
  }
}

// f16 x f16 has at most 22 significant bits and an exponent within f32's range, so the product is
// exact in f32 and only the addition rounds (fused or not, the result is the same).
float f32_step(float acc, Half a, Half b) { return acc + static_cast<float>(a) * static_cast<float>(b); }

void check_rows_cols_ld(const void* data, int rows, int cols, int ld, const char* what) {
  if (data == nullptr) throw InputError(fmt::format("{}: the matrix pointer is null", what));
  if (rows <= 0 || cols <= 0)
    throw InputError(fmt::format("{}: the matrix must have positive size; got {} x {}", what, rows, cols));
  if (ld < cols)
    throw InputError(fmt::format("{}: leading dimension {} is smaller than the {} columns", what, ld, cols));
}

bool is_zero(double v) { return v == 0.0; } // NaN counts as a nonzero: it cannot be dropped

// A nibble holds the two 2-bit positions of a group's kept values, first in the low bits.
std::uint32_t metadata_nibble(std::uint8_t first, std::uint8_t second) {
  return static_cast<std::uint32_t>(first) | (static_cast<std::uint32_t>(second) << 2);
}

} // namespace

template <typename T> WarpFragment<T> load_fragment(MmaShape shape, Operand operand, const T* src, int ld) {
  WarpFragment<T> f{fragment_layout(shape, operand), {}};
  check_rows_cols_ld(src, f.layout.rows, f.layout.cols, ld, "load_fragment");
  f.regs.reserve(f.layout.coords.size());
  for (const FragmentCoord rc : f.layout.coords)
    f.regs.push_back(src[static_cast<std::size_t>(rc.row) * static_cast<std::size_t>(ld) + static_cast<std::size_t>(rc.col)]);
  return f;
}

template <typename T> void store_fragment(const WarpFragment<T>& fragment, T* dst, int ld) {
  const FragmentLayout& l = fragment.layout;
  check_rows_cols_ld(dst, l.rows, l.cols, ld, "store_fragment");
  slot_table(fragment, l.shape, l.operand, "store_fragment");
  for (std::size_t s = 0; s < fragment.regs.size(); ++s) {
    const FragmentCoord rc = l.coords[s];
    dst[static_cast<std::size_t>(rc.row) * static_cast<std::size_t>(ld) + static_cast<std::size_t>(rc.col)] =
        fragment.regs[s];
  }
}

template WarpFragment<double> load_fragment<double>(MmaShape, Operand, const double*, int);
template WarpFragment<float> load_fragment<float>(MmaShape, Operand, const float*, int);
template WarpFragment<Half> load_fragment<Half>(MmaShape, Operand, const Half*, int);
template void store_fragment<double>(const WarpFragment<double>&, double*, int);
template void store_fragment<float>(const WarpFragment<float>&, float*, int);
template void store_fragment<Half>(const WarpFragment<Half>&, Half*, int);

void mma_f64(MmaShape shape, const WarpFragment<double>& a, const WarpFragment<double>& b,
             WarpFragment<double>& c) {
  const MmaShapeInfo& info = mma_info(shape);
  if (info.operands != Precision::FP64 || info.sparse)
    throw InputError(fmt::format("mma_f64 takes an f64 shape (m8n8k4.f64, m16n8k4.f64, m16n8k8.f64, "
                                 "m16n8k16.f64); got {}", info.id));
  dense_mma(
      shape, a, b, c, [](double v) { return v; },
      [](double acc, double av, double bv) { return std::fma(av, bv, acc); }, [](double acc) { return acc; });
}

void mma_f16_f32(MmaShape shape, const WarpFragment<Half>& a, const WarpFragment<Half>& b,
                 WarpFragment<float>& c) {
  if (shape != MmaShape::M16N8K16_F16_F32 && shape != MmaShape::WMMA_M16N16K16_F16_F32)
    throw InputError(fmt::format("mma_f16_f32 takes m16n8k16.f16.f32 or wmma.m16n16k16.f16.f32; got {}{}",
                                 to_string(shape),
                                 shape == MmaShape::SP_M16N8K16_F16_F32 ? " (use mma_sp_f16_f32)" : ""));
  dense_mma(shape, a, b, c, [](float v) { return v; }, f32_step, [](float acc) { return acc; });
}

void mma_f16_f16(const WarpFragment<Half>& a, const WarpFragment<Half>& b, WarpFragment<Half>& c) {
  dense_mma(
      MmaShape::M16N8K16_F16_F16, a, b, c, [](Half v) { return static_cast<float>(v); }, f32_step,
      [](float acc) { return Half(acc); });
}

void mma_sp_f16_f32(const WarpFragment<Half>& a_compressed, const SparseMetadata& meta,
                    const WarpFragment<Half>& b, WarpFragment<float>& c) {
  constexpr MmaShape shape = MmaShape::SP_M16N8K16_F16_F32;
  const SlotTable a_slot = slot_table(a_compressed, shape, Operand::A, "compressed A");
  const SlotTable b_slot = slot_table(b, shape, Operand::B, "B");
  slot_table(c, shape, Operand::C, "C");
  if (meta.per_lane.size() != static_cast<std::size_t>(kWarpSize))
    throw InputError(fmt::format("mma.sp metadata needs one register per lane (32); got {}", meta.per_lane.size()));
  if (meta.selector < 0 || meta.selector > 3)
    throw InputError(fmt::format("mma.sp.m16n8k16 .f16 takes a sparsity selector 0-3; got {}", meta.selector));
  constexpr int n_size = 8, kept_cols = 8;
  for (std::size_t s = 0; s < c.regs.size(); ++s) {
    const FragmentCoord rc = c.layout.coords[s];
    // Rows g and g + 8 share the register of lane 4g + selector, in its low and high 16 bits.
    const std::uint32_t word = meta.per_lane[static_cast<std::size_t>(4 * (rc.row & 7) + meta.selector)];
    const int row_shift = 16 * (rc.row >> 3);
    float acc = c.regs[s];
    for (int group = 0; group < 4; ++group) {
      const std::uint32_t nibble = (word >> (row_shift + 4 * group)) & 0xfu;
      const int first = static_cast<int>(nibble & 3u), second = static_cast<int>(nibble >> 2);
      if (first >= second)
        throw InputError(fmt::format("mma.sp metadata of row {} group {} is 0b{:04b}: the two positions must "
                                     "increase (undefined on the GPU)", rc.row, group, nibble));
      const int positions[2] = {first, second};
      for (int j = 0; j < 2; ++j) {
        const int k = 4 * group + positions[j];
        const Half av = a_compressed.regs[static_cast<std::size_t>(
            a_slot[static_cast<std::size_t>(rc.row * kept_cols + 2 * group + j)])];
        const Half bv = b.regs[static_cast<std::size_t>(b_slot[static_cast<std::size_t>(k * n_size + rc.col)])];
        acc = f32_step(acc, av, bv);
      }
    }
    c.regs[s] = acc;
  }
}

bool is_2to4(const double* dense, int rows, int cols, int ld) {
  check_rows_cols_ld(dense, rows, cols, ld, "is_2to4");
  if (cols % 4 != 0) return false;
  for (int r = 0; r < rows; ++r)
    for (int g = 0; g < cols; g += 4) {
      int nonzeros = 0;
      for (int j = 0; j < 4; ++j) nonzeros += is_zero(dense[static_cast<std::size_t>(r) * ld + g + j]) ? 0 : 1;
      if (nonzeros > 2) return false;
    }
  return true;
}

Compressed24 compress_2to4(const double* dense, int rows, int cols, int ld) {
  check_rows_cols_ld(dense, rows, cols, ld, "compress_2to4");
  if (cols % 4 != 0)
    throw InputError(fmt::format("2:4 compression works on groups of 4 columns; {} columns is not a multiple "
                                 "of 4 (pad the matrix with zero columns)", cols));
  Compressed24 out;
  out.rows = rows;
  out.cols = cols;
  out.values.reserve(static_cast<std::size_t>(rows * cols / 2));
  out.indices.reserve(static_cast<std::size_t>(rows * cols / 2));
  for (int r = 0; r < rows; ++r) {
    const double* row = dense + static_cast<std::size_t>(r) * ld;
    for (int g = 0; g < cols; g += 4) {
      std::uint8_t kept[2] = {0, 0};
      int count = 0;
      for (int j = 0; j < 4; ++j) {
        if (is_zero(row[g + j])) continue;
        if (count == 2)
          throw InputError(fmt::format("row {} columns {}-{} hold more than 2 nonzeros; mma.sp needs at most 2 "
                                       "in every aligned group of 4", r, g, g + 3));
        kept[count++] = static_cast<std::uint8_t>(j);
      }
      // Placeholders follow SPIDER's encoding (its 0G00 -> G0 / positions 1, 2): a lone nonzero at p keeps
      // the zero at p + 1 (p - 1 when p = 3); an empty group keeps positions 0 and 1. Both stay increasing,
      // the only order mma.sp::ordered_metadata defines.
      if (count == 0) {
        kept[0] = 0;
        kept[1] = 1;
      } else if (count == 1) {
        if (kept[0] == 3) {
          kept[1] = 3;
          kept[0] = 2;
        } else {
          kept[1] = static_cast<std::uint8_t>(kept[0] + 1);
        }
      }
      for (const std::uint8_t position : kept) {
        out.values.push_back(row[g + position]);
        out.indices.push_back(position);
      }
    }
  }
  return out;
}

std::vector<double> decompress_2to4(const Compressed24& compressed) {
  const std::size_t kept = static_cast<std::size_t>(compressed.rows) * static_cast<std::size_t>(compressed.cols / 2);
  if (compressed.rows <= 0 || compressed.cols <= 0 || compressed.cols % 4 != 0 || compressed.values.size() != kept ||
      compressed.indices.size() != kept)
    throw InputError(fmt::format("a 2:4 compressed matrix of {} x {} needs {} values and indices; got {} and {}",
                                 compressed.rows, compressed.cols, kept, compressed.values.size(),
                                 compressed.indices.size()));
  std::vector<double> dense(static_cast<std::size_t>(compressed.rows) * static_cast<std::size_t>(compressed.cols), 0.0);
  for (std::size_t i = 0; i < kept; i += 2) {
    const std::uint8_t first = compressed.indices[i], second = compressed.indices[i + 1];
    if (first >= second || second > 3)
      throw InputError(fmt::format("2:4 positions of kept values {} and {} are {} and {}; they must increase "
                                   "within 0-3", i, i + 1, first, second));
    const std::size_t group_start = (i / 2) * 4; // groups are laid out row by row in both matrices
    dense[group_start + first] = compressed.values[i];
    dense[group_start + second] = compressed.values[i + 1];
  }
  return dense;
}

SparseMetadata pack_metadata(const Compressed24& a16x16, int selector) {
  if (a16x16.rows != 16 || a16x16.cols != 16)
    throw InputError(fmt::format("mma.sp.m16n8k16 metadata describes a 16 x 16 A; got {} x {}", a16x16.rows,
                                 a16x16.cols));
  if (selector < 0 || selector > 3)
    throw InputError(fmt::format("mma.sp.m16n8k16 .f16 takes a sparsity selector 0-3; got {}", selector));
  decompress_2to4(a16x16); // validates sizes and index order
  SparseMetadata meta{std::vector<std::uint32_t>(kWarpSize, 0u), selector};
  for (int row = 0; row < 16; ++row) {
    std::uint32_t bits = 0;
    for (int group = 0; group < 4; ++group) {
      const std::size_t i = static_cast<std::size_t>(row * 8 + 2 * group);
      bits |= metadata_nibble(a16x16.indices[i], a16x16.indices[i + 1]) << (4 * group);
    }
    meta.per_lane[static_cast<std::size_t>(4 * (row & 7) + selector)] |= bits << (16 * (row >> 3));
  }
  return meta;
}

std::string to_string(const SparseMetadata& meta) {
  std::string out = fmt::format("sparsity selector {}\n", meta.selector);
  for (int g = 0; g < 8; ++g) {
    const int lane = 4 * g + meta.selector;
    if (lane < 0 || lane >= static_cast<int>(meta.per_lane.size())) continue;
    out += fmt::format("  lane {:>2}: 0x{:08x}  (rows {} and {})\n", lane, meta.per_lane[static_cast<std::size_t>(lane)],
                       g, g + 8);
  }
  return out;
}

} // namespace se
