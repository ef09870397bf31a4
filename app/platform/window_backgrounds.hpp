// Window backgrounds from the cleared framebuffer. On a software renderer (llvmpipe) most of a frame is spent
// shading fragments, and the windows' opaque backgrounds cover nearly the whole display. Where nothing drawn
// before a window overlaps it, its background would only paint one flat colour over the clear colour: clearing
// the framebuffer to that colour instead and painting the clear colour into the gaps between the windows gives
// the same pixels for a few percent of the shading.
#pragma once
#include <memory>
#include <span>
#include <vector>

#include <imgui.h>

struct ImGuiWindow;

namespace se {

struct PixelRect {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  bool empty() const { return x1 <= x0 || y1 <= y0; }
  bool overlaps(const PixelRect& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
  float area() const { return empty() ? 0.0f : (x1 - x0) * (y1 - y0); }
};

// What one draw list of a frame may paint, in drawing order.
struct DrawnArea {
  PixelRect rect;
  bool wants_clear = false; // a window whose opaque background the clear could stand in for
};
struct BackgroundPlan {
  std::vector<bool> on_clear; // per area: wants_clear and nothing drawn before it overlaps it
  std::vector<PixelRect> gaps; // the display outside every window on the clear, as disjoint rectangles
};
// Which windows keep the cleared framebuffer as their background, and what of `display` lies outside them.
BackgroundPlan plan_window_backgrounds(std::span<const DrawnArea> areas, const PixelRect& display);

class WindowBackgrounds {
public:
  WindowBackgrounds();
  ~WindowBackgrounds();
  void set_enabled(bool on) { enabled_ = on; }
  bool enabled() const { return enabled_; }

  // ImGui::Begin for a top-level window. Enabled, ImGui draws no background for it (when its WindowBg is opaque)
  // and finish() supplies one: the cleared framebuffer, or a drawn one where something drawn earlier overlaps it.
  bool begin(const char* name, bool* open = nullptr, ImGuiWindowFlags flags = 0);

  // After ImGui::Render(): completes the draw data (gaps in `clear`, the drawn backgrounds) and returns the
  // colour to clear the framebuffer to. Disabled or with no window begun, it changes nothing and returns `clear`.
  ImVec4 finish(ImDrawData& data, const ImVec4& clear);
  int windows_on_clear() const { return windows_on_clear_; } // of the last finish()

private:
  struct Begun {
    ImGuiWindow* window;
    ImU32 colour;
  };
  ImDrawList& scratch_list(std::size_t i);

  bool enabled_ = false;
  std::vector<Begun> begun_;
  std::vector<std::unique_ptr<ImDrawList>> scratch_; // [0]: the gaps; then one per background drawn
  std::vector<ImDrawList*> lists_;                   // the draw data's lists with ours among them
  int windows_on_clear_ = 0;
};

} // namespace se
