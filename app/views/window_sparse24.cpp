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
  int row_page = 0; // where the band's rows are paged (StageLayout::row_pages > 1): the part shown
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
// figures); else ③ gets a page of its own, so each page fits the window at a lecture's font (issue 17). Where ① and ②
// do not fit side by side at a legible cell either (radius 7: two 16x32 bands at 1280x720), each gets a page of its
// own, and where a band's L rows are still too tall, the pages show half of its rows at a time.
struct StageLayout {
  float cell = 0;
  bool one_row = false;
  bool separate = false; // ① and ② on pages of their own
  int row_pages = 1;     // 2 or 4: each page shows a half or a quarter of the L rows, chosen above the figure
  bool legend_beside = false; // separate: the row's legend beside the band (else under it)
};

// The rows of the band (and of ③ and its metadata) a page shows.
struct RowRange {
  int first = 0, count = 0;
  bool paged = false;
};

RowRange row_range(const SpiderGeometry& g, const StageLayout& layout, int page) {
  if (layout.row_pages == 1) return {0, g.L, false};
  const int n = g.L / layout.row_pages;
  return {std::clamp(page, 0, layout.row_pages - 1) * n, n, true};
}

// Rows [first, first + count) of a row-major matrix `cols` wide.
std::vector<double> row_slice(const std::vector<double>& values, int cols, const RowRange& r) {
  return {values.begin() + static_cast<std::ptrdiff_t>(r.first) * cols,
          values.begin() + static_cast<std::ptrdiff_t>(r.first + r.count) * cols};
}

std::string rows_note(const RowRange& r, int L) {
  return r.paged ? fmt::format(", rows {}-{} of {}", r.first, r.first + r.count - 1, L) : std::string();
}

MatrixPicture band_picture(const SpiderPlan& plan, const SpiderKernelRow& row, const ValuePalette& palette, float cell,
                           const RowRange& rr) {
  const SpiderGeometry& g = plan.geometry;
  // Column numbers over every column where they fit the cells, else over each group of four's first column.
  const bool every = cell >= ImGui::CalcTextSize(std::to_string(g.band_cols - 1).c_str()).x + ui_px(4.0f);
  std::vector<std::string> columns;
  for (int j = 0; j < g.band_cols; ++j) columns.push_back(every || j % 4 == 0 ? std::to_string(j) : "");
  MatrixPicture band;
  band.id = "band";
  band.title = fmt::format("① band {}×{} (+{} zero columns{})", g.L, 2 * g.radius + g.L, g.band_cols - (2 * g.radius + g.L),
                           rows_note(rr, g.L));
  band.title_color = kWeightTitleColor;
  band.rows = rr.count, band.cols = g.band_cols;
  band.values = row_slice(row.band, g.band_cols, rr);
  if (rr.paged)
    for (int i = 0; i < rr.count; ++i) band.row_labels.push_back(std::to_string(rr.first + i));
  band.palette = &palette, band.cell = cell;
  band.column_group = 4;
  band.column_labels = columns;
  band.marked_columns = moved_columns(plan);
  band.mark_color = IM_COL32(255, 196, 64, 160);
  band.legend = false; // drawn beside the metadata table
  band.tooltip = [r = g.radius, first = rr.first](int i, int j) {
    return fmt::format("output {} of the block times input {:+d} (band[i][i + j] = w[j - r])", first + i, j - first - i - r);
  };
  return band;
}

MatrixPicture swapped_picture(const SpiderPlan& plan, const SpiderKernelRow& row, const ValuePalette& palette, float cell,
                              const RowRange& rr) {
  MatrixPicture swapped = band_picture(plan, row, palette, cell, rr);
  swapped.id = "swapped";
  swapped.title = fmt::format("② {} columns j ↔ j+{} swapped{}", to_string(plan.options.parity), plan.geometry.L,
                              rows_note(rr, plan.geometry.L));
  swapped.values = row_slice(row.swapped, plan.geometry.band_cols, rr);
  swapped.mark_color = IM_COL32(255, 196, 64, 255);
  swapped.outlined.clear();
  std::vector<int> perm = plan.column_swap;
  swapped.tooltip = [perm](int, int j) {
    const int from = perm[static_cast<std::size_t>(j)];
    return from == j ? fmt::format("column {} stays", j) : fmt::format("column {} holds band column {}", j, from);
  };
  return swapped;
}

MatrixPicture values_picture(const SpiderKernelRow& row, const ValuePalette& palette, float cell, const RowRange& rr) {
  const Compressed24& c = row.compressed;
  MatrixPicture values;
  values.id = "values";
  values.title = "③ values";
  values.title_color = kWeightTitleColor;
  values.rows = rr.count, values.cols = c.cols / 2;
  values.values = row_slice(c.values, c.cols / 2, rr);
  if (rr.paged)
    for (int i = 0; i < rr.count; ++i) values.row_labels.push_back(std::to_string(rr.first + i));
  values.palette = &palette, values.cell = cell;
  values.column_group = 2;
  values.legend = false;
  values.tooltip = [c, first = rr.first](int i, int k) {
    const int r = first + i;
    return fmt::format("kept value {} of group {}: position {} in the group (bits {})", k % 2, k / 2,
                       c.indices[static_cast<std::size_t>(r * (c.cols / 2) + k)],
                       two_bits(c.indices[static_cast<std::size_t>(r * (c.cols / 2) + k)]));
  };
  return values;
}

// `max_width` > 0: the table's cells narrow to fit it (their bits at a smaller font, down to the widget's legible
// least), where ③ and the metadata share a radius-7 page.
MatrixPicture metadata_picture(const SpiderKernelRow& row, float cell, const RowRange& rr, float max_width = 0) {
  const Compressed24& c = row.compressed;
  MatrixPicture meta;
  meta.id = "metadata";
  meta.title = "metadata";
  meta.title_color = kInputTitleColor;
  meta.rows = rr.count, meta.cols = c.cols / 4;
  meta.coloring = CellColoring::Custom;
  for (int r = rr.first; r < rr.first + rr.count; ++r)
    for (int group = 0; group < c.cols / 4; ++group) {
      const std::size_t at = static_cast<std::size_t>(r * (c.cols / 2) + 2 * group);
      meta.labels.push_back(two_bits(c.indices[at]) + two_bits(c.indices[at + 1]));
      meta.colors.push_back(IM_COL32(200, 214, 236, 255));
    }
  meta.cell = cell;
  meta.cell_width = ImGui::CalcTextSize("0000").x + ui_px(12.0f);
  if (max_width > 0) meta.cell_width = std::min(meta.cell_width, max_width / static_cast<float>(meta.cols));
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
  const RowRange all{0, g.L, false};
  const auto one_row_width = [&](float cell) {
    return measure_matrix(band_picture(plan, row, palette, cell, all)).size.x + ImGui::CalcTextSize("→").x +
           measure_matrix(swapped_picture(plan, row, palette, cell, all)).size.x +
           measure_matrix(values_picture(row, palette, cell, all)).size.x + measure_matrix(metadata_picture(row, cell, all)).size.x +
           2.0f * spacing + ui_px(24.0f) + ui_px(12.0f) + ui_px(4.0f);
  };
  StageLayout l;
  for (float one = std::floor(std::min({want, fit_h, ui_px(72.0f)})); one >= smallest; one -= 1.0f)
    if (one_row_width(one) <= avail.x) {
      l.one_row = true;
      l.cell = one;
      return l;
    }
  // ① and ② side by side (their title, column labels and marks above, a line of notes under them).
  const float fit_two = std::floor((avail.x - ui_px(60.0f)) / static_cast<float>(2 * g.band_cols));
  // The band's height at `cell` with `rows` of its rows, title, column labels and marks included.
  const auto band_h = [&](float cell, int rows) {
    return measure_matrix(band_picture(plan, row, palette, cell, RowRange{0, rows, rows < g.L})).size.y;
  };
  float two = std::floor(std::min({want, fit_two, ui_px(72.0f)}));
  while (two >= smallest && band_h(two, g.L) > avail.y) two -= 1.0f;
  if (two >= smallest) {
    l.cell = two;
    return l;
  }
  // Each band on a page of its own, with the legend of its row's values beside it or under it; where its L rows are
  // too tall for that, a half or a quarter of them at a time (a line more above the figure for the choice).
  l.separate = true;
  const LegendStyle legend = legend_of(palette, row.weights_fp16);
  const float legend_w = palette_legend_width(palette, kLegendDigits, legend);
  std::vector<double> listed;
  for (double v : palette.values())
    if (legend.shown(v)) listed.push_back(v);
  const float chips = static_cast<float>(listed.size());
  const float row_labels = ImGui::CalcTextSize("00").x + ui_px(6.0f); // where the rows are paged
  const float fit_beside = std::floor((avail.x - legend_w - row_labels - ui_px(24.0f)) / static_cast<float>(g.band_cols));
  const float fit_under = std::floor((avail.x - row_labels - ui_px(12.0f)) / static_cast<float>(g.band_cols));
  const float under_lines = std::ceil(chips * (legend_w + ui_px(14.0f)) / avail.x);
  for (const int pages : {1, 2, 4}) {
    if (g.L % pages != 0) continue;
    l.row_pages = pages;
    const int rows = g.L / pages;
    const float choice = pages > 1 ? line : 0.0f; // the line that chooses the rows
    // The legend's column beside the cells starts under the title, column labels and marks.
    const float above = band_h(smallest, 0);
    float beside = std::floor(std::min({want, fit_beside, ui_px(72.0f)}));
    while (beside >= smallest && choice + band_h(beside, rows) > avail.y) beside -= 1.0f;
    if (beside >= smallest && choice + above + chips * line <= avail.y) {
      l.cell = beside;
      l.legend_beside = true;
      return l;
    }
    float under = std::floor(std::min({want, fit_under, ui_px(72.0f)}));
    while (under >= smallest && choice + band_h(under, rows) + under_lines * line > avail.y) under -= 1.0f;
    if (under >= smallest) {
      l.cell = under;
      return l;
    }
  }
  l.cell = smallest; // nothing legible fits: the page scrolls
  return l;
}

void draw_compressed(ViewContext& ctx, const SpiderKernelRow& row, const ValuePalette& palette, float cell, bool note_beside,
                     const RowRange& rr);

// The legend of the kernel row's values (the window's palette also holds every other row's and the A operands'),
// once per frame, within `wrap_width` (0: the window).
void draw_row_legend(const ValuePalette& palette, const SpiderKernelRow& row, int digits, float wrap_width) {
  if (claim_legend(palette)) draw_legend_chips(palette, digits, wrap_width, legend_of(palette, row.weights_fp16));
}

// That legend beside `beside` where a column of chips fits there (it then takes none of the page's height) and the
// layout has the height for it, else under the figures.
void draw_legend_beside(const MatrixDrawn& beside, const ValuePalette& palette, const SpiderKernelRow& row, bool may_beside) {
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  if (may_beside &&
      right - beside.max.x - ui_px(8.0f) >= palette_legend_width(palette, kLegendDigits, legend_of(palette, row.weights_fp16))) {
    ImGui::SameLine(0, ui_px(8.0f));
    ImGui::BeginGroup();
    ImGui::Dummy(ImVec2(0, beside.origin.y - beside.min.y));
    draw_row_legend(palette, row, kLegendDigits, right - ImGui::GetCursorScreenPos().x);
    ImGui::EndGroup();
  } else {
    draw_row_legend(palette, row, 5, 0);
  }
}

// part 0: ① and ② (and ③ where the layout puts it in the same row; ① alone where the layout separates them);
// part 1: ③ alone; part 2: ② alone. `row_page`: the rows shown where the layout pages them.
void draw_stages(ViewContext& ctx, const SpiderPlan& plan, const SpiderKernelRow& row, const ValuePalette& palette,
                 const StageLayout& layout, int part, int& row_page) {
  const float cell = layout.cell;
  const int n = plan.geometry.L / layout.row_pages;
  if (layout.row_pages > 1) {
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted("Rows");
    for (int h = 0; h < layout.row_pages; ++h) {
      ImGui::SameLine();
      ImGui::RadioButton(fmt::format("{}-{}", h * n, (h + 1) * n - 1).c_str(), &row_page, h);
      probe_last_item(ctx.state, fmt::format("sparse24.rows.{}", h));
    }
    if (part == 0) { // beside the rows' buttons where it fits, else shorter (1d15p's at a lecture's 1280x720)
      const char* note = "(each row: the one above shifted right by one)";
      ImGui::SameLine();
      if (ImGui::GetCursorScreenPos().x + ImGui::CalcTextSize(note).x > ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x)
        note = "(each row shifted by one)";
      ImGui::TextDisabled("%s", note);
    }
  }
  const RowRange rr = row_range(plan.geometry, layout, row_page);
  if (part == 1) {
    draw_compressed(ctx, row, palette, cell, true, rr);
    return;
  }
  MatrixDrawn last;
  if (part == 0) {
    last = draw_matrix(band_picture(plan, row, palette, cell, rr));
    probe_rect(ctx.state, "sparse24.band", last.min, last.max);
    if (!layout.separate) {
      ImGui::SameLine();
      draw_operator("→", last.max.y - last.min.y);
    }
  }
  if (part == 2 || !layout.separate) {
    last = draw_matrix(swapped_picture(plan, row, palette, cell, rr));
    probe_rect(ctx.state, "sparse24.swapped", last.min, last.max);
  }
  if (layout.one_row) {
    ImGui::SameLine(0, ui_px(24.0f));
    draw_compressed(ctx, row, palette, cell, false, rr);
  } else if (last.letters) {
    draw_legend_beside(last, palette, row, !layout.separate || layout.legend_beside);
  }
}

void draw_compressed(ViewContext& ctx, const SpiderKernelRow& row, const ValuePalette& palette, float cell, bool note_beside,
                     const RowRange& rr) {
  if (!note_beside) ImGui::BeginGroup(); // the note goes under ③ and its metadata
  const MatrixDrawn vd = draw_matrix(values_picture(row, palette, cell, rr));
  ImGui::SameLine(0, ui_px(12.0f));

  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  const MatrixDrawn md = draw_matrix(metadata_picture(row, vd.cell, rr, right - ImGui::GetCursorScreenPos().x));
  probe_rect(ctx.state, "sparse24.metadata", md.min, md.max);
  if (note_beside) ImGui::SameLine(0, ui_px(24.0f));
  ImGui::BeginGroup();
  ImGui::PushTextWrapPos(ImGui::GetContentRegionMax().x);
  ImGui::TextDisabled("Each group of four keeps its two values (a lone value keeps a zero beside it) and their "
                      "positions 0-3 as two bits each: \"0010\" = positions 0 and 2.");
  ImGui::PopTextWrapPos();
  if (vd.letters) draw_row_legend(palette, row, 5, 0);
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
    publish(ctx, "sparse24.layout", fmt::format("{} pages {} cell {} avail {}x{}", layout.one_row ? "one-row" : layout.separate ? "separate" : "pair",
                                                layout.row_pages, layout.cell, avail.x, avail.y));
    const char* first = layout.one_row ? "Band → 2:4###stages" : layout.separate ? "①###stages" : "① ②###stages";
    if (begin_view_page(ctx, kView, "stages", first, page)) {
      draw_stages(ctx, plan, row, palette, layout, 0, mem.row_page);
      ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
      // Where the page has no line left (the validator's badge says the same for every row), nothing is cut.
      if (ImGui::GetContentRegionAvail().y >= ImGui::GetTextLineHeight() || !row.swapped_is_2to4)
        ImGui::TextWrapped("FP16 weights; equal colours, equal weights. %s: %s.",
                           g.dims == 2 ? fmt::format("Row dy {:+d}", row.dy).c_str() : "The row",
                           row.swapped_is_2to4 ? "2:4 after the swap" : "NOT 2:4 after the swap");
      // The precision notes where the page has room for them, else in this line's tooltip (issue 17).
      std::string notes;
      for (const std::string& note : plan.precision_notes) notes += (notes.empty() ? "" : "\n") + note;
      // Wrapped at spaces: ImGui's wrapping split 1d5p's '= -0.020833...' after '-0.' (issue 17).
      std::size_t note_lines = 0;
      for (const std::string& note : plan.precision_notes)
        note_lines += wrap_at_spaces(note, ImGui::GetContentRegionAvail().x).size();
      if (static_cast<float>(note_lines) * ImGui::GetTextLineHeightWithSpacing() <=
          ImGui::GetContentRegionAvail().y + ImGui::GetStyle().ItemSpacing.y) {
        for (const std::string& note : plan.precision_notes) text_wrapped_at_spaces(note);
      } else if (ImGui::IsItemHovered() && !notes.empty()) {
        ImGui::SetTooltip("%s", notes.c_str());
      }
      ImGui::PopStyleColor();
      ImGui::EndTabItem();
    }
    if (layout.separate && begin_view_page(ctx, kView, "swapped", "②", page)) {
      draw_stages(ctx, plan, row, palette, layout, 2, mem.row_page);
      ImGui::EndTabItem();
    }
    if (!layout.one_row && begin_view_page(ctx, kView, "compressed", "③", page)) {
      draw_stages(ctx, plan, row, palette, layout, 1, mem.row_page);
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
