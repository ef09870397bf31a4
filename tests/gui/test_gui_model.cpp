// The GUI's plain C++ parts, no GL context needed: colormaps, grid slices, throughput, the simulation
// state machine and the order synthetic input reaches ImGui in.
#include <cmath>
#include <limits>

#include <GLFW/glfw3.h>
#include <catch2/catch.hpp>
#include <imgui.h>

#include "app/widgets/colormap.hpp"
#include "app/sim/grid_slice.hpp"
#include "app/sim/simulation.hpp"
#include "app/platform/synthetic_input.hpp"
#include "core/error.hpp"
#include "core/reference.hpp"

using namespace se;

TEST_CASE("colormaps hit their anchor colours at the ends and interpolate between", "[gui][colormap]") {
  const Rgba8 v0 = colormap_color(Colormap::Viridis, 0.0), v1 = colormap_color(Colormap::Viridis, 1.0);
  CHECK(v0 == Rgba8{0x44, 0x01, 0x54, 255});
  CHECK(v1 == Rgba8{0xfd, 0xe7, 0x25, 255});
  CHECK(colormap_color(Colormap::Viridis, -3.0) == v0); // clamped
  CHECK(colormap_color(Colormap::Viridis, std::nan("")) == v0);
  CHECK(colormap_color(Colormap::Gray, 0.5) == Rgba8{128, 128, 128, 255});
  const auto lut = colormap_lut(Colormap::Inferno, 256);
  REQUIRE(lut.size() == 256);
  CHECK(lut.front() == colormap_color(Colormap::Inferno, 0.0));
  CHECK(lut.back() == colormap_color(Colormap::Inferno, 1.0));
  // Perceptual maps get brighter along t: the sum of channels grows from end to end.
  auto brightness = [](const Rgba8& c) { return c[0] + c[1] + c[2]; };
  CHECK(brightness(lut[255]) > brightness(lut[128]));
  CHECK(brightness(lut[128]) > brightness(lut[0]));
  CHECK_THROWS_AS(colormap_lut(Colormap::Viridis, 1), InputError);
  for (Colormap c : all_colormaps()) CHECK(parse_colormap(to_string(c)) == c);
  CHECK_THROWS_WITH(parse_colormap("jet"), Catch::Contains("viridis"));
}

TEST_CASE("grid slices pick the requested plane and sample large grids down", "[gui][slice]") {
  Extent e{3, {4, 3, 5}};
  std::vector<double> v(static_cast<std::size_t>(e.points()));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i);
  const GridSlice s = extract_slice(v, e, 2, 64);
  CHECK(s.width == 4);
  CHECK(s.height == 3);
  CHECK(s.stride == 1);
  CHECK(s.values[0] == 24.0f);          // (0,0,2)
  CHECK(s.values[1 * 4 + 3] == 31.0f);  // (3,1,2)
  CHECK(resolve_z_slice(e, -1) == 2);
  CHECK(resolve_z_slice(e, 99) == 4);
  CHECK(resolve_z_slice(Extent{2, {8, 8, 1}}, 5) == 0);
  CHECK_THROWS_AS(extract_slice(v, e, 5, 64), InputError);
  CHECK_THROWS_AS(extract_slice(std::vector<double>(3), e, 0, 64), InputError);

  Extent big{2, {1000, 300, 1}};
  std::vector<double> w(static_cast<std::size_t>(big.points()));
  for (std::int64_t y = 0; y < 300; ++y)
    for (std::int64_t x = 0; x < 1000; ++x) w[static_cast<std::size_t>(y * 1000 + x)] = static_cast<double>(x);
  const GridSlice d = extract_slice(w, big, 0, 256);
  CHECK(d.stride == 4);
  CHECK(d.width == 250);
  CHECK(d.height == 75);
  CHECK(d.values[10] == 40.0f); // texel x = 10 samples grid x = 40
}

TEST_CASE("finite_range ignores NaN and Inf and counts them", "[gui][slice]") {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> v{1.0, -2.0, std::nan(""), inf, 5.0};
  const ValueRange r = finite_range(v);
  CHECK(r.min == -2.0);
  CHECK(r.max == 5.0);
  CHECK(r.not_finite == 2);
  CHECK(finite_range(std::vector<double>{std::nan("")}).empty());
}

TEST_CASE("the throughput meter reports points x steps / seconds / 1e9", "[gui][simulation]") {
  ThroughputMeter m(0.5);
  CHECK(m.gstencils() == 0.0);
  m.add(2e9, 0.1); // first measurement shows at once
  CHECK(m.gstencils() == Approx(20.0));
  m.add(1e9, 0.4); // completes the window: 3e9 / 0.5 s
  CHECK(m.gstencils() == Approx(6.0));
  m.add(1e9, 0.1); // an unfinished window does not move the number
  CHECK(m.gstencils() == Approx(6.0));
}

TEST_CASE("the simulation advances with the reference, keeps values on weight edits and resets on grid changes",
          "[gui][simulation]") {
  Simulation sim(make_cpu_reference_backend());
  CHECK_FALSE(sim.loaded());
  SimulationSetup setup;
  setup.stencil = preset("heat-2d");
  setup.extent = Extent{2, {32, 24, 1}};
  setup.initial = InitialCondition::Gaussian;
  sim.reset(setup);
  REQUIRE(sim.loaded());
  CHECK(sim.initial_max() == Approx(1.0).epsilon(0.05));
  const auto v0 = sim.version();
  sim.advance(5);
  CHECK(sim.steps_done() == 5);
  CHECK(sim.version() != v0);
  CHECK(sim.gstencils() > 0.0);

  // Same steps through the reference directly give the same values, bit for bit.
  std::vector<double> expected = initial_values(setup.extent, setup.initial, setup.seed);
  reference_advance(setup.stencil, setup.extent, expected, 5, Precision::FP64);
  const auto got = sim.values();
  REQUIRE(got.size() == expected.size());
  CHECK(std::equal(got.begin(), got.end(), expected.begin()));

  // A weight edit keeps the values and the step count; a new size starts again.
  SimulationSetup edited = setup;
  edited.stencil.at(0, 0) = 0.6;
  sim.apply(edited);
  CHECK(sim.steps_done() == 5);
  CHECK(sim.setup().stencil.at(0, 0) == 0.6);
  SimulationSetup resized = edited;
  resized.extent = Extent{2, {16, 16, 1}};
  sim.apply(resized);
  CHECK(sim.steps_done() == 0);
  CHECK(sim.values().size() == 256);

  // Bad setups throw and leave the running one alone.
  SimulationSetup tiny = resized;
  tiny.extent = Extent{2, {2, 2, 1}};
  CHECK_THROWS_WITH(sim.apply(tiny), Catch::Contains("smaller than the stencil"));
  SimulationSetup huge = resized;
  huge.extent = Extent{2, {4000000, 4000000, 1}};
  CHECK_THROWS_AS(sim.apply(huge), InputError);
  CHECK(sim.setup() == resized);
}

TEST_CASE("synthetic input reaches ImGui one transition per frame", "[gui][input]") {
  ImGuiContext* ctx = ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  install_glfw_key_map(io);
  CHECK(io.KeyMap[ImGuiKey_Space] == GLFW_KEY_SPACE);
  SyntheticInput in;
  in.click(10, 20);
  in.press_key(GLFW_KEY_LEFT_CONTROL);
  CHECK(in.pending_count() == 5);
  in.apply_to(io); // move + press land together
  CHECK(io.MousePos.x == 10.0f);
  CHECK(io.MousePos.y == 20.0f);
  CHECK(io.MouseDown[0]);
  in.apply_to(io);
  CHECK_FALSE(io.MouseDown[0]);
  in.apply_to(io);
  CHECK(io.KeysDown[GLFW_KEY_LEFT_CONTROL]);
  CHECK(io.KeyCtrl);
  in.apply_to(io);
  CHECK_FALSE(io.KeyCtrl);
  CHECK_FALSE(in.pending());
  CHECK_THROWS_AS(in.key(9999, true), InputError);
  ImGui::DestroyContext(ctx);
}
