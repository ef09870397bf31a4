// Window backgrounds from the cleared framebuffer (software GL): which windows keep the clear as background, the
// gaps around them, and frames that come out the same pixel for pixel as with every background drawn.
#include <catch2/catch.hpp>
#include <imgui.h>

#include "app/platform/window_backgrounds.hpp"
#include "gui_test_support.hpp"

using namespace se;
using se::test::HeadlessExplorer;

namespace {

float total_area(const std::vector<PixelRect>& rects) {
  float a = 0;
  for (const PixelRect& r : rects) a += r.area();
  return a;
}

void check_disjoint(const std::vector<PixelRect>& rects) {
  for (std::size_t i = 0; i < rects.size(); ++i)
    for (std::size_t j = i + 1; j < rects.size(); ++j) CHECK_FALSE(rects[i].overlaps(rects[j]));
}

} // namespace

TEST_CASE("windows side by side keep the clear; the gaps are the rest of the display", "[backgrounds]") {
  const PixelRect display{0, 0, 1600, 1000};
  // A menu bar (draws its own background), two windows with a margin around them, the status line.
  const std::vector<DrawnArea> areas{{{0, 0, 1600, 25}, false},
                                     {{8, 33, 424, 950}, true},
                                     {{432, 33, 1592, 950}, true},
                                     {{0, 958, 1600, 1000}, true}};
  const BackgroundPlan plan = plan_window_backgrounds(areas, display);
  CHECK(plan.on_clear == std::vector<bool>{false, true, true, true});
  std::vector<PixelRect> all = plan.gaps;
  for (std::size_t i = 1; i < areas.size(); ++i) all.push_back(areas[i].rect);
  check_disjoint(all);
  CHECK(total_area(all) == Approx(display.area()));
  // A gap continuing down through several bands is one rectangle: the menu bar's band with the margin below it,
  // the three margins beside the windows, the margin below them.
  CHECK(plan.gaps.size() == 5);
}

TEST_CASE("a window over one drawn before it draws its own background", "[backgrounds]") {
  const PixelRect display{0, 0, 800, 600};
  const std::vector<DrawnArea> areas{{{10, 10, 400, 500}, true},
                                     {{300, 100, 700, 400}, true},  // over the first: its background is drawn
                                     {{420, 450, 780, 590}, true},  // beside both
                                     {{0, 0, 0, 0}, false},         // an empty list
                                     {{500, 500, 600, 560}, true}}; // over the third
  const BackgroundPlan plan = plan_window_backgrounds(areas, display);
  CHECK(plan.on_clear == std::vector<bool>{true, false, true, false, false});
  std::vector<PixelRect> all = plan.gaps;
  all.push_back(areas[0].rect);
  all.push_back(areas[2].rect);
  check_disjoint(all);
  CHECK(total_area(all) == Approx(display.area()));
}

TEST_CASE("windows beyond the display and none at all", "[backgrounds]") {
  const PixelRect display{0, 0, 100, 100};
  const std::vector<DrawnArea> areas{{{-20, 50, 40, 150}, true}};
  const BackgroundPlan plan = plan_window_backgrounds(areas, display);
  CHECK(plan.on_clear == std::vector<bool>{true});
  CHECK(total_area(plan.gaps) == Approx(100.0f * 100.0f - 40.0f * 50.0f));
  const BackgroundPlan none = plan_window_backgrounds({}, display);
  REQUIRE(none.gaps.size() == 1);
  CHECK(none.gaps[0].area() == Approx(display.area()));
}

namespace {

// Two frames, backgrounds from the clear and drawn, the same above the status line (whose frame rate changes).
void check_same_frames(HeadlessExplorer& ex, int expect_on_clear) {
  WindowBackgrounds& bg = ex.app().window_backgrounds();
  bg.set_enabled(true);
  ex.frames(3);
  const RgbaImage cleared = ex.screenshot();
  CHECK(bg.windows_on_clear() == expect_on_clear);
  bg.set_enabled(false);
  ex.frames(3);
  const RgbaImage drawn = ex.screenshot();
  CHECK(bg.windows_on_clear() == 0);
  bg.set_enabled(true);
  REQUIRE(cleared.width == drawn.width);
  REQUIRE(cleared.height == drawn.height);
  const int rows = drawn.height - static_cast<int>(status_line_height()) - 2;
  int differ = 0;
  for (int y = 0; y < rows; ++y)
    for (int x = 0; x < drawn.width; ++x) {
      const std::uint8_t *p = cleared.pixel(x, y), *q = drawn.pixel(x, y);
      if (p[0] != q[0] || p[1] != q[1] || p[2] != q[2]) ++differ;
    }
  CHECK(differ == 0);
}

} // namespace

TEST_CASE("frames with backgrounds from the clear are the frames with every background drawn", "[backgrounds]") {
  ExplorerOptions o;
  o.use_state = false;
  o.view = "params";
  HeadlessExplorer ex(PlatformKind::Egl, prepare_startup(o), 1280, 720);
  ex.frames(2);
  // Off on hardware GL (software GL, as in CI, turns it on); the comparison holds either way.
  // Stencil and parameter windows side by side, the status line below them.
  check_same_frames(ex, 3);
  // The parameter window moved over the Stencil editor: it draws its own background, over the editor's pixels.
  ImGui::SetWindowPos("Parameter matrices (TCStencil, ConvStencil)", ImVec2(200, 120));
  ImGui::SetWindowSize("Parameter matrices (TCStencil, ConvStencil)", ImVec2(600, 400));
  check_same_frames(ex, 2);
  // Collapsed, the Stencil editor is its title bar alone, over the clear colour.
  ImGui::SetWindowCollapsed("Stencil", true);
  check_same_frames(ex, 2);
}
