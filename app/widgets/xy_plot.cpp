// X-y plots on ImDrawList: lines, points and dashed roofs, linear or log axes, legend, hover, zoom, PNG export.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "app/widgets/plot_frame.hpp"
#include "app/widgets/ui_units.hpp"

namespace se {

using namespace se::plot;

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

  PlotFrame f = begin_frame(id, plot.title, size, y_tick_margin(y0, y1, plot.y_scale), plot.y_label);
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
  const float line_w = ui_px(2.0f), point_r = ui_px(5.0f), line_point_r = ui_px(3.5f);
  const float pick = ui_px(9.0f); // a point this near the mouse is hovered
  float best = pick * pick;
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
          draw_dashed(draw, points[i - 1], points[i], s.color, line_w);
        else
          draw->AddLine(points[i - 1], points[i], s.color, line_w);
      }
    draw->ChannelsSetCurrent(2);
    const bool markers = s.style == PlotSeries::Style::Points || s.style == PlotSeries::Style::LineAndPoints;
    for (std::size_t i = 0; i < points.size(); ++i) {
      if (markers) draw_marker(draw, points[i], s.color, s.hollow, s.style == PlotSeries::Style::Points ? point_r : line_point_r);
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
  if (view.hovered_series >= 0) draw->AddCircle(best_at, ui_px(8.0f), IM_COL32(255, 255, 255, 230), 16, ui_px(1.5f));
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

} // namespace se
