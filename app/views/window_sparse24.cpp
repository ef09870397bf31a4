// The 2:4 swapping view (SPIDER, paper Fig. 5): one kernel row as the L x 2L band, after the strided column
// swap (moved columns marked), compressed into values and 2-bit metadata per group of four; the input rows
// that swap to match; the 2:4 validator's verdict; and the A operand of one mma.sp of the warp tile.
#include <algorithm>
#include <string>

#include <fmt/format.h>
#include <imgui.h>

#include "app/widgets/matrix_widget.hpp"
#include "app/widgets/ui_units.hpp"
#include "app/views/views.hpp"
#include "core/spider/spider_plan.hpp"

namespace se {
namespace {

constexpr const char* kView = "sparse24";

struct SparseMemory {
  // Even by default: §3.2's offset formula adds 16(-1)^k only where i mod 2 = 0, i.e. it moves the even 0-based
  // rows of B (2 (lane mod 4) + 8 floor(i/2) is even), so the A columns that trade with j + L must be the even
  // ones. §3.1.2's prose says "odd-indexed", which only agrees with that counting from 1. Both are exact.
  SwapParity parity = SwapParity::Even;
  CachedPlan<std::pair<Stencil, SwapParity>, SpiderPlan> spider;
  int row = -1; // index into plan.rows; -1: the centre row (dy = 0), the fullest one
  int mma = 0;  // index into plan.mmas
};

std::string two_bits(int index) { return fmt::format("{}{}", (index >> 1) & 1, index & 1); }

void draw_badge(bool pass, const char* text) {
  const ImVec4 color = pass ? ImVec4(0.20f, 0.55f, 0.28f, 1.0f) : ImVec4(0.65f, 0.18f, 0.15f, 1.0f);
  ImGui::PushStyleColor(ImGuiCol_Button, color);
  ImGui::PushStyleColor(ImGuiCol_ButtonHovered, color);
  ImGui::PushStyleColor(ImGuiCol_ButtonActive, color);
  ImGui::Button(text);
  ImGui::PopStyleColor(3);
}

// Band columns the strided swap moved (column j of the swapped band came from column perm[j] != j).
std::vector<int> moved_columns(const SpiderPlan& plan) {
  std::vector<int> out;
  for (std::size_t j = 0; j < plan.column_swap.size(); ++j)
    if (plan.column_swap[j] != static_cast<int>(j)) out.push_back(static_cast<int>(j));
  return out;
}

// One cell size for stages ①, ② and ③. Where the page is wide enough, ③ and its metadata stand beside ② (one row of
// figures); else ③ gets a page of its own, so each page fits the window at a lecture's font (issue 17).
struct StageLayout {
  float cell = 0;
  bool one_row = false;
};

MatrixPicture band_picture(const SpiderPlan& plan, const SpiderKernelRow& row, const ValuePalette& palette, float cell) {
  const SpiderGeometry& g = plan.geometry;
  // Column numbers over every column where they fit the cells, else over each group of four's first column.
  const bool every = cell >= ImGui::CalcTextSize(std::to_string(g.band_cols - 1).c_str()).x + ui_px(4.0f);
  std::vector<std::string> columns;
  for (int j = 0; j < g.band_cols; ++j) columns.push_back(every || j % 4 == 0 ? std::to_string(j) : "");
  MatrixPicture band;
  band.id = "band";
  band.title = fmt::format("① band {}×{} (+{} zero columns)", g.L, 2 * g.radius + g.L, g.band_cols - (2 * g.radius + g.L));
  band.title_color = kWeightTitleColor;
  band.rows = g.L, band.cols = g.band_cols;
  band.values = row.band;
  band.palette = &palette, band.cell = cell;
  band.column_group = 4;
  band.column_labels = columns;
  band.marked_columns = moved_columns(plan);
  band.mark_color = IM_COL32(255, 196, 64, 160);
  band.legend = false; // drawn beside the metadata table
  band.tooltip = [r = g.radius](int i, int j) {
    return fmt::format("output {} of the block times input {:+d} (band[i][i + j] = w[j - r])", i, j - i - r);
  };
  return band;
}

MatrixPicture swapped_picture(const SpiderPlan& plan, const SpiderKernelRow& row, const ValuePalette& palette, float cell) {
  MatrixPicture swapped = band_picture(plan, row, palette, cell);
  swapped.id = "swapped";
  swapped.title = fmt::format("② {} columns j ↔ j+{} swapped", to_string(plan.options.parity), plan.geometry.L);
  swapped.values = row.swapped;
  swapped.mark_color = IM_COL32(255, 196, 64, 255);
  swapped.outlined.clear();
  std::vector<int> perm = plan.column_swap;
  swapped.tooltip = [perm](int, int j) {
    const int from = perm[static_cast<std::size_t>(j)];
    return from == j ? fmt::format("column {} stays", j) : fmt::format("column {} holds band column {}", j, from);
  };
  return swapped;
}

MatrixPicture values_picture(const SpiderKernelRow& row, const ValuePalette& palette, float cell) {
  const Compressed24& c = row.compressed;
  MatrixPicture values;
  values.id = "values";
  values.title = "③ values";
  values.title_color = kWeightTitleColor;
  values.rows = c.rows, values.cols = c.cols / 2;
  values.values = c.values;
  values.palette = &palette, values.cell = cell;
  values.column_group = 2;
  values.legend = false;
  values.tooltip = [c](int r, int k) {
    return fmt::format("kept value {} of group {}: position {} in the group (bits {})", k % 2, k / 2,
                       c.indices[static_cast<std::size_t>(r * (c.cols / 2) + k)],
                       two_bits(c.indices[static_cast<std::size_t>(r * (c.cols / 2) + k)]));
  };
  return values;
}

MatrixPicture metadata_picture(const SpiderKernelRow& row, float cell) {
  const Compressed24& c = row.compressed;
  MatrixPicture meta;
  meta.id = "metadata";
  meta.title = "metadata";
  meta.title_color = kInputTitleColor;
  meta.rows = c.rows, meta.cols = c.cols / 4;
  meta.coloring = CellColoring::Custom;
  for (int r = 0; r < c.rows; ++r)
    for (int group = 0; group < c.cols / 4; ++group) {
      const std::size_t at = static_cast<std::size_t>(r * (c.cols / 2) + 2 * group);
      meta.labels.push_back(two_bits(c.indices[at]) + two_bits(c.indices[at + 1]));
      meta.colors.push_back(IM_COL32(200, 214, 236, 255));
    }
  meta.cell = cell;
  meta.cell_width = ImGui::CalcTextSize("0000").x + ui_px(12.0f);
  meta.tooltip = [](int, int group) {
    return fmt::format("group {}: the 2-bit positions of its two kept values, first then second", group);
  };
  return meta;
}

StageLayout stage_layout(const SpiderPlan& plan, const SpiderKernelRow& row, const ValuePalette& palette, ImVec2 avail) {
  const SpiderGeometry& g = plan.geometry;
  const float line = ImGui::GetTextLineHeightWithSpacing();
  float widest = 0;
  for (double w : row.weights_fp16) widest = std::max(widest, ImGui::CalcTextSize(compact_number(w, 3).c_str()).x);
  const float want = widest + ui_px(10.0f);
  const float smallest = std::ceil(kMinCellTextScale * ImGui::GetTextLineHeight() + ui_px(2.0f)); // a legible letter
  // Room under the figures: a title, column labels and markers above the cells, and two lines of notes below.
  const float fit_h = std::floor((avail.y - 6.5f * line) / static_cast<float>(g.L));
  // The width of ①, →, ②, ③ and the metadata in one row, titles included (a title can be wider than its cells:
  // a 1D band's 8 columns at a lecture's font, where the metadata ran off the window's right edge at 1280x720).
  const float spacing = ImGui::GetStyle().ItemSpacing.x;
  const auto one_row_width = [&](float cell) {
    return measure_matrix(band_picture(plan, row, palette, cell)).size.x + ImGui::CalcTextSize("→").x +
           measure_matrix(swapped_picture(plan, row, palette, cell)).size.x +
           measure_matrix(values_picture(row, palette, cell)).size.x + measure_matrix(metadata_picture(row, cell)).size.x +
           2.0f * spacing + ui_px(24.0f) + ui_px(12.0f) + ui_px(4.0f);
  };
  StageLayout l;
  for (float one = std::floor(std::min({want, fit_h, ui_px(72.0f)})); one >= smallest; one -= 1.0f)
    if (one_row_width(one) <= avail.x) {
      l.one_row = true;
      l.cell = one;
      return l;
    }
  const float fit_two = std::floor((avail.x - ui_px(60.0f)) / static_cast<float>(2 * g.band_cols));
  l.cell = std::clamp(std::min({want, fit_two, std::max(fit_h, smallest)}), ui_px(8.0f), ui_px(72.0f));
  return l;
}

void draw_compressed(ViewContext& ctx, const SpiderKernelRow& row, const ValuePalette& palette, float cell, bool note_beside);

// part 0: ① and ② (and ③ where the layout puts it in the same row); part 1: ③ alone.
void draw_stages(ViewContext& ctx, const SpiderPlan& plan, const SpiderKernelRow& row, const ValuePalette& palette,
                 const StageLayout& layout, int part) {
  const float cell = layout.cell;
  if (part == 1) {
    draw_compressed(ctx, row, palette, cell, true);
    return;
  }
  const MatrixDrawn b = draw_matrix(band_picture(plan, row, palette, cell));
  ImGui::SameLine();
  draw_operator("→", b.max.y - b.min.y);
  const MatrixDrawn s = draw_matrix(swapped_picture(plan, row, palette, cell));
  probe_rect(ctx.state, "sparse24.swapped", s.min, s.max);
  if (layout.one_row) {
    ImGui::SameLine(0, ui_px(24.0f));
    draw_compressed(ctx, row, palette, cell, false);
  } else if (b.letters || s.letters) {
    // Beside ② where a column of chips fits there (it then takes none of the page's height), else under ① and ②.
    const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
    if (right - s.max.x - ui_px(12.0f) >= palette_legend_width(palette, kLegendDigits)) {
      ImGui::SameLine(0, ui_px(12.0f));
      ImGui::BeginGroup();
      ImGui::Dummy(ImVec2(0, s.origin.y - s.min.y));
      draw_palette_legend(palette, kLegendDigits, right - ImGui::GetCursorScreenPos().x);
      ImGui::EndGroup();
    } else {
      draw_palette_legend(palette, 5);
    }
  }
}

void draw_compressed(ViewContext& ctx, const SpiderKernelRow& row, const ValuePalette& palette, float cell, bool note_beside) {
  if (!note_beside) ImGui::BeginGroup(); // the note goes under ③ and its metadata
  const MatrixDrawn vd = draw_matrix(values_picture(row, palette, cell));
  ImGui::SameLine(0, ui_px(12.0f));

  const MatrixDrawn md = draw_matrix(metadata_picture(row, vd.cell));
  probe_rect(ctx.state, "sparse24.metadata", md.min, md.max);
  if (note_beside) ImGui::SameLine(0, ui_px(24.0f));
  ImGui::BeginGroup();
  ImGui::PushTextWrapPos(ImGui::GetContentRegionMax().x);
  ImGui::TextDisabled("Each group of four keeps its two values (a lone value keeps a zero beside it) and their "
                      "positions 0-3 as two bits each: \"0010\" = positions 0 and 2.");
  ImGui::PopTextWrapPos();
  if (vd.letters) draw_palette_legend(palette, 5);
  ImGui::EndGroup();
  if (!note_beside) ImGui::EndGroup();
}

void draw_input_rows(const SpiderPlan& plan) {
  const std::size_t n = plan.input_rows.size();
  MatrixPicture rows;
  rows.id = "input_rows";
  rows.title = "B row k reads input x = x0 + dx (moved rows marked: the swap's offset term)";
  rows.title_color = kInputTitleColor;
  rows.rows = 1, rows.cols = static_cast<int>(n);
  rows.coloring = CellColoring::Custom;
  for (std::size_t k = 0; k < n; ++k) {
    const SpiderInputRow& r = plan.input_rows[k];
    rows.labels.push_back(r.padding ? "-" : fmt::format("{:+d}", r.dx));
    rows.colors.push_back(r.padding ? zero_cell_color() : categorical_color(r.block < 0 ? 0 : r.block + 1));
    if (r.swapped) rows.marked_columns.push_back(static_cast<int>(k));
    rows.column_labels.push_back(std::to_string(k));
  }
  rows.column_group = 4;
  rows.max_width = ImGui::GetContentRegionAvail().x;
  rows.cell = std::max(ImGui::CalcTextSize("+10").x + ui_px(10.0f), ImGui::GetTextLineHeight() + ui_px(6.0f));
  std::vector<SpiderInputRow> table = plan.input_rows;
  const int L = plan.geometry.L;
  rows.tooltip = [table, L](int, int k) {
    const SpiderInputRow& r = table[static_cast<std::size_t>(k)];
    if (r.block < 0) return std::string("past the last band block: zero");
    return fmt::format("block {}, band column {}{}{}", r.block, r.band_column,
                       r.swapped ? fmt::format(": swapped, so it reads {:+d} instead of {:+d}", r.dx,
                                               r.dx + (r.band_column >= L ? -L : L))
                                 : "",
                       r.padding ? " (padding: meets only zero weights)" : "");
  };
  draw_matrix(rows);
}

void draw_mma(ViewContext& ctx, SparseMemory& mem, const ValuePalette& palette) {
  const SpiderPlan& plan = mem.spider.plan;
  if (plan.mmas.empty()) return;
  mem.mma = std::clamp(mem.mma, 0, static_cast<int>(plan.mmas.size()) - 1);
  ImGui::SetNextItemWidth(ui_px(200.0f));
  ImGui::SliderInt("MMA of the warp tile", &mem.mma, 0, static_cast<int>(plan.mmas.size()) - 1);
  probe_last_item(ctx.state, "sparse24.mma");
  const SpiderMma& m = plan.mmas[static_cast<std::size_t>(mem.mma)];
  std::string parts;
  for (std::size_t p = 0; p < m.kernel_rows.size(); ++p)
    parts += fmt::format("{}part {}: {}", p == 0 ? "" : ", ", p,
                         m.kernel_rows[p] == kNoKernelRow ? std::string("-") : fmt::format("dy {:+d}", m.kernel_rows[p]));
  ImGui::TextWrapped("shift %+d, K chunk %d (%s)%s", m.shift, m.k_chunk, parts.c_str(),
                     plan.options.variant == SpiderVariant::Sparse
                         ? fmt::format("; metadata register {}, selector {}", m.metadata_register, m.metadata.selector).c_str()
                         : "");
  MatrixPicture a;
  a.id = "A";
  a.title = "A (16×16): band blocks on the diagonal, kernel rows stacked";
  a.title_color = kWeightTitleColor;
  a.rows = 16, a.cols = 16;
  a.values = m.a;
  a.palette = &palette;
  a.column_group = 4;
  a.row_group = plan.geometry.L;
  a.max_width = 0.55f * ImGui::GetContentRegionAvail().x;
  // The page's remaining height, less the legend's line where the cells fall back to letters.
  a.max_height = ImGui::GetContentRegionAvail().y - ImGui::GetTextLineHeightWithSpacing();
  const MatrixDrawn ad = draw_matrix(a);
  probe_rect(ctx.state, "sparse24.A", ad.min, ad.max);
  if (plan.options.variant != SpiderVariant::Sparse) return;
  ImGui::SameLine();
  draw_operator("→", ad.max.y - ad.min.y);
  MatrixPicture v;
  v.id = "Ac";
  v.title = "compressed (16×8)";
  v.title_color = kWeightTitleColor;
  v.rows = 16, v.cols = 8;
  v.values = m.a_compressed.values;
  v.palette = &palette;
  v.column_group = 2;
  v.row_group = plan.geometry.L;
  v.cell = ad.cell;
  draw_matrix(v);
}

} // namespace

void draw_sparse24_window(ViewContext& ctx) {
  if (!begin_view_window(ctx, kView, "2:4 swapping (SPIDER)")) {
    ImGui::End();
    return;
  }
  SparseMemory& mem = ctx.memory.get<SparseMemory>(kView);
  const Stencil& s = ctx.state.stencil;
  const SpiderPlan& plan = mem.spider.get({s, mem.parity}, [&] {
    SpiderOptions o;
    o.parity = mem.parity;
    return make_spider_plan(s, o);
  });
  if (!mem.spider.unsupported.empty()) {
    draw_unsupported("SPIDER", mem.spider.unsupported);
    publish(ctx, "sparse24.unsupported", mem.spider.unsupported);
    ImGui::End();
    return;
  }
  const SpiderGeometry& g = plan.geometry;
  const bool pass = plan.all_2to4();
  draw_badge(pass, pass ? "2:4 validator: pass" : "2:4 validator: FAIL");
  probe_last_item(ctx.state, "sparse24.badge");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Every swapped row and every A operand of the warp tile has at most two non-zeros\n"
                      "in each aligned group of four (core/fragment is_2to4).");
  ImGui::SameLine();
  // One line where the sentence would take three (a lecture's font), the sentence in its tooltip (issue 17).
  const std::string sentence = fmt::format("L = 2r+2 = {}: each kernel row becomes an L×(2r+L) band, exactly half zeros "
                                           "(sparsity ratio {:.3g}), padded to {} columns for whole groups of four.",
                                           g.L, spider_sparsity_ratio(g.radius, g.L), g.band_cols);
  if (ImGui::CalcTextSize(sentence.c_str(), nullptr, false, ImGui::GetContentRegionAvail().x).y >
      2.5f * ImGui::GetTextLineHeight()) {
    ImGui::TextWrapped("L = 2r+2 = %d: %d×%d bands, half zeros, %d columns", g.L, g.L, 2 * g.radius + g.L, g.band_cols);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", sentence.c_str());
  } else {
    ImGui::TextWrapped("%s", sentence.c_str());
  }

  if (mem.row < 0) mem.row = static_cast<int>(plan.rows.size()) / 2;
  mem.row = std::clamp(mem.row, 0, static_cast<int>(plan.rows.size()) - 1);
  if (g.dims == 2) {
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted("Kernel row");
    // One radio button per kernel row where they fit the line; else a slider (box-2d225p's fifteen rows ran off the
    // window's right edge at a lecture's 1280x720, issue 17).
    float radios_w = 0;
    for (const SpiderKernelRow& r : plan.rows)
      radios_w += check_width(fmt::format("dy {:+d}", r.dy).c_str()) + ImGui::GetStyle().ItemSpacing.x;
    if (radios_w <= ImGui::GetContentRegionAvail().x) {
      for (int i = 0; i < static_cast<int>(plan.rows.size()); ++i) {
        ImGui::SameLine();
        ImGui::RadioButton(fmt::format("dy {:+d}", plan.rows[static_cast<std::size_t>(i)].dy).c_str(), &mem.row, i);
        probe_last_item(ctx.state, fmt::format("sparse24.row.{}", plan.rows[static_cast<std::size_t>(i)].dy));
      }
    } else {
      ImGui::SameLine();
      ImGui::SetNextItemWidth(std::min(ImGui::GetContentRegionAvail().x, ui_px(360.0f)));
      const int last = static_cast<int>(plan.rows.size()) - 1;
      ImGui::SliderInt("##kernel_row", &mem.row, 0, last,
                       fmt::format("dy {:+d}", plan.rows[static_cast<std::size_t>(std::clamp(mem.row, 0, last))].dy).c_str());
      probe_last_item(ctx.state, "sparse24.row_slider");
    }
  }
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("Swap");
  int parity = mem.parity == SwapParity::Even ? 0 : 1;
  ImGui::SameLine();
  if (ImGui::RadioButton("even columns (§3.2)", &parity, 0)) mem.parity = SwapParity::Even;
  probe_last_item(ctx.state, "sparse24.parity.even");
  ImGui::SameLine();
  if (ImGui::RadioButton("odd (§3.1.2)", &parity, 1)) mem.parity = SwapParity::Odd;
  probe_last_item(ctx.state, "sparse24.parity.odd");
  constexpr const char* kWhyEven =
      "Why even: §3.2's offset formula adds 16(−1)^k to B's row only where i mod 2 = 0, and 2(lane mod 4) + "
      "8 floor(i/2) is then even: the rows that move, and so the A columns that trade with j + L, are the even "
      "0-based ones. §3.1.2 says \"odd-indexed\", which agrees only counting from 1. Either swap is exact (the "
      "validator checks both).";
  ImGui::SameLine();
  ImGui::TextDisabled("(why even?)");
  if (ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ui_px(480.0f));
    ImGui::TextUnformatted(kWhyEven);
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }

  const SpiderKernelRow& row = plan.rows[static_cast<std::size_t>(mem.row)];
  // One palette for the window: every kernel row's FP16 weights and every MMA's A operand, so a colour (and a
  // letter) means the same weight in the band, the compressed values and the A operands below.
  ValuePalette palette;
  for (const SpiderKernelRow& r : plan.rows) palette.add(r.weights_fp16);
  for (const SpiderMma& m : plan.mmas) palette.add(m.a);
  // Three pages, so that each fits the window at a lecture's font (issue 17): the band through its 2:4 form, the
  // input rows that swap to match (with the reason for the even swap), one mma.sp's A operand.
  const std::string page = ctx.layout.take_page_request(kView);
  if (ImGui::BeginTabBar("sparse24_pages")) {
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const StageLayout layout =
        stage_layout(plan, row, palette, ImVec2(avail.x, avail.y - ImGui::GetFrameHeightWithSpacing() - ImGui::GetStyle().ItemSpacing.y));
    if (begin_view_page(ctx, kView, "stages", layout.one_row ? "Band → 2:4###stages" : "① ②###stages", page)) {
      draw_stages(ctx, plan, row, palette, layout, 0);
      ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
      // Where the page has no line left (the validator's badge says the same for every row), nothing is cut.
      if (ImGui::GetContentRegionAvail().y >= ImGui::GetTextLineHeight() || !row.swapped_is_2to4)
        ImGui::TextWrapped("FP16 weights; equal colours, equal weights. %s: %s.",
                           g.dims == 2 ? fmt::format("Row dy {:+d}", row.dy).c_str() : "The row",
                           row.swapped_is_2to4 ? "2:4 after the swap" : "NOT 2:4 after the swap");
      // The precision notes where the page has room for them, else in this line's tooltip (issue 17).
      std::string notes;
      for (const std::string& note : plan.precision_notes) notes += (notes.empty() ? "" : "\n") + note;
      if (ImGui::CalcTextSize(notes.c_str(), nullptr, false, ImGui::GetContentRegionAvail().x).y <=
          ImGui::GetContentRegionAvail().y) {
        for (const std::string& note : plan.precision_notes) ImGui::TextWrapped("%s", note.c_str());
      } else if (ImGui::IsItemHovered() && !notes.empty()) {
        ImGui::SetTooltip("%s", notes.c_str());
      }
      ImGui::PopStyleColor();
      ImGui::EndTabItem();
    }
    if (!layout.one_row && begin_view_page(ctx, kView, "compressed", "③", page)) {
      draw_stages(ctx, plan, row, palette, layout, 1);
      ImGui::EndTabItem();
    }
    if (begin_view_page(ctx, kView, "rows", "Input rows", page)) {
      draw_input_rows(plan);
      ImGui::TextWrapped("Swapping band columns j and j+%d of A is only correct if rows j and j+%d of B swap too: "
                         "the kernel loads those input rows with the offset ±%d. The paper measures this row swap as "
                         "free (Table 3: the same instruction count and memory throughput within 0.04%%): that is "
                         "SPIDER's measurement, not one of ours.",
                         g.L, g.L, g.L);
      ImGui::Spacing();
      ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
      ImGui::TextWrapped("%s", kWhyEven);
      ImGui::PopStyleColor();
      ImGui::EndTabItem();
    }
    if (begin_view_page(ctx, kView, "mma", "mma.sp A", page)) {
      draw_mma(ctx, mem, palette);
      ImGui::EndTabItem();
    }
    ImGui::EndTabBar();
  }

  publish(ctx, "sparse24.validator", pass ? "pass" : "fail");
  publish(ctx, "sparse24.row", std::to_string(row.dy));
  publish(ctx, "sparse24.parity", std::string(to_string(plan.options.parity)));
  publish(ctx, "sparse24.swapped", fact_numbers(row.swapped));
  ImGui::End();
}

} // namespace se
