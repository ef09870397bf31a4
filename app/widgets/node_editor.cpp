// The node editor of node_editor.hpp: everything drawn on the child window's ImDrawList, the interaction
// through invisible buttons (titles and pins first, the background last, so nodes take the mouse first).
#include "app/widgets/node_editor.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "app/widgets/ui_units.hpp"

namespace se {
namespace {

void draw_link(ImDrawList* dl, ImVec2 a, ImVec2 b, ImU32 color, float thickness) {
  const float dx = std::max(std::abs(b.x - a.x) * 0.5f, ui_px(30.0f));
  dl->AddBezierCubic(a, ImVec2(a.x + dx, a.y), ImVec2(b.x - dx, b.y), b, color, thickness);
}

float distance2(ImVec2 a, ImVec2 b) { return (a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y); }

// The input pin under `p` (other than node `except`), or -1.
int input_pin_at(const NodeEditor::Frame& f, ImVec2 p, int except) {
  const float reach = f.pin_radius * 2.5f;
  for (std::size_t i = 0; i < f.in_pin.size(); ++i)
    if (static_cast<int>(i) != except && (*f.nodes)[i].input_pin && distance2(p, f.in_pin[i]) <= reach * reach)
      return static_cast<int>(i);
  return -1;
}

} // namespace

NodeEditor::Frame NodeEditor::begin(const char* id, ImVec2 size, std::vector<NodeEditorNode>& nodes,
                                    const std::vector<NodeEditorLink>& links, float node_width) {
  Frame f;
  f.nodes = &nodes;
  f.links = &links;
  ImGui::PushStyleColor(ImGuiCol_ChildBg, IM_COL32(28, 30, 36, 255));
  ImGui::BeginChild(id, size, true, ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse | ImGuiWindowFlags_NoMove);
  ImGui::PopStyleColor();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  f.canvas_min = ImGui::GetWindowPos();
  f.canvas_max = ImVec2(f.canvas_min.x + ImGui::GetWindowSize().x, f.canvas_min.y + ImGui::GetWindowSize().y);
  ImGui::SetWindowFontScale(1.0f); // the fit measures at zoom 1 (the scale stays set between frames)
  if (fit_pending && !nodes.empty()) {
    fit_pending = false;
    // Every node inside the canvas, with a margin; never enlarged beyond zoom 1.
    ImVec2 lo(1e30f, 1e30f), hi(-1e30f, -1e30f);
    for (const NodeEditorNode& n : nodes) {
      const float title = (n.detail.empty() ? 1.0f : 2.0f) * ImGui::GetTextLineHeight() + ui_px(12.0f);
      lo = ImVec2(std::min(lo.x, n.pos.x), std::min(lo.y, n.pos.y));
      hi = ImVec2(std::max(hi.x, n.pos.x + (n.width > 0 ? n.width : node_width)),
                  std::max(hi.y, n.pos.y + title + n.body_height + ui_px(12.0f)));
    }
    const float margin = ui_px(12.0f);
    const float w = f.canvas_max.x - f.canvas_min.x - 2.0f * margin, h = f.canvas_max.y - f.canvas_min.y - 2.0f * margin;
    zoom = std::clamp(std::min(w / std::max(1.0f, hi.x - lo.x), h / std::max(1.0f, hi.y - lo.y)), 0.3f, 1.0f);
    scroll = ImVec2(margin - lo.x * zoom, margin - lo.y * zoom);
  }
  // The mouse wheel over the canvas zooms about the mouse.
  if (ImGui::IsWindowHovered() && ImGui::GetIO().MouseWheel != 0) {
    const float old = zoom;
    zoom = std::clamp(zoom * (ImGui::GetIO().MouseWheel > 0 ? 1.1f : 1.0f / 1.1f), 0.3f, 2.0f);
    const ImVec2 m(ImGui::GetIO().MousePos.x - f.canvas_min.x, ImGui::GetIO().MousePos.y - f.canvas_min.y);
    scroll = ImVec2(m.x - (m.x - scroll.x) * zoom / old, m.y - (m.y - scroll.y) * zoom / old);
  }
  ImGui::SetWindowFontScale(zoom);
  node_width *= zoom;
  const ImVec2 origin(f.canvas_min.x + scroll.x, f.canvas_min.y + scroll.y);

  // A grid on the background, moving with the canvas.
  const float step = ui_px(32.0f);
  for (float x = std::fmod(scroll.x, step); x < f.canvas_max.x - f.canvas_min.x; x += step)
    dl->AddLine(ImVec2(f.canvas_min.x + x, f.canvas_min.y), ImVec2(f.canvas_min.x + x, f.canvas_max.y), IM_COL32(45, 48, 56, 255));
  for (float y = std::fmod(scroll.y, step); y < f.canvas_max.y - f.canvas_min.y; y += step)
    dl->AddLine(ImVec2(f.canvas_min.x, f.canvas_min.y + y), ImVec2(f.canvas_max.x, f.canvas_min.y + y), IM_COL32(45, 48, 56, 255));

  const float line = ImGui::GetTextLineHeight();
  f.pad = ui_px(6.0f);
  f.pin_radius = ui_px(6.0f);
  f.body_width = node_width - 2.0f * f.pad;
  const std::size_t n = nodes.size();
  f.node_min.resize(n), f.node_max.resize(n), f.out_pin.resize(n), f.in_pin.resize(n);
  f.title_height.resize(n);
  for (std::size_t i = 0; i < n; ++i) f.title_height[i] = line * (nodes[i].detail.empty() ? 1.0f : 2.0f) + 2.0f * f.pad;
  for (std::size_t i = 0; i < n; ++i) {
    const NodeEditorNode& node = nodes[i];
    f.node_min[i] = ImVec2(origin.x + node.pos.x * zoom, origin.y + node.pos.y * zoom);
    const float h = f.title_height[i] + (node.body_height > 0 ? node.body_height * zoom + 2.0f * f.pad : 0.0f);
    f.node_max[i] = ImVec2(f.node_min[i].x + (node.width > 0 ? node.width * zoom : node_width), f.node_min[i].y + h);
    const float pin_y = f.node_min[i].y + f.title_height[i] * 0.5f;
    f.out_pin[i] = ImVec2(f.node_max[i].x, pin_y);
    f.in_pin[i] = ImVec2(f.node_min[i].x, pin_y);
  }

  // Layers: links and the grid in 0, node i in layer[i] (the selected node and nodes with errors last), the
  // link being dragged on top.
  f.splitter = &splitter_;
  f.layer.assign(n, 0);
  {
    int next = 1;
    for (int pass = 0; pass < 2; ++pass)
      for (std::size_t i = 0; i < n; ++i)
        if ((nodes[i].selected || nodes[i].error) == (pass == 1)) f.layer[i] = next++;
  }
  splitter_.Split(dl, static_cast<int>(n) + 2);
  splitter_.SetCurrentChannel(dl, 0);
  // Links under the nodes.
  for (const NodeEditorLink& l : links)
    if (l.from >= 0 && l.to >= 0 && l.from < static_cast<int>(n) && l.to < static_cast<int>(n))
      draw_link(dl, f.out_pin[l.from], f.in_pin[l.to], l.color, ui_px(2.0f));

  const float rounding = ui_px(5.0f);
  for (std::size_t i = 0; i < n; ++i) {
    NodeEditorNode& node = nodes[i];
    splitter_.SetCurrentChannel(dl, f.layer[i]);
    const ImVec2 a = f.node_min[i], b = f.node_max[i];
    dl->AddRectFilled(a, b, IM_COL32(52, 55, 64, 245), rounding);
    dl->AddRectFilled(a, ImVec2(b.x, a.y + f.title_height[i]), node.header, rounding,
                      node.body_height > 0 ? ImDrawFlags_RoundCornersTop : ImDrawFlags_RoundCornersAll);
    const ImU32 outline = node.error ? IM_COL32(255, 90, 80, 255) : node.selected ? IM_COL32(255, 255, 255, 230)
                                                                                  : IM_COL32(20, 20, 24, 255);
    dl->AddRect(a, b, outline, rounding, 0, node.error || node.selected ? ui_px(2.0f) : 1.0f);
    dl->PushClipRect(a, ImVec2(b.x - f.pin_radius, b.y), true);
    dl->AddText(ImVec2(a.x + f.pad + (node.input_pin ? f.pin_radius : 0.0f), a.y + f.pad), IM_COL32(16, 16, 20, 255),
                node.title.c_str());
    if (!node.detail.empty())
      dl->AddText(ImVec2(a.x + f.pad + (node.input_pin ? f.pin_radius : 0.0f), a.y + f.pad + line),
                  IM_COL32(30, 30, 36, 230), node.detail.c_str());
    dl->PopClipRect();

    // The title drags the node.
    ImGui::PushID(static_cast<int>(i));
    ImGui::SetCursorScreenPos(ImVec2(a.x + (node.input_pin ? 2.0f * f.pin_radius : 0.0f), a.y));
    ImGui::InvisibleButton("title", ImVec2(std::max(1.0f, b.x - a.x - 2.0f * f.pin_radius - (node.input_pin ? 2.0f * f.pin_radius : 0.0f)),
                                           f.title_height[i]));
    if (ImGui::IsItemActivated()) moved_ = false;
    if (ImGui::IsItemActive() && ImGui::IsMouseDragging(ImGuiMouseButton_Left, 1.0f)) {
      const ImVec2 d = ImGui::GetIO().MouseDelta;
      if (d.x != 0 || d.y != 0) {
        node.pos.x += d.x / zoom, node.pos.y += d.y / zoom;
        moved_ = true;
      }
      f.moving = static_cast<int>(i);
    }
    if (ImGui::IsItemDeactivated()) {
      if (moved_) f.move_finished = true;
      else f.clicked = static_cast<int>(i);
      moved_ = false;
    }
    // The output pin: dragged onto an input pin, it asks for a link.
    const float r = f.pin_radius;
    ImGui::SetCursorScreenPos(ImVec2(f.out_pin[i].x - 2.0f * r, f.out_pin[i].y - 2.0f * r));
    ImGui::InvisibleButton("out", ImVec2(4.0f * r, 4.0f * r));
    const bool out_hovered = ImGui::IsItemHovered() || dragging_pin == static_cast<int>(i);
    if (ImGui::IsItemActivated()) dragging_pin = static_cast<int>(i);
    if (ImGui::IsItemDeactivated() && dragging_pin == static_cast<int>(i)) {
      const int target = input_pin_at(f, ImGui::GetIO().MousePos, dragging_pin);
      if (target >= 0) f.link_from = dragging_pin, f.link_to = target;
      dragging_pin = -1;
    }
    dl->AddCircleFilled(f.out_pin[i], r, out_hovered ? IM_COL32(255, 220, 120, 255) : IM_COL32(220, 220, 230, 255));
    dl->AddCircle(f.out_pin[i], r, IM_COL32(20, 20, 24, 255));
    if (node.input_pin) {
      ImGui::SetCursorScreenPos(ImVec2(f.in_pin[i].x - 2.0f * r, f.in_pin[i].y - 2.0f * r));
      ImGui::InvisibleButton("in", ImVec2(4.0f * r, 4.0f * r));
      dl->AddCircleFilled(f.in_pin[i], r, IM_COL32(150, 200, 255, 255));
      dl->AddCircle(f.in_pin[i], r, IM_COL32(20, 20, 24, 255));
    }
    ImGui::PopID();
  }
  return f;
}

void NodeEditor::end(Frame& f) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  // The background pans the canvas (submitted last: nodes and their widgets take the mouse first).
  ImGui::SetCursorScreenPos(f.canvas_min);
  ImGui::InvisibleButton("background", ImVec2(std::max(1.0f, f.canvas_max.x - f.canvas_min.x),
                                              std::max(1.0f, f.canvas_max.y - f.canvas_min.y)));
  if (ImGui::IsItemActive() && ImGui::IsMouseDragging(ImGuiMouseButton_Left, 1.0f)) {
    scroll.x += ImGui::GetIO().MouseDelta.x;
    scroll.y += ImGui::GetIO().MouseDelta.y;
  }
  splitter_.SetCurrentChannel(dl, static_cast<int>(f.out_pin.size()) + 1);
  if (dragging_pin >= 0 && dragging_pin < static_cast<int>(f.out_pin.size())) {
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    const int target = input_pin_at(f, mouse, dragging_pin);
    const ImVec2 end = target >= 0 ? f.in_pin[target] : mouse;
    draw_link(dl, f.out_pin[dragging_pin], end, IM_COL32(255, 220, 120, 255), ui_px(2.5f));
    if (target >= 0) dl->AddCircle(f.in_pin[target], f.pin_radius * 1.8f, IM_COL32(255, 220, 120, 255), 0, ui_px(2.0f));
  }
  splitter_.Merge(dl);
  ImGui::EndChild();
}

} // namespace se
