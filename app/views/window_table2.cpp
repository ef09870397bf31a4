// SPIDER's Table 2 for the stencil being edited: per updated point, the multiply-adds, input loads and parameter
// loads of the lower bound, ConvStencil, TCStencil, LoRAStencil and SPIDER. The paper's numbers (its Table 1
// evaluated at this radius, c = 8, which is Table 2 at r = 3) beside ours, read from each method's plan and
// cost model (the ones `stencil-bench plan` prints), each difference explained.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <imgui.h>

#include "app/widgets/ui_units.hpp"
#include "app/views/views.hpp"
#include "core/spider/spider_cost.hpp"
#include "kernels/registry.hpp"

namespace se {
namespace {

constexpr const char* kView = "table2";
constexpr int kPaperTile = 8; // Table 2: "updating 8x8 points per tile"

struct Table2Row {
  std::string method;      // the paper's row name
  std::string id;          // the descriptor whose plan gives ours ("" for the lower bound)
  std::optional<PaperPointCosts> paper;
  bool ours_known = false;
  double macs = 0, input = 0, parameter = 0; // ours, per point and base step
  std::string unsupported; // why the method cannot take this stencil
  std::string note;        // why ours differs from the paper
  std::string core_note;   // the cost model's own comparison note (tooltip)
};

struct Table2 {
  Stencil stencil;
  bool built = false;
  std::string paper_scope; // what the paper's column is for this stencil
  bool paper_is_table2 = false;
  std::vector<Table2Row> rows;
};

const CostReport* plan_cost(const std::string& id, const Stencil& s, std::string& unsupported, PlanPtr& keep) {
  for (const DescriptorPtr& d : method_list())
    if (d->id == id) {
      try {
        keep = d->plan(s, PlanRequest{Backend::Emulate, 1}); // one base step per pass: the table's per-point update
        return &keep->cost;
      } catch (const InputError& e) {
        unsupported = e.what();
        return nullptr;
      }
    }
  unsupported = "not in this build's method list";
  return nullptr;
}

std::string find_note(const CostReport& c, const std::string& key) {
  for (const auto& [k, v] : c.notes)
    if (k == key) return k + ": " + v;
  return {};
}

Table2 build_table(const Stencil& s) {
  Table2 t;
  t.stencil = s;
  t.built = true;
  std::vector<PaperPointCosts> paper;
  if (s.dims == 2) {
    try {
      paper = spider_paper_table(s.radius, kPaperTile);
    } catch (const InputError& e) {
      t.paper_scope = e.what();
    }
  }
  t.paper_is_table2 = s.dims == 2 && s.radius == 3 && s.nonzero_count() == 49;
  if (s.dims != 2)
    t.paper_scope = "The paper's Tables 1 and 2 analyse 2D box stencils only: no paper column for a " +
                    std::to_string(s.dims) + "D stencil.";
  else if (!paper.empty())
    t.paper_scope = t.paper_is_table2
                        ? "This is Box-2D3R, the paper's own case: its column is Table 2 as printed."
                        : fmt::format("Paper column: Table 1's formulas at r = {}, c = 8 (a Box-2D{}R stencil; Table 2 "
                                      "prints them at r = 3). This stencil has {} non-zero weights of the box's {}.",
                                      s.radius, s.radius, s.nonzero_count(), (2 * s.radius + 1) * (2 * s.radius + 1));
  auto paper_of = [&](const std::string& name) -> std::optional<PaperPointCosts> {
    if (paper.empty()) return std::nullopt;
    return paper_row(paper, name);
  };

  // The lower bound: every non-zero weight one multiply-add, every input of the c+2r window and every weight
  // loaded once per c x c tile (the paper's formula, with this stencil's non-zeros instead of the full box).
  Table2Row lb;
  lb.method = "Lower Bound";
  lb.paper = paper_of("Lower Bound");
  lb.ours_known = true;
  const double c = kPaperTile, r = s.radius;
  const double window = s.dims == 1 ? (c + 2 * r) / c : s.dims == 2 ? (c + 2 * r) * (c + 2 * r) / (c * c)
                                                                  : std::pow(c + 2 * r, 3) / (c * c * c);
  lb.macs = static_cast<double>(s.nonzero_count());
  lb.input = window;
  lb.parameter = lb.macs / std::pow(c, s.dims);
  lb.note = t.paper_is_table2 || s.nonzero_count() == static_cast<int>(std::lround(std::pow(2 * r + 1, s.dims)))
                ? "The same formula: a full box has no zero weight."
                : fmt::format("The paper bounds the full box ((2r+1)^{} weights); ours counts the {} non-zero weights "
                              "this stencil has: a zero weight costs nothing at the bound.",
                              s.dims, s.nonzero_count());
  t.rows.push_back(lb);

  struct MethodRow {
    const char* paper_name;
    const char* id;
    const char* core_key;
  };
  for (const MethodRow& m : {MethodRow{"ConvStencil", "convstencil", "SPIDER Table 2"},
                             MethodRow{"TCStencil", "tcstencil", "SPIDER Table 1"},
                             MethodRow{"LoRAStencil", "lorastencil", "paper Eq. 16"},
                             MethodRow{"SPIDER", "spider", "paper comparison"}}) {
    Table2Row row;
    row.method = m.paper_name;
    row.id = m.id;
    row.paper = paper_of(m.paper_name);
    PlanPtr plan;
    if (const CostReport* cost = plan_cost(m.id, s, row.unsupported, plan)) {
      row.ours_known = true;
      row.macs = cost->executed_flops_per_point / 2; // tensor-core MACs (zeros included) and CUDA-core FMAs
      row.input = cost->input_loads_per_point;
      row.parameter = cost->parameter_loads_per_point;
      row.core_note = find_note(*cost, m.core_key);
      const std::string id = m.id;
      if (id == "convstencil")
        row.note = "Counted as the paper counts: one 8x4 input fragment and one 4x8 kernel chunk per MMA, on the "
                   "plan's own tile (8 segments of U = 2R+2 outputs, K = kernel rows x k padded to 4, N padded to 8), "
                   "where the paper's formula takes ceil((2r+1)^2/4) chunks per segment pair. Our kernel keeps the "
                   "chunks in registers: the parameter column is what the MMAs take, not memory traffic.";
      else if (id == "tcstencil")
        row.note = "The paper lets a 16x16 tile update only its (L-2r)^2 inner points (L^3(2r+1)/(L-2r)^2 MACs). Ours "
                   "keeps the partial coefficients in the border lines and updates all L^2 points per tile, finishing "
                   "the cut sums with CUDA-core FMAs (counted in MACs and in the input loads).";
      else if (id == "lorastencil")
        row.note = "The paper (Eq. 16) assumes h full-size rank-1 terms. Ours runs the terms this W needs (the pyramid, "
                   "a cross split or the SVD), each trimmed to its own non-zeros, an apex on CUDA cores, on the real "
                   "8x8 tile. Parameters: ours counts the U or V' operand of every MMA (32 values), the paper 4r per "
                   "point (its formula is illegible in our copy; 4r reproduces Table 2).";
      else
        row.note = "Table 2 prints (2r+c)/4 without the ceiling Table 1 has (56, not 64, at r = 3). Ours stacks kernel "
                   "rows in A's 16 rows against one B fragment, so fewer input loads than one per kernel row; the "
                   "parameter column counts every MMA's compressed 16x8 A operand.";
    }
    t.rows.push_back(row);
  }
  return t;
}

// "paper / ours" in one cell, ours in yellow where it differs from the paper by more than 1%.
// `label`: stacked in one column (narrow windows), each pair on its own line after its name.
void cell_pair(std::optional<double> paper, std::optional<double> ours, const char* label = nullptr) {
  if (label == nullptr) {
    ImGui::TableNextColumn();
  } else {
    ImGui::TextDisabled("%s", label);
    ImGui::SameLine();
  }
  if (paper)
    ImGui::Text("%.4g", *paper);
  else
    ImGui::TextDisabled("-");
  ImGui::SameLine(0, 0);
  ImGui::TextDisabled(" / ");
  ImGui::SameLine(0, 0);
  if (!ours) {
    ImGui::TextDisabled("-");
    return;
  }
  const bool differs = paper && std::abs(*ours - *paper) > 0.01 * std::max(std::abs(*paper), 1e-9);
  if (differs)
    ImGui::TextColored(ImVec4(1.0f, 0.85f, 0.45f, 1.0f), "%.4g", *ours);
  else
    ImGui::Text("%.4g", *ours);
}

} // namespace

void draw_table2_window(ViewContext& ctx) {
  if (!begin_view_window(ctx, kView, "Table 2 (SPIDER): per-point costs")) {
    ImGui::End();
    return;
  }
  Table2& t = ctx.memory.get<Table2>(kView);
  const Stencil& s = ctx.state.stencil;
  if (!t.built || !(t.stencil == s)) t = build_table(s);
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextWrapped("Per updated point and base step of '%s': multiply-adds (MACs, zeros fed to the tensor cores "
                     "included), input elements loaded into operand fragments, and parameter (weight) elements the "
                     "MMAs take. Ours come from each method's plan and cost model, the ones `stencil-bench plan` "
                     "prints; yellow: ours differs from the paper by more than 1%%.",
                     s.name.c_str());
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  ImGui::TextWrapped("%s", t.paper_scope.c_str());
  ImGui::PopStyleColor();
  ImGui::PopTextWrapPos();
  publish(ctx, "table2.paper_is_table2", t.paper_is_table2 ? "yes" : "no");

  // The widest pair %.4g prints (a parameter load of 0.07812 beside the paper's 0.1406).
  const float number_w = ImGui::CalcTextSize("0.07812 / 0.07812").x + ui_px(8.0f);
  const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit |
                                ImGuiTableFlags_ScrollY;
  // Fixed columns (stable layout between frames); the note column takes the rest and wraps.
  // Where three number columns would leave the notes a sliver (a lecture's font at 1280x720, issue 17), the three
  // pairs stack in one column, one line each.
  const char* headers[3] = {"MACs: paper / ours", "input: paper / ours", "param.: paper / ours"};
  const char* labels[3] = {"MACs", "input", "param."};
  const float method_w = ImGui::CalcTextSize("Lower Bound ").x;
  float numbers_w = 0;
  for (const char* h : headers) numbers_w += std::max(number_w, ImGui::CalcTextSize(h).x) + 2.0f * ImGui::GetStyle().CellPadding.x;
  // Where the window is too short for the notes (each wraps over three or four lines: a lecture's font at 1280x720
  // showed two of five methods, the rest behind a scroll bar), the numbers take one line per method and each
  // method's note becomes its name's tooltip.
  const float line = ImGui::GetTextLineHeightWithSpacing();
  const bool compact = ImGui::GetContentRegionAvail().y < static_cast<float>(t.rows.size() + 1) * 4.0f * line &&
                       ImGui::GetContentRegionAvail().x >= method_w + numbers_w;
  const bool stacked = !compact && ImGui::GetContentRegionAvail().x - method_w - numbers_w < ui_px(320.0f);
  const float stacked_w = std::max(ImGui::CalcTextSize("param. ").x + number_w, ImGui::CalcTextSize("paper / ours").x);
  publish(ctx, "table2.layout", compact ? "compact" : stacked ? "stacked" : "wide");
  if (compact) ImGui::TextDisabled("Hover a method's name for why ours differs from the paper.");
  if (ImGui::BeginTable("table2", compact ? 4 : stacked ? 3 : 5, flags, ImVec2(0, 0))) {
    ImGui::TableSetupScrollFreeze(1, 1);
    ImGui::TableSetupColumn("method", ImGuiTableColumnFlags_WidthFixed, method_w);
    if (stacked)
      ImGui::TableSetupColumn("paper / ours", ImGuiTableColumnFlags_WidthFixed, stacked_w);
    else
      for (const char* h : headers)
        ImGui::TableSetupColumn(h, ImGuiTableColumnFlags_WidthFixed, std::max(number_w, ImGui::CalcTextSize(h).x));
    if (!compact) ImGui::TableSetupColumn("why ours differs", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableHeadersRow();
    for (const Table2Row& row : t.rows) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(row.method.c_str());
      if (compact && ImGui::IsItemHovered()) {
        ImGui::BeginTooltip();
        ImGui::PushTextWrapPos(ui_px(520.0f));
        if (!row.unsupported.empty())
          ImGui::Text("%s cannot take this stencil: %s", row.method.c_str(), row.unsupported.c_str());
        else
          ImGui::TextUnformatted(row.note.c_str());
        if (!row.core_note.empty()) {
          ImGui::Separator();
          ImGui::TextUnformatted(("The cost model's own comparison, " + row.core_note).c_str());
        }
        ImGui::PopTextWrapPos();
        ImGui::EndTooltip();
      }
      const std::string key = "table2." + (row.id.empty() ? std::string("lower_bound") : row.id);
      const std::optional<double> pm = row.paper ? std::optional<double>(row.paper->computation_tabulated) : std::nullopt;
      const std::optional<double> pi = row.paper ? std::optional<double>(row.paper->input) : std::nullopt;
      const std::optional<double> pp = row.paper ? std::optional<double>(row.paper->parameter) : std::nullopt;
      auto ours = [&](double v) { return row.ours_known ? std::optional<double>(v) : std::nullopt; };
      if (stacked) ImGui::TableNextColumn();
      cell_pair(pm, ours(row.macs), stacked ? labels[0] : nullptr);
      cell_pair(pi, ours(row.input), stacked ? labels[1] : nullptr);
      cell_pair(pp, ours(row.parameter), stacked ? labels[2] : nullptr);
      if (&row == &t.rows.back()) probe_last_item(ctx.state, "table2.last_row"); // the tests' fit check
      if (!compact) {
        ImGui::TableNextColumn();
        ImGui::PushTextWrapPos(0.0f);
        if (!row.unsupported.empty())
          ImGui::TextDisabled("%s cannot take this stencil: %s", row.method.c_str(), row.unsupported.c_str());
        else
          ImGui::TextWrapped("%s", row.note.c_str());
        ImGui::PopTextWrapPos();
        if (!row.core_note.empty() && ImGui::IsItemHovered()) {
          ImGui::BeginTooltip();
          ImGui::PushTextWrapPos(ui_px(520.0f));
          ImGui::TextUnformatted(("The cost model's own comparison, " + row.core_note).c_str());
          ImGui::PopTextWrapPos();
          ImGui::EndTooltip();
        }
      }
      // The numbers as printed (%.4g), for the tests to compare with the plans.
      if (row.ours_known)
        publish(ctx, key, fmt::format("{:.4g} {:.4g} {:.4g}", row.macs, row.input, row.parameter));
      else
        publish(ctx, key, "unsupported");
      if (row.paper)
        publish(ctx, key + ".paper", fmt::format("{:.4g} {:.4g} {:.4g}", *pm, *pi, *pp));
    }
    ImGui::EndTable();
  }
  ImGui::End();
}

} // namespace se
