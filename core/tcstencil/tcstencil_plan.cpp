// TCStencil plans (Liu et al., "TCStencil", ICS'22; notes in papers/tcstencil-notes-zh.md): the parameter
// matrices of Sec. 3.1 (star) and 3.2 (box), the partial coefficients of Fig. 5, and the CUDA-core remainder.
#include "core/tcstencil/tcstencil_plan.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/half.hpp"
#include "core/common/matrix_text.hpp"

namespace se {

int ParameterMatrix::zero_count() const {
  return static_cast<int>(std::count(operand.begin(), operand.end(), 0.0));
}

int TCStencilPlan::mma_per_gemm() const {
  const MmaShapeInfo& info = mma_info(shape);
  return (L / info.m) * (L / info.n) * (L / info.k);
}

std::int64_t TCStencilPlan::cuda_core_fma_per_tile() const {
  std::int64_t total = 0;
  for (const CudaCoreTap& t : cuda_core_taps) total += t.outputs();
  return total;
}

int TCStencilPlan::inner_points_per_tile() const {
  const int side = std::max(0, L - 2 * stencil.radius);
  return stencil.dims == 1 ? L * side : side * side; // 1D: each row of L consecutive points loses 2r
}

int TCStencilPlan::gemm_only_points_per_tile() const {
  int count = 0;
  for (int row = 0; row < L; ++row)
    for (int col = 0; col < L; ++col)
      if (std::none_of(cuda_core_taps.begin(), cuda_core_taps.end(), [&](const CudaCoreTap& t) {
            return row >= t.row_begin && row < t.row_end && col >= t.col_begin && col < t.col_end;
          }))
        ++count;
  return count;
}

std::vector<const CudaCoreTap*> TCStencilPlan::taps_completing(const ParameterMatrix& p) const {
  std::vector<const CudaCoreTap*> out;
  for (const CudaCoreTap& t : cuda_core_taps) {
    if (t.dz != p.plane) continue;
    const bool mine = p.side == ParameterSide::Left ? (t.dx == 0 && t.dy != 0) : t.dy == p.row_shift;
    if (mine) out.push_back(&t);
  }
  return out;
}

namespace {

std::string offset_name(const Stencil& s, int dx, int dy, int dz) {
  if (s.dims == 3) return fmt::format("({},{},{})", dx, dy, dz);
  return fmt::format("({},{})", dx, dy);
}

// FP16 keeps about 3 significant digits; a weight it moves by more than 1% (a subnormal, or one below
// 2^-24 that becomes 0) changes the stencil more than its own rounding of the grid does.
constexpr double kFp16WeightTolerance = 0.01;

std::string fp16_weight_reason(const Stencil& s) {
  double gain = 0;
  for (const Tap& t : taps(s)) {
    if (std::abs(t.w) > kHalfMax)
      return fmt::format("TCStencil (FP16) cannot hold weight {} = {:g}: FP16's largest value is 65504; scale the "
                         "stencil down or use tcstencil-fp64", offset_name(s, t.dx, t.dy, t.dz), t.w);
    const double h = round_to_half(t.w);
    if (std::abs(h - t.w) > kFp16WeightTolerance * std::abs(t.w))
      return fmt::format("TCStencil (FP16) would change weight {} = {:g} to {:g} ({:.1f}% off): FP16 keeps few bits "
                         "below 6.1e-05 and none below 3e-08; scale the stencil up or use tcstencil-fp64",
                         offset_name(s, t.dx, t.dy, t.dz), t.w, h, 100.0 * std::abs(h - t.w) / std::abs(t.w));
    gain += std::abs(h);
  }
  if (gain > kHalfMax)
    return fmt::format("TCStencil (FP16) would overflow: the |weights| sum to {:g}, so even inputs of magnitude 1 give "
                       "results beyond FP16's 65504; scale the stencil down or use tcstencil-fp64", gain);
  return {};
}

// A banded L x L matrix: entry (row, col) holds tap(col - row) (Left: sums down a column of the tile) or
// tap(row - col) (Right: sums along a row) wherever that offset is within the radius.
template <typename TapAt>
ParameterMatrix banded_matrix(std::string name, ParameterSide side, int plane, int row_shift, int L, int r,
                              Precision precision, TapAt tap) {
  ParameterMatrix p;
  p.name = std::move(name);
  p.side = side;
  p.plane = plane;
  p.row_shift = row_shift;
  p.weights.assign(static_cast<std::size_t>(L * L), 0.0);
  for (int row = 0; row < L; ++row)
    for (int col = 0; col < L; ++col) {
      const int offset = side == ParameterSide::Left ? col - row : row - col;
      if (std::abs(offset) <= r) p.weights[static_cast<std::size_t>(row * L + col)] = tap(offset);
    }
  p.operand = p.weights;
  if (precision == Precision::FP16)
    for (double& v : p.operand) v = round_to_half(v);
  for (int line = 0; line < L; ++line)
    if (line - r < 0 || line + r > L - 1) p.partial_lines.push_back(line);
  return p;
}

bool has_nonzero(const ParameterMatrix& p) {
  return std::any_of(p.weights.begin(), p.weights.end(), [](double w) { return w != 0.0; });
}

// The outputs of a tile whose neighbour at offset (dx, dy) falls outside the tile. `vertical` says whether the
// GEMMs cover the rows outside the tile (box rows read the shifted input, so only columns can fall outside).
CudaCoreTap border_tap(const Stencil& s, int dx, int dy, int dz, int L, bool rows_outside, Precision precision) {
  CudaCoreTap t;
  t.dx = dx;
  t.dy = dy;
  t.dz = dz;
  t.weight = s.at(dx, dy, dz);
  t.operand = precision == Precision::FP16 ? round_to_half(t.weight) : t.weight;
  t.row_begin = 0;
  t.row_end = L;
  t.col_begin = 0;
  t.col_end = L;
  if (dx > 0) t.col_begin = std::max(0, L - dx);
  if (dx < 0) t.col_end = std::min(L, -dx);
  if (rows_outside && dy > 0) t.row_begin = std::max(0, L - dy);
  if (rows_outside && dy < 0) t.row_end = std::min(L, -dy);
  return t;
}

} // namespace

int tcstencil_tile_side(MmaShape shape) { return mma_info(shape).m >= 16 ? 16 : 8; }

namespace {
MmaShape default_shape(Precision p) {
  return p == Precision::FP16 ? MmaShape::WMMA_M16N16K16_F16_F32 : MmaShape::M8N8K4_F64;
}
} // namespace

std::string tcstencil_unsupported_reason(const Stencil& s, Precision precision) {
  return tcstencil_unsupported_reason(s, precision, default_shape(precision));
}

std::string tcstencil_unsupported_reason(const Stencil& s, Precision precision, MmaShape shape) {
  try {
    validate(s);
  } catch (const InputError& e) {
    return e.what();
  }
  if (precision == Precision::FP32)
    return "TCStencil runs in FP16 (tcstencil, the paper's WMMA 16x16x16) or FP64 (tcstencil-fp64, our mma.m8n8k4 "
           "variant); there is no FP32 variant";
  if (mma_info(shape).operands != (precision == Precision::FP16 ? Precision::FP16 : Precision::FP64))
    return fmt::format("TCStencil ({}) cannot run on {}", se::to_string(precision), mma_info(shape).id);
  const int L = tcstencil_tile_side(shape);
  if (!(L > 2 * s.radius + 1))
    return fmt::format("TCStencil needs L > 2r+1 so that a whole (2r+1)-point slice fits in one line of the L x L "
                       "parameter matrix; {} uses L = {}, so its radius is at most {}; this stencil has radius {}{}",
                       precision == Precision::FP16 ? "tcstencil"
                       : L == 8                     ? "tcstencil-fp64 (mma.m8n8k4 tiles)"
                                                    : "tcstencil-fp64 (mma.m16n8k4 tiles)",
                       L, (L - 2) / 2, s.radius,
                       precision == Precision::FP64 && L == 8 ? " (tcstencil with L = 16, the GPU's m16n8k4 plan, or "
                                                                "convstencil, take it)"
                                                              : "");
  if (precision == Precision::FP16) return fp16_weight_reason(s);
  return {};
}

TCStencilPlan make_tcstencil_plan(const Stencil& s, Precision precision) {
  return make_tcstencil_plan(s, precision, default_shape(precision));
}

TCStencilPlan make_tcstencil_plan(const Stencil& s, Precision precision, MmaShape shape) {
  if (const std::string reason = tcstencil_unsupported_reason(s, precision, shape); !reason.empty())
    throw InputError(reason);
  TCStencilPlan plan;
  plan.stencil = s;
  plan.precision = precision;
  plan.shape = shape;
  plan.L = tcstencil_tile_side(shape);
  plan.decomposition = s.is_star() || s.dims == 1 ? TCStencilDecomposition::Star : TCStencilDecomposition::Box;
  const int L = plan.L, r = s.radius, rz = s.dims >= 3 ? r : 0;
  if (s.dims == 1) {
    // 1D: the grid read as rows of L consecutive points, so an L x L tile is L^2 consecutive points and A' x P_hor
    // sums along each row. P_hor holds the whole band, centre included (there is no P_ver: no second axis); the
    // neighbours a row's band cuts off are the previous row's last or the next row's first points, read by the
    // CUDA-core taps at the same linear offsets.
    plan.matrices.push_back(banded_matrix("P_hor", ParameterSide::Right, 0, 0, L, r, precision,
                                          [&](int dx) { return s.at(dx, 0, 0); }));
    for (int dx = -r; dx <= r; ++dx)
      if (dx != 0 && s.at(dx, 0, 0) != 0.0) plan.cuda_core_taps.push_back(border_tap(s, dx, 0, 0, L, true, precision));
    return plan;
  }
  if (plan.decomposition == TCStencilDecomposition::Star) {
    // Sec. 3.1: the centre weight goes into P_ver only (h_3 = 0 in the paper), so it is counted once.
    ParameterMatrix ver = banded_matrix("P_ver", ParameterSide::Left, 0, 0, L, r, precision,
                                        [&](int dy) { return s.at(0, dy, 0); });
    ParameterMatrix hor = banded_matrix("P_hor", ParameterSide::Right, 0, 0, L, r, precision,
                                        [&](int dx) { return dx == 0 ? 0.0 : s.at(dx, 0, 0); });
    for (ParameterMatrix* p : {&ver, &hor})
      if (has_nonzero(*p)) plan.matrices.push_back(std::move(*p));
    for (int d = -r; d <= r; ++d) {
      if (d == 0) continue;
      if (s.at(0, d, 0) != 0.0) plan.cuda_core_taps.push_back(border_tap(s, 0, d, 0, L, true, precision));
      if (s.at(d, 0, 0) != 0.0) plan.cuda_core_taps.push_back(border_tap(s, d, 0, 0, L, true, precision));
    }
    // A star's other planes hold only their centre weight: a GEMM would be one useful diagonal in L x L.
    for (int dz = -rz; dz <= rz; ++dz)
      if (dz != 0 && s.at(0, 0, dz) != 0.0) plan.cuda_core_taps.push_back(border_tap(s, 0, 0, dz, L, true, precision));
  } else {
    // Sec. 3.2: one matrix per kernel row; its GEMM reads the input tile shifted by that row's dy, so rows never
    // fall outside what the GEMMs cover and only the columns at the tile's left and right border need CUDA cores.
    for (int dz = -rz; dz <= rz; ++dz)
      for (int dy = -r; dy <= r; ++dy) {
        const std::string name = s.dims == 3 ? fmt::format("P_row(dy={},dz={})", dy, dz) : fmt::format("P_row(dy={})", dy);
        ParameterMatrix row = banded_matrix(name, ParameterSide::Right, dz, dy, L, r, precision,
                                            [&](int dx) { return s.at(dx, dy, dz); });
        if (!has_nonzero(row)) continue;
        plan.matrices.push_back(std::move(row));
        for (int dx = -r; dx <= r; ++dx)
          if (dx != 0 && s.at(dx, dy, dz) != 0.0) plan.cuda_core_taps.push_back(border_tap(s, dx, dy, dz, L, false, precision));
      }
  }
  return plan;
}

double tcstencil_fp16_gain(const TCStencilPlan& plan) {
  double gain = 0;
  for (const double w : plan.stencil.weights) gain += std::abs(round_to_half(w));
  return gain;
}

std::string_view to_string(ParameterSide side) { return side == ParameterSide::Left ? "P x A'" : "A' x P"; }
std::string_view to_string(TCStencilDecomposition d) { return d == TCStencilDecomposition::Star ? "star" : "box"; }

std::string to_string(const TCStencilPlan& plan) {
  const MmaShapeInfo& info = mma_info(plan.shape);
  const Stencil& s = plan.stencil;
  std::string out = fmt::format("TCStencil plan for '{}' ({}D, radius {}, {} decomposition)\n", s.name, s.dims,
                                s.radius, to_string(plan.decomposition));
  out += fmt::format("  instruction   {} ({}), {} operands, {} accumulate\n", info.ptx, info.id, se::to_string(info.operands),
                     se::to_string(info.accumulate));
  out += fmt::format("  fragments     {} A/B/C layouts{}\n", info.id,
                     info.layout_observed ? " as observed on sm_80/sm_90 (NVIDIA leaves WMMA's layout unspecified)" : " from the PTX ISA");
  out += fmt::format("  tile          L = {}: each tile updates all {} x {} points; the paper's inner region (whole "
                     "stencil from the GEMMs) is {} points\n", plan.L, plan.L, plan.L, plan.inner_points_per_tile());
  out += fmt::format("  per tile      {} GEMMs of {} x {} x {} = {} MMA instructions, {} CUDA-core FMAs\n",
                     plan.matrices.size(), plan.L, plan.L, plan.L, plan.mma_per_tile(), plan.cuda_core_fma_per_tile());
  if (s.dims == 3) out += "  3D            each output plane sums the GEMMs of its kernel planes (the paper streams 2D planes)\n";
  if (s.dims == 1)
    out += fmt::format("  1D            the grid as rows of {0} consecutive points: a tile is {1} consecutive points, A' its "
                       "{0} x {0} matrix; the taps' neighbours past a row's ends are the next or previous row's\n",
                       plan.L, plan.L * plan.L);
  for (const ParameterMatrix& p : plan.matrices) {
    std::string title = fmt::format("{}: {}", p.name, to_string(p.side));
    if (p.row_shift != 0 || plan.decomposition == TCStencilDecomposition::Box)
      title += fmt::format(", A' = the input tile shifted {} rows", p.row_shift);
    if (s.dims == 3) title += fmt::format(", input plane z{:+d}", p.plane);
    if (plan.precision == Precision::FP16) title += ", FP16-rounded";
    out += '\n' + format_matrix(title, p.operand.data(), plan.L, plan.L, plan.L);
    std::string lines;
    for (const int l : p.partial_lines) lines += fmt::format("{}{}", lines.empty() ? "" : " ", l);
    out += fmt::format("  partial coefficients in {} {}: the tile border cuts their band\n",
                       p.side == ParameterSide::Left ? "rows" : "columns", lines);
  }
  out += fmt::format("\nCUDA-core remainder ({} taps, {} FMAs per tile): weight x neighbour outside the tile\n",
                     plan.cuda_core_taps.size(), plan.cuda_core_fma_per_tile());
  for (const CudaCoreTap& t : plan.cuda_core_taps)
    out += fmt::format("  tap {:<10} w = {:<12.6g} outputs rows [{:>2},{:>2}) x cols [{:>2},{:>2}) = {}\n",
                       offset_name(s, t.dx, t.dy, t.dz), t.operand, t.row_begin, t.row_end, t.col_begin, t.col_end,
                       t.outputs());
  return out;
}

nlohmann::json to_json(const TCStencilPlan& plan) {
  nlohmann::json matrices = nlohmann::json::array();
  for (const ParameterMatrix& p : plan.matrices)
    matrices.push_back({{"name", p.name},
                        {"side", p.side == ParameterSide::Left ? "left" : "right"},
                        {"plane", p.plane},
                        {"row_shift", p.row_shift},
                        {"weights", p.weights},
                        {"operand", p.operand},
                        {"partial_lines", p.partial_lines},
                        {"zeros", p.zero_count()}});
  nlohmann::json taps = nlohmann::json::array();
  for (const CudaCoreTap& t : plan.cuda_core_taps)
    taps.push_back({{"offset", {t.dx, t.dy, t.dz}},
                    {"weight", t.weight},
                    {"operand", t.operand},
                    {"rows", {t.row_begin, t.row_end}},
                    {"cols", {t.col_begin, t.col_end}}});
  return {{"method", plan.precision == Precision::FP16 ? "tcstencil" : "tcstencil-fp64"},
          {"stencil", se::to_json(plan.stencil)},
          {"precision", se::to_string(plan.precision)},
          {"mma_shape", se::to_string(plan.shape)},
          {"layout_observed", mma_info(plan.shape).layout_observed},
          {"L", plan.L},
          {"decomposition", to_string(plan.decomposition)},
          {"matrices", matrices},
          {"cuda_core_taps", taps},
          {"mma_per_tile", plan.mma_per_tile()},
          {"cuda_core_fma_per_tile", plan.cuda_core_fma_per_tile()},
          {"inner_points_per_tile", plan.inner_points_per_tile()}};
}

} // namespace se
