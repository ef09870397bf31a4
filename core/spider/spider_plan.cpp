#include "core/spider/spider_plan.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/half.hpp"

namespace se {

namespace {

constexpr int kMmaK = 16;           // m16n8k16: A is 16 x 16 (dense) or 16 x 8 (compressed), B 16 x 8
constexpr int kMmaM = 16;
constexpr double kHalfMinNormal = 6.103515625e-05; // 2^-14

// The dense variant runs the plain band, but in the lane order (a K order for wide loads, not for 2:4) it keeps the
// swapped columns: the same B loads as the sparse variant, the MMA the only difference.
bool a_swapped(const SpiderOptions& o) {
  return o.variant == SpiderVariant::Sparse || o.parity == SwapParity::Lanes;
}

bool swaps(int j, int L, SwapParity parity) {
  return j < L && (j % 2 == (parity == SwapParity::Odd ? 1 : 0));
}

std::string offset_name(const Stencil& s, int dx, int dy) {
  return s.dims == 1 ? fmt::format("w({})", dx) : fmt::format("w({},{})", dx, dy);
}

// FP16 holds every SPIDER weight: overflow is fatal, rounding is reported.
std::vector<std::string> check_fp16_weights(const Stencil& s) {
  std::vector<std::string> notes;
  int inexact = 0, nonzero = 0;
  double worst = 0;
  std::string worst_at;
  for (const Tap& t : taps(s)) {
    const int dx = t.dx, dy = t.dy;
    const double w = t.w;
    ++nonzero;
    if (std::abs(w) > kHalfMax)
      throw InputError(fmt::format("SPIDER computes in FP16: weight {} = {} exceeds FP16's largest value {}; "
                                   "scale the stencil down (and the grid up) or use an FP64 method",
                                   offset_name(s, dx, dy), w, kHalfMax));
    const double h = round_to_half(w);
    if (h == 0.0) {
      notes.push_back(fmt::format("{} = {:g} is below FP16's smallest subnormal (5.96e-08): it rounds to 0 and "
                                  "drops out of the stencil", offset_name(s, dx, dy), w));
    } else if (std::abs(w) < kHalfMinNormal) {
      notes.push_back(fmt::format("{} = {:g} is an FP16 subnormal: held as {:g} (relative error {:.2g})",
                                  offset_name(s, dx, dy), w, h, std::abs(h - w) / std::abs(w)));
    }
    if (h != w) {
      ++inexact;
      const double rel = std::abs(h - w) / std::abs(w);
      if (rel > worst) {
        worst = rel;
        worst_at = fmt::format("{} = {:.17g} held as {:.17g}", offset_name(s, dx, dy), w, h);
      }
    }
  }
  if (inexact > 0)
    notes.insert(notes.begin(), fmt::format("{} of {} non-zero weights are not exact in FP16; the largest relative "
                                            "change is {:.2g}: {}", inexact, nonzero, worst, worst_at));
  else if (nonzero > 0)
    notes.insert(notes.begin(), fmt::format("all {} non-zero weights are exact in FP16", nonzero));
  return notes;
}

std::vector<double> row_weights(const Stencil& s, int dy, bool fp16) {
  std::vector<double> w;
  for (int dx = -s.radius; dx <= s.radius; ++dx) w.push_back(fp16 ? round_to_half(s.at(dx, dy)) : s.at(dx, dy));
  return w;
}

SpiderKernelRow make_kernel_row(const Stencil& s, int dy, const SpiderGeometry& g, const std::vector<int>& perm) {
  SpiderKernelRow row;
  row.dy = dy;
  row.weights = row_weights(s, dy, false);
  row.weights_fp16 = row_weights(s, dy, true);
  row.band = spider_band(row.weights_fp16, g.L, g.band_cols, g.band_offset);
  row.swapped.resize(row.band.size());
  for (int i = 0; i < g.L; ++i)
    for (int j = 0; j < g.band_cols; ++j)
      row.swapped[static_cast<std::size_t>(i * g.band_cols + j)] =
          row.band[static_cast<std::size_t>(i * g.band_cols + perm[static_cast<std::size_t>(j)])];
  row.swapped_is_2to4 = is_2to4(row.swapped.data(), g.L, g.band_cols, g.band_cols);
  if (!row.swapped_is_2to4)
    throw InputError(fmt::format("internal: the swapped band of kernel row {} is not 2:4 (radius {}, L {})", dy,
                                 g.radius, g.L));
  row.compressed = compress_2to4(row.swapped.data(), g.L, g.band_cols, g.band_cols);
  return row;
}

std::vector<SpiderInputRow> make_input_rows(const SpiderGeometry& g, const std::vector<int>& perm) {
  const int r = g.radius;
  std::vector<SpiderInputRow> rows(static_cast<std::size_t>(kMmaK * g.k_chunks));
  for (int k = 0; k < static_cast<int>(rows.size()); ++k) {
    SpiderInputRow& in = rows[static_cast<std::size_t>(k)];
    const int block = k / g.band_cols, j = k % g.band_cols;
    if (block >= g.blocks_along_k) continue; // past the last block: stays padding
    in.block = block;
    in.band_column = perm[static_cast<std::size_t>(j)];
    in.dx = block * g.L - r - g.band_offset + in.band_column;
    in.padding = in.band_column < g.band_offset || in.band_column >= g.band_offset + 2 * r + g.L;
    in.swapped = in.band_column != j;
  }
  return rows;
}

// The 16 x 16 A of one MMA: the chosen stage of each part's kernel row, once per block on the diagonal.
std::vector<double> mma_a(const SpiderPlan& plan, const std::vector<int>& kernel_rows, int chunk) {
  const SpiderGeometry& g = plan.geometry;
  std::vector<double> a(static_cast<std::size_t>(kMmaM * kMmaK), 0.0);
  for (int p = 0; p < g.parts_along_m; ++p) {
    if (kernel_rows[static_cast<std::size_t>(p)] == kNoKernelRow) continue;
    const int row_index = g.dims == 1 ? 0 : kernel_rows[static_cast<std::size_t>(p)] + g.radius;
    const SpiderKernelRow& row = plan.rows[static_cast<std::size_t>(row_index)];
    const std::vector<double>& m = a_swapped(plan.options) ? row.swapped : row.band;
    for (int b = 0; b < g.blocks_along_k; ++b)
      for (int i = 0; i < g.L; ++i)
        for (int j = 0; j < g.band_cols; ++j) {
          const int k = b * g.band_cols + j - chunk * kMmaK;
          if (k < 0 || k >= kMmaK) continue;
          const int mrow = (p * g.blocks_along_k + b) * g.L + i;
          a[static_cast<std::size_t>(mrow * kMmaK + k)] = m[static_cast<std::size_t>(i * g.band_cols + j)];
        }
  }
  return a;
}

void build_mmas(SpiderPlan& plan) {
  const SpiderGeometry& g = plan.geometry;
  const bool sparse = plan.options.variant == SpiderVariant::Sparse;
  for (int shift = g.shift_begin; shift < g.shift_end; ++shift)
    for (int chunk = 0; chunk < g.k_chunks; ++chunk) {
      SpiderMma mma;
      mma.shift = shift;
      mma.k_chunk = chunk;
      for (int p = 0; p < g.parts_along_m; ++p) {
        const int dy = g.dims == 1 ? 0 : shift - p;
        mma.kernel_rows.push_back(std::abs(dy) <= g.radius ? dy : kNoKernelRow);
      }
      mma.a = mma_a(plan, mma.kernel_rows, chunk);
      if (std::all_of(mma.a.begin(), mma.a.end(), [](double v) { return v == 0.0; })) continue; // nothing to add
      if (sparse) mma.a_compressed = compress_2to4(mma.a.data(), kMmaM, kMmaK, kMmaK);
      plan.mmas.push_back(std::move(mma));
    }
  if (!sparse) return;
  // §3.3.2: one metadata register per lane serves four MMAs, each naming its lanes with the selector.
  const int count = static_cast<int>(plan.mmas.size());
  plan.metadata_registers.assign(static_cast<std::size_t>((count + 3) / 4), std::vector<std::uint32_t>(kWarpSize, 0u));
  for (int i = 0; i < count; ++i) {
    const SparseMetadata own = pack_metadata(plan.mmas[static_cast<std::size_t>(i)].a_compressed, i % 4);
    auto& words = plan.metadata_registers[static_cast<std::size_t>(i / 4)];
    for (int lane = 0; lane < kWarpSize; ++lane) words[static_cast<std::size_t>(lane)] |= own.per_lane[static_cast<std::size_t>(lane)];
  }
  for (int i = 0; i < count; ++i) {
    SpiderMma& mma = plan.mmas[static_cast<std::size_t>(i)];
    mma.metadata_register = i / 4;
    mma.metadata = {plan.metadata_registers[static_cast<std::size_t>(i / 4)], i % 4};
  }
}

} // namespace

std::string_view to_string(SpiderVariant v) { return v == SpiderVariant::Sparse ? "spider" : "spider-dense"; }
std::string_view to_string(SwapParity p) {
  return p == SwapParity::Odd ? "odd" : p == SwapParity::Even ? "even" : p == SwapParity::Pairs ? "pairs" : "lanes";
}

std::vector<double> spider_band(std::span<const double> row_weights, int L, int cols, int offset) {
  const int taps = static_cast<int>(row_weights.size());
  if (L < 1 || taps < 1 || taps % 2 == 0 || offset < 0)
    throw InputError(fmt::format("a SPIDER band needs L >= 1, an odd number of weights and an offset >= 0; got L = {}, "
                                 "{} weights and offset {}", L, taps, offset));
  if (cols < offset + taps - 1 + L)
    throw InputError(fmt::format("a band of {} rows over {} weights at offset {} needs at least {} columns; got {}", L,
                                 taps, offset, offset + taps - 1 + L, cols));
  std::vector<double> band(static_cast<std::size_t>(L) * static_cast<std::size_t>(cols), 0.0);
  for (int i = 0; i < L; ++i)
    for (int j = 0; j < taps; ++j)
      band[static_cast<std::size_t>(i * cols + offset + i + j)] = row_weights[static_cast<std::size_t>(j)];
  return band;
}

std::vector<int> spider_column_swap(int L, int cols, SwapParity parity) {
  if (L < 1 || cols != 2 * L)
    throw InputError(fmt::format("the strided swap pairs column j with j + L over 2L columns; got L = {} and {} "
                                 "columns", L, cols));
  std::vector<int> perm(static_cast<std::size_t>(cols));
  if (parity == SwapParity::Pairs) {
    if (L % 2 != 0)
      throw InputError(fmt::format("the pair-granular strided swap needs an even L; got {}", L));
    for (int j = 0; j < cols; ++j) {
      const int q = j / 4, e = j % 4;
      perm[static_cast<std::size_t>(j)] = e < 2 ? 2 * q + e : 2 * q + L + (e - 2);
    }
    return perm;
  }
  if (parity == SwapParity::Lanes) {
    if (L != 8 && L != 16)
      throw InputError(fmt::format("the lane-ordered strided swap fills one m16n8k16 (L = 8) or m16n8k32 (L = 16) "
                                   "with the band; got L = {}", L));
    for (int k = 0; k < cols; ++k) {
      const int c = k / 16, hh = (k % 16) / 8, t = (k % 8) / 2, e = k % 2;
      const int pair = (t % 2) * (L / 2) + (t / 2) * (L / 4) + 2 * c + hh;
      perm[static_cast<std::size_t>(k)] = 2 * pair + e;
    }
    return perm;
  }
  for (int j = 0; j < cols; ++j) {
    const int partner = j < L ? j + L : j - L;
    perm[static_cast<std::size_t>(j)] = swaps(j < L ? j : j - L, L, parity) ? partner : j;
  }
  return perm;
}

double spider_sparsity_ratio(int radius, int L) {
  if (radius < 0 || L < 1)
    throw InputError(fmt::format("the sparsity ratio needs radius >= 0 and L >= 1; got {} and {}", radius, L));
  return static_cast<double>(2 * radius + 1) / static_cast<double>(2 * radius + L);
}

bool SpiderPlan::all_2to4() const {
  for (const auto& row : rows)
    if (!is_2to4(row.swapped.data(), geometry.L, geometry.band_cols, geometry.band_cols)) return false;
  if (options.variant == SpiderVariant::Sparse)
    for (const auto& mma : mmas)
      if (!is_2to4(mma.a.data(), kMmaM, kMmaK, kMmaK)) return false;
  return true;
}

SpiderPlan make_spider_plan(const Stencil& stencil, const SpiderOptions& options) {
  validate(stencil);
  if (stencil.dims == 3)
    throw InputError(fmt::format("SPIDER transforms 1D and 2D stencils only (the paper defines and evaluates no 3D "
                                 "form); '{}' is 3D: run it with lorastencil or cpu-reference", stencil.name));
  SpiderPlan plan;
  plan.stencil = stencil;
  plan.options = options;
  plan.precision_notes = check_fp16_weights(stencil);
  plan.geometry = spider_geometry(stencil.dims, stencil.radius, options.parity);
  const SpiderGeometry& g = plan.geometry;

  plan.column_swap = spider_column_swap(g.L, g.band_cols, options.parity);
  const int rows = stencil.dims == 1 ? 0 : stencil.radius;
  for (int dy = -rows; dy <= rows; ++dy) plan.rows.push_back(make_kernel_row(stencil, dy, g, plan.column_swap));
  if (!a_swapped(options))
    for (int j = 0; j < g.band_cols; ++j) plan.column_swap[static_cast<std::size_t>(j)] = j;
  plan.input_rows = make_input_rows(g, plan.column_swap);
  build_mmas(plan);

  for (const auto& row : plan.rows)
    for (const double w : row.weights_fp16) {
      plan.weight_abs_sum += std::abs(w);
      plan.nonzero_weights += w != 0.0 ? 1 : 0;
    }
  plan.max_abs_input = plan.weight_abs_sum > 0 ? kHalfMax / plan.weight_abs_sum : kHalfMax;
  plan.precision_notes.push_back(fmt::format(
      "the grid is held in FP16 (relative rounding up to 2^-11 per value and step); products are exact and summed "
      "in FP32; outputs overflow FP16 once |input| exceeds 65504 / sum|w| = {:.6g}", plan.max_abs_input));
  return plan;
}

// ---- printing ---------------------------------------------------------------------------------------------

namespace {

std::string format_value(double v) { return v == 0.0 ? "0" : fmt::format("{:.4g}", v); }

// A row-major matrix with right-aligned columns and '|' between 2:4 groups: four columns of a dense matrix,
// two of a compressed one.
std::string format_matrix(const std::vector<double>& m, int rows, int cols, const std::string& indent,
                          const std::vector<bool>& marked_cols = {}, int group = 4) {
  std::size_t width = 1;
  for (const double v : m) width = std::max(width, format_value(v).size());
  std::string out;
  if (!marked_cols.empty()) {
    out += indent;
    for (int c = 0; c < cols; ++c)
      out += fmt::format("{}{:>{}}", c > 0 && c % group == 0 ? " |" : "", marked_cols[static_cast<std::size_t>(c)] ? "*" : "", width + 1);
    out += "   (* = moved by the strided swap)\n";
  }
  for (int r = 0; r < rows; ++r) {
    out += indent;
    for (int c = 0; c < cols; ++c)
      out += fmt::format("{}{:>{}}", c > 0 && c % group == 0 ? " |" : "",
                         format_value(m[static_cast<std::size_t>(r * cols + c)]), width + 1);
    out += '\n';
  }
  return out;
}

// The paper's notation for one group's metadata: the two 2-bit positions, first kept value first (E0G0 -> "0010").
std::string positions_bits(std::uint8_t first, std::uint8_t second) {
  return fmt::format("{:02b}{:02b}", first, second);
}

std::string format_compressed(const Compressed24& c, const std::string& indent) {
  std::string out = format_matrix(c.values, c.rows, c.cols / 2, indent, {}, 2);
  out += indent + "metadata (2-bit positions of the two kept values of each group of four):\n";
  for (int r = 0; r < c.rows; ++r) {
    out += indent;
    for (int g = 0; g < c.cols / 4; ++g) {
      const std::size_t i = static_cast<std::size_t>(r * (c.cols / 2) + 2 * g);
      out += fmt::format(" {}", positions_bits(c.indices[i], c.indices[i + 1]));
    }
    out += '\n';
  }
  return out;
}

std::string kernel_rows_text(const std::vector<int>& rows) {
  std::string out;
  for (std::size_t p = 0; p < rows.size(); ++p)
    out += fmt::format("{}part {}: {}", p ? ", " : "", p, rows[p] == kNoKernelRow ? "-" : fmt::format("dy {}", rows[p]));
  return out;
}

} // namespace

std::string to_string(const SpiderPlan& plan) {
  const SpiderGeometry& g = plan.geometry;
  const bool sparse = plan.options.variant == SpiderVariant::Sparse;
  std::string out = fmt::format("{} plan for '{}' ({}D, radius {})\n", to_string(plan.options.variant),
                                plan.stencil.name, g.dims, g.radius);
  out += fmt::format("  L = 2r+2 = {}; band {} x {} padded to {} columns (sparsity ratio (2r+1)/(2r+L) = {:.3f})\n",
                     g.L, g.L, 2 * g.radius + g.L, g.band_cols, spider_sparsity_ratio(g.radius, g.L));
  if (g.band_offset > 0)
    out += fmt::format("  the band starts {} column in (odd r, column pairs): every B pair starts at an even x\n",
                       g.band_offset);
  out += fmt::format("  instruction: {} ({})\n",
                     mma_info(sparse ? MmaShape::SP_M16N8K16_F16_F32 : MmaShape::M16N8K16_F16_F32).ptx,
                     sparse ? (plan.options.parity == SwapParity::Pairs
                                   ? std::string("strided swap of column pairs: pairs L apart interleaved")
                               : plan.options.parity == SwapParity::Lanes
                                   ? std::string("strided swap of column pairs, lane-ordered: each lane's B "
                                                 "registers adjacent")
                                   : fmt::format("strided swap of {} columns j < L with j + L",
                                                 to_string(plan.options.parity)))
                            : plan.options.parity == SwapParity::Lanes
                                  ? "the band in the lanes' K order (the sparse variant's B loads), no compression: "
                                    "the dense-tensor-core ablation"
                                  : "plain band, no swap: the dense-tensor-core ablation");
  out += fmt::format("  A = 16 x 16: {} band block(s) along K, {} kernel row(s) stacked along M; {} K chunk(s) per "
                     "shift\n", g.blocks_along_k, g.parts_along_m, g.k_chunks);
  out += fmt::format("  warp tile: {} x {} outputs, {} MMAs ({} all-zero A tiles skipped); block tile: {} x {}\n",
                     g.tile_x, g.tile_y, plan.mmas.size(),
                     (g.shift_end - g.shift_begin) * g.k_chunks - static_cast<int>(plan.mmas.size()), g.block_x,
                     g.block_y);
  for (const auto& note : plan.precision_notes) out += "  FP16: " + note + "\n";

  std::vector<bool> moved(static_cast<std::size_t>(g.band_cols));
  const auto swap_perm = spider_column_swap(g.L, g.band_cols, plan.options.parity);
  for (int j = 0; j < g.band_cols; ++j) moved[static_cast<std::size_t>(j)] = swap_perm[static_cast<std::size_t>(j)] != j;
  for (const auto& row : plan.rows) {
    out += g.dims == 1 ? "\nkernel row\n" : fmt::format("\nkernel row dy = {}\n", row.dy);
    out += "  stage 1, band (FP16 weights):\n" + format_matrix(row.band, g.L, g.band_cols, "   ");
    if (!sparse) continue;
    out += fmt::format("  stage 2, after the strided swap (2:4 validator: {}):\n", row.swapped_is_2to4 ? "pass" : "FAIL");
    out += format_matrix(row.swapped, g.L, g.band_cols, "   ", moved);
    out += "  stage 3, compressed values:\n" + format_compressed(row.compressed, "   ");
  }

  out += "\ninput row map: B row k reads input x = tile x0 + dx (the swap's offset term where moved)\n";
  for (std::size_t k = 0; k < plan.input_rows.size(); ++k) {
    const SpiderInputRow& in = plan.input_rows[k];
    if (in.block < 0) {
      out += fmt::format("  k {:>2}: past the last band block (zeros)\n", k);
      continue;
    }
    out += fmt::format("  k {:>2}: block {}, band column {:>2}, dx {:>3}{}{}\n", k, in.block, in.band_column, in.dx,
                       in.swapped ? fmt::format("  swapped ({:+d})", in.band_column - static_cast<int>(k % g.band_cols)) : "",
                       in.padding ? "  padding (zero weights)" : "");
  }
  const int part_rows = g.blocks_along_k * g.L;
  out += g.dims == 1 ? fmt::format("  B column c serves outputs x0 + {}c .. x0 + {}c + {}\n", part_rows, part_rows, part_rows - 1)
                     : fmt::format("  B column c reads input row y0 + {}c + shift\n", g.parts_along_m);

  out += "\nMMAs of one warp tile, in issue order:\n";
  for (std::size_t i = 0; i < plan.mmas.size(); ++i) {
    const SpiderMma& mma = plan.mmas[i];
    out += fmt::format("  #{:<2} shift {:>2}, K chunk {}: {}", i, mma.shift, mma.k_chunk, kernel_rows_text(mma.kernel_rows));
    out += sparse ? fmt::format("; metadata register {}, selector {}\n", mma.metadata_register, mma.metadata.selector) : "\n";
  }
  if (!plan.mmas.empty()) {
    const SpiderMma& first = plan.mmas[plan.mmas.size() / 2];
    out += fmt::format("\nA of MMA #{} ({}):\n", plan.mmas.size() / 2, kernel_rows_text(first.kernel_rows));
    out += format_matrix(first.a, kMmaM, kMmaK, "   ");
    if (sparse) out += "  compressed:\n" + format_compressed(first.a_compressed, "   ");
  }
  if (sparse) {
    out += "\nmetadata registers (one 32-bit word per lane; the selector picks lane 4g + selector of each group):\n";
    for (std::size_t reg = 0; reg < plan.metadata_registers.size(); ++reg) {
      out += fmt::format("  register {}:", reg);
      for (int lane = 0; lane < kWarpSize; ++lane) {
        if (lane % 8 == 0) out += "\n   ";
        out += fmt::format(" {:08x}", plan.metadata_registers[reg][static_cast<std::size_t>(lane)]);
      }
      out += '\n';
    }
  }
  const MmaShape shape = sparse ? MmaShape::SP_M16N8K16_F16_F32 : MmaShape::M16N8K16_F16_F32;
  out += "\nfragment layouts:\n" + fragment_layout(shape, Operand::A).to_string() +
         fragment_layout(shape, Operand::B).to_string() + fragment_layout(shape, Operand::C).to_string();
  return out;
}

nlohmann::json to_json(const SpiderPlan& plan) {
  const SpiderGeometry& g = plan.geometry;
  const bool sparse = plan.options.variant == SpiderVariant::Sparse;
  nlohmann::json j;
  j["method"] = to_string(plan.options.variant);
  j["stencil"] = plan.stencil.name;
  j["swap_parity"] = to_string(plan.options.parity);
  j["mma"] = mma_info(sparse ? MmaShape::SP_M16N8K16_F16_F32 : MmaShape::M16N8K16_F16_F32).id;
  j["geometry"] = {{"dims", g.dims},
                   {"radius", g.radius},
                   {"L", g.L},
                   {"band_cols", g.band_cols},
                   {"band_offset", g.band_offset},
                   {"k_chunks", g.k_chunks},
                   {"blocks_along_k", g.blocks_along_k},
                   {"parts_along_m", g.parts_along_m},
                   {"tile", {g.tile_x, g.tile_y}},
                   {"block", {g.block_x, g.block_y}},
                   {"shifts", {g.shift_begin, g.shift_end}}};
  j["sparsity_ratio"] = spider_sparsity_ratio(g.radius, g.L);
  j["column_swap"] = plan.column_swap;
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& row : plan.rows) {
    nlohmann::json r = {{"dy", row.dy}, {"weights", row.weights}, {"weights_fp16", row.weights_fp16},
                        {"band", row.band}};
    if (sparse) {
      r["swapped"] = row.swapped;
      r["swapped_is_2to4"] = row.swapped_is_2to4;
      r["compressed_values"] = row.compressed.values;
      r["compressed_positions"] = row.compressed.indices;
    }
    rows.push_back(std::move(r));
  }
  j["rows"] = std::move(rows);
  nlohmann::json inputs = nlohmann::json::array();
  for (const auto& in : plan.input_rows)
    inputs.push_back({{"block", in.block}, {"band_column", in.band_column}, {"dx", in.dx}, {"padding", in.padding},
                      {"swapped", in.swapped}});
  j["input_rows"] = std::move(inputs);
  nlohmann::json mmas = nlohmann::json::array();
  for (const auto& mma : plan.mmas) {
    nlohmann::json m = {{"shift", mma.shift}, {"k_chunk", mma.k_chunk}, {"kernel_rows", mma.kernel_rows}, {"a", mma.a}};
    if (sparse) {
      m["a_compressed_values"] = mma.a_compressed.values;
      m["a_compressed_positions"] = mma.a_compressed.indices;
      m["metadata_register"] = mma.metadata_register;
      m["selector"] = mma.metadata.selector;
    }
    mmas.push_back(std::move(m));
  }
  j["mmas"] = std::move(mmas);
  if (sparse) j["metadata_registers"] = plan.metadata_registers;
  j["all_2to4"] = plan.all_2to4();
  j["weight_abs_sum"] = plan.weight_abs_sum;
  j["max_abs_input"] = plan.max_abs_input;
  j["precision_notes"] = plan.precision_notes;
  return j;
}

} // namespace se
