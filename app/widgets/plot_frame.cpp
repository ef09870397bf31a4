// What every plot shares: axis ticks and labels, the plot's frame (widget, data area, title), the legend and its
// placement, zoom and pan, markers and the PNG export. Data are mapped through the axis scale to [0, 1] and then
// to the plot's rectangle; zoom and pan change the data range shown, never the data. PNG export reads the plot's
// pixels back from the frame being rendered with an ImDrawList callback placed right after its draw commands.
#include "app/widgets/plot_frame.hpp"

#include <algorithm>
#include <string>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <limits>
#include <utility>

#include <fmt/format.h>
#include <glad/gl.h>

#include "app/platform/screenshot.hpp"
#include "app/widgets/ui_units.hpp"
#include "core/error.hpp"

namespace se {

std::string tick_label(double v) {
  if (v == 0) return "0";
  char buffer[32];
  const double a = std::abs(v);
  if (a >= 1e5 || a < 1e-3)
    std::snprintf(buffer, sizeof buffer, "%.0e", v);
  else
    std::snprintf(buffer, sizeof buffer, "%g", v);
  std::string s = buffer;
  // "1e+09" -> "1e9", "1e-05" -> "1e-5": shorter labels fit more ticks.
  const auto e = s.find('e');
  if (e != std::string::npos) {
    std::string mant = s.substr(0, e), exp = s.substr(e + 1);
    const bool neg = !exp.empty() && exp[0] == '-';
    if (!exp.empty() && (exp[0] == '+' || exp[0] == '-')) exp.erase(0, 1);
    while (exp.size() > 1 && exp[0] == '0') exp.erase(0, 1);
    s = mant + "e" + (neg ? "-" : "") + exp;
  }
  return s;
}

std::vector<AxisTick> axis_ticks(double lo, double hi, AxisScale scale, int max_major) {
  if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi)) throw InputError("axis_ticks needs lo < hi, both finite");
  if (max_major < 2) max_major = 2;
  std::vector<AxisTick> ticks;
  if (scale == AxisScale::Log) {
    if (!(lo > 0)) throw InputError("a log axis needs positive bounds");
    const int d0 = static_cast<int>(std::floor(std::log10(lo) + 1e-9));
    const int d1 = static_cast<int>(std::ceil(std::log10(hi) - 1e-9));
    const int decades = std::max(1, d1 - d0);
    const int every = (decades + max_major - 1) / max_major; // label every n-th decade on wide ranges
    const bool minor = decades <= 6;
    for (int d = d0; d <= d1; ++d) {
      const double base = std::pow(10.0, d);
      if (base >= lo * (1 - 1e-12) && base <= hi * (1 + 1e-12))
        ticks.push_back({base, ((d % every) + every) % every == 0 ? tick_label(base) : std::string()});
      if (minor)
        for (int m = 2; m <= 9; ++m) {
          const double v = m * base;
          if (v > lo && v < hi) ticks.push_back({v, {}});
        }
    }
    // Fewer than three labels say little about the scale: label the 2s and 5s between the decades too, and
    // a range inside one decade, with no decade at all, gets its ends.
    const auto labelled = std::count_if(ticks.begin(), ticks.end(), [](const AxisTick& t) { return !t.label.empty(); });
    if (labelled < 3 && decades <= 2)
      for (AxisTick& t : ticks) {
        const double lead = t.value / std::pow(10.0, std::floor(std::log10(t.value) + 1e-9));
        if (t.label.empty() && (std::abs(lead - 2) < 1e-9 || std::abs(lead - 5) < 1e-9)) t.label = tick_label(t.value);
      }
    if (std::none_of(ticks.begin(), ticks.end(), [](const AxisTick& t) { return !t.label.empty(); })) {
      ticks.push_back({lo, tick_label(lo)});
      ticks.push_back({hi, tick_label(hi)});
    }
    std::sort(ticks.begin(), ticks.end(), [](const AxisTick& a, const AxisTick& b) { return a.value < b.value; });
    return ticks;
  }
  const double raw = (hi - lo) / max_major;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (const double f : {1.0, 2.0, 5.0, 10.0})
    if (f * mag >= raw) {
      step = f * mag;
      break;
    }
  // At least two labelled ticks: a narrow plot's two majors over 0..4096 took a step of 5000 and labelled only 0 (the
  // 1D profile at a lecture's 1280x720, issue 17); the next smaller 1-2-5 step until two fall in the range.
  for (;;) {
    ticks.clear();
    for (double v = std::ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step) {
      const double clean = std::abs(v) < step * 1e-9 ? 0.0 : v;
      ticks.push_back({clean, tick_label(clean)});
    }
    if (ticks.size() >= 2) return ticks;
    const double lead = step / std::pow(10.0, std::floor(std::log10(step) + 1e-9));
    step *= lead > 4.5 ? 0.4 : 0.5; // 5 -> 2, 2 -> 1, 1 -> 0.5
  }
}

ImU32 series_color(int index) {
  static const ImU32 palette[] = {IM_COL32(86, 180, 233, 255),  IM_COL32(230, 159, 0, 255),  IM_COL32(0, 158, 115, 255),
                                  IM_COL32(240, 228, 66, 255),  IM_COL32(204, 121, 167, 255), IM_COL32(213, 94, 0, 255),
                                  IM_COL32(160, 160, 255, 255), IM_COL32(190, 190, 190, 255), IM_COL32(120, 220, 200, 255),
                                  IM_COL32(255, 140, 140, 255)};
  constexpr int n = static_cast<int>(sizeof palette / sizeof palette[0]);
  return palette[((index % n) + n) % n];
}

void request_png(PlotView& view, std::string path) {
  view.png_path = std::move(path);
  view.png_error.clear();
}

namespace plot {

double to_unit(double v, double lo, double hi, AxisScale s) {
  if (s == AxisScale::Log) return (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo));
  return (v - lo) / (hi - lo);
}
double from_unit(double u, double lo, double hi, AxisScale s) {
  if (s == AxisScale::Log) return std::pow(10.0, std::log10(lo) + u * (std::log10(hi) - std::log10(lo)));
  return lo + u * (hi - lo);
}
bool plottable(double v, AxisScale s) { return std::isfinite(v) && (s == AxisScale::Linear || v > 0); }

// [lo, hi] padded a little (5% of the span, or a factor on log axes) and never empty.
void pad_range(double& lo, double& hi, AxisScale s) {
  if (!(lo <= hi)) { // no data
    lo = s == AxisScale::Log ? 1.0 : 0.0;
    hi = s == AxisScale::Log ? 10.0 : 1.0;
    return;
  }
  if (s == AxisScale::Log) {
    const double a = std::log10(lo), b = std::log10(hi), pad = std::max(0.08 * (b - a), 0.15);
    lo = std::pow(10.0, a - pad);
    hi = std::pow(10.0, b + pad);
    return;
  }
  const double span = hi - lo, pad = span > 0 ? 0.05 * span : std::max(std::abs(lo) * 0.1, 1.0);
  lo -= pad;
  hi += pad;
}

PlotFrame begin_frame(const char* id, const std::string& title, ImVec2 size, float left_margin, const std::string& y_label) {
  PlotFrame f;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  if (size.x <= 0) size.x = std::max(avail.x, ui_px(120.0f));
  if (size.y <= 0) size.y = std::max(avail.y, ui_px(100.0f));
  f.outer_min = ImGui::GetCursorScreenPos();
  f.outer_max = ImVec2(f.outer_min.x + size.x, f.outer_min.y + size.y);
  ImGui::InvisibleButton(id, size, ImGuiButtonFlags_MouseButtonLeft | ImGuiButtonFlags_MouseButtonRight);
  f.hovered = ImGui::IsItemHovered();
  f.mouse = ImGui::GetIO().MousePos;
  const float line = ImGui::GetTextLineHeight();
  f.min = ImVec2(f.outer_min.x + left_margin, f.outer_min.y + (title.empty() ? ui_px(6.0f) : line + ui_px(10.0f)));
  // The y axis's label stands in a line of its own above the data area (draw_axis_labels): drawn inside it, it lay
  // over the curves that start at the top left (the FFT page's "real part" over k_f at k = 0, issue 17).
  if (!y_label.empty()) f.min.y += line + ui_px(4.0f);
  f.max = ImVec2(f.outer_max.x - ui_px(14.0f), f.outer_max.y - 2.0f * line - ui_px(10.0f));
  ImDrawList* draw = ImGui::GetWindowDrawList();
  draw->AddRectFilled(f.outer_min, f.outer_max, IM_COL32(17, 18, 22, 255), ui_px(4.0f));
  draw->AddRectFilled(f.min, f.max, kPlotBackground);
  if (!title.empty()) {
    // A title wider than the plot ends in "..." and shows whole when the plot is hovered.
    const float room = f.outer_max.x - f.outer_min.x - ui_px(8.0f);
    std::string shown = title;
    if (ImGui::CalcTextSize(shown.c_str()).x > room) {
      while (!shown.empty() && ImGui::CalcTextSize((shown + "...").c_str()).x > room) shown.pop_back();
      shown += "...";
      if (f.hovered) ImGui::SetTooltip("%s", title.c_str());
    }
    const float w = ImGui::CalcTextSize(shown.c_str()).x;
    const float left = w > f.max.x - f.min.x ? f.outer_min.x + ui_px(4.0f) : std::max(f.min.x, 0.5f * (f.min.x + f.max.x - w));
    draw->AddText(ImVec2(left, f.outer_min.y + ui_px(4.0f)), ImGui::GetColorU32(ImGuiCol_Text), shown.c_str());
  }
  return f;
}

namespace {

// Reads the plot's pixels from the framebuffer being rendered and writes them as PNG (see request_png).
void export_png_callback(const ImDrawList*, const ImDrawCmd* cmd) {
  auto* view = static_cast<PlotView*>(cmd->UserCallbackData);
  const ImDrawData* data = ImGui::GetDrawData();
  const std::string path = std::exchange(view->png_path, std::string());
  if (data == nullptr) return;
  GLint viewport[4] = {0, 0, 0, 0};
  glGetIntegerv(GL_VIEWPORT, viewport);
  const ImVec2 scale = data->FramebufferScale;
  const int x0 = static_cast<int>(std::floor((view->rect[0] - data->DisplayPos.x) * scale.x));
  const int y0 = static_cast<int>(std::floor((view->rect[1] - data->DisplayPos.y) * scale.y));
  const int x1 = static_cast<int>(std::ceil((view->rect[2] - data->DisplayPos.x) * scale.x));
  const int y1 = static_cast<int>(std::ceil((view->rect[3] - data->DisplayPos.y) * scale.y));
  const int fb_height = viewport[3];
  const int cx0 = std::max(x0, 0), cx1 = std::min(x1, static_cast<int>(viewport[2]));
  const int cy0 = std::max(y0, 0), cy1 = std::min(y1, fb_height);
  if (cx1 <= cx0 || cy1 <= cy0) {
    view->png_error = "the plot is outside the window; scroll it into view and export again";
    return;
  }
  RgbaImage image;
  image.width = cx1 - cx0;
  image.height = cy1 - cy0;
  image.pixels.resize(static_cast<std::size_t>(image.width) * image.height * 4);
  GLint pack = 4;
  glGetIntegerv(GL_PACK_ALIGNMENT, &pack);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  std::vector<std::uint8_t> rows(image.pixels.size());
  glReadPixels(cx0, fb_height - cy1, image.width, image.height, GL_RGBA, GL_UNSIGNED_BYTE, rows.data());
  glPixelStorei(GL_PACK_ALIGNMENT, pack);
  const std::size_t stride = static_cast<std::size_t>(image.width) * 4;
  for (int y = 0; y < image.height; ++y) // GL rows are bottom-up
    std::copy_n(&rows[static_cast<std::size_t>(image.height - 1 - y) * stride], stride, &image.pixels[y * stride]);
  for (std::size_t i = 3; i < image.pixels.size(); i += 4) image.pixels[i] = 255; // opaque, as seen on screen
  try {
    write_png(image, path);
    view->png_written = path;
  } catch (const std::exception& e) {
    view->png_error = e.what();
  }
}

} // namespace

void finish_frame(const PlotFrame& f, PlotView& view) {
  view.rect[0] = f.outer_min.x, view.rect[1] = f.outer_min.y, view.rect[2] = f.outer_max.x, view.rect[3] = f.outer_max.y;
  view.data_rect[0] = f.min.x, view.data_rect[1] = f.min.y, view.data_rect[2] = f.max.x, view.data_rect[3] = f.max.y;
  if (!view.png_path.empty()) ImGui::GetWindowDrawList()->AddCallback(export_png_callback, &view);
}

void draw_x_ticks(ImDrawList* draw, const PlotFrame& f, double lo, double hi, AxisScale s, bool grid) {
  const int max_major = std::clamp(static_cast<int>((f.max.x - f.min.x) / ui_px(70.0f)), 2, 10);
  const float line = ImGui::GetTextLineHeight();
  const float minor_tick = ui_px(3.0f), major_tick = ui_px(5.0f), label_gap = ui_px(6.0f);
  float last_label_end = -1e9f;
  for (const AxisTick& t : axis_ticks(lo, hi, s, max_major)) {
    const float x = f.to_screen(to_unit(t.value, lo, hi, s), 0).x;
    if (x < f.min.x - 0.5f || x > f.max.x + 0.5f) continue;
    if (grid) draw->AddLine(ImVec2(x, f.min.y), ImVec2(x, f.max.y), t.label.empty() ? kMinorGridColor : kGridColor);
    draw->AddLine(ImVec2(x, f.max.y), ImVec2(x, f.max.y + (t.label.empty() ? minor_tick : major_tick)), kAxisColor);
    if (t.label.empty()) continue;
    const float w = ImGui::CalcTextSize(t.label.c_str()).x;
    const float at = std::clamp(x - 0.5f * w, f.outer_min.x, f.outer_max.x - w);
    if (at < last_label_end + label_gap) continue; // never overlap labels
    draw->AddText(ImVec2(at, f.max.y + label_gap), kAxisColor, t.label.c_str());
    last_label_end = at + w;
  }
  (void)line;
}

void draw_y_ticks(ImDrawList* draw, const PlotFrame& f, double lo, double hi, AxisScale s) {
  const float line = ImGui::GetTextLineHeight();
  // Labels at least 40 px apart; a log axis over many decades in a short plot (lecture fonts) may pack them to a
  // line and a half, or it keeps one decade label of seven.
  const float spacing = s == AxisScale::Log ? std::min(ui_px(40.0f), 1.5f * line) : ui_px(40.0f);
  const int max_major = std::clamp(static_cast<int>((f.max.y - f.min.y) / spacing), 2, 10);
  const float minor_tick = ui_px(3.0f), major_tick = ui_px(5.0f);
  for (const AxisTick& t : axis_ticks(lo, hi, s, max_major)) {
    const float y = f.to_screen(0, to_unit(t.value, lo, hi, s)).y;
    if (y < f.min.y - 0.5f || y > f.max.y + 0.5f) continue;
    draw->AddLine(ImVec2(f.min.x, y), ImVec2(f.max.x, y), t.label.empty() ? kMinorGridColor : kGridColor);
    draw->AddLine(ImVec2(f.min.x - (t.label.empty() ? minor_tick : major_tick), y), ImVec2(f.min.x, y), kAxisColor);
    if (t.label.empty()) continue;
    const float w = ImGui::CalcTextSize(t.label.c_str()).x;
    draw->AddText(ImVec2(f.min.x - ui_px(8.0f) - w, std::clamp(y - 0.5f * line, f.min.y - 0.5f * line, f.max.y - 0.5f * line)),
                  kAxisColor, t.label.c_str());
  }
}

float y_tick_margin(double lo, double hi, AxisScale s) {
  float widest = 0;
  for (const AxisTick& t : axis_ticks(lo, hi, s, 10))
    if (!t.label.empty()) widest = std::max(widest, ImGui::CalcTextSize(t.label.c_str()).x);
  return widest + ui_px(16.0f);
}

void draw_axis_labels(ImDrawList* draw, const PlotFrame& f, const std::string& x_label, const std::string& y_label) {
  const float line = ImGui::GetTextLineHeight();
  if (!x_label.empty()) {
    const float w = ImGui::CalcTextSize(x_label.c_str()).x;
    draw->AddText(ImVec2(0.5f * (f.min.x + f.max.x - w), f.max.y + line + ui_px(8.0f)), ImGui::GetColorU32(ImGuiCol_Text),
                  x_label.c_str());
  }
  if (!y_label.empty()) // above the top of the y axis, in the line begin_frame leaves: ImGui draws no rotated text
    draw->AddText(ImVec2(f.min.x + ui_px(2.0f), f.min.y - line - ui_px(3.0f)), IM_COL32(200, 204, 212, 255), y_label.c_str());
  draw->AddRect(f.min, f.max, kAxisColor);
}

void draw_marker(ImDrawList* draw, ImVec2 p, ImU32 color, bool hollow, float r) {
  if (hollow) {
    draw->AddCircleFilled(p, r, kPlotBackground);
    draw->AddCircle(p, r, color, 16, ui_px(2.0f));
  } else {
    draw->AddCircleFilled(p, r, color);
    draw->AddCircle(p, r, IM_COL32(0, 0, 0, 200), 16, 1.0f);
  }
}

void draw_dashed(ImDrawList* draw, ImVec2 a, ImVec2 b, ImU32 color, float thickness) {
  const float len = std::hypot(b.x - a.x, b.y - a.y);
  if (len < 1e-3f) return;
  const float dash = ui_px(7.0f), gap = ui_px(5.0f);
  for (float t = 0; t < len; t += dash + gap) {
    const float t1 = std::min(t + dash, len);
    draw->AddLine(ImVec2(a.x + (b.x - a.x) * t / len, a.y + (b.y - a.y) * t / len),
                  ImVec2(a.x + (b.x - a.x) * t1 / len, a.y + (b.y - a.y) * t1 / len), color, thickness);
  }
}


LegendLayout measure_legend(const std::vector<PlotSeries>& series, float max_w, float max_h) {
  LegendLayout l;
  for (const auto& s : series)
    if (!s.name.empty()) l.entries.push_back(&s);
  if (l.entries.empty()) return l;
  ImFont* font = ImGui::GetFont();
  const float base = ImGui::GetFontSize();
  const int n = static_cast<int>(l.entries.size());
  for (const float scale : {1.0f, 0.85f, 0.75f}) {
    l.size = base * scale;
    l.row_h = l.size + ui_px(2.0f);
    l.col_w = 0;
    for (const PlotSeries* s : l.entries) l.col_w = std::max(l.col_w, font->CalcTextSizeA(l.size, FLT_MAX, 0, s->name.c_str()).x);
    l.col_w += ui_px(34.0f) * scale;
    const int fit_rows = std::max(1, static_cast<int>((max_h - ui_px(8.0f)) / l.row_h));
    l.cols = (n + fit_rows - 1) / fit_rows;
    l.rows = (n + l.cols - 1) / l.cols;
    if (l.cols * l.col_w <= max_w) break;
  }
  const int max_cols = std::max(1, static_cast<int>(max_w / l.col_w));
  l.shown = std::min(n, max_cols * l.rows - (l.cols > max_cols ? 1 : 0));
  l.cols = std::min(l.cols, max_cols);
  l.box_w = l.cols * l.col_w + ui_px(6.0f);
  l.box_h = l.rows * l.row_h + ui_px(8.0f);
  return l;
}

void draw_legend(ImDrawList* draw, const LegendLayout& l, ImVec2 a) {
  if (l.entries.empty()) return;
  ImFont* font = ImGui::GetFont();
  const float rounding = ui_px(3.0f), pad = ui_px(4.0f), line_w = ui_px(2.0f);
  draw->AddRectFilled(a, ImVec2(a.x + l.box_w, a.y + l.box_h), IM_COL32(20, 22, 27, 200), rounding);
  draw->AddRect(a, ImVec2(a.x + l.box_w, a.y + l.box_h), kGridColor, rounding);
  const float k = l.size / ImGui::GetFontSize();
  const float text_x = ui_px(24.0f) * k, swatch_x = ui_px(10.0f) * k, swatch_half = ui_px(9.0f) * k;
  for (int i = 0; i < static_cast<int>(l.entries.size()) && i <= l.shown; ++i) {
    const float x = a.x + pad + static_cast<float>(i / l.rows) * l.col_w, y = a.y + pad + static_cast<float>(i % l.rows) * l.row_h;
    if (i == l.shown) { // no room left: say how many are missing
      const std::string more = fmt::format("+{} more", l.entries.size() - static_cast<std::size_t>(l.shown));
      draw->AddText(font, l.size, ImVec2(x + text_x, y), ImGui::GetColorU32(ImGuiCol_TextDisabled), more.c_str());
      break;
    }
    const PlotSeries& s = *l.entries[static_cast<std::size_t>(i)];
    const ImVec2 c(x + swatch_x, y + 0.5f * l.size);
    if (s.style == PlotSeries::Style::Points)
      draw_marker(draw, c, s.color, s.hollow, ui_px(4.5f) * k);
    else if (s.style == PlotSeries::Style::DashedLine)
      draw_dashed(draw, ImVec2(c.x - swatch_half, c.y), ImVec2(c.x + swatch_half, c.y), s.color, line_w);
    else
      draw->AddLine(ImVec2(c.x - swatch_half, c.y), ImVec2(c.x + swatch_half, c.y), s.color, line_w);
    draw->AddText(font, l.size, ImVec2(x + text_x, y), ImGui::GetColorU32(ImGuiCol_Text), s.name.c_str());
  }
}

// Where the legend goes: into the corner of the data area that hides the fewest data (points, and lines
// sampled along their length, in unit coordinates); when every corner hides some, beside the data area,
// which then narrows (if it keeps 60% of its width). Returns the legend's top left corner.
ImVec2 place_legend(PlotFrame& f, LegendLayout& legend, const std::vector<PlotSeries>& series,
                    const std::vector<ImVec2>& unit_points) {
  const float inset = ui_px(8.0f), near = ui_px(6.0f), beside_gap = ui_px(12.0f);
  const float top = f.min.y + inset;
  const float room_w = f.max.x - f.min.x - 2.0f * inset;
  legend = measure_legend(series, room_w * 0.6f, f.max.y - top - ui_px(12.0f));
  if (legend.entries.empty()) return f.min;
  const float bw = legend.box_w, bh = legend.box_h;
  const ImVec2 corners[4] = {ImVec2(f.max.x - bw - inset, top), ImVec2(f.max.x - bw - inset, f.max.y - bh - inset),
                             ImVec2(f.min.x + inset, f.max.y - bh - inset), ImVec2(f.min.x + inset, top)};
  ImVec2 best = corners[0];
  std::size_t fewest = unit_points.size() + 1;
  for (const ImVec2& c : corners) {
    const auto hidden = static_cast<std::size_t>(std::count_if(unit_points.begin(), unit_points.end(), [&](const ImVec2& u) {
      const ImVec2 p = f.to_screen(u.x, u.y);
      return p.x >= c.x - near && p.x <= c.x + bw + near && p.y >= c.y - near && p.y <= c.y + bh + near;
    }));
    if (hidden < fewest) fewest = hidden, best = c;
  }
  if (fewest == 0) return best;
  const float width = f.max.x - f.min.x;
  LegendLayout beside = measure_legend(series, 0.4f * width - beside_gap, f.max.y - f.min.y);
  if (width - beside.box_w - beside_gap < 0.6f * width || beside.shown < legend.shown) return best;
  legend = beside;
  f.max.x -= beside.box_w + beside_gap;
  return ImVec2(f.max.x + ui_px(10.0f), f.min.y);
}

// Zoom (wheel about the cursor, right-drag box), pan (left drag) and reset (double click), applied to the
// range shown in unit coordinates so log axes zoom evenly.
void handle_zoom(const PlotFrame& f, PlotView& view, double& x0, double& x1, double& y0, double& y1, AxisScale xs,
                 AxisScale ys, bool zoom_y) {
  const ImGuiIO& io = ImGui::GetIO();
  const auto unit_at = [&](ImVec2 p) {
    return ImVec2((p.x - f.min.x) / (f.max.x - f.min.x), (f.max.y - p.y) / (f.max.y - f.min.y));
  };
  const auto set_range = [&](double ux0, double ux1, double uy0, double uy1) {
    const double nx0 = from_unit(ux0, x0, x1, xs), nx1 = from_unit(ux1, x0, x1, xs);
    const double ny0 = zoom_y ? from_unit(uy0, y0, y1, ys) : y0, ny1 = zoom_y ? from_unit(uy1, y0, y1, ys) : y1;
    if (!(nx1 > nx0) || !(ny1 > ny0) || !std::isfinite(nx0 + nx1 + ny0 + ny1)) return;
    x0 = nx0, x1 = nx1, y0 = ny0, y1 = ny1;
    view.zoomed = true;
    view.x0 = x0, view.x1 = x1, view.y0 = y0, view.y1 = y1;
  };
  if (f.hovered && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) {
    view.zoomed = false;
    view.box_active = false;
    return;
  }
  if (f.hovered && io.MouseWheel != 0) {
    const ImVec2 u = unit_at(f.mouse);
    const double k = std::pow(0.85, io.MouseWheel);
    set_range(u.x - u.x * k, u.x + (1 - u.x) * k, u.y - u.y * k, u.y + (1 - u.y) * k);
  }
  if (ImGui::IsItemActive() && ImGui::IsMouseDragging(ImGuiMouseButton_Left) && !view.box_active) {
    const ImVec2 d = io.MouseDelta;
    const double dx = -d.x / (f.max.x - f.min.x), dy = d.y / (f.max.y - f.min.y);
    if (dx != 0 || dy != 0) set_range(dx, 1 + dx, dy, 1 + dy);
  }
  if (f.hovered && ImGui::IsMouseClicked(ImGuiMouseButton_Right)) {
    view.box_active = true;
    view.box_from = f.mouse;
  }
  if (view.box_active) {
    const ImVec2 a = view.box_from, b = f.mouse;
    ImGui::GetWindowDrawList()->AddRect(ImVec2(std::min(a.x, b.x), std::min(a.y, b.y)),
                                        ImVec2(std::max(a.x, b.x), std::max(a.y, b.y)), IM_COL32(255, 255, 255, 180));
    if (!ImGui::IsMouseDown(ImGuiMouseButton_Right)) {
      view.box_active = false;
      const float least = ui_px(4.0f); // a smaller box is a click, not a zoom
      if (std::abs(a.x - b.x) > least && (!zoom_y || std::abs(a.y - b.y) > least)) {
        const ImVec2 ua = unit_at(a), ub = unit_at(b);
        set_range(std::min(ua.x, ub.x), std::max(ua.x, ub.x), std::min(ua.y, ub.y), std::max(ua.y, ub.y));
      }
    }
  }
}

} // namespace plot
} // namespace se
