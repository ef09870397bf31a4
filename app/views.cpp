// The view list and the default layout: Stencil editor on the left, Simulation on the right, the
// status line along the bottom.
#include "app/views.hpp"

#include <algorithm>

namespace se {

const std::vector<ViewEntry>& explorer_views() {
  static const std::vector<ViewEntry> views{
      {"stencil", "Stencil", draw_stencil_window},
      {"simulation", "Simulation", draw_simulation_window},
  };
  return views;
}

float status_line_height() { return ImGui::GetFrameHeight() + 2.0f * ImGui::GetStyle().WindowPadding.y; }

void set_default_window_rect(std::string_view view_name) {
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  const float margin = 8.0f;
  const float height = display.y - status_line_height() - 2.0f * margin;
  const float left_width = std::clamp(display.x * 0.26f, 340.0f, 520.0f);
  ImVec2 pos(margin, margin), size(left_width, height);
  if (view_name == "simulation") {
    pos = ImVec2(2.0f * margin + left_width, margin);
    size = ImVec2(display.x - 3.0f * margin - left_width, height);
  }
  ImGui::SetNextWindowPos(pos, ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(size, ImGuiCond_FirstUseEver);
}

void draw_message(const UiMessage& m) {
  if (m.text.empty()) return;
  const ImVec4 color = m.error ? ImVec4(1.0f, 0.42f, 0.38f, 1.0f) : ImVec4(0.55f, 0.85f, 0.55f, 1.0f);
  ImGui::PushStyleColor(ImGuiCol_Text, color);
  ImGui::TextWrapped("%s", m.text.c_str());
  ImGui::PopStyleColor();
}

void probe_rect(ExplorerState& state, std::string name, ImVec2 min, ImVec2 max) {
  state.probes[std::move(name)] = WidgetRect{min.x, min.y, max.x, max.y};
}

void probe_last_item(ExplorerState& state, std::string name) {
  probe_rect(state, std::move(name), ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
}

} // namespace se
