// The parameter-matrix view: TCStencil's banded L x L matrices (star: P_ver and P_hor; box: one per kernel row
// applied to the input shifted by that row), the partial coefficients the tile border leaves and the taps that
// fall to CUDA cores; ConvStencil's fused kernel, stencil2row layout and triangular kernel matrices.
#include <algorithm>
#include <cmath>
#include <string>

#include <fmt/format.h>
#include <imgui.h>

#include "app/widgets/matrix_widget.hpp"
#include "app/widgets/ui_units.hpp"
#include "app/views/views.hpp"
#include "core/convstencil/convstencil_plan.hpp"
#include "core/tcstencil/tcstencil_plan.hpp"

namespace se {
namespace {

constexpr const char* kView = "params";

struct ParamsMemory {
  Precision precision = Precision::FP16;
  CachedPlan<std::pair<Stencil, Precision>, TCStencilPlan> tc;
  int tc_matrix = 0;
  CachedPlan<Stencil, ConvStencilPlan> conv;
  int conv_plane = 0;
  bool tc_details = false; // TCStencil: the plan, the colour key and the CUDA-core taps instead of the figure
  int conv_part = 0; // 0: stencil2row's A and B, 1: the kernel matrices (one at a time, so each fits the window)
  int s2r_page = 0;  // stencil2row's bands where they do not all fit the window's height: the page of them shown
};

// The input picture's colours: what the GEMM reads, what the CUDA-core taps read.
constexpr ImU32 kReadColor = IM_COL32(86, 132, 200, 255), kTapColor = IM_COL32(214, 140, 60, 255);
constexpr ImU32 kMarkColor = IM_COL32(255, 150, 60, 255); // P's partial rows or columns

// The input this GEMM reads around the output tile: the L x L tile shifted by the matrix's row shift (blue),
// the neighbours the CUDA-core taps that finish this GEMM's partial sums read (orange), cells neither needs
// (dark), the output tile outlined. Returns how many cells are orange.
// `room`: the width the picture may take with its title; a narrower room (a lecture's font beside a large P) takes
// the short title, leaving the colour legend beside it its width (issue 17).
int draw_shifted_input(ExplorerState& state, const TCStencilPlan& plan, const ParameterMatrix& p, float cell, float room) {
  const int r = plan.stencil.radius, L = plan.L, side = L + 2 * r;
  // Orange: the neighbour (tx + dx, ty + dy) of every output (ty, tx) of a tap that completes this matrix.
  std::vector<char> needed(static_cast<std::size_t>(side * side), 0);
  for (const CudaCoreTap* t : plan.taps_completing(p))
    for (int ty = t->row_begin; ty < t->row_end; ++ty)
      for (int tx = t->col_begin; tx < t->col_end; ++tx) {
        const int y = ty + t->dy + r, x = tx + t->dx + r;
        if (y >= 0 && y < side && x >= 0 && x < side) needed[static_cast<std::size_t>(y * side + x)] = 1;
      }
  MatrixPicture in;
  in.id = "shifted";
  in.title = p.row_shift == 0 ? "input read by this GEMM" : fmt::format("input read: tile shifted {:+d} rows", p.row_shift);
  if (ImGui::CalcTextSize(in.title.c_str()).x > room)
    in.title = p.row_shift == 0 ? "input read" : fmt::format("input, {:+d} rows", p.row_shift);
  in.title_color = kInputTitleColor;
  in.rows = in.cols = side;
  in.coloring = CellColoring::Custom;
  in.numbers = false;
  in.outlined.assign(static_cast<std::size_t>(side * side), 0);
  int orange = 0;
  for (int y = 0; y < side; ++y)
    for (int x = 0; x < side; ++x) {
      const int ty = y - r, tx = x - r; // tile coordinates; the tile is [0, L)
      // Output row ty of this GEMM reads input row ty + shift.
      const bool read_shifted = tx >= 0 && tx < L && ty >= p.row_shift && ty < p.row_shift + L;
      const bool in_tile = tx >= 0 && tx < L && ty >= 0 && ty < L;
      const bool need = !read_shifted && needed[static_cast<std::size_t>(y * side + x)] != 0;
      orange += need ? 1 : 0;
      in.colors.push_back(read_shifted ? kReadColor : need ? kTapColor : zero_cell_color());
      if (in_tile && (tx == 0 || tx == L - 1 || ty == 0 || ty == L - 1))
        in.outlined[static_cast<std::size_t>(y * side + x)] = 1;
    }
  in.outline_color = IM_COL32(255, 255, 255, 200);
  in.cell = cell;
  in.tooltip = [r, L, shift = p.row_shift, needed, side](int y, int x) {
    const int ty = y - r, tx = x - r;
    const bool inside = tx >= 0 && tx < L && ty >= shift && ty < shift + L;
    const bool need = needed[static_cast<std::size_t>(y * side + x)] != 0;
    return fmt::format("input ({:+d}, {:+d}) relative to the tile's first point: {}", tx, ty,
                       inside ? "read by the GEMM"
                       : need ? "needed by this GEMM's partial sums, not in its operand: a CUDA-core tap reads it"
                              : "not needed for this GEMM's kernel row");
  };
  draw_matrix(in);
  // The colours' key under the picture at every size: the sentence that explains them stands in the text column or
  // under "plan and taps", which a lecture's 1280x720 leaves off, so its orange and white went unexplained (issue 17).
  const auto key = [](ImU32 fill, ImU32 frame, const char* label) { draw_key_chip(fill, frame, label); };
  const ImU32 edge = kChipEdge;
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + room); // in the picture's room: the text column stands beside it
  ImGui::BeginGroup();
  key(kReadColor, edge, "read by the GEMM");
  if (orange > 0) key(kTapColor, edge, "read by CUDA-core taps");
  key(zero_cell_color(), edge, "not needed");
  key(zero_cell_color(), in.outline_color, "the output tile");
  // P's marked rows or columns (the same orange: the partial sums those taps finish).
  if (!p.partial_lines.empty())
    key(zero_cell_color(), kMarkColor, "marked in P: partial");
  ImGui::EndGroup();
  ImGui::PopTextWrapPos();
  probe_rect(state, "params.tc.key", ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
  return orange;
}

void draw_taps(const TCStencilPlan& plan) {
  if (plan.cuda_core_taps.empty()) {
    ImGui::TextDisabled("No taps on CUDA cores: the GEMMs cover every output.");
    return;
  }
  if (!ImGui::BeginTable("taps", 5, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_ScrollY |
                                        ImGuiTableFlags_SizingFixedFit,
                         ImVec2(0, std::min(10.0f, 1.0f + plan.cuda_core_taps.size()) * ImGui::GetTextLineHeightWithSpacing())))
    return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("tap (dx, dy, dz)");
  ImGui::TableSetupColumn("weight");
  ImGui::TableSetupColumn("tile rows");
  ImGui::TableSetupColumn("tile cols");
  ImGui::TableSetupColumn("outputs");
  ImGui::TableHeadersRow();
  for (const CudaCoreTap& t : plan.cuda_core_taps) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::Text("(%+d, %+d, %+d)", t.dx, t.dy, t.dz);
    ImGui::TableNextColumn();
    ImGui::Text("%.6g", t.operand);
    ImGui::TableNextColumn();
    ImGui::Text("%d..%d", t.row_begin, t.row_end - 1);
    ImGui::TableNextColumn();
    ImGui::Text("%d..%d", t.col_begin, t.col_end - 1);
    ImGui::TableNextColumn();
    ImGui::Text("%lld", static_cast<long long>(t.outputs()));
  }
  ImGui::EndTable();
}

void draw_tcstencil(ViewContext& ctx, ParamsMemory& mem) {
  const Stencil& s = ctx.state.stencil;
  // Short labels (the whole in their tooltips) where the full ones would push the matrix selector to a line of its
  // own: 3D box stencils' long names at a lecture's font, where that line cut P at the window's bottom (issue 17).
  float widest_name = 0;
  {
    const TCStencilPlan& current = mem.tc.get({s, mem.precision}, [&] { return make_tcstencil_plan(s, mem.precision); });
    for (const ParameterMatrix& m : current.matrices) widest_name = std::max(widest_name, ImGui::CalcTextSize(m.name.c_str()).x);
  }
  const char* fp16_full = "FP16 (paper, WMMA 16×16×16)";
  const char* fp64_full = "FP64 (ours, m8n8k4)";
  const float line_w = check_width(fp16_full) + ImGui::GetStyle().ItemSpacing.x + check_width(fp64_full) + ui_px(24.0f) +
                       widest_name + ImGui::GetFrameHeight() + 2.0f * ImGui::GetStyle().FramePadding.x;
  const bool short_labels = widest_name > 0 && line_w > ImGui::GetContentRegionAvail().x;
  int precision = mem.precision == Precision::FP16 ? 0 : 1;
  if (ImGui::RadioButton(short_labels ? "FP16 (paper)" : fp16_full, &precision, 0)) mem.precision = Precision::FP16;
  probe_last_item(ctx.state, "params.tc.fp16");
  if (short_labels && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", fp16_full);
  ImGui::SameLine();
  if (ImGui::RadioButton(short_labels ? "FP64 (ours)" : fp64_full, &precision, 1)) mem.precision = Precision::FP64;
  probe_last_item(ctx.state, "params.tc.fp64");
  if (short_labels && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", fp64_full);
  const TCStencilPlan& plan = mem.tc.get({s, mem.precision}, [&] { return make_tcstencil_plan(s, mem.precision); });
  const std::string method = mem.precision == Precision::FP16 ? "TCStencil (FP16)" : "TCStencil (FP64)";
  if (!mem.tc.unsupported.empty()) {
    draw_unsupported(method.c_str(), mem.tc.unsupported);
    publish(ctx, "params.unsupported", mem.tc.unsupported);
    return;
  }
  publish(ctx, "params.tc.mma_per_tile", std::to_string(plan.mma_per_tile()));
  publish(ctx, "params.tc.cuda_core_fma_per_tile", std::to_string(plan.cuda_core_fma_per_tile()));
  publish(ctx, "params.tc.gemm_only_points", std::to_string(plan.gemm_only_points_per_tile()));
  publish(ctx, "params.tc.paper_inner_points", std::to_string(plan.inner_points_per_tile()));
  mem.tc_matrix = std::clamp(mem.tc_matrix, 0, static_cast<int>(plan.matrices.size()) - 1);
  // Radio buttons beside the precision where they all fit on its line; else a combo (box stencils have one matrix
  // per kernel row, 3D ones nine: wrapped buttons took the matrix's height at a lecture's font, issue 17).
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  float radios_w = 0;
  for (const ParameterMatrix& m : plan.matrices) radios_w += check_width(m.name.c_str()) + ImGui::GetStyle().ItemSpacing.x;
  ImGui::SameLine(0, ui_px(24.0f));
  if (ImGui::GetCursorScreenPos().x + radios_w <= right) {
    for (int i = 0; i < static_cast<int>(plan.matrices.size()); ++i) {
      if (i > 0) ImGui::SameLine();
      ImGui::RadioButton(plan.matrices[static_cast<std::size_t>(i)].name.c_str(), &mem.tc_matrix, i);
      probe_last_item(ctx.state, fmt::format("params.tc.matrix.{}", i));
    }
  } else {
    float widest = 0;
    for (const ParameterMatrix& m : plan.matrices) widest = std::max(widest, ImGui::CalcTextSize(m.name.c_str()).x);
    const float combo_w = widest + ImGui::GetFrameHeight() + 2.0f * ImGui::GetStyle().FramePadding.x;
    if (ImGui::GetCursorScreenPos().x + combo_w > right) ImGui::NewLine();
    ImGui::SetNextItemWidth(combo_w);
    if (ImGui::BeginCombo("##tc_matrix", plan.matrices[static_cast<std::size_t>(mem.tc_matrix)].name.c_str())) {
      for (int i = 0; i < static_cast<int>(plan.matrices.size()); ++i) {
        if (ImGui::Selectable(plan.matrices[static_cast<std::size_t>(i)].name.c_str(), i == mem.tc_matrix)) mem.tc_matrix = i;
        probe_last_item(ctx.state, fmt::format("params.tc.matrix.{}", i));
      }
      ImGui::EndCombo();
    }
    probe_last_item(ctx.state, "params.tc.matrix_combo");
  }
  // A page selector (issue 17): the figure takes the page's whole height; the plan's details have a page of their
  // own. The box heads the text column (the controls' line has no room left at a lecture's font).
  auto details_toggle = [&] {
    ImGui::Checkbox("plan and taps", &mem.tc_details);
    probe_last_item(ctx.state, "params.tc.details");
  };
  const ParameterMatrix& p = plan.matrices[static_cast<std::size_t>(mem.tc_matrix)];
  ValuePalette palette;
  for (const ParameterMatrix& m : plan.matrices) palette.add(m.operand);
  const bool box = plan.decomposition == TCStencilDecomposition::Box;
  // A 3D star's P_ver and P_hor hold its dz = 0 plane, which the matrices' names do not say (a box's do: "dz=-1").
  const char* three_d_star =
      plan.stencil.dims == 3 && !box ? " 3D: P holds the dz = 0 plane; the other planes' taps run on CUDA cores."
      : plan.stencil.dims == 1       ? " 1D: the line is read as rows of L consecutive points, so a tile is L² "
                                       "consecutive points and P_hor holds the whole band; the neighbours past a "
                                       "row's ends are the previous and next rows' end points, read by the taps."
                                     : "";
  const std::string summary = fmt::format("{} decomposition, L = {}: {} GEMM(s) of {}×{}×{} = {} MMA instructions per tile, and {} "
                     "CUDA-core FMAs for the border. {} of the {} points get their whole stencil from the GEMMs "
                     "(no CUDA-core tap touches them{}); the paper's inner region (L-2r)² = {} counts tiles that "
                     "update only those points.{}",
                     box ? "Box" : "Star", plan.L, static_cast<int>(plan.matrices.size()), plan.L, plan.L, plan.L,
                     plan.mma_per_tile(), static_cast<long long>(plan.cuda_core_fma_per_tile()),
                     plan.gemm_only_points_per_tile(), plan.L * plan.L,
                     box ? ": each box row's GEMM reads the shifted input, so only columns are cut" : "",
                     plan.inner_points_per_tile(), three_d_star);

  auto colour_key = [&] {
    ImGui::TextDisabled("Blue: the input this GEMM reads (the tile shifted %+d rows). Orange: neighbours its kernel "
                        "row needs outside that operand (read by the CUDA-core taps). Dark: not needed by this "
                        "GEMM. White frame: the output tile.",
                        p.row_shift);
    ImGui::TextDisabled("Marked %s of %s: partial coefficients. The tile border cuts their %d-wide band; the missing "
                        "neighbours come from the CUDA-core taps (plan and taps).",
                        p.side == ParameterSide::Left ? "rows" : "columns", p.name.c_str(), 2 * plan.stencil.radius + 1);
  };
  publish(ctx, "params.tc.matrix", p.name);
  publish(ctx, "params.tc.operand", fact_numbers(p.operand));
  if (mem.tc_details) {
    details_toggle();
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextUnformatted(summary.c_str());
    colour_key();
    ImGui::PopTextWrapPos();
    ImGui::TextUnformatted("Taps finished on CUDA cores (per tile)");
    draw_taps(plan);
    return;
  }
  // Three columns, so that the page fits the window at a lecture's font (issue 17): P as large as the height left
  // above the details' header allows (letters and a legend where numbers do not fit), the input this GEMM reads at
  // half P's cells, and the plan's numbers; the colour key and the CUDA-core taps under a header below.
  const float avail = ImGui::GetContentRegionAvail().x;
  MatrixPicture m;
  m.id = "P";
  m.title = fmt::format("{} ({} operand)", p.name, plan.precision == Precision::FP16 ? "FP16" : "FP64");
  m.title_color = kWeightTitleColor;
  m.rows = m.cols = plan.L;
  m.values = p.operand;
  m.palette = &palette;
  m.digits = 3;
  m.legend = false; // in the text column, not under P (it would take P's height)
  m.max_width = 0.42f * avail;
  m.max_height = ImGui::GetContentRegionAvail().y - ImGui::GetStyle().ItemSpacing.y;
  (p.side == ParameterSide::Left ? m.marked_rows : m.marked_columns) = p.partial_lines;
  m.mark_color = kMarkColor;
  std::vector<double> weights = p.weights;
  m.tooltip = [weights, L = plan.L](int r, int c) {
    return fmt::format("FP64 weight {:.10g}", weights[static_cast<std::size_t>(r * L + c)]);
  };
  const MatrixDrawn drawn = draw_matrix(m);
  probe_rect(ctx.state, "params.tc.matrix", drawn.min, drawn.max);
  ImGui::SameLine(0, ui_px(16.0f));
  ImGui::BeginGroup();
  // The input's room: what is left beside P less the legend's column (the widest chip), where P's cells show letters.
  // Half P's cells, less where the picture and its colour key under it would run past P's bottom (box-2d225p's 30
  // cells a side at a lecture's 1280x720: the key fell below the window's edge); its cells hold no numbers.
  const int input_side = plan.L + 2 * plan.stencil.radius;
  const float key_h = 5.0f * ImGui::GetTextLineHeightWithSpacing(), input_title_h = ImGui::GetTextLineHeight() + ui_px(4.0f);
  const float input_fit = std::floor((drawn.max.y - drawn.min.y - input_title_h - key_h) / static_cast<float>(input_side));
  const float input_cell = std::max(ui_px(3.0f), std::min(std::max(ui_px(6.0f), std::floor(drawn.cell * 0.5f)), input_fit));
  // The column holds the legend's chips and the "plan and taps" switch above them, whichever is wider.
  const float legend_w = drawn.letters ? std::max(palette_legend_width(palette, 5, legend_of(palette, p.operand)), check_width("plan and taps")) +
                                             ui_px(16.0f)
                                       : 0.0f;
  const float input_room = std::max(static_cast<float>(plan.L + 2 * plan.stencil.radius) * input_cell,
                                    right - ImGui::GetCursorScreenPos().x - legend_w);
  const int orange = draw_shifted_input(ctx.state, plan, p, input_cell, input_room);
  publish(ctx, "params.tc.needed_not_read", std::to_string(orange));
  ImGui::EndGroup();
  probe_rect(ctx.state, "params.tc.input", ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
  ImGui::SameLine(0, ui_px(16.0f));
  ImGui::BeginGroup();
  ImGui::PushTextWrapPos(ImGui::GetContentRegionMax().x);
  const char* caption = p.side == ParameterSide::Left ? "P × tile: each output sums its column's neighbours."
                                                       : "tile × P: each output sums its row's neighbours.";
  // A column wide enough for the whole plan and the colour key (a normal font) gets them here; a narrow one (a
  // lecture's font) the short summary and the legend, as much as P's height holds (the legend first), the rest
  // under the header below.
  const float column_w = ImGui::GetContentRegionAvail().x;
  const bool roomy = column_w >= ui_px(300.0f);
  const std::string short_summary =
      fmt::format("{}, L = {}: {} MMA(s) per tile and {} CUDA-core FMAs; {} of {} points from the GEMMs alone.{}",
                  box ? "Box" : "Star", plan.L, plan.mma_per_tile(), plan.cuda_core_fma_per_tile(),
                  plan.gemm_only_points_per_tile(), plan.L * plan.L, three_d_star);
  const float spacing = ImGui::GetStyle().ItemSpacing.y;
  const float caption_h = ImGui::CalcTextSize(caption, nullptr, false, column_w).y + spacing;
  const float short_h = ImGui::CalcTextSize(short_summary.c_str(), nullptr, false, column_w).y + spacing;
  // The legend lists the values of the P shown (the palette holds every P's: box-2d225p's 33 letters ran past the
  // window's bottom at a lecture's 1280x720), in the letters they have in every P.
  const LegendStyle shown = legend_of(palette, p.operand);
  int listed = 0;
  for (double v : palette.values()) listed += shown.shown(v) ? 1 : 0;
  const int per_row = std::max(1, static_cast<int>(column_w / std::max(palette_legend_width(palette, 5, shown), 1.0f)));
  const float legend_h = drawn.letters ? std::ceil(static_cast<float>(listed) / static_cast<float>(per_row)) *
                                             ImGui::GetFrameHeightWithSpacing()
                                       : 0.0f;
  const float room = drawn.max.y - drawn.min.y - ImGui::GetFrameHeightWithSpacing(); // under the details box
  const bool show_short = roomy || legend_h + short_h <= room;
  const bool show_caption = roomy || legend_h + short_h + caption_h <= room;

  details_toggle();
  if (show_caption) ImGui::TextWrapped("%s", caption);
  if (roomy)
    ImGui::TextUnformatted(summary.c_str());
  else if (show_short)
    ImGui::TextWrapped("%s", short_summary.c_str());
  if (drawn.letters && claim_legend(palette)) draw_legend_chips(palette, 5, 0, shown);
  if (roomy) colour_key();
  ImGui::PopTextWrapPos();
  ImGui::EndGroup();
  probe_rect(ctx.state, "params.tc.text", ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
}

// One input row as stencil2row reads it: per column, the segment of A (top row) and of B (bottom row) it lands
// in (colour) and its offset in that segment (number). The row is wrapped into bands of whole segments, so the
// cells keep the room their numbers and the A/B labels need at any font size instead of shrinking off the window.
// Returns the number of bands drawn.
int draw_stencil2row(ViewContext& ctx, const ConvStencilPlan& plan, int& page, const std::string& note) {
  const Stencil2RowLayout& l = plan.layout;
  const float line = ImGui::GetTextLineHeight();
  // As narrow as the widest offset (k - 1) and a column header allow, and tall enough for a row label.
  // The column headers stand only over a band's first cell and each segment's start, with the segment's other
  // cells free beside them: they may be wider than a cell.
  const float widest = ImGui::CalcTextSize(std::to_string(std::max(plan.k - 1, 0)).c_str()).x;
  const float cell = std::ceil(std::max(widest + ui_px(6.0f), line + ui_px(4.0f)));
  const float label_w = ImGui::CalcTextSize("B").x + ui_px(6.0f); // the widget's row-label column
  const float avail = ImGui::GetContentRegionAvail().x - ImGui::GetStyle().ScrollbarSize;
  const int fit = std::max(1, static_cast<int>((avail - label_w) / cell));
  // Whole segments per band where at least one fits; else as many columns as fit.
  const int per_band = fit >= plan.segment ? fit / plan.segment * plan.segment : fit;
  const int bands = (l.input_columns + per_band - 1) / per_band;
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(kInputTitleColor),
                     "stencil2row of one input row (%d columns): colour = segment, number = offset in it", l.input_columns);
  // All the bands where the window's height holds them and the `note` under them; else as many as it holds with a
  // line for the choice of bands, the rest on further pages (box-2d225p's nine bands of one 16-column segment ran
  // past the window's bottom; heat-1d's third band went to a second page at 1280x720 with room for it, issue 17).
  const float band_h = line + ui_px(2.0f) + 2.0f * cell + ImGui::GetStyle().ItemSpacing.y;
  const float room = ImGui::GetContentRegionAvail().y - ImGui::GetStyle().ItemSpacing.y -
                     ImGui::CalcTextSize(note.c_str(), nullptr, false, ImGui::GetContentRegionAvail().x).y;
  const int per_page = static_cast<float>(bands) * band_h <= room
                           ? bands
                           : std::max(1, static_cast<int>((room - ImGui::GetFrameHeightWithSpacing()) / band_h));
  const int pages = (bands + per_page - 1) / per_page;
  page = std::clamp(page, 0, pages - 1);
  if (pages > 1) {
    const int c0 = page * per_page * per_band, c1 = std::min(l.input_columns, (page + 1) * per_page * per_band) - 1;
    ImGui::SetNextItemWidth(std::min(ImGui::GetContentRegionAvail().x, ui_px(320.0f)));
    ImGui::SliderInt("##s2r_page", &page, 0, pages - 1, fmt::format("columns {}-{} of {}", c0, c1, l.input_columns).c_str());
    probe_last_item(ctx.state, "params.conv.s2r.page");
  }
  publish(ctx, "params.conv.s2r.pages", std::to_string(pages));
  for (int band = page * per_page; band < std::min(bands, (page + 1) * per_page); ++band) {
    const int first = band * per_band, cols = std::min(per_band, l.input_columns - first);
    MatrixPicture m;
    const std::string id = fmt::format("s2r{}", band);
    m.id = id.c_str();
    m.rows = 2, m.cols = cols;
    m.coloring = CellColoring::Custom;
    for (int row = 0; row < 2; ++row)
      for (int c = first; c < first + cols; ++c) {
        const int seg = (row == 0 ? l.a_segment : l.b_segment)[static_cast<std::size_t>(c)];
        const int off = (row == 0 ? l.a_offset : l.b_offset)[static_cast<std::size_t>(c)];
        m.colors.push_back(seg < 0 ? zero_cell_color() : categorical_color(seg));
        m.labels.push_back(seg < 0 ? "" : std::to_string(off));
      }
    m.row_labels = {"A", "B"};
    m.column_group = per_band % plan.segment == 0 ? plan.segment : 0;
    // The input column of each band's first cell, and every segment's start, above the cells.
    m.column_labels.assign(static_cast<std::size_t>(cols), "");
    for (int c = first; c < first + cols; ++c)
      if (c == first || c % plan.segment == 0) m.column_labels[static_cast<std::size_t>(c - first)] = std::to_string(c);
    m.cell = cell;
    m.tooltip = [l, first](int row, int col) {
      const int c = first + col;
      const int seg = (row == 0 ? l.a_segment : l.b_segment)[static_cast<std::size_t>(c)];
      const int off = (row == 0 ? l.a_offset : l.b_offset)[static_cast<std::size_t>(c)];
      return seg < 0 ? fmt::format("input column {} is not in {}", c, row == 0 ? "A" : "B")
                     : fmt::format("input column {} -> {} segment {}, offset {}", c, row == 0 ? "A" : "B", seg, off);
    };
    const MatrixDrawn d = draw_matrix(m);
    if (band == page * per_page) probe_rect(ctx.state, "params.conv.s2r", d.min, d.max);
    probe_rect(ctx.state, "params.conv.s2r.last", d.min, d.max);
    publish(ctx, fmt::format("params.conv.s2r.band{}", band),
            fmt::format("{}..{} cell {} numbers {}", first, first + cols - 1, d.cell, d.cell >= line ? "yes" : "no"));
  }
  return bands;
}

void draw_convstencil(ViewContext& ctx, ParamsMemory& mem) {
  const Stencil& s = ctx.state.stencil;
  const ConvStencilPlan& plan = mem.conv.get(s, [&] { return make_convstencil_plan(s); });
  if (!mem.conv.unsupported.empty()) {
    draw_unsupported("ConvStencil", mem.conv.unsupported);
    publish(ctx, "params.unsupported", mem.conv.unsupported);
    return;
  }
  const std::string fusion = plan.fused_steps > 1
                                 ? fmt::format("{} steps fused into W^{} (radius {}, k = {})", plan.fused_steps,
                                               plan.fused_steps, plan.fused.radius, plan.k)
                                 : fmt::format("no temporal fusion (radius {}, k = {})", plan.fused.radius, plan.k);
  if (plan.planes > 1) {
    ImGui::SetNextItemWidth(ui_px(120.0f)); // a few planes: room for the Show choice beside it
    ImGui::SliderInt("Plane", &mem.conv_plane, 0, plan.planes - 1);
    probe_last_item(ctx.state, "params.conv.plane");
  }
  mem.conv_plane = std::clamp(mem.conv_plane, 0, static_cast<int>(plan.kernels.size()) - 1);
  const DualTessellationKernels& k = plan.kernels[static_cast<std::size_t>(mem.conv_plane)];
  publish(ctx, "params.conv.kernel_a", fact_numbers(k.kernel_a));
  // A page selector (issue 17): stencil2row's bands and the kernel matrices each take the page's whole height. Beside
  // the plane's slider where it fits (a 3D stencil's third band went to a second page for that line at 1280x720).
  if (plan.planes > 1)
    same_line_if_fits(ImGui::CalcTextSize("Show").x + check_width("stencil2row: A and B") + check_width("kernel matrices") +
                      3.0f * ImGui::GetStyle().ItemSpacing.x, ui_px(24.0f));
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("Show");
  ImGui::SameLine();
  ImGui::RadioButton("stencil2row: A and B", &mem.conv_part, 0);
  probe_last_item(ctx.state, "params.conv.part.s2r");
  ImGui::SameLine();
  ImGui::RadioButton("kernel matrices", &mem.conv_part, 1);
  probe_last_item(ctx.state, "params.conv.part.kernels");
  if (mem.conv_part == 0) {
    const std::string note = fmt::format("A and B share {} of every {} columns: the overlap ConvStencil keeps in shared "
                                         "memory.", plan.layout.overlap, plan.layout.input_columns);
    publish(ctx, "params.conv.s2r.bands", std::to_string(draw_stencil2row(ctx, plan, mem.s2r_page, note)));
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("%s", note.c_str()); // wrapped: a lecture's font cut it at 1280x720
    ImGui::PopStyleColor();
    probe_last_item(ctx.state, "params.conv.s2r.note");
    return;
  }
  ImGui::TextWrapped("%s. Each segment gives U = k+1 = %d outputs; a tile of %d segments reads one input row as A and B "
                     "(%d×%d each, K = %d padded to %d) and multiplies them by the triangular kernel matrices: %d MMAs per "
                     "tile row and plane for %d outputs.",
                     fusion.c_str(), plan.segment, plan.layout.segments, plan.layout.segments, plan.k_columns,
                     plan.k_columns, plan.k_padded, plan.mma_per_tile_row(), plan.outputs_per_tile_row());
  ValuePalette palette;
  palette.add(plan.fused.weights);
  palette.add(k.kernel_a);
  palette.add(k.kernel_b);
  // The kernel matrices are K_pad tall: fit them to the height, but never below a letter's height (then scroll).
  const float height = ImGui::GetContentRegionAvail().y - ImGui::GetTextLineHeightWithSpacing() * 2.0f;
  const float row_h = std::floor(std::max(ImGui::GetTextLineHeight() + ui_px(4.0f), height / static_cast<float>(plan.k_padded + 2)));

  // W^T of this plane (rows dy, columns dx), the source of both triangular matrices.
  MatrixPicture w;
  w.id = "WT";
  w.title = plan.fused_steps > 1 ? fmt::format("W^{} (plane {})", plan.fused_steps, k.plane) : "W";
  w.title_color = kWeightTitleColor;
  w.rows = plan.kernel_rows, w.cols = plan.k;
  const int side = plan.k;
  const int planes = plan.planes;
  for (int r = 0; r < plan.kernel_rows; ++r)
    for (int c = 0; c < side; ++c) {
      const int dz = planes > 1 ? k.plane : 0;
      const int dy = plan.kernel_rows > 1 ? r - plan.fused.radius : 0;
      w.values.push_back(plan.fused.at(c - plan.fused.radius, dy, dz));
    }
  w.palette = &palette;
  w.digits = 3;
  w.max_width = 0.22f * ImGui::GetContentRegionAvail().x;

  MatrixPicture a;
  a.id = "kernel_a";
  a.title = "kernel_a (× A): lower triangular";
  a.title_color = kWeightTitleColor;
  a.rows = plan.k_padded, a.cols = plan.n_padded;
  a.values = k.kernel_a;
  a.palette = &palette;
  a.row_group = plan.k;
  a.cell = row_h;
  a.digits = 2;
  a.tooltip = [kk = plan.k](int r, int t) {
    return fmt::format("kernel row {}, segment position {} -> output {} of the segment", r / kk, r % kk, t);
  };
  MatrixPicture b = a;
  b.id = "kernel_b";
  b.title = "kernel_b (× B): strictly upper";
  b.values = k.kernel_b;

  // Letters in the cells need the palette's legend: beside kernel_b, or under W's note where the row leaves it no
  // room (lecture mode's larger font).
  const MatrixMeasure wm = measure_matrix(w), am = measure_matrix(a), bm = measure_matrix(b);
  const bool letters = wm.letters || bm.letters;
  const float note_w = std::max(wm.size.x, ui_px(200.0f));
  const float w_gap = ui_px(30.0f), pair_gap = ui_px(16.0f), legend_gap = ui_px(20.0f);
  const float row_w = note_w + w_gap + am.size.x + pair_gap + bm.size.x + legend_gap + palette_legend_width(palette, 5);
  const bool legend_beside = row_w <= ImGui::GetContentRegionAvail().x;
  ImGui::BeginGroup();
  draw_matrix(w);
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + note_w);
  ImGui::TextDisabled("Row i·k + j of kernel_a holds W(i, j − t) for output t of the segment where j ≥ t; kernel_b "
                      "the rest of the window, W(i, j + k − t) where j < t.");
  ImGui::PopTextWrapPos();
  if (letters && !legend_beside) draw_palette_legend(palette, 5, note_w);
  ImGui::EndGroup();
  ImGui::SameLine(0, w_gap);
  draw_matrix(a);
  ImGui::SameLine(0, pair_gap);
  draw_matrix(b);
  if (letters && legend_beside) {
    ImGui::SameLine(0, legend_gap);
    ImGui::BeginGroup();
    ImGui::PushTextWrapPos(ImGui::GetContentRegionMax().x);
    draw_palette_legend(palette, 5);
    ImGui::PopTextWrapPos();
    ImGui::EndGroup();
  }
}

} // namespace

void draw_params_window(ViewContext& ctx) {
  if (!begin_view_window(ctx, kView, "Parameter matrices (TCStencil, ConvStencil)")) {
    ImGui::End();
    return;
  }
  ParamsMemory& mem = ctx.memory.get<ParamsMemory>(kView);
  const std::string page = ctx.layout.take_page_request(kView);
  if (ImGui::BeginTabBar("params_pages")) {
    if (begin_view_page(ctx, kView, "tcstencil", "TCStencil", page)) {
      draw_tcstencil(ctx, mem);
      ImGui::EndTabItem();
    }
    if (begin_view_page(ctx, kView, "convstencil", "ConvStencil", page)) {
      draw_convstencil(ctx, mem);
      ImGui::EndTabItem();
    }
    ImGui::EndTabBar();
  }
  ImGui::End();
}

} // namespace se
