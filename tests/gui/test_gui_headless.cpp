// The GUI driven headless with synthetic input: click a preset, press Play, edit weights and sizes,
// load bad files, switch to 3D, and look at the rendered frame. EGL runs everywhere (Mesa surfaceless
// in CI); the [glfw] case runs the same scenario in a hidden GLFW window under xvfb-run.
#include <cmath>
#include <cstdlib>
#include <fstream>

#include <GLFW/glfw3.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "gui_test_support.hpp"

using namespace se;
using se::test::HeadlessExplorer;
using se::test::TempDir;

namespace {

int color_distance(const std::uint8_t* p, const Rgba8& c) {
  return std::abs(p[0] - c[0]) + std::abs(p[1] - c[1]) + std::abs(p[2] - c[2]);
}

// The acceptance scenario: click a preset, press Play, see the state change and a heat map.
void preset_and_play(PlatformKind kind) {
  TempDir dir;
  HeadlessExplorer ex(kind, prepare_startup(se::test::options_in(dir)));
  ex.frames(2);
  REQUIRE(ex.state().playing); // the default scene plays
  CHECK(ex.simulation().steps_done() > 0);

  ex.press(GLFW_KEY_SPACE);
  REQUIRE_FALSE(ex.state().playing);
  // Steps too long for a frame run on the simulation's worker thread: one under way lands after the pause.
  for (int i = 0; i < 600 && ex.simulation().busy(); ++i) ex.frames(1);
  const auto paused_at = ex.simulation().steps_done();
  ex.frames(3);
  CHECK(ex.simulation().steps_done() == paused_at);

  ex.click("stencil.preset_combo");
  ex.click("stencil.preset.box-2d25p");
  CHECK(ex.state().stencil == preset("box-2d25p"));
  ex.frames(1);
  CHECK(ex.simulation().setup().stencil == preset("box-2d25p"));
  CHECK_FALSE(ex.state().playing);

  ex.click("simulation.play");
  REQUIRE(ex.state().playing);
  const auto before = ex.simulation().steps_done();
  ex.frames(3);
  // Three frames' steps, some of which may still be on the worker thread on a loaded machine.
  const auto wanted = before + 3 * ex.state().grid.steps_per_frame;
  for (int i = 0; i < 600 && ex.simulation().steps_done() < wanted; ++i) ex.frames(1);
  CHECK(ex.simulation().steps_done() >= wanted);
  CHECK(ex.simulation().gstencils() > 0.0);

  const RgbaImage image = ex.screenshot();
  REQUIRE(image.width == 1600);
  REQUIRE(image.height == 1000);
  const WidgetRect hm = ex.probe("simulation.heatmap");
  CHECK(hm.x1 - hm.x0 > 400);
  CHECK(std::abs((hm.x1 - hm.x0) - (hm.y1 - hm.y0)) < 2.0f); // a square grid shows square
  const std::size_t heatmap_colors =
      se::test::count_distinct_colors(image, int(hm.x0), int(hm.y0), int(hm.x1), int(hm.y1));
  INFO("distinct colours in the heat map: " << heatmap_colors);
  CHECK(heatmap_colors > 30);
  CHECK(se::test::count_distinct_colors(image, 0, 0, image.width, image.height) > 200);
  // The hot spot's centre is near the top of the colormap, a corner near its bottom.
  const std::uint8_t* centre = image.pixel(int(hm.center_x()), int(hm.center_y()));
  const std::uint8_t* corner = image.pixel(int(hm.x0) + 3, int(hm.y0) + 3);
  CHECK(color_distance(centre, colormap_color(Colormap::Viridis, 1.0)) < 40);
  CHECK(color_distance(corner, colormap_color(Colormap::Viridis, 0.0)) < 40);
}

// No saved state, a small grid: fast frames for tests that are about widgets, not the default scene.
StartupState small_scene() {
  ExplorerOptions o;
  o.use_state = false;
  o.size = Extent{2, {64, 64, 1}};
  return prepare_startup(o);
}

} // namespace

TEST_CASE("headless EGL: click a preset, press Play, and the heat map is drawn", "[gui][egl]") {
  preset_and_play(PlatformKind::Egl);
}

TEST_CASE("headless hidden GLFW window: click a preset, press Play, and the heat map is drawn", "[gui][glfw]") {
  REQUIRE(display_available()); // registered in CTest under xvfb-run
  preset_and_play(PlatformKind::Glfw);
}

TEST_CASE("Mesa's surfaceless EGL platform renders on its own", "[gui][egl]") {
  // The device platform is tried first; CI machines without one rely on this path.
  HeadlessExplorer ex(PlatformKind::Egl, small_scene(), 800, 600, EglDisplayKind::Surfaceless);
  CHECK_THAT(ex.platform().description(), Catch::Contains("surfaceless"));
  ex.frames(2);
  const RgbaImage image = ex.screenshot();
  const WidgetRect hm = ex.probe("simulation.heatmap");
  CHECK(se::test::count_distinct_colors(image, int(hm.x0), int(hm.y0), int(hm.x1), int(hm.y1)) > 10);
}

TEST_CASE("keyboard: Space toggles, S and Right step once, R resets", "[gui][egl]") {
  HeadlessExplorer ex(PlatformKind::Egl, small_scene(), 1280, 800);
  ex.frames(1);
  ex.press(GLFW_KEY_SPACE);
  REQUIRE_FALSE(ex.state().playing);
  const auto at = ex.simulation().steps_done();
  ex.press(GLFW_KEY_S);
  CHECK(ex.simulation().steps_done() == at + 1);
  ex.press(GLFW_KEY_RIGHT);
  CHECK(ex.simulation().steps_done() == at + 2);
  ex.press(GLFW_KEY_R);
  CHECK(ex.simulation().steps_done() == 0);
  ex.press(GLFW_KEY_SPACE);
  CHECK(ex.state().playing);
}

TEST_CASE("editing a weight mirrors it with the symmetry lock and NaN is refused", "[gui][egl]") {
  HeadlessExplorer ex(PlatformKind::Egl, small_scene());
  ex.frames(1);
  REQUIRE(ex.state().symmetry_lock);
  auto type_into = [&](const char* probe, const char* text) {
    const WidgetRect r = ex.probe(probe);
    ex.input().click(r.center_x(), r.center_y());
    ex.input().click(r.center_x(), r.center_y()); // double-click: type a value
    ex.input().type_text(text);
    ex.input().press_key(GLFW_KEY_ENTER);
    ex.settle();
  };
  type_into("stencil.weight.1.0.0", "0.2");
  const Stencil& s = ex.state().stencil;
  CHECK(s.at(1, 0) == 0.2);
  CHECK(s.at(-1, 0) == 0.2);
  CHECK(s.at(0, 1) == 0.2);
  CHECK(s.at(0, -1) == 0.2);
  CHECK(s.at(0, 0) == preset("heat-2d").at(0, 0));
  CHECK(s.name == "custom");
  ex.frames(1);
  CHECK(ex.simulation().setup().stencil == s);

  type_into("stencil.weight.0.0.0", "1e999"); // overflows to Inf; letters like "nan" cannot be typed at all
  CHECK(ex.state().stencil.at(0, 0) == preset("heat-2d").at(0, 0));
  CHECK(ex.state().stencil_ui.message.error);
  CHECK_THAT(ex.state().stencil_ui.message.text, Catch::Contains("finite"));
}

TEST_CASE("the size field refuses a grid smaller than the stencil and applies a good one", "[gui][egl]") {
  HeadlessExplorer ex(PlatformKind::Egl, small_scene());
  ex.frames(1);
  auto enter_size = [&](const char* text) { ex.replace_text("simulation.size", text); };
  enter_size("2x2");
  CHECK(ex.state().simulation_ui.message.error);
  CHECK_THAT(ex.state().simulation_ui.message.text, Catch::Contains("smaller than the stencil"));
  CHECK(ex.state().extent() == Extent{2, {64, 64, 1}});
  enter_size("0x5");
  CHECK_THAT(ex.state().simulation_ui.message.text, Catch::Contains("positive"));
  enter_size("200x100");
  CHECK(ex.state().simulation_ui.message.text.empty());
  CHECK(ex.state().extent() == Extent{2, {200, 100, 1}});
  ex.frames(1);
  CHECK(ex.simulation().setup().extent == Extent{2, {200, 100, 1}});
  const WidgetRect hm = ex.probe("simulation.heatmap");
  CHECK((hm.x1 - hm.x0) / (hm.y1 - hm.y0) == Approx(2.0).epsilon(0.02)); // the grid's aspect ratio
}

TEST_CASE("loading a malformed stencil file keeps the edits and says why", "[gui][egl]") {
  TempDir dir;
  HeadlessExplorer ex(PlatformKind::Egl, small_scene());
  ex.frames(1);
  ex.state().stencil.at(1, 1) = 0.01; // an unsaved edit
  const Stencil edited = ex.state().stencil;
  const auto bad = dir.path() / "bad.json";
  { std::ofstream(bad) << "{\"dims\": 2, \"radius\": 1, \"weights\": [[1, 2], [3]]"; }
  ex.state().stencil_ui.file_path = bad.string();
  ex.frames(1);
  ex.click("stencil.load");
  CHECK(ex.state().stencil == edited);
  CHECK(ex.state().stencil_ui.message.error);
  CHECK_THAT(ex.state().stencil_ui.message.text, Catch::Contains("bad.json"));

  const auto good = dir.path() / "good.json";
  ex.state().stencil_ui.file_path = good.string();
  ex.frames(1);
  ex.click("stencil.save");
  REQUIRE(std::filesystem::exists(good));
  CHECK(load_stencil_file(good.string()) == edited);
  ex.state().stencil = preset("heat-2d");
  ex.frames(1);
  ex.click("stencil.load");
  CHECK(ex.state().stencil == edited);
  CHECK_FALSE(ex.state().stencil_ui.message.error);
}

TEST_CASE("a 3D stencil shows a selectable z slice", "[gui][egl]") {
  ExplorerOptions o;
  o.use_state = false;
  o.stencil = preset("heat-3d");
  o.size = Extent{3, {24, 20, 16}};
  HeadlessExplorer ex(PlatformKind::Egl, prepare_startup(o));
  ex.frames(2);
  CHECK(ex.state().heatmap_shown.z == 8); // the middle plane by default
  CHECK(ex.state().heatmap_shown.width == 24);
  CHECK(ex.state().heatmap_shown.height == 20);
  ex.probe("simulation.z_slice");
  ex.probe("stencil.plane");
  ex.state().view.z_slice = 3;
  ex.frames(1);
  CHECK(ex.state().heatmap_shown.z == 3);
  // Switching the stencil to 2D moves to the 2D grid and back again restores the 3D one.
  ex.click("stencil.dims.2");
  CHECK(ex.state().stencil.dims == 2);
  ex.frames(1);
  CHECK(ex.simulation().setup().extent.dims == 2);
  ex.click("stencil.dims.3");
  ex.frames(1);
  CHECK(ex.simulation().setup().extent == Extent{3, {24, 20, 16}});
}

TEST_CASE("the app remembers the stencil, grid and layout between runs", "[gui][egl][state]") {
  TempDir dir;
  {
    ExplorerOptions o = se::test::options_in(dir);
    o.size = Extent{2, {80, 60, 1}};
    HeadlessExplorer ex(PlatformKind::Egl, prepare_startup(o), 1280, 800);
    ex.frames(2);
    ex.click("stencil.preset_combo");
    ex.click("stencil.preset.box-2d9p");
    ex.press(GLFW_KEY_SPACE);
    ex.close_app();
  }
  REQUIRE(std::filesystem::exists(state_file(dir.path())));
  REQUIRE(std::filesystem::exists(imgui_ini_file(dir.path())));
  {
    std::ifstream ini(imgui_ini_file(dir.path()));
    const std::string text((std::istreambuf_iterator<char>(ini)), std::istreambuf_iterator<char>());
    CHECK_THAT(text, Catch::Contains("[Window][Stencil]") && Catch::Contains("[Window][Simulation]"));
  }
  HeadlessExplorer again(PlatformKind::Egl, prepare_startup(se::test::options_in(dir)), 1280, 800);
  CHECK(again.state().stencil == preset("box-2d9p"));
  CHECK(again.state().extent() == Extent{2, {80, 60, 1}});
  CHECK_FALSE(again.state().playing);
  CHECK(again.state().status_message.empty());
}

TEST_CASE("a corrupt state file is reported in the status line and the app still starts", "[gui][egl][state]") {
  TempDir dir;
  { std::ofstream(state_file(dir.path())) << "not json at all"; }
  HeadlessExplorer ex(PlatformKind::Egl, prepare_startup(se::test::options_in(dir)), 1280, 800);
  ex.frames(2);
  CHECK_THAT(ex.state().status_message, Catch::Contains("ignored the saved state"));
  CHECK(ex.state().stencil == ExplorerState{}.stencil);
  CHECK(ex.simulation().steps_done() > 0);
}
