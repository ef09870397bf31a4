// Painting the grid in the Simulation view (headless EGL, the CPU runs): the brush's strokes land where the
// mouse went, right-drags paint cold, Clear empties the grid, strokes also land while the run plays and while a
// long step runs in the background, and the picture initial condition loads a PNG. The GPU path is in
// test_live_gpu.cpp.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "app/platform/png_file.hpp"
#include "app/platform/screenshot.hpp"
#include "core/files.hpp"
#include "core/image_field.hpp"
#include "tests/gui/gui_test_support.hpp"

using namespace se;
using se::test::HeadlessExplorer;

namespace {

// An empty 64x64 grid, paused, a brush of radius 4 adding 1.
StartupState empty_grid(InitialCondition initial = InitialCondition::Zero) {
  ExplorerOptions o;
  o.use_state = false;
  o.size = Extent{2, {64, 64, 1}};
  StartupState s = prepare_startup(o);
  s.state.grid.initial = initial;
  s.state.playing = false;
  s.state.brush = Brush{4, 1, BrushMode::Add};
  return s;
}

// Screen position of grid point (x, y) of an n x n grid on the heat map (y grows upwards).
ImVec2 screen_of(const WidgetRect& hm, int n, double x, double y) {
  return ImVec2(hm.x0 + static_cast<float>((x + 0.5) / n) * (hm.x1 - hm.x0),
                hm.y1 - static_cast<float>((y + 0.5) / n) * (hm.y1 - hm.y0));
}

double value_at(const Simulation& sim, int x, int y) {
  const Extent& e = sim.setup().extent;
  return sim.values()[static_cast<std::size_t>(y * e.n[0] + x)];
}

double total(const Simulation& sim) {
  const auto v = sim.values();
  return std::accumulate(v.begin(), v.end(), 0.0);
}

} // namespace

TEST_CASE("dragging on the heat map paints heat along the way, a right-drag cold", "[gui][egl][paint]") {
  HeadlessExplorer ex(PlatformKind::Egl, empty_grid());
  ex.frames(3);
  REQUIRE(total(ex.simulation()) == 0.0);
  const WidgetRect hm = ex.probe("simulation.heatmap");
  const ImVec2 a = screen_of(hm, 64, 16, 32), b = screen_of(hm, 64, 48, 32);
  ex.drag(a.x, a.y, b.x, b.y);
  const Simulation& sim = ex.simulation();
  CHECK(sim.edits_applied() >= 2);
  CHECK(std::stoll(ex.fact("simulation.edits")) == sim.edits_applied());
  // The brush's value all along the stroke (a stroke gains it once, however many dabs), nothing far from it.
  for (int x = 20; x <= 44; x += 4) {
    INFO("x " << x);
    CHECK(value_at(sim, x, 32) == Approx(1.0).epsilon(0.1));
  }
  CHECK(value_at(sim, 48, 32) > 0.4); // the stroke's ends are its dabs' edges
  CHECK(value_at(sim, 32, 40) == 0.0);
  CHECK(value_at(sim, 5, 32) == 0.0);
  CHECK(value_at(sim, 32, 37) < value_at(sim, 32, 33));
  CHECK(sim.steps_done() == 0); // painting is not stepping

  // A right-drag across the same row takes heat out.
  const double before = total(sim);
  const ImVec2 c = screen_of(hm, 64, 32, 20), d = screen_of(hm, 64, 32, 44);
  ex.drag(c.x, c.y, d.x, d.y, 1);
  CHECK(total(sim) < before);
  CHECK(value_at(sim, 32, 26) < 0.0);
  ex.frames(1);
  const RgbaImage shot = ex.screenshot();
  CHECK(se::test::count_distinct_colors(shot, int(hm.x0), int(hm.y0), int(hm.x1), int(hm.y1)) > 10);
}

TEST_CASE("set mode paints the value itself; Clear empties the grid and the run goes on", "[gui][egl][paint]") {
  StartupState s = empty_grid(InitialCondition::Gaussian);
  s.state.brush = Brush{3, 0.25, BrushMode::Set};
  HeadlessExplorer ex(PlatformKind::Egl, std::move(s));
  ex.frames(3);
  const WidgetRect hm = ex.probe("simulation.heatmap");
  const ImVec2 p = screen_of(hm, 64, 32, 32);
  ex.drag(p.x, p.y, p.x + 1, p.y);
  CHECK(value_at(ex.simulation(), 32, 32) == Approx(0.25).margin(0.02));
  ex.click("simulation.step");
  ex.click("simulation.clear");
  CHECK(total(ex.simulation()) == 0.0);
  CHECK(ex.simulation().steps_done() == 1); // Clear keeps the run, Reset restarts it
  ex.click("simulation.reset");
  CHECK(total(ex.simulation()) > 0.0);
}

TEST_CASE("strokes land while the run plays, and heat painted on an empty grid spreads", "[gui][egl][paint]") {
  StartupState s = empty_grid();
  s.state.playing = true;
  s.state.grid.boundary.kind = BoundaryKind::Periodic; // the heat equation keeps the total on a periodic grid
  HeadlessExplorer ex(PlatformKind::Egl, std::move(s));
  ex.frames(3);
  const WidgetRect hm = ex.probe("simulation.heatmap");
  const ImVec2 p = screen_of(hm, 64, 10, 10), q = screen_of(hm, 64, 20, 10);
  ex.drag(p.x, p.y, q.x, q.y);
  const double painted = total(ex.simulation());
  CHECK(painted > 10.0);
  const std::int64_t steps = ex.simulation().steps_done();
  ex.frames(10);
  CHECK(ex.simulation().steps_done() > steps);
  CHECK(total(ex.simulation()) == Approx(painted).epsilon(1e-9)); // spread, not lost
  CHECK(value_at(ex.simulation(), 15, 16) > 0.0);                  // reached points the brush never touched
}

TEST_CASE("a stroke made while a long step runs in the background lands when it ends", "[gui][paint]") {
  Simulation sim(make_cpu_reference_backend());
  SimulationSetup setup;
  setup.stencil = preset("heat-2d");
  setup.extent = parse_extent("2048x2048");
  setup.initial = InitialCondition::Zero;
  sim.reset(setup);
  sim.advance(100); // 400 million point-steps: the worker thread's, well beyond advance()'s 50 ms wait
  REQUIRE(sim.busy());
  const std::vector<BrushDab> dab{{512, 512, 0, 2.0}};
  sim.edit(brush_edit(setup.extent, BoundaryKind::Dirichlet, Brush{3, 2, BrushMode::Add}, dab));
  CHECK(sim.edits_applied() == 0); // waiting: the worker owns the grid
  sim.finish();
  CHECK(sim.edits_applied() == 1);
  CHECK(sim.values()[512 * 2048 + 512] == 2.0);
}

TEST_CASE("the picture initial condition loads a PNG and resamples it onto the grid", "[gui][egl][paint]") {
  se::test::TempDir dir;
  // A 4x3 picture: white top-left pixel, black elsewhere; then a grid of its own size shows it upright.
  RgbaImage png;
  png.width = 4;
  png.height = 3;
  png.pixels.assign(4 * 3 * 4, 0);
  for (int i = 0; i < 12; ++i) png.pixels[static_cast<std::size_t>(i) * 4 + 3] = 255;
  png.pixels[0] = png.pixels[1] = png.pixels[2] = 255;
  const std::string path = (dir.path() / "picture.png").string();
  write_png(png, path);
  const GrayImage img = load_gray_image(path);
  REQUIRE(img.width == 4);
  CHECK(img.values[0] == 1.0f);
  CHECK(img.values[1] == 0.0f);

  ExplorerOptions o;
  o.use_state = false;
  o.size = Extent{2, {4, 3, 1}};
  StartupState s = prepare_startup(o);
  s.state.stencil = preset("heat-2d");
  s.state.playing = false;
  HeadlessExplorer ex(PlatformKind::Egl, std::move(s));
  ex.frames(2);
  ex.state().grid.initial = InitialCondition::Image;
  ex.frames(2);
  CHECK_THAT(ex.state().simulation_ui.blocked, Catch::Contains("no picture"));
  ex.replace_text("simulation.picture", path);
  ex.frames(2);
  CHECK(ex.state().simulation_ui.blocked.empty());
  REQUIRE(ex.state().grid.image != nullptr);
  CHECK(ex.state().grid.image_path == path);
  const auto v = ex.simulation().values();
  CHECK(v[8] == 1.0); // grid (0, 2): the top-left of the picture
  CHECK(v[0] == 0.0);
  CHECK(std::accumulate(v.begin(), v.end(), 0.0) == 1.0);

  // Not a picture: the field says so and the run keeps its grid.
  const std::string junk = (dir.path() / "junk.png").string();
  se::write_file(junk, "not a png", "test file");
  ex.replace_text("simulation.picture", junk);
  CHECK_THAT(ex.state().simulation_ui.message.text, Catch::Contains("junk.png"));
  CHECK(ex.state().simulation_ui.message.error);
  CHECK(ex.state().grid.image_path == path);
}

TEST_CASE("a remembered picture is read again at start; one that is gone falls back to the hot spot", "[gui][paint]") {
  se::test::TempDir dir;
  ExplorerOptions o = se::test::options_in(dir);
  {
    StartupState s = prepare_startup(o);
    s.state.grid.initial = InitialCondition::Image;
    s.state.grid.image_path = (dir.path() / "gone.png").string();
    save_state(dir.path(), s.state);
  }
  const StartupState again = prepare_startup(o);
  CHECK(again.state.grid.initial == InitialCondition::HotSpot);
  REQUIRE(!again.messages.empty());
  CHECK_THAT(again.messages.back(), Catch::Contains("gone.png"));
}
