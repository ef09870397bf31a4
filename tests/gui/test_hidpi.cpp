// HiDPI and projectors (headless EGL): a monitor's content scale enlarges fonts, widgets and the views' drawings
// together; the UI scale of the View menu and Ctrl + / Ctrl - / Ctrl 0 multiplies it and is remembered; a saved
// scale out of range is refused with the rest of the state.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "app/widgets/ui_units.hpp"
#include "tests/gui/gui_test_support.hpp"

using namespace se;
using se::test::HeadlessExplorer;
using se::test::TempDir;

namespace {

StartupState small_scene(ExplorerOptions o = {}) {
  if (!o.state_dir) o.use_state = false;
  o.size = Extent{2, {64, 64, 1}};
  return prepare_startup(o);
}

float height_of(HeadlessExplorer& ex, const char* probe) {
  const WidgetRect r = ex.probe(probe);
  return r.y1 - r.y0;
}

void press_with_ctrl(HeadlessExplorer& ex, int glfw_key) {
  ex.input().key(GLFW_KEY_LEFT_CONTROL, true);
  ex.input().press_key(glfw_key);
  ex.input().key(GLFW_KEY_LEFT_CONTROL, false);
  while (ex.input().pending()) ex.frames(1); // one event a frame
  ex.frames(2);                               // the new fonts and the windows placed for them
}

} // namespace

TEST_CASE("a monitor content scale of 2 doubles the fonts, the widgets and the drawings", "[gui][egl][hidpi]") {
  float size_1 = 0, plot_1 = 0, font_1 = 0;
  {
    HeadlessExplorer ex(PlatformKind::Egl, small_scene(), 1600, 1000, EglDisplayKind::Any, 1.0f);
    ex.frames(3);
    CHECK(ex.app().ui_scale() == 1.0f);
    size_1 = height_of(ex, "simulation.size");
    plot_1 = ex.probe("simulation.heatmap").x1 - ex.probe("simulation.heatmap").x0;
    font_1 = ImGui::GetFontSize();
  }
  HeadlessExplorer ex(PlatformKind::Egl, small_scene(), 3200, 2000, EglDisplayKind::Any, 2.0f);
  ex.frames(3);
  CHECK(ex.platform().content_scale() == 2.0f);
  CHECK(ex.app().ui_scale() == 2.0f);
  CHECK(ImGui::GetFontSize() == Approx(2.0f * font_1).epsilon(0.05));
  CHECK(height_of(ex, "simulation.size") == Approx(2.0f * size_1).epsilon(0.1));
  // The heat map keeps its share of a window twice as large.
  CHECK(ex.probe("simulation.heatmap").x1 - ex.probe("simulation.heatmap").x0 == Approx(2.0f * plot_1).epsilon(0.1));
  CHECK(ui_px(10.0f) == Approx(20.0f).epsilon(0.05));
  // The screenshot still shows the grid: the layout was placed for the larger sizes.
  const RgbaImage image = ex.screenshot();
  const WidgetRect hm = ex.probe("simulation.heatmap");
  CHECK(hm.x1 <= 3200);
  CHECK(se::test::count_distinct_colors(image, int(hm.x0), int(hm.y0), int(hm.x1), int(hm.y1)) > 10);
}

TEST_CASE("Ctrl + and Ctrl - step the UI scale, Ctrl 0 resets it, and the scale is remembered", "[gui][egl][hidpi][state]") {
  TempDir dir;
  float base = 0;
  {
    HeadlessExplorer ex(PlatformKind::Egl, small_scene(se::test::options_in(dir)), 1600, 1000, EglDisplayKind::Any, 1.0f);
    ex.frames(2);
    base = height_of(ex, "simulation.size");
    press_with_ctrl(ex, GLFW_KEY_EQUAL);
    CHECK(ex.state().view.ui_scale == 1.1f);
    press_with_ctrl(ex, GLFW_KEY_EQUAL);
    CHECK(ex.state().view.ui_scale == 1.25f);
    CHECK(ex.app().ui_scale() == 1.25f);
    CHECK(height_of(ex, "simulation.size") == Approx(1.25f * base).epsilon(0.1));
    press_with_ctrl(ex, GLFW_KEY_MINUS);
    CHECK(ex.state().view.ui_scale == 1.1f);
    press_with_ctrl(ex, GLFW_KEY_0);
    CHECK(ex.state().view.ui_scale == 1.0f);
    CHECK(height_of(ex, "simulation.size") == Approx(base).epsilon(0.02));
    // Ctrl+R is not R: the run is not reset by a shortcut meant for something else.
    const auto steps = ex.simulation().steps_done();
    press_with_ctrl(ex, GLFW_KEY_R);
    CHECK(ex.simulation().steps_done() >= steps);

    // The View menu's "UI scale" submenu: 150%.
    ex.click("menu.views");
    const WidgetRect scale_item = ex.probe("menu.scale");
    ex.input().move_mouse(scale_item.center_x(), scale_item.center_y());
    ex.frames(3);
    ex.click("menu.scale.150%");
    CHECK(ex.state().view.ui_scale == 1.5f);
    ex.frames(2);
    CHECK(height_of(ex, "simulation.size") == Approx(1.5f * base).epsilon(0.1));
    ex.close_app();
  }
  HeadlessExplorer again(PlatformKind::Egl, small_scene(se::test::options_in(dir)), 1600, 1000, EglDisplayKind::Any, 1.0f);
  again.frames(2);
  CHECK(again.state().view.ui_scale == 1.5f);
  CHECK(again.app().ui_scale() == 1.5f);
  CHECK(height_of(again, "simulation.size") == Approx(1.5f * base).epsilon(0.1));
}

TEST_CASE("the UI scale multiplies the monitor's, and never leaves its range", "[gui][egl][hidpi]") {
  ExplorerOptions o;
  o.use_state = false;
  StartupState s = small_scene(o);
  s.state.view.ui_scale = 1.5f;
  HeadlessExplorer ex(PlatformKind::Egl, std::move(s), 2400, 1500, EglDisplayKind::Any, 1.5f);
  ex.frames(2);
  CHECK(ex.app().ui_scale() == Approx(2.25f));
  for (int i = 0; i < 20; ++i) press_with_ctrl(ex, GLFW_KEY_EQUAL);
  CHECK(ex.state().view.ui_scale == kMaxUiScale);
  for (int i = 0; i < 20; ++i) press_with_ctrl(ex, GLFW_KEY_MINUS);
  CHECK(ex.state().view.ui_scale == kMinUiScale);
  CHECK(ex.app().ui_scale() == Approx(0.75f));
}

TEST_CASE("a saved UI scale out of range sets the saved state aside and says why", "[gui][state][hidpi]") {
  TempDir dir;
  ExplorerState saved;
  saved.view.ui_scale = 1.75f;
  save_state(dir.path(), saved);
  ExplorerState loaded;
  CHECK_FALSE(load_state(dir.path(), loaded).has_value());
  CHECK(loaded.view.ui_scale == 1.75f);

  nlohmann::json j;
  {
    std::ifstream in(state_file(dir.path()));
    in >> j;
  }
  j["view"]["ui_scale"] = 40;
  { std::ofstream(state_file(dir.path())) << j.dump(); }
  ExplorerState refused;
  const auto message = load_state(dir.path(), refused);
  REQUIRE(message.has_value());
  CHECK_THAT(*message, Catch::Contains("view.ui_scale must be between"));
  CHECK(refused.view.ui_scale == 1.0f);
}
