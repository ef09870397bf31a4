// Plots on ImDrawList. Data are mapped through the axis scale to [0, 1] and then to the plot's rectangle; zoom
// and pan change the data range shown, never the data. PNG export reads the plot's pixels back from the frame
// being rendered with an ImDrawList callback placed right after the plot's own draw commands.
#include "app/widgets/plot_widgets.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <limits>

#include <fmt/format.h>
#include <glad/gl.h>

#include "app/cli/bench_cli.hpp"
#include "app/shell/explorer_state.hpp"
#include "app/platform/screenshot.hpp"
#include "app/sim/simulation.hpp"
#include "app/views/views.hpp"
#include "core/error.hpp"
#include "kernels/registry.hpp"

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
  for (double v = std::ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step) {
    const double clean = std::abs(v) < step * 1e-9 ? 0.0 : v;
    ticks.push_back({clean, tick_label(clean)});
  }
  return ticks;
}

ImU32 series_color(int index) {
  static const ImU32 palette[] = {IM_COL32(86, 180, 233, 255),  IM_COL32(230, 159, 0, 255),  IM_COL32(0, 158, 115, 255),
                                  IM_COL32(240, 228, 66, 255),  IM_COL32(204, 121, 167, 255), IM_COL32(213, 94, 0, 255),
                                  IM_COL32(160, 160, 255, 255), IM_COL32(190, 190, 190, 255), IM_COL32(120, 220, 200, 255),
                                  IM_COL32(255, 140, 140, 255)};
  constexpr int n = static_cast<int>(sizeof palette / sizeof palette[0]);
  return palette[((index % n) + n) % n];
}

PlotSeries& XYPlot::series_for(const std::string& key, const PlotSeries& prototype) {
  const auto [it, fresh] = keys.try_emplace(key, series.size());
  if (fresh) series.push_back(prototype);
  return series[it->second];
}

XYPlot log_log_plot(std::string title, std::string x_label, std::string y_label) {
  XYPlot p;
  p.title = std::move(title);
  p.x_label = std::move(x_label);
  p.y_label = std::move(y_label);
  p.x_scale = p.y_scale = AxisScale::Log;
  return p;
}

void request_png(PlotView& view, std::string path) {
  view.png_path = std::move(path);
  view.png_error.clear();
}

namespace {

constexpr ImU32 kAxisColor = IM_COL32(150, 155, 165, 255);
constexpr ImU32 kGridColor = IM_COL32(70, 74, 84, 255);
constexpr ImU32 kMinorGridColor = IM_COL32(50, 53, 61, 255);
constexpr ImU32 kPlotBackground = IM_COL32(24, 26, 31, 255);

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

// The whole plot area, axes and input; what xy plots and bar charts share.
struct PlotFrame {
  ImVec2 outer_min, outer_max; // the widget
  ImVec2 min, max;             // the data area
  bool hovered = false;
  ImVec2 mouse{};
  ImVec2 to_screen(double ux, double uy) const {
    return ImVec2(static_cast<float>(min.x + ux * (max.x - min.x)), static_cast<float>(max.y - uy * (max.y - min.y)));
  }
};

PlotFrame begin_frame(const char* id, const std::string& title, ImVec2 size, float left_margin) {
  PlotFrame f;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  if (size.x <= 0) size.x = std::max(avail.x, 120.0f);
  if (size.y <= 0) size.y = std::max(avail.y, 100.0f);
  f.outer_min = ImGui::GetCursorScreenPos();
  f.outer_max = ImVec2(f.outer_min.x + size.x, f.outer_min.y + size.y);
  ImGui::InvisibleButton(id, size, ImGuiButtonFlags_MouseButtonLeft | ImGuiButtonFlags_MouseButtonRight);
  f.hovered = ImGui::IsItemHovered();
  f.mouse = ImGui::GetIO().MousePos;
  const float line = ImGui::GetTextLineHeight();
  f.min = ImVec2(f.outer_min.x + left_margin, f.outer_min.y + (title.empty() ? 6.0f : line + 10.0f));
  f.max = ImVec2(f.outer_max.x - 14.0f, f.outer_max.y - 2.0f * line - 10.0f);
  ImDrawList* draw = ImGui::GetWindowDrawList();
  draw->AddRectFilled(f.outer_min, f.outer_max, IM_COL32(17, 18, 22, 255), 4.0f);
  draw->AddRectFilled(f.min, f.max, kPlotBackground);
  if (!title.empty()) {
    const float w = ImGui::CalcTextSize(title.c_str()).x;
    draw->AddText(ImVec2(std::max(f.min.x, 0.5f * (f.min.x + f.max.x - w)), f.outer_min.y + 4.0f),
                  ImGui::GetColorU32(ImGuiCol_Text), title.c_str());
  }
  return f;
}

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

void finish_frame(const PlotFrame& f, PlotView& view) {
  view.rect[0] = f.outer_min.x, view.rect[1] = f.outer_min.y, view.rect[2] = f.outer_max.x, view.rect[3] = f.outer_max.y;
  view.data_rect[0] = f.min.x, view.data_rect[1] = f.min.y, view.data_rect[2] = f.max.x, view.data_rect[3] = f.max.y;
  if (!view.png_path.empty()) ImGui::GetWindowDrawList()->AddCallback(export_png_callback, &view);
}

void draw_x_ticks(ImDrawList* draw, const PlotFrame& f, double lo, double hi, AxisScale s, bool grid) {
  const int max_major = std::clamp(static_cast<int>((f.max.x - f.min.x) / 70.0f), 2, 10);
  const float line = ImGui::GetTextLineHeight();
  float last_label_end = -1e9f;
  for (const AxisTick& t : axis_ticks(lo, hi, s, max_major)) {
    const float x = f.to_screen(to_unit(t.value, lo, hi, s), 0).x;
    if (x < f.min.x - 0.5f || x > f.max.x + 0.5f) continue;
    if (grid) draw->AddLine(ImVec2(x, f.min.y), ImVec2(x, f.max.y), t.label.empty() ? kMinorGridColor : kGridColor);
    draw->AddLine(ImVec2(x, f.max.y), ImVec2(x, f.max.y + (t.label.empty() ? 3.0f : 5.0f)), kAxisColor);
    if (t.label.empty()) continue;
    const float w = ImGui::CalcTextSize(t.label.c_str()).x;
    const float at = std::clamp(x - 0.5f * w, f.outer_min.x, f.outer_max.x - w);
    if (at < last_label_end + 6.0f) continue; // never overlap labels
    draw->AddText(ImVec2(at, f.max.y + 6.0f), kAxisColor, t.label.c_str());
    last_label_end = at + w;
  }
  (void)line;
}

void draw_y_ticks(ImDrawList* draw, const PlotFrame& f, double lo, double hi, AxisScale s) {
  const int max_major = std::clamp(static_cast<int>((f.max.y - f.min.y) / 40.0f), 2, 10);
  const float line = ImGui::GetTextLineHeight();
  for (const AxisTick& t : axis_ticks(lo, hi, s, max_major)) {
    const float y = f.to_screen(0, to_unit(t.value, lo, hi, s)).y;
    if (y < f.min.y - 0.5f || y > f.max.y + 0.5f) continue;
    draw->AddLine(ImVec2(f.min.x, y), ImVec2(f.max.x, y), t.label.empty() ? kMinorGridColor : kGridColor);
    draw->AddLine(ImVec2(f.min.x - (t.label.empty() ? 3.0f : 5.0f), y), ImVec2(f.min.x, y), kAxisColor);
    if (t.label.empty()) continue;
    const float w = ImGui::CalcTextSize(t.label.c_str()).x;
    draw->AddText(ImVec2(f.min.x - 8.0f - w, std::clamp(y - 0.5f * line, f.min.y - 0.5f * line, f.max.y - 0.5f * line)),
                  kAxisColor, t.label.c_str());
  }
}

float y_tick_margin(double lo, double hi, AxisScale s) {
  float widest = 0;
  for (const AxisTick& t : axis_ticks(lo, hi, s, 10))
    if (!t.label.empty()) widest = std::max(widest, ImGui::CalcTextSize(t.label.c_str()).x);
  return widest + 16.0f;
}

void draw_axis_labels(ImDrawList* draw, const PlotFrame& f, const std::string& x_label, const std::string& y_label) {
  const float line = ImGui::GetTextLineHeight();
  if (!x_label.empty()) {
    const float w = ImGui::CalcTextSize(x_label.c_str()).x;
    draw->AddText(ImVec2(0.5f * (f.min.x + f.max.x - w), f.max.y + line + 8.0f), ImGui::GetColorU32(ImGuiCol_Text),
                  x_label.c_str());
  }
  if (!y_label.empty()) // along the top of the y axis: ImGui draws no rotated text
    draw->AddText(ImVec2(f.min.x + 6.0f, f.min.y + 4.0f), IM_COL32(200, 204, 212, 255), y_label.c_str());
  draw->AddRect(f.min, f.max, kAxisColor);
  (void)line;
}

void draw_marker(ImDrawList* draw, ImVec2 p, ImU32 color, bool hollow, float r) {
  if (hollow) {
    draw->AddCircleFilled(p, r, kPlotBackground);
    draw->AddCircle(p, r, color, 16, 2.0f);
  } else {
    draw->AddCircleFilled(p, r, color);
    draw->AddCircle(p, r, IM_COL32(0, 0, 0, 200), 16, 1.0f);
  }
}

void draw_dashed(ImDrawList* draw, ImVec2 a, ImVec2 b, ImU32 color, float thickness) {
  const float len = std::hypot(b.x - a.x, b.y - a.y);
  if (len < 1e-3f) return;
  const float dash = 7.0f, gap = 5.0f;
  for (float t = 0; t < len; t += dash + gap) {
    const float t1 = std::min(t + dash, len);
    draw->AddLine(ImVec2(a.x + (b.x - a.x) * t / len, a.y + (b.y - a.y) * t / len),
                  ImVec2(a.x + (b.x - a.x) * t1 / len, a.y + (b.y - a.y) * t1 / len), color, thickness);
  }
}

// A legend's size: long legends use a smaller font and several columns to fit `max_w` x `max_h`; whatever
// still does not fit ends in "+N more" (each entry's point still has its name in the hover tooltip).
struct LegendLayout {
  std::vector<const PlotSeries*> entries;
  float size = 0, col_w = 0, row_h = 0, box_w = 0, box_h = 0;
  int rows = 0, cols = 1, shown = 0;
};

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
    l.row_h = l.size + 2.0f;
    l.col_w = 0;
    for (const PlotSeries* s : l.entries) l.col_w = std::max(l.col_w, font->CalcTextSizeA(l.size, FLT_MAX, 0, s->name.c_str()).x);
    l.col_w += 34.0f * scale;
    const int fit_rows = std::max(1, static_cast<int>((max_h - 8.0f) / l.row_h));
    l.cols = (n + fit_rows - 1) / fit_rows;
    l.rows = (n + l.cols - 1) / l.cols;
    if (l.cols * l.col_w <= max_w) break;
  }
  const int max_cols = std::max(1, static_cast<int>(max_w / l.col_w));
  l.shown = std::min(n, max_cols * l.rows - (l.cols > max_cols ? 1 : 0));
  l.cols = std::min(l.cols, max_cols);
  l.box_w = l.cols * l.col_w + 6.0f;
  l.box_h = l.rows * l.row_h + 8.0f;
  return l;
}

void draw_legend(ImDrawList* draw, const LegendLayout& l, ImVec2 a) {
  if (l.entries.empty()) return;
  ImFont* font = ImGui::GetFont();
  draw->AddRectFilled(a, ImVec2(a.x + l.box_w, a.y + l.box_h), IM_COL32(20, 22, 27, 200), 3.0f);
  draw->AddRect(a, ImVec2(a.x + l.box_w, a.y + l.box_h), kGridColor, 3.0f);
  const float k = l.size / ImGui::GetFontSize();
  for (int i = 0; i < static_cast<int>(l.entries.size()) && i <= l.shown; ++i) {
    const float x = a.x + 4.0f + static_cast<float>(i / l.rows) * l.col_w, y = a.y + 4.0f + static_cast<float>(i % l.rows) * l.row_h;
    if (i == l.shown) { // no room left: say how many are missing
      const std::string more = fmt::format("+{} more", l.entries.size() - static_cast<std::size_t>(l.shown));
      draw->AddText(font, l.size, ImVec2(x + 24.0f * k, y), ImGui::GetColorU32(ImGuiCol_TextDisabled), more.c_str());
      break;
    }
    const PlotSeries& s = *l.entries[static_cast<std::size_t>(i)];
    const ImVec2 c(x + 10.0f * k, y + 0.5f * l.size);
    if (s.style == PlotSeries::Style::Points)
      draw_marker(draw, c, s.color, s.hollow, 4.5f * k);
    else if (s.style == PlotSeries::Style::DashedLine)
      draw_dashed(draw, ImVec2(c.x - 9 * k, c.y), ImVec2(c.x + 9 * k, c.y), s.color, 2.0f);
    else
      draw->AddLine(ImVec2(c.x - 9 * k, c.y), ImVec2(c.x + 9 * k, c.y), s.color, 2.0f);
    draw->AddText(font, l.size, ImVec2(x + 24.0f * k, y), ImGui::GetColorU32(ImGuiCol_Text), s.name.c_str());
  }
}

// Where the legend goes: into the corner of the data area that hides the fewest data (points, and lines
// sampled along their length, in unit coordinates); when every corner hides some, beside the data area,
// which then narrows (if it keeps 60% of its width). Returns the legend's top left corner.
ImVec2 place_legend(PlotFrame& f, LegendLayout& legend, const std::vector<PlotSeries>& series,
                    const std::vector<ImVec2>& unit_points) {
  const float top = f.min.y + ImGui::GetTextLineHeight() + 8.0f; // below the y label
  const float room_w = f.max.x - f.min.x - 16.0f;
  legend = measure_legend(series, room_w * 0.6f, f.max.y - top - 12.0f);
  if (legend.entries.empty()) return f.min;
  const float bw = legend.box_w, bh = legend.box_h;
  const ImVec2 corners[4] = {ImVec2(f.max.x - bw - 8.0f, top), ImVec2(f.max.x - bw - 8.0f, f.max.y - bh - 8.0f),
                             ImVec2(f.min.x + 8.0f, f.max.y - bh - 8.0f), ImVec2(f.min.x + 8.0f, top)};
  ImVec2 best = corners[0];
  std::size_t fewest = unit_points.size() + 1;
  for (const ImVec2& c : corners) {
    const auto hidden = static_cast<std::size_t>(std::count_if(unit_points.begin(), unit_points.end(), [&](const ImVec2& u) {
      const ImVec2 p = f.to_screen(u.x, u.y);
      return p.x >= c.x - 6 && p.x <= c.x + bw + 6 && p.y >= c.y - 6 && p.y <= c.y + bh + 6;
    }));
    if (hidden < fewest) fewest = hidden, best = c;
  }
  if (fewest == 0) return best;
  const float width = f.max.x - f.min.x;
  LegendLayout beside = measure_legend(series, 0.4f * width - 12.0f, f.max.y - f.min.y);
  if (width - beside.box_w - 12.0f < 0.6f * width || beside.shown < legend.shown) return best;
  legend = beside;
  f.max.x -= beside.box_w + 12.0f;
  return ImVec2(f.max.x + 10.0f, f.min.y);
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
      if (std::abs(a.x - b.x) > 4 && (!zoom_y || std::abs(a.y - b.y) > 4)) {
        const ImVec2 ua = unit_at(a), ub = unit_at(b);
        set_range(std::min(ua.x, ub.x), std::max(ua.x, ub.x), std::min(ua.y, ub.y), std::max(ua.y, ub.y));
      }
    }
  }
}

} // namespace

void draw_xy_plot(const char* id, const XYPlot& plot, PlotView& view, ImVec2 size) {
  double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = x0, y1 = -x0;
  for (const auto& s : plot.series)
    for (std::size_t i = 0; i < std::min(s.x.size(), s.y.size()); ++i) {
      if (!plottable(s.x[i], plot.x_scale) || !plottable(s.y[i], plot.y_scale)) continue;
      x0 = std::min(x0, s.x[i]), x1 = std::max(x1, s.x[i]);
      y0 = std::min(y0, s.y[i]), y1 = std::max(y1, s.y[i]);
    }
  pad_range(x0, x1, plot.x_scale);
  pad_range(y0, y1, plot.y_scale);
  if (plot.x_min) x0 = *plot.x_min;
  if (plot.x_max) x1 = *plot.x_max;
  if (plot.y_min) y0 = *plot.y_min;
  if (plot.y_max) y1 = *plot.y_max;
  if (view.zoomed) x0 = view.x0, x1 = view.x1, y0 = view.y0, y1 = view.y1;

  PlotFrame f = begin_frame(id, plot.title, size, y_tick_margin(y0, y1, plot.y_scale));
  // The data in unit coordinates (lines sampled along their length: they hide a legend's text too), to place
  // the legend before the data area is final.
  std::vector<ImVec2> unit_points;
  for (const auto& s : plot.series) {
    std::vector<ImVec2> u;
    for (std::size_t i = 0; i < std::min(s.x.size(), s.y.size()); ++i)
      if (plottable(s.x[i], plot.x_scale) && plottable(s.y[i], plot.y_scale))
        u.push_back(ImVec2(static_cast<float>(to_unit(s.x[i], x0, x1, plot.x_scale)),
                           static_cast<float>(to_unit(s.y[i], y0, y1, plot.y_scale))));
    unit_points.insert(unit_points.end(), u.begin(), u.end());
    if (s.style != PlotSeries::Style::Points)
      for (std::size_t i = 1; i < u.size(); ++i)
        for (int k = 1; k < 16; ++k)
          unit_points.push_back(ImVec2(u[i - 1].x + (u[i].x - u[i - 1].x) * k / 16.0f, u[i - 1].y + (u[i].y - u[i - 1].y) * k / 16.0f));
  }
  LegendLayout legend;
  const ImVec2 legend_at = place_legend(f, legend, plot.series, unit_points);
  handle_zoom(f, view, x0, x1, y0, y1, plot.x_scale, plot.y_scale, true);
  view.shown_x0 = x0, view.shown_x1 = x1, view.shown_y0 = y0, view.shown_y1 = y1;

  ImDrawList* draw = ImGui::GetWindowDrawList();
  draw_x_ticks(draw, f, x0, x1, plot.x_scale, true);
  draw_y_ticks(draw, f, y0, y1, plot.y_scale);
  // Three layers: lines (channel 0), the legend's translucent box (1), markers (2). Where the legend must sit
  // inside the data area, lines running under it stay out of its text and no point is hidden.
  draw->ChannelsSplit(3);
  draw->ChannelsSetCurrent(0);
  draw->PushClipRect(f.min, f.max, true);
  view.hovered_series = view.hovered_point = -1;
  float best = 9.0f * 9.0f;
  ImVec2 best_at{};
  for (std::size_t si = 0; si < plot.series.size(); ++si) {
    const PlotSeries& s = plot.series[si];
    const std::size_t n = std::min(s.x.size(), s.y.size());
    std::vector<ImVec2> points;
    std::vector<std::size_t> index;
    for (std::size_t i = 0; i < n; ++i) {
      if (!plottable(s.x[i], plot.x_scale) || !plottable(s.y[i], plot.y_scale)) continue;
      points.push_back(f.to_screen(to_unit(s.x[i], x0, x1, plot.x_scale), to_unit(s.y[i], y0, y1, plot.y_scale)));
      index.push_back(i);
    }
    draw->ChannelsSetCurrent(0);
    if (s.style != PlotSeries::Style::Points)
      for (std::size_t i = 1; i < points.size(); ++i) {
        if (s.style == PlotSeries::Style::DashedLine)
          draw_dashed(draw, points[i - 1], points[i], s.color, 2.0f);
        else
          draw->AddLine(points[i - 1], points[i], s.color, 2.0f);
      }
    draw->ChannelsSetCurrent(2);
    const bool markers = s.style == PlotSeries::Style::Points || s.style == PlotSeries::Style::LineAndPoints;
    for (std::size_t i = 0; i < points.size(); ++i) {
      if (markers) draw_marker(draw, points[i], s.color, s.hollow, s.style == PlotSeries::Style::Points ? 5.0f : 3.5f);
      if (!f.hovered || (!markers && s.hover.empty())) continue;
      const float dx = points[i].x - f.mouse.x, dy = points[i].y - f.mouse.y;
      if (dx * dx + dy * dy < best) {
        best = dx * dx + dy * dy;
        best_at = points[i];
        view.hovered_series = static_cast<int>(si);
        view.hovered_point = static_cast<int>(index[i]);
      }
    }
  }
  if (view.hovered_series >= 0) draw->AddCircle(best_at, 8.0f, IM_COL32(255, 255, 255, 230), 16, 1.5f);
  draw->PopClipRect();
  draw->ChannelsSetCurrent(1);
  draw_legend(draw, legend, legend_at);
  draw->ChannelsMerge();
  draw_axis_labels(draw, f, plot.x_label, plot.y_label);
  finish_frame(f, view);

  if (view.hovered_series >= 0 && !view.box_active) {
    const PlotSeries& s = plot.series[static_cast<std::size_t>(view.hovered_series)];
    const std::size_t i = static_cast<std::size_t>(view.hovered_point);
    const std::string text = i < s.hover.size() && !s.hover[i].empty()
                                 ? s.hover[i]
                                 : s.name + "\n" + plot.x_label + ": " + tick_label(s.x[i]) + "\n" + plot.y_label + ": " +
                                       tick_label(s.y[i]);
    ImGui::SetTooltip("%s", text.c_str());
  } else if (f.hovered && !view.box_active) {
    ImGui::SetTooltip("wheel: zoom   drag: pan   right-drag: zoom to box   double-click: reset");
  }
}

namespace {

// `label` cut in the middle ("tcstencil-fp64 emu" -> "tcst…64 emu") until `width` says it fits `room`, keeping at
// least `min_head` bytes of its start; "" when that is impossible. Cuts never split a UTF-8 sequence.
template <typename Width>
std::string middle_cut(const std::string& label, float room, Width&& width, std::size_t min_head) {
  if (width(label) <= room) return label;
  const auto continuation = [](char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; };
  std::string head = label.substr(0, label.size() / 2), tail = label.substr(label.size() / 2);
  while (!tail.empty() && continuation(tail.front())) head += tail.front(), tail.erase(0, 1);
  while (head.size() >= min_head && (!head.empty() || !tail.empty())) {
    if (head.size() >= tail.size()) { // drop the last character of the head ...
      while (!head.empty() && continuation(head.back())) head.pop_back();
      if (!head.empty()) head.pop_back();
    } else { // ... or the first of the tail, whichever is longer
      tail.erase(0, 1);
      while (!tail.empty() && continuation(tail.front())) tail.erase(0, 1);
    }
    const std::string cut = head + "\u2026" + tail;
    if (head.size() >= min_head && width(cut) <= room) return cut;
  }
  return "";
}

// A bar's label that fits `room`: whole; cut in the middle while that keeps a readable start of the method;
// else the method alone ("cuda-core-fp32 H200" -> "cuda-core-fp32", the bar's colour and tooltip say the rest),
// cut in the middle if it must be ("cud…p32": both ends tell the variants apart).
template <typename Width> std::string shortened_label(const std::string& label, float room, Width&& width) {
  if (std::string cut = middle_cut(label, room, width, 8); !cut.empty()) return cut;
  const std::string method = label.substr(0, label.find(' '));
  if (std::string cut = middle_cut(method, room, width, 1); !cut.empty()) return cut;
  return "\u2026";
}

} // namespace

void draw_bar_chart(const char* id, const BarChart& chart, PlotView& view, ImVec2 size) {
  const std::size_t n = chart.values.size();
  double y0 = chart.scale == AxisScale::Log ? std::numeric_limits<double>::infinity() : 0.0, y1 = 0;
  for (double v : chart.values)
    if (plottable(v, chart.scale)) y0 = std::min(y0, v), y1 = std::max(y1, v);
  if (chart.scale == AxisScale::Log) {
    pad_range(y0, y1, chart.scale);
  } else {
    y1 = y1 > 0 ? y1 * 1.12 : 1.0;
  }
  if (view.zoomed) y0 = view.y0, y1 = view.y1;

  // Labels go under the bars, rotated a quarter turn (in a smaller font) when they would collide.
  ImFont* font = ImGui::GetFont();
  const float line = ImGui::GetTextLineHeight(), small = 0.85f * ImGui::GetFontSize();
  const auto label_width = [&](const std::string& text, bool rotated) {
    return rotated ? font->CalcTextSizeA(small, FLT_MAX, 0, text.c_str()).x : ImGui::CalcTextSize(text.c_str()).x;
  };
  float widest = 0;
  for (const auto& l : chart.labels) widest = std::max(widest, label_width(l, false));
  PlotFrame f = begin_frame(id, chart.title, size, y_tick_margin(y0, y1, chart.scale));
  const float slot = n > 0 ? (f.max.x - f.min.x) / static_cast<float>(n) : 1.0f;
  const bool stacked_labels = widest > slot - 6.0f;
  if (stacked_labels) {
    widest = 0;
    for (const auto& l : chart.labels) widest = std::max(widest, label_width(l, true));
  }
  // Rotated labels take at most 40% of the height; longer ones lose the middle of their name ("tcst…fp64 emu").
  const float label_room = std::min(widest, 0.4f * (f.max.y - f.min.y));
  if (stacked_labels) f.max.y -= label_room + 6.0f - (f.outer_max.y - f.max.y - 4.0f);
  double dummy0 = 0, dummy1 = 1;
  handle_zoom(f, view, dummy0, dummy1, y0, y1, AxisScale::Linear, chart.scale, true);
  view.shown_y0 = y0, view.shown_y1 = y1;

  ImDrawList* draw = ImGui::GetWindowDrawList();
  draw_y_ticks(draw, f, y0, y1, chart.scale);
  view.hovered_series = view.hovered_point = -1;
  const double base = chart.scale == AxisScale::Log ? y0 : std::max(0.0, y0);
  for (std::size_t i = 0; i < n; ++i) {
    const float xa = f.min.x + slot * static_cast<float>(i) + 0.15f * slot, xb = xa + 0.7f * slot;
    const double v = chart.values[i];
    const ImU32 color = i < chart.colors.size() ? chart.colors[i] : series_color(static_cast<int>(i));
    if (plottable(v, chart.scale)) {
      const float yv = f.to_screen(0, std::clamp(to_unit(v, y0, y1, chart.scale), 0.0, 1.0)).y;
      const float yb = f.to_screen(0, std::clamp(to_unit(base, y0, y1, chart.scale), 0.0, 1.0)).y;
      draw->AddRectFilled(ImVec2(xa, yv), ImVec2(xb, yb), color, 2.0f);
      const std::string value = tick_label(std::round(v * 1000) / 1000);
      const float w = ImGui::CalcTextSize(value.c_str()).x;
      if (w < slot) draw->AddText(ImVec2(0.5f * (xa + xb - w), std::max(yv - line - 2.0f, f.min.y)), IM_COL32(230, 232, 236, 255), value.c_str());
    }
    if (f.hovered && f.mouse.x >= xa && f.mouse.x <= xb && f.mouse.y >= f.min.y && f.mouse.y <= f.max.y) {
      view.hovered_series = 0;
      view.hovered_point = static_cast<int>(i);
      draw->AddRect(ImVec2(xa - 2, f.min.y), ImVec2(xb + 2, f.max.y), IM_COL32(255, 255, 255, 120));
    }
    std::string label = i < chart.labels.size() ? chart.labels[i] : std::string();
    if (stacked_labels) {
      label = shortened_label(label, label_room, [&](const std::string& t) { return label_width(t, true); });
      // Rotated text: each glyph quad turned by hand, reading bottom-up, ending under the bar's centre. The text
      // is laid out first where the window's clip rectangle keeps all of it (ImGui drops glyphs outside it
      // before they are turned), from the data area's left edge.
      const int start = draw->VtxBuffer.Size;
      const float w = label_width(label, true);
      const ImVec2 laid(f.min.x, f.max.y + 4.0f); // where the text starts before turning
      draw->AddText(font, small, laid, kAxisColor, label.c_str());
      const ImVec2 pivot(0.5f * (xa + xb), f.max.y + 4.0f);
      for (int k = start; k < draw->VtxBuffer.Size; ++k) {
        ImVec2& p = draw->VtxBuffer[k].pos;
        const float dx = p.x - (laid.x + w), dy = p.y - laid.y; // relative to the text's end
        // Rotate by -90 degrees so the text's end sits at the pivot and it reads upwards.
        p = ImVec2(pivot.x + dy - 0.5f * small, pivot.y - dx);
      }
    } else {
      const float w = ImGui::CalcTextSize(label.c_str()).x;
      draw->AddText(ImVec2(0.5f * (xa + xb - w), f.max.y + 6.0f), kAxisColor, label.c_str());
    }
  }
  draw_axis_labels(draw, f, "", chart.value_label);
  finish_frame(f, view);
  if (view.hovered_point >= 0 && !view.box_active) {
    const std::size_t i = static_cast<std::size_t>(view.hovered_point);
    const std::string text = i < chart.hover.size() && !chart.hover[i].empty()
                                 ? chart.hover[i]
                                 : chart.labels[i] + ": " + tick_label(chart.values[i]) + " " + chart.value_label;
    ImGui::SetTooltip("%s", text.c_str());
  }
}

MethodCatalogue load_method_catalogue() {
  MethodCatalogue c;
  c.methods = all_methods();
  for (const Method& m : c.methods) c.unavailable.push_back(m.unavailable_reason());
  c.gpu_unavailable = gpu_unavailable_reason();
  return c;
}

std::vector<MethodChoice> method_choices(const MethodCatalogue& catalogue, const Stencil& s, const Extent& e) {
  std::vector<MethodChoice> out;
  for (std::size_t i = 0; i < catalogue.methods.size(); ++i) {
    MethodChoice c;
    c.method = &catalogue.methods[i];
    c.unavailable = catalogue.unavailable[i];
    if (c.unavailable.empty()) {
      try {
        c.unsupported = catalogue.methods[i].unsupported_reason(s, e);
      } catch (const std::exception& err) {
        c.unsupported = err.what();
      }
    }
    out.push_back(std::move(c));
  }
  return out;
}

const std::vector<MethodChoice>& MethodChoiceCache::get(const MethodCatalogue& catalogue, const Stencil& s, const Extent& e) {
  if (catalogue_ != &catalogue || !(stencil_ == s) || !(extent_ == e)) {
    choices_ = method_choices(catalogue, s, e);
    catalogue_ = &catalogue;
    stencil_ = s;
    extent_ = e;
  }
  return choices_;
}

bool method_combo(ExplorerState& state, const char* label, const std::string& probe,
                  const std::vector<MethodChoice>& choices, MethodKey& key) {
  bool changed = false;
  const std::string preview = key.label();
  // The combo's frame, measured before BeginCombo opens a popup window that would own "the last item".
  const ImVec2 at = ImGui::GetCursorScreenPos();
  probe_rect(state, probe, at, ImVec2(at.x + ImGui::CalcItemWidth(), at.y + ImGui::GetFrameHeight()));
  if (ImGui::BeginCombo(label, preview.c_str(), ImGuiComboFlags_HeightLarge)) {
    Backend group = Backend::CPU;
    bool first = true;
    for (const MethodChoice& c : choices) {
      const Method& m = *c.method;
      if (first || m.backend != group) {
        if (!first) ImGui::Separator();
        ImGui::TextDisabled("%s", m.backend == Backend::GPU       ? "GPU kernels"
                                  : m.backend == Backend::Emulate ? "CPU emulations (fragment by fragment)"
                                                                  : "CPU");
        group = m.backend;
        first = false;
      }
      const MethodKey k = key_of(m);
      const std::string text = k.label() + "  " + std::string(to_string(m.precision));
      ImGui::BeginDisabled(!c.selectable());
      if (ImGui::Selectable(text.c_str(), k == key) && !(k == key)) {
        key = k;
        changed = true;
      }
      ImGui::EndDisabled();
      probe_last_item(state, probe + "." + k.probe_name());
      if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip("%s", !c.unavailable.empty() ? ("unavailable here: " + c.unavailable).c_str()
                                : !c.unsupported.empty() ? ("cannot take this stencil: " + c.unsupported).c_str()
                                                         : m.description.c_str());
    }
    ImGui::EndCombo();
  }
  return changed;
}

} // namespace se
