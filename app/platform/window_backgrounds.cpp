// Window backgrounds from the cleared framebuffer (see the header). ImGui draws a window's background as the first
// shape of its draw list (below the title bar, the bottom corners rounded; the title bar rounds the top ones), over
// whatever was drawn before the window. A window begun through WindowBackgrounds::begin gets its background alpha
// set to 0, so ImGui draws none; finish() then either leaves it to the clear (nothing drawn before it overlaps it)
// or draws it in a list of its own just before the window's list, the shape ImGui would have drawn.
#include "app/platform/window_backgrounds.hpp"

#include <algorithm>
#include <cmath>

#include <imgui_internal.h>

namespace se {

BackgroundPlan plan_window_backgrounds(std::span<const DrawnArea> areas, const PixelRect& display) {
  BackgroundPlan plan;
  plan.on_clear.assign(areas.size(), false);
  std::vector<PixelRect> kept;
  for (std::size_t i = 0; i < areas.size(); ++i) {
    const DrawnArea& a = areas[i];
    if (!a.wants_clear || a.rect.empty()) continue;
    bool free = true;
    for (std::size_t j = 0; j < i && free; ++j) free = !areas[j].rect.overlaps(a.rect);
    if (!free) continue;
    plan.on_clear[i] = true;
    const PixelRect k{std::max(a.rect.x0, display.x0), std::max(a.rect.y0, display.y0), std::min(a.rect.x1, display.x1),
                      std::min(a.rect.y1, display.y1)};
    if (!k.empty()) kept.push_back(k);
  }
  // The complement in horizontal bands between the kept windows' top and bottom edges; a gap that continues the one
  // of the band above (same columns) extends it.
  std::vector<float> ys{display.y0, display.y1};
  for (const PixelRect& k : kept) ys.insert(ys.end(), {k.y0, k.y1});
  std::sort(ys.begin(), ys.end());
  ys.erase(std::unique(ys.begin(), ys.end()), ys.end());
  const auto add_gap = [&](float x0, float x1, float y0, float y1) {
    for (PixelRect& g : plan.gaps)
      if (g.x0 == x0 && g.x1 == x1 && g.y1 == y0) {
        g.y1 = y1;
        return;
      }
    plan.gaps.push_back({x0, y0, x1, y1});
  };
  std::vector<std::pair<float, float>> spans;
  for (std::size_t b = 0; b + 1 < ys.size(); ++b) {
    const float y0 = ys[b], y1 = ys[b + 1];
    spans.clear();
    for (const PixelRect& k : kept)
      if (k.y0 <= y0 && k.y1 >= y1) spans.emplace_back(k.x0, k.x1);
    std::sort(spans.begin(), spans.end());
    float x = display.x0;
    for (const auto& [x0, x1] : spans) {
      if (x0 > x) add_gap(x, x0, y0, y1);
      x = std::max(x, x1);
    }
    if (x < display.x1) add_gap(x, display.x1, y0, y1);
  }
  return plan;
}

WindowBackgrounds::WindowBackgrounds() = default;
WindowBackgrounds::~WindowBackgrounds() = default;

bool WindowBackgrounds::begin(const char* name, bool* open, ImGuiWindowFlags flags) {
  constexpr ImGuiWindowFlags kOwnBackground = ImGuiWindowFlags_NoBackground | ImGuiWindowFlags_ChildWindow |
                                              ImGuiWindowFlags_Popup | ImGuiWindowFlags_Tooltip;
  const ImU32 colour = ImGui::GetColorU32(ImGuiCol_WindowBg);
  const bool take = enabled_ && (flags & kOwnBackground) == 0 && (colour & IM_COL32_A_MASK) == IM_COL32_A_MASK &&
                    (GImGui->NextWindowData.Flags & ImGuiNextWindowDataFlags_HasBgAlpha) == 0;
  if (take) ImGui::SetNextWindowBgAlpha(0.0f);
  const bool expanded = ImGui::Begin(name, open, flags);
  if (take) begun_.push_back({ImGui::GetCurrentWindow(), colour});
  return expanded;
}

ImDrawList& WindowBackgrounds::scratch_list(std::size_t i) {
  while (scratch_.size() <= i) scratch_.push_back(std::make_unique<ImDrawList>(ImGui::GetDrawListSharedData()));
  ImDrawList& list = *scratch_[i];
  list._ResetForNewFrame();
  list.PushTextureID(ImGui::GetIO().Fonts->TexID);
  list.PushClipRectFullScreen();
  return list;
}

namespace {

PixelRect window_rect(const ImGuiWindow& w) { return {w.Pos.x, w.Pos.y, w.Pos.x + w.Size.x, w.Pos.y + w.Size.y}; }

// Where a list that belongs to no window (ImGui's background and foreground lists) may paint: its vertices' bounds.
PixelRect vertex_bounds(const ImDrawList& list) {
  if (list.VtxBuffer.empty()) return {};
  PixelRect r{list.VtxBuffer[0].pos.x, list.VtxBuffer[0].pos.y, list.VtxBuffer[0].pos.x, list.VtxBuffer[0].pos.y};
  for (const ImDrawVert& v : list.VtxBuffer) {
    r.x0 = std::min(r.x0, v.pos.x), r.y0 = std::min(r.y0, v.pos.y);
    r.x1 = std::max(r.x1, v.pos.x), r.y1 = std::max(r.y1, v.pos.y);
  }
  return r;
}

// The background ImGui draws for `w` (RenderWindowDecorations): below the title bar, bottom corners rounded when
// there is a title bar (the title bar rounds the top ones), all four without one.
void add_window_background(ImDrawList& list, const ImGuiWindow& w, ImU32 colour) {
  list.AddRectFilled(ImVec2(w.Pos.x, w.Pos.y + w.TitleBarHeight()), ImVec2(w.Pos.x + w.Size.x, w.Pos.y + w.Size.y),
                     colour, w.WindowRounding,
                     (w.Flags & ImGuiWindowFlags_NoTitleBar) ? ImDrawFlags_None : ImDrawFlags_RoundCornersBottom);
}

// A window left to the clear has square corners there: outside its rounded corners the clear colour goes back,
// and where the background rounds a corner (not the title bar, which ImGui draws over it) the background's rounded
// edge is drawn again within the corner, so the anti-aliased edge blends as it did.
void add_window_corners(ImDrawList& list, const ImGuiWindow& w, ImU32 clear, ImU32 background) {
  const float r = w.WindowRounding;
  if (r <= 0.0f) return;
  const float side = std::ceil(r) + 1.0f, title = w.TitleBarHeight();
  const float bg_height = w.Size.y - title;
  const float x0 = w.Pos.x, y0 = w.Pos.y, x1 = w.Pos.x + w.Size.x, y1 = w.Pos.y + w.Size.y;
  for (const bool top : {true, false}) {
    const bool background_corner = !top || title <= 0.0f;
    const float h = std::min(side, top && title > 0.0f ? title : bg_height);
    if (h <= 0.0f) continue;
    for (const bool left : {true, false}) {
      const ImVec2 a(left ? x0 : x1 - side, top ? y0 : y1 - h), b(left ? x0 + side : x1, top ? y0 + h : y1);
      list.PushClipRect(a, b, true);
      list.AddRectFilled(a, b, clear);
      if (background_corner) add_window_background(list, w, background);
      list.PopClipRect();
    }
  }
}

} // namespace

ImVec4 WindowBackgrounds::finish(ImDrawData& data, const ImVec4& clear) {
  windows_on_clear_ = 0;
  std::vector<Begun> begun;
  begun.swap(begun_);
  if (!enabled_ || begun.empty() || !data.Valid || data.CmdListsCount == 0) return clear;
  const ImGuiContext& g = *GImGui;
  const ImU32 clear_colour = begun.front().colour; // the colour the clear stands in for
  const int n = data.CmdListsCount;
  std::vector<ImGuiWindow*> owner(static_cast<std::size_t>(n), nullptr);
  std::vector<const Begun*> taken(static_cast<std::size_t>(n), nullptr);
  std::vector<DrawnArea> areas(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    const ImDrawList* list = data.CmdLists[i];
    for (ImGuiWindow* w : g.Windows)
      if (w->DrawList == list) owner[i] = w;
    ImGuiWindow* w = owner[i];
    areas[i].rect = w != nullptr ? window_rect(*w) : vertex_bounds(*list);
    if (w == nullptr || w->Collapsed) continue; // a collapsed window draws its title bar alone
    for (const Begun& b : begun)
      if (b.window == w) taken[i] = &b;
    areas[i].wants_clear = taken[i] != nullptr && taken[i]->colour == clear_colour;
  }
  const PixelRect display{data.DisplayPos.x, data.DisplayPos.y, data.DisplayPos.x + data.DisplaySize.x,
                          data.DisplayPos.y + data.DisplaySize.y};
  const BackgroundPlan plan = plan_window_backgrounds(areas, display);
  const bool any_on_clear = std::find(plan.on_clear.begin(), plan.on_clear.end(), true) != plan.on_clear.end();
  const ImU32 gap_colour = ImGui::ColorConvertFloat4ToU32(clear);

  lists_.clear();
  std::size_t used = 0;
  const auto add_list = [&](ImDrawList& list) {
    list._PopUnusedDrawCmd();
    if (list.VtxBuffer.empty()) return;
    lists_.push_back(&list);
    data.TotalVtxCount += list.VtxBuffer.Size;
    data.TotalIdxCount += list.IdxBuffer.Size;
  };
  ImDrawList* gaps = nullptr;
  if (any_on_clear) {
    gaps = &scratch_list(used++);
    for (const PixelRect& r : plan.gaps) gaps->AddRectFilled(ImVec2(r.x0, r.y0), ImVec2(r.x1, r.y1), gap_colour);
    for (int i = 0; i < n; ++i)
      if (plan.on_clear[i]) {
        add_window_corners(*gaps, *owner[i], gap_colour, clear_colour);
        ++windows_on_clear_;
      }
    add_list(*gaps);
  }
  for (int i = 0; i < n; ++i) {
    if (taken[i] != nullptr && !plan.on_clear[i]) {
      ImDrawList& bg = scratch_list(used++);
      bg.Flags = owner[i]->DrawList->Flags;
      add_window_background(bg, *owner[i], taken[i]->colour);
      add_list(bg);
    }
    lists_.push_back(data.CmdLists[i]);
  }
  data.CmdLists = lists_.data();
  data.CmdListsCount = static_cast<int>(lists_.size());
  return any_on_clear ? ImGui::ColorConvertU32ToFloat4(clear_colour) : clear;
}

} // namespace se
