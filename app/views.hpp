// The explorer's windows ("views"): what each draw function receives, the list of views, and the
// default layout. Adding a view is one window_<name>.cpp file and one line in explorer_views().
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include <imgui.h>

#include "app/explorer_state.hpp"
#include "app/heatmap_renderer.hpp"
#include "app/simulation.hpp"

namespace se {

// Facts about the machine shown in the status line, gathered once at start.
struct EnvironmentInfo {
  std::string compute_device; // se::query_device().summary()
  std::string gl_renderer;
  std::string gl_version;
  std::string platform;
};

// Everything a window may read or change, passed explicitly (no globals).
struct ViewContext {
  ExplorerState& state;
  Simulation& simulation;
  HeatmapRenderer& heatmap;
  const EnvironmentInfo& environment;
};

using DrawView = void (*)(ViewContext&);
struct ViewEntry {
  const char* name;  // for --view and tests
  const char* title; // the ImGui window title (also its key in imgui.ini)
  DrawView draw;
};
const std::vector<ViewEntry>& explorer_views();

void draw_stencil_window(ViewContext& ctx);
void draw_simulation_window(ViewContext& ctx);
void draw_status_line(ViewContext& ctx);

// Height the status line takes at the bottom of the display.
float status_line_height();
// Where a view goes the first time (before imgui.ini knows it), as fractions of the display so the
// layout also works on displays other than the default 1600x1000.
void set_default_window_rect(std::string_view view_name);

// A window's message line: red for errors, green for confirmations; nothing when empty.
void draw_message(const UiMessage& message);

// Records the last submitted item's rectangle under `name` (see WidgetProbes).
void probe_last_item(ExplorerState& state, std::string name);
void probe_rect(ExplorerState& state, std::string name, ImVec2 min, ImVec2 max);

} // namespace se
