// The matrix widget: geometry first (so the size is known before drawing), then cells, separators, marks
// and the hover tooltip, all on the window's draw list behind one invisible button.
#include "app/widgets/matrix_widget.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cfloat>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "app/widgets/colormap.hpp"
#include "app/widgets/ui_units.hpp"

namespace se {

namespace {

// ColorBrewer Set3 and Pastel1/Paired extended: distinct at a glance, all light enough for dark text.
constexpr std::array<ImU32, 20> kCategorical{
    IM_COL32(251, 128, 114, 255), IM_COL32(128, 177, 211, 255), IM_COL32(179, 222, 105, 255),
    IM_COL32(253, 180, 98, 255),  IM_COL32(190, 186, 218, 255), IM_COL32(141, 211, 199, 255),
    IM_COL32(255, 237, 111, 255), IM_COL32(252, 205, 229, 255), IM_COL32(188, 128, 189, 255),
    IM_COL32(204, 235, 197, 255), IM_COL32(166, 206, 227, 255), IM_COL32(251, 154, 153, 255),
    IM_COL32(253, 191, 111, 255), IM_COL32(202, 178, 214, 255), IM_COL32(178, 223, 138, 255),
    IM_COL32(255, 255, 153, 255), IM_COL32(229, 196, 148, 255), IM_COL32(158, 218, 229, 255),
    IM_COL32(219, 219, 141, 255), IM_COL32(247, 182, 210, 255)};

constexpr ImU32 kDarkText = IM_COL32(20, 20, 26, 255);
constexpr ImU32 kZeroText = IM_COL32(118, 120, 128, 255);
constexpr ImU32 kSeparator = IM_COL32(235, 235, 240, 230);
constexpr float kCellPadding = 4.0f; // at the base font (ui_px)
constexpr float kMinTextScale = kMinCellTextScale; // below this a scaled bitmap font stops being readable
// The smallest cell (in lines of the font in use) that still carries its value: below it a matrix's cells grow
// (the picture gets larger than asked, and its window scrolls) rather than turn into colours without values.
constexpr float kMinValueCell = kMinTextScale + 0.08f;

struct Geometry {
  float title_h = 0, marks_h = 0, header_h = 0, label_w = 0, row_marks_w = 0;
  float cell = 0, cell_w = 0;
  bool numbers = true;
  bool letters = false;
  float text_scale = 1.0f; // numbers are drawn smaller (down to kMinTextScale) before they give way to letters
  int digits = 3;           // MatrixPicture::digits, or more where fewer would print two distinct values alike
  ImVec2 size;
};

std::string cell_text(const MatrixPicture& m, const ValuePalette* letters, int index, int digits) {
  if (!m.labels.empty()) return m.labels[static_cast<std::size_t>(index)];
  if (m.values.empty()) return {};
  const double v = m.values[static_cast<std::size_t>(index)];
  return letters != nullptr ? letters->letter(v) : compact_number(v, digits);
}

float widest_letter(const ValuePalette& palette) {
  float widest = ImGui::CalcTextSize("0").x;
  for (double v : palette.values()) widest = std::max(widest, ImGui::CalcTextSize(palette.letter(v).c_str()).x);
  return widest;
}

Geometry measure(const MatrixPicture& m, const ValuePalette& palette) {
  Geometry g;
  const float line = ImGui::GetTextLineHeight();
  if (!m.title.empty()) g.title_h = line + ui_px(4.0f);
  if (!m.marked_columns.empty()) g.marks_h = std::round(line * 0.5f);
  if (!m.marked_rows.empty()) g.row_marks_w = std::round(line * 0.5f);
  if (!m.column_labels.empty()) g.header_h = line + ui_px(2.0f);
  for (const auto& l : m.row_labels) g.label_w = std::max(g.label_w, ImGui::CalcTextSize(l.c_str()).x + ui_px(6.0f));
  const int n = m.rows * m.cols;
  // Distinct values of a figure never print alike: more digits than asked where needed (up to 6), else letters.
  g.digits = m.digits;
  bool alike = false;
  if (m.labels.empty() && m.coloring == CellColoring::EqualValues && !m.values.empty()) {
    // This matrix's values told apart from each other and from every other value of the figure (its palette):
    // two cells of different colour, in this matrix or beside it, never print the same number.
    ValuePalette shown = palette;
    shown.add(m.values);
    g.digits = std::max(m.digits, distinguishing_digits(shown.values(), m.digits));
    alike = g.digits > std::max(m.digits, 6) && m.letters_when_narrow;
    if (alike) g.digits = m.digits;
  }
  auto widest_text = [&](const ValuePalette* letters) {
    float widest = 0;
    for (int i = 0; i < n; ++i) widest = std::max(widest, ImGui::CalcTextSize(cell_text(m, letters, i, g.digits).c_str()).x);
    return widest;
  };
  const float widest = m.numbers ? widest_text(nullptr) : 0.0f;
  float widest_header = 0;
  for (const auto& l : m.column_labels) widest_header = std::max(widest_header, ImGui::CalcTextSize(l.c_str()).x);
  const float wanted = std::max({widest + 2.0f * ui_px(kCellPadding), widest_header + ui_px(2.0f), line + ui_px(4.0f)});
  g.cell = m.cell > 0 ? m.cell : wanted;
  const float fixed_w = g.label_w + g.row_marks_w;
  const float fixed_h = g.title_h + g.marks_h + g.header_h;
  if (m.cell_width <= 0 && m.max_width > 0 && m.cols > 0) g.cell = std::min(g.cell, (m.max_width - fixed_w) / m.cols);
  if (m.max_height > 0 && m.rows > 0) g.cell = std::min(g.cell, (m.max_height - fixed_h) / m.rows);
  // Cells that carry values never get too short to show them (as numbers, labels or letters), whatever the
  // caller asked: a value shown as a colour alone means nothing to the back row of a lecture hall.
  const bool has_values = m.numbers && (!m.labels.empty() || (!m.values.empty() && m.coloring != CellColoring::Custom));
  // A map of colours alone (a heat map, its values in the tooltip) may take a pixel and a half per cell: box-2d49p's
  // 64x64 k_f at a lecture's 1280x720 ran its colour scale past the window's bottom at 3.
  float floor_cell = has_values ? ui_px(3.0f) : ui_px(1.0f);
  if (has_values) {
    floor_cell = std::max(floor_cell, std::ceil(kMinValueCell * line));
    if (m.cell_width <= 0 && m.labels.empty() && m.coloring == CellColoring::EqualValues)
      floor_cell = std::max(floor_cell, std::ceil(kMinTextScale * std::max(widest_letter(palette), 1.0f) + ui_px(2.0f)));
    else if (m.cell_width <= 0) // labels: the cell must take the widest at the smallest text scale
      floor_cell = std::max(floor_cell, std::ceil(kMinTextScale * widest + ui_px(2.0f)));
  }
  g.cell = std::floor(std::max(g.cell, floor_cell)); // whole pixels
  g.cell_w = m.cell_width > 0 ? std::max(m.cell_width, has_values && !m.labels.empty() ? kMinTextScale * widest + ui_px(2.0f) : 0.0f)
                              : g.cell;
  const float room = g.cell_w - ui_px(2.0f); // across the cell: text tables (cell_width) are wider than tall
  if (m.numbers && widest > 0) {
    g.text_scale = std::min({1.0f, room / widest, g.cell / line});
    g.numbers = g.text_scale >= kMinTextScale && !alike;
    if (!g.numbers && m.letters_when_narrow && m.labels.empty() && m.coloring == CellColoring::EqualValues &&
        !m.values.empty()) {
      g.text_scale = std::min({1.0f, room / std::max(widest_text(&palette), 1.0f), g.cell / line});
      g.letters = g.numbers = g.text_scale >= kMinTextScale;
    }
  } else {
    g.numbers = m.numbers && g.cell >= kMinTextScale * line;
  }
  float width = fixed_w + g.cell_w * m.cols;
  if (!m.title.empty()) width = std::max(width, ImGui::CalcTextSize(m.title.c_str()).x);
  g.size = ImVec2(width, fixed_h + g.cell * m.rows);
  return g;
}

ImU32 fill_color(const MatrixPicture& m, const ValuePalette& palette, double largest, int index) {
  const std::size_t i = static_cast<std::size_t>(index);
  switch (m.coloring) {
  case CellColoring::Custom: return i < m.colors.size() ? m.colors[i] : zero_cell_color();
  case CellColoring::Diverging: {
    const double v = m.values.empty() ? 0.0 : m.values[i];
    if (v == 0.0) return zero_cell_color();
    const double scale = m.diverging_scale > 0 ? m.diverging_scale : largest;
    return diverging_color(scale > 0 ? v / scale : 0.0);
  }
  case CellColoring::EqualValues: return m.values.empty() ? zero_cell_color() : palette.color(m.values[i]);
  }
  return zero_cell_color();
}

bool is_zero_cell(const MatrixPicture& m, const ValuePalette& palette, int index) {
  if (m.values.empty() || m.coloring == CellColoring::Custom) return false;
  return std::abs(m.values[static_cast<std::size_t>(index)]) <= palette.zero_tolerance();
}

} // namespace

void ValuePalette::add(std::span<const double> values) {
  for (double v : values) largest_ = std::max(largest_, std::abs(v));
  for (double v : values) {
    if (std::abs(v) <= zero_tolerance() || !std::isfinite(v)) continue;
    if (index(v) < 0) values_.push_back(v);
  }
  std::sort(values_.begin(), values_.end(), std::greater<>());
}

double ValuePalette::zero_tolerance() const { return largest_ * 1e-12; }

int ValuePalette::index(double value) const {
  if (std::abs(value) <= zero_tolerance() || !std::isfinite(value)) return -1;
  const double tol = largest_ * 1e-9;
  for (std::size_t i = 0; i < values_.size(); ++i)
    if (std::abs(values_[i] - value) <= tol) return static_cast<int>(i);
  return -1;
}

ImU32 ValuePalette::color(double value) const {
  const int i = index(value);
  return i < 0 ? zero_cell_color() : categorical_color(i);
}

std::string ValuePalette::letter(double value) const {
  const int i = index(value);
  if (i < 0) return std::abs(value) <= zero_tolerance() ? "0" : compact_number(value, 2); // not in this palette
  // a..z, then A..Z, then a2..Z2, a3..: never runs out, and stays one or two characters for any figure drawn.
  const int k = i % 52;
  const std::string base(1, static_cast<char>(k < 26 ? 'a' + k : 'A' + (k - 26)));
  return i < 52 ? base : base + std::to_string(i / 52 + 1);
}

int distinguishing_digits(const std::vector<double>& values, int at_least) {
  const int start = std::max(at_least, 1);
  for (int d = start; d < 17; ++d) {
    std::vector<std::string> printed;
    for (double v : values) printed.push_back(compact_number(v, d));
    std::sort(printed.begin(), printed.end());
    if (std::adjacent_find(printed.begin(), printed.end()) == printed.end()) return d;
  }
  return 17;
}

namespace {

constexpr float kChipGap = 4.0f; // between a legend chip's letter and its value, at the base font (ui_px)

// A legend is drawn once per frame and palette (by its values): a caller's legend after a matrix that already
// drew its own under the cells is skipped.
struct LegendClaim {
  int frame = -1;
  std::vector<std::vector<double>> drawn;
};

} // namespace

bool claim_legend(const ValuePalette& palette) {
  static LegendClaim claims;
  const int frame = ImGui::GetFrameCount();
  if (claims.frame != frame) claims = LegendClaim{frame, {}};
  if (std::find(claims.drawn.begin(), claims.drawn.end(), palette.values()) != claims.drawn.end()) return false;
  claims.drawn.push_back(palette.values());
  return true;
}

namespace {

// The values a legend lists: the palette's, or those `style` shows.
std::vector<double> listed(const ValuePalette& palette, const LegendStyle& style) {
  std::vector<double> out;
  for (double v : palette.values())
    if (!style.shown || style.shown(v)) out.push_back(v);
  return out;
}

// "a 0.0745" (the letter in its coloured box, the value beside it): with digits enough to tell apart every value
// the legend lists. No " = " between them: a legend beside a figure is a column as narrow as its chips.
std::string chip_text(const ValuePalette& palette, double value, int digits) {
  return palette.letter(value) + " " + compact_number(value, digits);
}

float chip_width(const std::string& text) {
  return ImGui::GetTextLineHeight() + ui_px(kChipGap) + ImGui::CalcTextSize(text.c_str()).x;
}

} // namespace

float palette_legend_width(const ValuePalette& palette, int digits, const LegendStyle& style) {
  const std::vector<double> values = listed(palette, style);
  digits = std::max(digits, distinguishing_digits(values, digits));
  float widest = 0;
  for (double v : values) widest = std::max(widest, chip_width(chip_text(palette, v, digits)));
  return widest;
}

LegendStyle legend_of(const ValuePalette& palette, const std::vector<double>& values) {
  std::vector<char> in(palette.size(), 0);
  for (double v : values)
    if (const int i = palette.index(v); i >= 0) in[static_cast<std::size_t>(i)] = 1;
  LegendStyle style;
  style.shown = [&palette, in](double v) {
    const int i = palette.index(v);
    return i >= 0 && in[static_cast<std::size_t>(i)] != 0;
  };
  return style;
}

void draw_palette_legend(const ValuePalette& palette, int digits, float wrap_width) {
  if (claim_legend(palette)) draw_legend_chips(palette, digits, wrap_width);
}

// Rows [first, first + count) of `m`, with their numbers at the left (or m's own row labels, where it has them); its
// tooltip keeps the whole matrix's rows.
MatrixPicture rows_of(MatrixPicture m, int first, int count) {
  if (first == 0 && count >= m.rows) return m;
  count = std::min(count, m.rows - first);
  m.values = std::vector<double>(m.values.begin() + static_cast<std::ptrdiff_t>(first) * m.cols,
                                 m.values.begin() + static_cast<std::ptrdiff_t>(first + count) * m.cols);
  m.rows = count;
  const std::vector<std::string> own = m.row_labels;
  m.row_labels.clear();
  for (int r = 0; r < count; ++r)
    m.row_labels.push_back(own.empty() ? std::to_string(first + r) : own[static_cast<std::size_t>(first + r)]);
  if (m.tooltip) m.tooltip = [t = m.tooltip, first](int r, int c) { return t(r + first, c); };
  return m;
}

// Rows [r0, r0 + nr) and columns [c0, c0 + nc) of `m`, numbered by where they stand in the whole matrix (its own
// labels where it has them); its tooltip keeps the whole matrix's cells.
MatrixPicture window_of(const MatrixPicture& m, int r0, int nr, int c0, int nc) {
  r0 = std::clamp(r0, 0, std::max(m.rows - 1, 0)), c0 = std::clamp(c0, 0, std::max(m.cols - 1, 0));
  nr = std::clamp(nr, 0, m.rows - r0), nc = std::clamp(nc, 0, m.cols - c0);
  MatrixPicture w = m;
  w.rows = nr, w.cols = nc;
  auto cut = [&](const auto& whole, auto& part) {
    if (whole.size() != static_cast<std::size_t>(m.rows) * static_cast<std::size_t>(m.cols)) return;
    part.clear();
    for (int r = r0; r < r0 + nr; ++r)
      for (int c = c0; c < c0 + nc; ++c) part.push_back(whole[static_cast<std::size_t>(r) * m.cols + c]);
  };
  cut(m.values, w.values);
  cut(m.labels, w.labels);
  cut(m.colors, w.colors);
  cut(m.outlined, w.outlined);
  w.row_labels.clear(), w.column_labels.clear();
  for (int r = r0; r < r0 + nr; ++r)
    w.row_labels.push_back(m.row_labels.empty() ? std::to_string(r) : m.row_labels[static_cast<std::size_t>(r)]);
  for (int c = c0; c < c0 + nc; ++c)
    w.column_labels.push_back(m.column_labels.empty() ? std::to_string(c) : m.column_labels[static_cast<std::size_t>(c)]);
  w.marked_rows.clear(), w.marked_columns.clear();
  for (int r : m.marked_rows)
    if (r >= r0 && r < r0 + nr) w.marked_rows.push_back(r - r0);
  for (int c : m.marked_columns)
    if (c >= c0 && c < c0 + nc) w.marked_columns.push_back(c - c0);
  if (m.tooltip) w.tooltip = [t = m.tooltip, r0, c0](int r, int c) { return t(r + r0, c + c0); };
  return w;
}

// The rows of a block when `rows` stand in `blocks` blocks of whole groups of `group` rows.
int block_rows(int rows, int blocks, int group) {
  group = std::max(group, 1);
  return ((rows + blocks - 1) / blocks + group - 1) / group * group;
}

RowBlocks draw_row_blocks(const MatrixPicture& m, int blocks, const char* more_id) {
  RowBlocks out;
  out.min = ImVec2(FLT_MAX, FLT_MAX), out.max = ImVec2(0, 0);
  const int per = blocks <= 1 ? m.rows : block_rows(m.rows, blocks, m.row_group);
  for (int b = 0, first = 0; b < blocks && first < m.rows; ++b, first += per) {
    if (b > 0) ImGui::SameLine(0, ui_px(16.0f));
    MatrixPicture part = blocks <= 1 ? m : rows_of(m, first, per);
    if (b > 0) part.title = fmt::format("rows {}-{}", first, first + part.rows - 1), part.id = more_id;
    ImGui::PushID(b);
    const MatrixDrawn d = draw_matrix(part);
    ImGui::PopID();
    if (b == 0) out.first = d;
    out.min = ImVec2(std::min(out.min.x, d.min.x), std::min(out.min.y, d.min.y));
    out.max = ImVec2(std::max(out.max.x, d.max.x), std::max(out.max.y, d.max.y));
  }
  return out;
}

ImVec2 measure_row_blocks(const MatrixPicture& m, int blocks) {
  if (blocks <= 1) return measure_matrix(m).size;
  const int per = block_rows(m.rows, blocks, m.row_group);
  ImVec2 size(0, 0);
  for (int b = 0, first = 0; b < blocks && first < m.rows; ++b, first += per) {
    MatrixPicture part = rows_of(m, first, per);
    if (b > 0) part.title = fmt::format("rows {}-{}", first, first + part.rows - 1);
    const ImVec2 s = measure_matrix(part).size;
    size = ImVec2(size.x + (b > 0 ? ui_px(16.0f) : 0.0f) + s.x, std::max(size.y, s.y));
  }
  return size;
}

void draw_key_chip(ImU32 fill, ImU32 frame, const char* label) {
  const float line = ImGui::GetTextLineHeight(), chip = std::floor(0.8f * line);
  const ImVec2 at = ImGui::GetCursorScreenPos();
  const ImVec2 a(at.x, at.y + 0.5f * (line - chip)), b(a.x + chip, a.y + chip);
  ImGui::GetWindowDrawList()->AddRectFilled(a, b, fill);
  ImGui::GetWindowDrawList()->AddRect(a, b, frame, 0.0f, 0, std::max(1.0f, ui_px(1.5f)));
  ImGui::Dummy(ImVec2(chip, line));
  ImGui::SameLine();
  ImGui::TextWrapped("%s", label);
}

void draw_legend_chips(const ValuePalette& palette, int digits, float wrap_width, const LegendStyle& style) {
  const float right = wrap_width > 0 ? ImGui::GetCursorScreenPos().x + wrap_width
                                     : ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  const float line = ImGui::GetTextLineHeight();
  const float chip_gap = ui_px(kChipGap), spacing = ui_px(14.0f);
  const std::vector<double> values = listed(palette, style);
  digits = std::max(digits, distinguishing_digits(values, digits));
  const float x0 = ImGui::GetCursorScreenPos().x;
  float column = 0; // style.columns: the column width
  for (double v : values) column = std::max(column, chip_width(chip_text(palette, v, digits)) + spacing);
  const int per_line = std::max(1, static_cast<int>((right - x0 + spacing) / std::max(column, 1.0f)));
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double v = values[i];
    const std::string text = chip_text(palette, v, digits);
    const float w = chip_width(text);
    if (i > 0 && style.columns) {
      if (static_cast<int>(i) % per_line != 0) {
        ImGui::SameLine();
        ImGui::SetCursorScreenPos(ImVec2(x0 + static_cast<float>(static_cast<int>(i) % per_line) * column, ImGui::GetCursorScreenPos().y));
      }
    } else if (i > 0) {
      ImGui::SameLine(0, spacing);
      if (ImGui::GetCursorScreenPos().x + w > right) ImGui::NewLine();
    }
    const ImVec2 at = ImGui::GetCursorScreenPos();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->AddRectFilled(at, ImVec2(at.x + line, at.y + line), style.fill ? style.fill(v) : palette.color(v));
    const std::string l = palette.letter(v);
    const ImVec2 ls = ImGui::CalcTextSize(l.c_str());
    dl->AddText(ImVec2(at.x + 0.5f * (line - ls.x), at.y), style.text ? style.text(v) : kDarkText, l.c_str());
    dl->AddText(ImVec2(at.x + line + chip_gap, at.y), ImGui::GetColorU32(ImGuiCol_Text), text.c_str() + l.size());
    ImGui::Dummy(ImVec2(w, line));
  }
}

ImU32 categorical_color(int index) {
  const int n = static_cast<int>(kCategorical.size());
  if (index < 0) index = -index; // never asked for, but keep it defined
  if (index < n) return kCategorical[static_cast<std::size_t>(index)];
  // Past the hand-picked 20, every index gets a colour of its own: light channels (140..255, dark text stays
  // readable), the red channel never one of the hand-picked colours' reds (so never one of them), and the index
  // scrambled by a multiplier prime to the number of such colours (a bijection, so no two indices meet; neighbours
  // look unlike each other).
  static const std::vector<int> reds = [] {
    std::vector<int> out;
    for (int v = 140; v <= 255; ++v)
      if (std::none_of(kCategorical.begin(), kCategorical.end(), [v](ImU32 c) { return static_cast<int>((c >> IM_COL32_R_SHIFT) & 0xFF) == v; }))
        out.push_back(v);
    return out;
  }();
  constexpr long long kLevels = 116; // 140..255
  const long long count = static_cast<long long>(reds.size()) * kLevels * kLevels;
  long long multiplier = 7919;
  while (std::gcd(multiplier, count) != 1) multiplier += 2;
  const long long j = (static_cast<long long>(index - n) % count) * multiplier % count;
  const int r = reds[static_cast<std::size_t>(j % static_cast<long long>(reds.size()))];
  const long long rest = j / static_cast<long long>(reds.size());
  const int g = 140 + static_cast<int>(rest % kLevels), b = 140 + static_cast<int>(rest / kLevels);
  return IM_COL32(r, g, b, 255);
}

ImU32 zero_cell_color() { return IM_COL32(44, 46, 52, 255); }

ImU32 diverging_color(double t) {
  const Rgba8 c = colormap_color(Colormap::CoolWarm, 0.5 + 0.5 * std::clamp(t, -1.0, 1.0));
  return IM_COL32(c[0], c[1], c[2], 255);
}

std::string compact_number(double value, int digits) {
  if (value == 0.0) return "0";
  if (!std::isfinite(value)) return std::isnan(value) ? "nan" : (value > 0 ? "inf" : "-inf");
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%.*g", digits, value);
  return buffer;
}

namespace {

// A figure's shared palette, or one of the matrix's own values.
ValuePalette palette_for(const MatrixPicture& m) {
  ValuePalette own;
  if (m.palette == nullptr) own.add(m.values);
  return own;
}

} // namespace

MatrixMeasure measure_matrix(const MatrixPicture& m) {
  const ValuePalette own = palette_for(m);
  const Geometry g = measure(m, m.palette != nullptr ? *m.palette : own);
  return {g.size, g.cell, g.numbers, g.letters};
}

MatrixDrawn draw_matrix(const MatrixPicture& m) {
  const ValuePalette own = palette_for(m);
  const ValuePalette* palette = m.palette != nullptr ? m.palette : &own;
  const Geometry g = measure(m, *palette);
  MatrixDrawn out;
  out.rows = m.rows, out.cols = m.cols, out.cell = g.cell, out.cell_w = g.cell_w, out.letters = g.letters;
  out.text_scale = g.numbers ? g.text_scale : 0.0f;
  const bool own_legend = g.letters && m.legend && claim_legend(*palette);
  if (own_legend) ImGui::BeginGroup();
  out.min = ImGui::GetCursorScreenPos();
  out.max = ImVec2(out.min.x + g.size.x, out.min.y + g.size.y);
  out.origin = ImVec2(out.min.x + g.label_w + g.row_marks_w, out.min.y + g.title_h + g.marks_h + g.header_h);
  ImGui::PushID(m.id);
  ImGui::InvisibleButton("##cells", ImVec2(std::max(g.size.x, 1.0f), std::max(g.size.y, 1.0f)));
  const bool hovered = ImGui::IsItemHovered();
  ImGui::PopID();
  ImDrawList* dl = ImGui::GetWindowDrawList();

  double largest = 0;
  for (double v : m.values) largest = std::max(largest, std::abs(v));
  const ImU32 text_color = ImGui::GetColorU32(ImGuiCol_Text);
  const ImU32 dim_color = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  // Lines over the cells (separators, marks, outlines, the hover frame) are `thick`; outlines sit `nudge` out.
  const float thick = ui_px(2.0f), nudge = ui_px(1.0f), overhang = ui_px(2.0f);
  if (!m.title.empty())
    dl->AddText(out.min, m.title_color != 0 ? m.title_color : text_color, m.title.c_str());
  for (std::size_t c = 0; c < m.column_labels.size() && static_cast<int>(c) < m.cols; ++c) {
    const char* l = m.column_labels[c].c_str();
    const float w = ImGui::CalcTextSize(l).x;
    if (w > g.cell_w + ui_px(2.0f)) continue; // would collide with its neighbours
    dl->AddText(ImVec2(out.origin.x + (static_cast<float>(c) + 0.5f) * g.cell_w - 0.5f * w, out.origin.y - g.header_h), dim_color, l);
  }
  for (std::size_t r = 0; r < m.row_labels.size() && static_cast<int>(r) < m.rows; ++r) {
    const char* l = m.row_labels[r].c_str();
    const ImVec2 ts = ImGui::CalcTextSize(l);
    dl->AddText(ImVec2(out.min.x, out.origin.y + (static_cast<float>(r) + 0.5f) * g.cell - 0.5f * ts.y), dim_color, l);
  }

  // A whole pixel or more between cells (a fractional gap would blur), none in tiny cells.
  const float gap = g.cell >= ui_px(8.0f) ? std::max(1.0f, std::round(nudge)) : 0.0f;
  for (int r = 0; r < m.rows; ++r)
    for (int c = 0; c < m.cols; ++c) {
      const int i = r * m.cols + c;
      const ImVec2 a = out.cell_min(r, c);
      const ImVec2 b(a.x + g.cell_w - gap, a.y + g.cell - gap);
      dl->AddRectFilled(a, b, fill_color(m, *palette, largest, i));
      if (!g.numbers) continue;
      const bool zero = is_zero_cell(m, *palette, i) || (m.coloring == CellColoring::Custom && m.colors.empty());
      // Rounding residue (a residual after the last term) is a zero: shown as one, its value in the tooltip.
      const std::string t = zero && !m.values.empty() && m.values[static_cast<std::size_t>(i)] != 0.0 && m.labels.empty()
                                ? "0"
                                : cell_text(m, g.letters ? palette : nullptr, i, g.digits);
      if (t.empty()) continue;
      const float size = ImGui::GetFontSize() * g.text_scale;
      const ImVec2 ts = ImGui::GetFont()->CalcTextSizeA(size, FLT_MAX, 0.0f, t.c_str());
      dl->AddText(ImGui::GetFont(), size, ImVec2(a.x + 0.5f * (g.cell_w - gap - ts.x), a.y + 0.5f * (g.cell - gap - ts.y)),
                  zero ? kZeroText : kDarkText, t.c_str());
    }

  const ImVec2 end(out.origin.x + g.cell_w * m.cols, out.origin.y + g.cell * m.rows);
  if (m.column_group > 0)
    for (int c = m.column_group; c < m.cols; c += m.column_group) {
      const float x = out.origin.x + c * g.cell_w - 0.5f * gap;
      dl->AddLine(ImVec2(x, out.origin.y - overhang), ImVec2(x, end.y + overhang), kSeparator, thick);
    }
  if (m.row_group > 0)
    for (int r = m.row_group; r < m.rows; r += m.row_group) {
      const float y = out.origin.y + r * g.cell - 0.5f * gap;
      dl->AddLine(ImVec2(out.origin.x - overhang, y), ImVec2(end.x + overhang, y), kSeparator, thick);
    }
  for (int c : m.marked_columns) {
    if (c < 0 || c >= m.cols) continue;
    const ImVec2 a = out.cell_min(0, c);
    dl->AddRect(ImVec2(a.x - nudge, a.y - nudge), ImVec2(a.x + g.cell_w, end.y), m.mark_color, 0.0f, 0, thick);
    const float cx = a.x + 0.5f * g.cell_w, top = out.origin.y - g.header_h - g.marks_h;
    dl->AddTriangleFilled(ImVec2(cx - 0.4f * g.marks_h, top + nudge), ImVec2(cx + 0.4f * g.marks_h, top + nudge),
                          ImVec2(cx, top + g.marks_h - nudge), m.mark_color);
  }
  for (int r : m.marked_rows) {
    if (r < 0 || r >= m.rows) continue;
    const ImVec2 a = out.cell_min(r, 0);
    dl->AddRect(ImVec2(a.x - nudge, a.y - nudge), ImVec2(end.x, a.y + g.cell), m.mark_color, 0.0f, 0, thick);
    const float cy = a.y + 0.5f * g.cell, left = out.origin.x - g.row_marks_w;
    dl->AddTriangleFilled(ImVec2(left + nudge, cy - 0.4f * g.row_marks_w), ImVec2(left + nudge, cy + 0.4f * g.row_marks_w),
                          ImVec2(left + g.row_marks_w - nudge, cy), m.mark_color);
  }
  for (std::size_t i = 0; i < m.outlined.size() && static_cast<int>(i) < m.rows * m.cols; ++i) {
    if (m.outlined[i] == 0) continue;
    const ImVec2 a = out.cell_min(static_cast<int>(i) / m.cols, static_cast<int>(i) % m.cols);
    dl->AddRect(ImVec2(a.x - nudge, a.y - nudge), ImVec2(a.x + g.cell_w, a.y + g.cell), m.outline_color, 0.0f, 0, thick);
  }

  if (hovered) {
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    const int c = static_cast<int>(std::floor((mouse.x - out.origin.x) / g.cell_w));
    const int r = static_cast<int>(std::floor((mouse.y - out.origin.y) / g.cell));
    if (r >= 0 && r < m.rows && c >= 0 && c < m.cols) {
      out.hover_row = r, out.hover_col = c;
      const ImVec2 a = out.cell_min(r, c);
      dl->AddRect(a, ImVec2(a.x + g.cell_w, a.y + g.cell), IM_COL32(255, 255, 255, 255), 0.0f, 0, thick);
      ImGui::BeginTooltip();
      ImGui::Text("%s[%d, %d]", m.title.empty() ? "" : (m.title + " ").c_str(), r, c);
      const int i = r * m.cols + c;
      if (!m.values.empty()) ImGui::Text("value %.10g", m.values[static_cast<std::size_t>(i)]);
      if (!m.labels.empty()) ImGui::TextUnformatted(m.labels[static_cast<std::size_t>(i)].c_str());
      if (m.tooltip) {
        const std::string extra = m.tooltip(r, c);
        if (!extra.empty()) ImGui::TextUnformatted(extra.c_str());
      }
      ImGui::EndTooltip();
    }
  }
  if (own_legend) {
    draw_legend_chips(*palette, kLegendDigits, std::max(g.size.x, palette_legend_width(*palette, kLegendDigits)));
    ImGui::EndGroup();
    out.max = ImGui::GetItemRectMax();
  }
  return out;
}

void draw_operator(const char* text, float height) {
  const ImVec2 at = ImGui::GetCursorScreenPos();
  const ImVec2 ts = ImGui::CalcTextSize(text);
  ImGui::GetWindowDrawList()->AddText(ImVec2(at.x, at.y + 0.5f * (height - ts.y)), ImGui::GetColorU32(ImGuiCol_Text), text);
  ImGui::Dummy(ImVec2(ts.x, height));
  ImGui::SameLine();
}

} // namespace se
