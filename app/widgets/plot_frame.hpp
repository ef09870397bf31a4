// The parts every plot shares (plot_frame.cpp), for the plot files of this folder (xy_plot.cpp, bar_chart.cpp):
// the frame of a plot (widget, data area, title), axis scales, ticks and labels, legend, zoom, markers and export.
#pragma once
#include <string>
#include <vector>

#include <imgui.h>

#include "app/widgets/plot_widgets.hpp"

namespace se::plot {

constexpr ImU32 kAxisColor = IM_COL32(150, 155, 165, 255);
constexpr ImU32 kGridColor = IM_COL32(70, 74, 84, 255);
constexpr ImU32 kMinorGridColor = IM_COL32(50, 53, 61, 255);
constexpr ImU32 kPlotBackground = IM_COL32(24, 26, 31, 255);

// Data value -> [0, 1] along an axis and back; log axes map decades evenly.
double to_unit(double v, double lo, double hi, AxisScale s);
double from_unit(double u, double lo, double hi, AxisScale s);
bool plottable(double v, AxisScale s); // finite, and positive on a log axis
// [lo, hi] padded a little (5% of the span, or a factor on log axes) and never empty.
void pad_range(double& lo, double& hi, AxisScale s);

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

// The widget (an invisible button of `size` at the cursor, `left_margin` for the y ticks), its background and title;
// a `y_label` gets a line above the data area (draw_axis_labels draws it there).
PlotFrame begin_frame(const char* id, const std::string& title, ImVec2 size, float left_margin,
                      const std::string& y_label = {});
// Records the plot's rectangles in `view` and queues its PNG export when one was requested.
void finish_frame(const PlotFrame& f, PlotView& view);
void draw_x_ticks(ImDrawList* draw, const PlotFrame& f, double lo, double hi, AxisScale s, bool grid);
void draw_y_ticks(ImDrawList* draw, const PlotFrame& f, double lo, double hi, AxisScale s);
float y_tick_margin(double lo, double hi, AxisScale s); // room the y tick labels need
void draw_axis_labels(ImDrawList* draw, const PlotFrame& f, const std::string& x_label, const std::string& y_label);
void draw_marker(ImDrawList* draw, ImVec2 p, ImU32 color, bool hollow, float r);
void draw_dashed(ImDrawList* draw, ImVec2 a, ImVec2 b, ImU32 color, float thickness);

// A legend's size: long legends use a smaller font and several columns to fit `max_w` x `max_h`; whatever
// still does not fit ends in "+N more" (each entry's point still has its name in the hover tooltip).
struct LegendLayout {
  std::vector<const PlotSeries*> entries;
  float size = 0, col_w = 0, row_h = 0, box_w = 0, box_h = 0;
  int rows = 0, cols = 1, shown = 0;
};

LegendLayout measure_legend(const std::vector<PlotSeries>& series, float max_w, float max_h);
void draw_legend(ImDrawList* draw, const LegendLayout& l, ImVec2 a);
// Where the legend goes: into the corner of the data area that hides the fewest data (points, and lines sampled
// along their length, in unit coordinates); when every corner hides some, beside the data area, which then
// narrows (if it keeps 60% of its width). Returns the legend's top left corner.
ImVec2 place_legend(PlotFrame& f, LegendLayout& legend, const std::vector<PlotSeries>& series,
                    const std::vector<ImVec2>& unit_points);
// Zoom (wheel about the cursor, right-drag box), pan (left drag) and reset (double click), applied to the range
// shown in unit coordinates so log axes zoom evenly.
void handle_zoom(const PlotFrame& f, PlotView& view, double& x0, double& x1, double& y0, double& y1, AxisScale xs,
                 AxisScale ys, bool zoom_y);

} // namespace se::plot
