// The view list and the layouts: the free layout (Stencil editor on the left, the other views on the right),
// one view shown large, and the space the menu and lecture bars take at the top.
#include "app/views/views.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <fmt/format.h>

#include "app/widgets/ui_units.hpp"

namespace se {

const std::vector<ViewEntry>& explorer_views() {
  static const std::vector<ViewEntry> views{
      {"stencil", "Stencil", draw_stencil_window},
      {"simulation", "Simulation", draw_simulation_window},
      {"pyramid", "Rank-1 pyramid (LoRAStencil)", draw_pyramid_window},
      {"sparse24", "2:4 swapping (SPIDER)", draw_sparse24_window},
      {"params", "Parameter matrices (TCStencil, ConvStencil)", draw_params_window},
      {"fft", "FFT (FlashFFTStencil)", draw_fft_window},
      {"fragments", "Fragments", draw_fragments_window},
      {"compare", "Runs side by side", draw_compare_window},
      {"performance", "Performance", draw_performance_window},
      {"baselines", "Baselines: CUDA cores against tensor cores", draw_baselines_window},
      {"table2", "Table 2 (SPIDER): per-point costs", draw_table2_window},
      {"dag", "Complex stencils (Plasticine): DAG editor", draw_dag_window},
  };
  return views;
}

const ViewEntry* find_view(std::string_view name) {
  for (const ViewEntry& v : explorer_views())
    if (name == v.name) return &v;
  return nullptr;
}

std::string view_names() {
  std::string out;
  for (const ViewEntry& v : explorer_views()) out += (out.empty() ? "" : ", ") + std::string(v.name);
  return out;
}

bool ViewLayout::is_open(std::string_view name) const {
  const auto it = open.find(name);
  return it != open.end() && it->second;
}

void ViewLayout::set_open(std::string_view name, bool value) {
  const auto it = open.find(name);
  if (it == open.end())
    open.emplace(std::string(name), value);
  else
    it->second = value;
}

void ViewLayout::show_focused(std::string_view name) {
  focus = std::string(name);
  for (const ViewEntry& v : explorer_views()) set_open(v.name, false);
  set_open("stencil", true); // beside the focused view when it fits (set_default_window_rect)
  set_open(focus.empty() ? "simulation" : focus, true);
  rearrange();
}

std::string ViewLayout::take_page_request(std::string_view view) {
  const auto it = page_request.find(view);
  if (it == page_request.end()) return {};
  std::string page = std::move(it->second);
  page_request.erase(it);
  return page;
}

float status_line_height() { return ImGui::GetFrameHeight() + 2.0f * ImGui::GetStyle().WindowPadding.y; }

namespace {

// The Stencil editor's column: a quarter of the display, within readable bounds (at UI scale `scale`).
float left_column_width(float display_width, float scale) {
  return std::clamp(display_width * 0.26f, 340.0f * scale, std::max(520.0f * scale, 340.0f * scale));
}
// Below this width (at UI scale 1) a view shown large takes the whole display and the Stencil editor stays closed.
constexpr float kFocusWithEditorMinWidth = 1100.0f;

} // namespace

void set_default_window_rect(std::string_view view_name) {
  const ImGuiIO& io = ImGui::GetIO();
  ViewLayout* layout = static_cast<ViewLayout*>(io.UserData);
  const ImVec2 display = io.DisplaySize;
  const float scale = layout != nullptr ? layout->scale : 1.0f;
  const float margin = 8.0f * scale;
  const float top = margin + (layout != nullptr ? layout->top : 0.0f);
  const float height = display.y - status_line_height() - top - margin;
  const float left_width = left_column_width(display.x, scale);
  const ImVec2 right_pos(2.0f * margin + left_width, top);
  const ImVec2 right_size(display.x - 3.0f * margin - left_width, height);
  ImVec2 pos(margin, top), size(left_width, height);
  if (layout != nullptr && !layout->focus.empty()) {
    const bool editor_fits = display.x >= kFocusWithEditorMinWidth * scale && layout->focus != "stencil";
    if (view_name == layout->focus) {
      pos = editor_fits ? right_pos : ImVec2(margin, top);
      size = editor_fits ? right_size : ImVec2(display.x - 2.0f * margin, height);
    } else if (view_name != "stencil") {
      pos = right_pos, size = right_size;
    }
  } else if (view_name != "stencil") {
    pos = right_pos, size = right_size;
  }
  ImGuiCond cond = ImGuiCond_FirstUseEver;
  if (layout != nullptr) {
    auto [it, inserted] = layout->placed.try_emplace(std::string(view_name), 0);
    if (it->second != layout->generation) {
      // Moved when the arrangement changed since this window was last placed (a --view, a lecture step),
      // but not on the first placement of the free layout, which imgui.ini may remember better.
      if (!inserted || layout->generation > 1 || !layout->focus.empty()) cond = ImGuiCond_Always;
      it->second = layout->generation;
    }
  }
  ImGui::SetNextWindowPos(pos, cond);
  ImGui::SetNextWindowSize(size, cond);
}

bool begin_window(ViewContext& ctx, const char* title, bool* open, ImGuiWindowFlags flags) {
  return ctx.backgrounds != nullptr ? ctx.backgrounds->begin(title, open, flags) : ImGui::Begin(title, open, flags);
}

bool begin_view_window(ViewContext& ctx, const char* name, const char* title) {
  set_default_window_rect(name);
  const bool expanded = begin_window(ctx, title, ctx.open);
  probe_rect(ctx.state, std::string(name) + ".window", ImGui::GetWindowPos(),
             ImVec2(ImGui::GetWindowPos().x + ImGui::GetWindowSize().x, ImGui::GetWindowPos().y + ImGui::GetWindowSize().y));
  return expanded;
}

bool begin_view_page(ViewContext& ctx, const char* view, const char* page, const char* label, std::string_view requested) {
  const bool shown = ImGui::BeginTabItem(label, nullptr, requested == page ? ImGuiTabItemFlags_SetSelected : 0);
  probe_last_item(ctx.state, std::string(view) + ".tab." + page);
  if (shown) publish(ctx, std::string(view) + ".page", page);
  return shown;
}

void draw_message(const UiMessage& m) {
  if (m.text.empty()) return;
  const ImVec4 color = m.error ? ImVec4(1.0f, 0.42f, 0.38f, 1.0f) : ImVec4(0.55f, 0.85f, 0.55f, 1.0f);
  ImGui::PushStyleColor(ImGuiCol_Text, color);
  ImGui::TextWrapped("%s", m.text.c_str());
  ImGui::PopStyleColor();
}

void draw_unsupported(const char* method, const std::string& reason) {
  ImGui::PushStyleColor(ImGuiCol_ChildBg, ImVec4(0.30f, 0.13f, 0.10f, 0.55f));
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(12, 10));
  const float lines = 3.0f + ImGui::CalcTextSize(reason.c_str(), nullptr, false, ImGui::GetContentRegionAvail().x - 24).y /
                                 ImGui::GetTextLineHeightWithSpacing();
  ImGui::BeginChild(ImGui::GetID(method), ImVec2(0, lines * ImGui::GetTextLineHeightWithSpacing()), true,
                    ImGuiWindowFlags_AlwaysUseWindowPadding | ImGuiWindowFlags_NoScrollbar);
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.62f, 0.52f, 1.0f));
  ImGui::Text("%s cannot take this stencil", method);
  ImGui::PopStyleColor();
  ImGui::TextWrapped("%s", reason.c_str());
  ImGui::EndChild();
  ImGui::PopStyleVar();
  ImGui::PopStyleColor();
}

void probe_rect(ExplorerState& state, std::string name, ImVec2 min, ImVec2 max) {
  state.probes[std::move(name)] = WidgetRect{min.x, min.y, max.x, max.y};
}

void probe_last_item(ExplorerState& state, std::string name) {
  probe_rect(state, std::move(name), ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
}

void publish(ViewContext& ctx, std::string key, std::string value) { ctx.facts[std::move(key)] = std::move(value); }

std::string fact_numbers(const std::vector<double>& values) {
  std::string out;
  char buffer[40];
  for (double v : values) {
    std::snprintf(buffer, sizeof buffer, "%.17g", v);
    if (!out.empty()) out += ' ';
    out += buffer;
  }
  return out;
}

namespace {

// The UI scale (remembered in state.json): the steps Ctrl + and Ctrl - go through, and what the monitor adds.
void draw_ui_scale_menu(ViewContext& ctx) {
  float& scale = ctx.state.view.ui_scale;
  const bool open = ImGui::BeginMenu("UI scale");
  probe_last_item(ctx.state, "menu.scale");
  if (!open) return;
  if (ImGui::MenuItem("Larger", "Ctrl +", false, scale < kMaxUiScale)) scale = next_ui_scale(scale, +1);
  if (ImGui::MenuItem("Smaller", "Ctrl -", false, scale > kMinUiScale)) scale = next_ui_scale(scale, -1);
  if (ImGui::MenuItem("Reset to 100%", "Ctrl 0", false, scale != 1.0f)) scale = 1.0f;
  ImGui::Separator();
  for (float s : kUiScaleSteps) {
    const std::string label = fmt::format("{:.0f}%", 100.0f * s);
    if (ImGui::MenuItem(label.c_str(), nullptr, std::abs(scale - s) < 1e-3f)) scale = s;
    probe_last_item(ctx.state, "menu.scale." + label);
  }
  ImGui::Separator();
  ImGui::TextDisabled("monitor content scale %.2f x UI scale %.2f = %.2f", ctx.environment.content_scale, scale,
                      ctx.environment.content_scale * scale);
  ImGui::EndMenu();
}

} // namespace

void draw_menu_bar(ViewContext& ctx) {
  ViewLayout& layout = ctx.layout;
  if (!ImGui::BeginMainMenuBar()) {
    layout.top = 0;
    return;
  }
  layout.top = ImGui::GetWindowSize().y;
  if (ImGui::BeginMenu("Views")) {
    for (const ViewEntry& v : explorer_views()) {
      bool open = layout.is_open(v.name);
      if (ImGui::MenuItem(v.title, nullptr, &open)) layout.set_open(v.name, open);
      probe_last_item(ctx.state, std::string("menu.view.") + v.name);
    }
    ImGui::Separator();
    if (ImGui::BeginMenu("Show one view large")) {
      for (const ViewEntry& v : explorer_views()) {
        if (ImGui::MenuItem(v.title, nullptr, layout.focus == v.name)) {
          stop_lecture_tour(layout, ctx.lecture);
          layout.show_focused(v.name);
        }
        probe_last_item(ctx.state, std::string("menu.focus.") + v.name);
      }
      ImGui::EndMenu();
    }
    if (ImGui::MenuItem("Default layout (Stencil and Simulation)")) {
      stop_lecture_tour(layout, ctx.lecture);
      layout.show_focused("");
    }
    ImGui::Separator();
    draw_ui_scale_menu(ctx);
    ImGui::EndMenu();
  }
  probe_last_item(ctx.state, "menu.views");
  if (ImGui::BeginMenu("Lecture")) {
    ImGui::MenuItem("Larger fonts", nullptr, &ctx.lecture.large_fonts);
    probe_last_item(ctx.state, "menu.lecture.fonts");
    bool touring = ctx.lecture.touring;
    if (ImGui::MenuItem("Guided tour", nullptr, &touring)) {
      if (touring)
        go_to_lecture_step(layout, ctx.lecture, ctx.state.stencil, 0);
      else
        stop_lecture_tour(layout, ctx.lecture);
    }
    probe_last_item(ctx.state, "menu.lecture.tour");
    if (ImGui::MenuItem("Next step", "PageDown", false, ctx.lecture.touring))
      go_to_lecture_step(layout, ctx.lecture, ctx.state.stencil, ctx.lecture.step + 1);
    if (ImGui::MenuItem("Previous step", "PageUp", false, ctx.lecture.touring))
      go_to_lecture_step(layout, ctx.lecture, ctx.state.stencil, ctx.lecture.step - 1);
    ImGui::EndMenu();
  }
  probe_last_item(ctx.state, "menu.lecture");
  ImGui::EndMainMenuBar();
}

} // namespace se
