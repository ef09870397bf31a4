// Checking a WMMA recording against core's fragment tables (plain C++: tested without a GPU).
#include "kernels/fragment_probe/wmma_recording.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace se {
namespace {

std::string cell(int index, int cols) {
  return index < 0 ? std::string("no index") : fmt::format("({}, {})", index / cols, index % cols);
}

// Each tile element held exactly once among `coords` (all inside the tile).
bool is_bijection(const std::vector<FragmentCoord>& coords, int rows, int cols) {
  if (static_cast<int>(coords.size()) != rows * cols) return false;
  std::vector<char> seen(coords.size(), 0);
  for (const FragmentCoord& c : coords) {
    if (c.row < 0 || c.row >= rows || c.col < 0 || c.col >= cols) return false;
    char& s = seen[static_cast<std::size_t>(c.row * cols + c.col)];
    if (s) return false;
    s = 1;
  }
  return true;
}

// The recording as core's layout type: x[0 .. distinct-1] as registers when they hold every element once;
// otherwise each lane's distinct values in x[] order (a fragment that repeats them in another pattern).
std::optional<FragmentLayout> recorded_layout(const WmmaOperandRecording& r, int distinct) {
  const int e = r.elements_per_lane;
  if (distinct <= 0 || e < distinct) return std::nullopt;
  FragmentLayout layout;
  layout.shape = r.shape;
  layout.operand = r.operand;
  layout.rows = r.rows;
  layout.cols = r.cols;
  layout.regs_per_lane = distinct;
  for (const bool first_elements : {true, false}) {
    layout.coords.clear();
    for (int lane = 0; lane < kWarpSize; ++lane) {
      std::vector<int> held;
      for (int i = 0; i < e && static_cast<int>(held.size()) < distinct; ++i) {
        const int index = r.element_index[static_cast<std::size_t>(lane * e + i)];
        if (first_elements || std::find(held.begin(), held.end(), index) == held.end()) held.push_back(index);
      }
      for (int index : held) layout.coords.push_back(index < 0 ? FragmentCoord{-1, -1} : FragmentCoord{index / r.cols, index % r.cols});
    }
    if (is_bijection(layout.coords, r.rows, r.cols)) return layout;
  }
  return std::nullopt;
}

} // namespace

std::string WmmaLayoutCheck::title() const {
  return fmt::format("{} {} ({})", to_string(recording.shape), to_string(recording.operand), recording.fragment);
}

WmmaLayoutCheck check_wmma_recording(const WmmaOperandRecording& r, std::size_t max_listed) {
  WmmaLayoutCheck check;
  check.recording = r;
  check.core_layout_observed = mma_info(r.shape).layout_observed;
  const FragmentLayout& core = hardware_fragment_layout(r.shape, r.operand);
  auto& diffs = check.differences;
  if (r.rows != core.rows || r.cols != core.cols) {
    diffs.push_back(fmt::format("the recorded tile is {}x{}; core's is {}x{}", r.rows, r.cols, core.rows, core.cols));
    return check;
  }
  const int e = r.elements_per_lane, distinct = core.regs_per_lane;
  if (e <= 0 || r.element_index.size() != static_cast<std::size_t>(kWarpSize * e)) {
    diffs.push_back("nothing was recorded for this fragment");
    return check;
  }
  if (e < distinct) {
    diffs.push_back(fmt::format("the fragment has {} elements per lane; core's table has {} registers", e, distinct));
    return check;
  }
  std::size_t total = 0;
  for (int lane = 0; lane < kWarpSize; ++lane)
    for (int i = 0; i < e; ++i) {
      const int got = r.element_index[static_cast<std::size_t>(lane * e + i)];
      const FragmentCoord want = core.at(lane, i % distinct);
      if (got == want.row * r.cols + want.col) continue;
      if (++total > max_listed) continue;
      if (i < distinct)
        diffs.push_back(fmt::format("lane {} x[{}] holds {}; core's table says {}", lane, i, cell(got, r.cols),
                                    cell(want.row * r.cols + want.col, r.cols)));
      else
        diffs.push_back(fmt::format("lane {} x[{}] holds {}; core models it as a copy of x[{}] = {}", lane, i,
                                    cell(got, r.cols), i % distinct, cell(want.row * r.cols + want.col, r.cols)));
    }
  if (total > max_listed) diffs.push_back(fmt::format("... and {} more", total - max_listed));
  check.layout = recorded_layout(r, distinct);
  return check;
}

bool WmmaRecordingReport::matches() const {
  return !checks.empty() && std::all_of(checks.begin(), checks.end(), [](const WmmaLayoutCheck& c) { return c.matches(); });
}

std::string WmmaRecordingReport::summary() const {
  std::string out = fmt::format("recorded on {}\n", device);
  for (const WmmaLayoutCheck& c : checks) {
    out += fmt::format("{}: {}\n", c.title(),
                       c.matches() ? "matches core's table"
                                   : fmt::format("{} difference line(s) from core's table", c.differences.size()));
    for (const std::string& d : c.differences) out += "  " + d + "\n";
  }
  return out;
}

std::vector<WmmaOperandRecording> wmma_recording_plan() {
  std::vector<WmmaOperandRecording> plan;
  const auto add = [&plan](MmaShape shape, Operand op, std::string fragment) {
    WmmaOperandRecording r;
    r.shape = shape;
    r.operand = op;
    r.fragment = std::move(fragment);
    const FragmentLayout& core = hardware_fragment_layout(shape, op);
    r.rows = core.rows;
    r.cols = core.cols;
    plan.push_back(std::move(r));
  };
  // The operand order of the PTX the methods issue ("row.col"): A row-major, B column-major.
  for (const MmaShapeInfo& info : mma_shapes()) {
    if (!info.layout_observed) continue;
    const std::string mnk = fmt::format("{}, {}, {}", info.m, info.n, info.k);
    const char* element = info.operands == Precision::FP64 ? "double" : "half";
    const char* accumulator = info.accumulate == Precision::FP64 ? "double" : info.accumulate == Precision::FP32 ? "float" : "half";
    add(info.shape, Operand::A, fmt::format("wmma::fragment<matrix_a, {}, {}, row_major>", mnk, element));
    add(info.shape, Operand::B, fmt::format("wmma::fragment<matrix_b, {}, {}, col_major>", mnk, element));
    add(info.shape, Operand::C, fmt::format("wmma::fragment<accumulator, {}, {}>", mnk, accumulator));
  }
  // WMMA's f64 shape is undocumented too; the natural guess is the DMMA it issues, mma.m8n8k4.f64.
  add(MmaShape::M8N8K4_F64, Operand::A, "wmma::fragment<matrix_a, 8, 8, 4, double, row_major>");
  add(MmaShape::M8N8K4_F64, Operand::B, "wmma::fragment<matrix_b, 8, 8, 4, double, col_major>");
  add(MmaShape::M8N8K4_F64, Operand::C, "wmma::fragment<accumulator, 8, 8, 4, double>");
  return plan;
}

} // namespace se
