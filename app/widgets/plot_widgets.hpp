// Plots the Simulation, Compare and Performance windows share: x-y plots (lines, points, log-log; xy_plot.cpp) and
// bar charts (bar_chart.cpp) drawn on ImDrawList with axes, ticks, legend, hover tooltips, zoom and PNG export
// (plot_frame.cpp).
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <imgui.h>


namespace se {

enum class AxisScale { Linear, Log };

struct AxisTick {
  double value = 0;
  std::string label; // empty for a minor tick
};
// Ticks covering [lo, hi]: 1-2-5 steps on a linear axis, decades (and 2..9 minor ticks when few) on a log
// axis. Pure, so it is tested without a GL context. Log axes need 0 < lo < hi.
std::vector<AxisTick> axis_ticks(double lo, double hi, AxisScale scale, int max_major = 8);
std::string tick_label(double value); // "0.5", "1e+09", "100"

struct PlotSeries {
  enum class Style { Line, Points, LineAndPoints, DashedLine };
  std::string name;             // in the legend (empty: not listed)
  ImU32 color = IM_COL32(255, 255, 255, 255);
  Style style = Style::Points;
  bool hollow = false;          // hollow markers (model points), filled (measurements)
  std::vector<double> x, y;
  std::vector<std::string> hover; // optional text per point, shown when hovered
};

struct XYPlot {
  std::string title, x_label, y_label;
  AxisScale x_scale = AxisScale::Linear, y_scale = AxisScale::Linear;
  std::vector<PlotSeries> series;
  // The range shown before any zoom; from the data when absent.
  std::optional<double> x_min, x_max, y_min, y_max;
  std::map<std::string, std::size_t> keys; // series by key, for series_for

  // The series filed under `key`, made as a copy of `prototype` the first time, so points are added by name.
  PlotSeries& series_for(const std::string& key, const PlotSeries& prototype);
};
XYPlot log_log_plot(std::string title, std::string x_label, std::string y_label);

struct BarChart {
  std::string title, value_label;
  AxisScale scale = AxisScale::Linear;
  std::vector<std::string> labels;
  // Per bar (or empty): the group it belongs to ("this machine", "H200"), named once under each run of its bars, so
  // the labels need not repeat it (24 labels each ending in "emu" or "H200" were cut to "c…e" at a lecture's font).
  std::vector<std::string> groups;
  std::vector<double> values;
  std::vector<ImU32> colors;
  std::vector<std::string> hover;
};

// What a plot keeps between frames: the zoomed range and a pending PNG export. Lives in a view's memory
// (its address is handed to the renderer for the export, so it must not move while a frame is drawn).
struct PlotView {
  bool zoomed = false;
  double x0 = 0, x1 = 1, y0 = 0, y1 = 1;  // the zoomed range, in data units
  double shown_x0 = 0, shown_x1 = 1, shown_y0 = 0, shown_y1 = 1; // what the last frame showed
  bool box_active = false;
  ImVec2 box_from{};
  int hovered_series = -1, hovered_point = -1;
  // PNG export: set png_path; the next frame reads the plot's pixels back as it is rendered and writes them.
  std::string png_path;
  std::string png_written; // the path of the last PNG written
  std::string png_error;
  float rect[4] = {0, 0, 0, 0}; // the plot's screen rectangle in the last frame
  float data_rect[4] = {0, 0, 0, 0}; // its data area (x0, y0, x1, y1), where shown_* map to
};

// Draws the plot into a `size` rectangle at the cursor (an invisible button takes the input). Mouse wheel
// zooms around the cursor, left drag pans, right drag zooms into a box, double click resets.
void draw_xy_plot(const char* id, const XYPlot& plot, PlotView& view, ImVec2 size);
// The same for bars; returns how many labels were shortened to fit (their whole names in the bars' tooltips), a
// group's name counted where even its first word was cut.
int draw_bar_chart(const char* id, const BarChart& chart, PlotView& view, ImVec2 size);

// Queues the export of the plot drawn with `view` to `path` (written during this frame's rendering).
void request_png(PlotView& view, std::string path);

// A palette of distinct colours for series, by index.
ImU32 series_color(int index);

} // namespace se
