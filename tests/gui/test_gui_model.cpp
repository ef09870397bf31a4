// The GUI's plain C++ parts, no GL context needed: colormaps, grid slices, throughput, the simulation
// state machine and the order synthetic input reaches ImGui in.
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <limits>
#include <mutex>
#include <random>
#include <thread>

#include <GLFW/glfw3.h>
#include <catch2/catch.hpp>
#include <imgui.h>

#include "app/widgets/colormap.hpp"
#include "app/platform/heatmap_renderer.hpp"
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

TEST_CASE("a slice holding every point of its grid brings the grid's range; its storage is reused", "[gui][slice]") {
  const double inf = std::numeric_limits<double>::infinity();
  std::mt19937 rng(7);
  std::normal_distribution<double> normal(0.0, 1e3);
  for (const Extent& e : {Extent{2, {37, 23, 1}}, Extent{1, {101, 1, 1}}}) {
    std::vector<double> v(static_cast<std::size_t>(e.points()));
    for (double& x : v) x = normal(rng);
    v[5] = std::nan(""), v[17] = inf, v[v.size() - 1] = -inf, v[9] = -1e300, v[10] = 1e300; // beyond float
    GridSlice s = extract_slice(v, e, 0, 4096);
    REQUIRE(s.grid_range.has_value());
    const ValueRange want = finite_range(v);
    CHECK(s.grid_range->min == want.min);
    CHECK(s.grid_range->max == want.max);
    CHECK(s.grid_range->not_finite == want.not_finite);
    CHECK(want.not_finite == 3);
    for (std::size_t i = 0; i < v.size(); ++i)
      if (!std::isnan(v[i])) CHECK(s.values[i] == static_cast<float>(v[i]));
    // The next frame's slice in this one's storage: no new allocation.
    const float* storage = s.values.data();
    GridSlice again = extract_slice(v, e, 0, 4096, std::move(s.values));
    CHECK(again.values.data() == storage);
    CHECK(again.values.size() == v.size());
  }
  // A plane of a 3D grid, or a grid sampled down, holds only some points: no range taken.
  const Extent cube{3, {4, 4, 4}};
  CHECK_FALSE(extract_slice(std::vector<double>(64, 1.0), cube, 1, 64).grid_range.has_value());
  const Extent wide{2, {300, 10, 1}};
  CHECK_FALSE(extract_slice(std::vector<double>(3000, 1.0), wide, 0, 100).grid_range.has_value());
}

TEST_CASE("host colouring: each value's level in the 4096-level LUT, NaN and Inf in their own colour", "[gui][colormap]") {
  const std::vector<std::uint32_t> lut = host_colour_lut(Colormap::Inferno);
  REQUIRE(lut.size() == 4097);
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> values{-inf, inf, std::nanf(""), -1.0f, 0.0f, -0.0f, 0.25f, 0.5f, 1.0f, 2.0f, 1e-30f, 1e30f};
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-0.2f, 1.2f);
  for (int i = 0; i < 1000; ++i) values.push_back(u(rng)); // lengths past any vector width, with a tail
  for (const auto& [lo, hi] : {std::pair{0.0f, 1.0f}, std::pair{-0.1f, 0.3f}, std::pair{0.5f, 0.5f}, std::pair{1.0f, 0.0f}}) {
    std::vector<std::uint32_t> pixels(values.size());
    colour_values(values, pixels, lut, lo, hi);
    // The loop it replaces, as written before it was made branch-free.
    const float span = hi - lo, scale = span > 0 ? 4095.0f / span : 0.0f;
    for (std::size_t i = 0; i < values.size(); ++i) {
      const float v = values[i];
      std::uint32_t want = lut[4096];
      if (std::isfinite(v)) want = lut[static_cast<int>((span > 0 ? std::clamp((v - lo) * scale, 0.0f, 4095.0f) : 2047.5f) + 0.5f)];
      INFO("value " << v << " in [" << lo << ", " << hi << "]");
      CHECK(pixels[i] == want);
    }
  }
  const std::uint8_t* magenta = reinterpret_cast<const std::uint8_t*>(&lut[4096]);
  CHECK((magenta[0] == 255 && magenta[1] == 0 && magenta[2] == 255 && magenta[3] == 255));
  std::vector<std::uint32_t> too_few(3);
  CHECK_THROWS(colour_values(values, too_few, lut, 0.0f, 1.0f));
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

namespace {

// A host backend whose steps wait for the test to let them through, so a background advance can be watched
// at every point: each step adds 1 to every value and reports `step_seconds` as its time.
struct Gate {
  std::mutex m;
  std::condition_variable cv;
  int allowed = 0;           // steps it may still take
  double step_seconds = 1.0; // what each step reports (the simulation's prediction of the next)
  int sleep_ms = 0;          // wall time of each step once allowed
  bool fail = false;
  bool saw_cancel = false;
  int reconfigures = 0;
  std::thread::id last_thread;
  void allow(int n) {
    {
      std::lock_guard lock(m);
      allowed += n;
    }
    cv.notify_all();
  }
};

class GatedBackend final : public SimulationBackend {
public:
  explicit GatedBackend(std::shared_ptr<Gate> gate) : gate_(std::move(gate)) {}
  std::string name() const override { return "gated"; }
  MethodKey method() const override { return {"gated", Backend::CPU}; }
  Precision arithmetic() const override { return Precision::FP64; }
  void load(const SimulationSetup& setup, std::vector<double> values) override {
    extent_ = setup.extent;
    values_ = std::move(values);
  }
  void reconfigure(const SimulationSetup&) override {
    std::lock_guard lock(gate_->m);
    ++gate_->reconfigures;
  }
  Advanced advance(int steps, const StepProgress& progress) override {
    std::unique_lock lock(gate_->m);
    gate_->last_thread = std::this_thread::get_id();
    for (int i = 0; i < steps; ++i) {
      gate_->cv.wait(lock, [&] { return gate_->allowed > 0; });
      --gate_->allowed;
      if (gate_->fail) throw InputError("the gated step failed");
      lock.unlock();
      std::this_thread::sleep_for(std::chrono::milliseconds(gate_->sleep_ms));
      for (double& v : values_) v += 1.0;
      const bool go_on = !progress || progress(i + 1, steps);
      lock.lock();
      if (!go_on) {
        gate_->saw_cancel = true;
        return {i + 1, gate_->step_seconds * (i + 1)};
      }
    }
    return {steps, gate_->step_seconds * steps};
  }
  std::span<const double> values() const override { return values_; }
  void edit(const GridEdit& edit) override { apply_edit(values_, extent_, edit); }

private:
  std::shared_ptr<Gate> gate_;
  Extent extent_;
  std::vector<double> values_;
};

template <typename F> bool eventually(F done) {
  for (int i = 0; i < 2000 && !done(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  return done();
}

SimulationSetup gated_setup() {
  SimulationSetup setup;
  setup.stencil = preset("heat-2d");
  setup.extent = Extent{2, {128, 128, 1}}; // 16384 points x 5 taps: not short before a step was timed
  setup.initial = InitialCondition::Random;
  return setup;
}

} // namespace

TEST_CASE("long host steps run on the simulation's worker thread with progress; short ones on the caller's",
          "[gui][simulation]") {
  auto gate = std::make_shared<Gate>();
  Simulation sim(std::make_unique<GatedBackend>(gate));
  const SimulationSetup setup = gated_setup();
  sim.reset(setup);
  const std::vector<double> initial(sim.values().begin(), sim.values().end());

  // Not timed yet and not small: the worker runs it; the call waits a little and returns while it goes on.
  sim.advance(3);
  REQUIRE(sim.busy());
  CHECK(sim.steps_done() == 0);
  CHECK(sim.progress().total == 3);
  CHECK(sim.progress().done == 0);
  CHECK(std::equal(sim.values().begin(), sim.values().end(), initial.begin())); // the grid as it was
  const auto version = sim.version();
  sim.advance(5); // while busy: collected if done, never queued
  CHECK(sim.busy());
  // A new rule waits for the steps that run with the old one.
  SimulationSetup edited = setup;
  edited.stencil.at(0, 0) = 0.6;
  sim.apply(edited);
  CHECK(sim.setup() == setup);
  gate->allow(1);
  REQUIRE(eventually([&] { return sim.progress().done == 1; }));
  CHECK(sim.busy());
  gate->allow(2);
  sim.finish();
  CHECK_FALSE(sim.busy());
  CHECK(gate->last_thread != std::this_thread::get_id());
  CHECK(sim.steps_done() == 3);
  CHECK(sim.version() != version);
  CHECK(sim.values()[0] == initial[0] + 3);
  CHECK(sim.setup() == edited);
  CHECK(gate->reconfigures == 1);

  // Timed now: steps that take a millisecond run on the caller's thread and are done when advance returns.
  gate->step_seconds = 0.001;
  gate->allow(2);
  sim.advance(2); // the steps before were timed at a second each: these still go to the worker
  sim.finish();
  CHECK(sim.steps_done() == 5);
  gate->allow(2);
  sim.advance(2);
  CHECK_FALSE(sim.busy());
  CHECK(sim.steps_done() == 7);
  CHECK(gate->last_thread == std::this_thread::get_id());
}

TEST_CASE("a background advance is cancelled by a reset, reports a failure, and ends with the simulation",
          "[gui][simulation]") {
  auto gate = std::make_shared<Gate>();
  gate->allowed = 1000;
  gate->sleep_ms = 10;
  const SimulationSetup setup = gated_setup();
  {
    Simulation sim(std::make_unique<GatedBackend>(gate));
    sim.reset(setup);
    sim.advance(400); // seconds of steps
    REQUIRE(sim.busy());
    sim.reset(setup); // cancels after the current step, then starts again
    CHECK_FALSE(sim.busy());
    CHECK(gate->saw_cancel);
    CHECK(sim.steps_done() == 0);
    CHECK(sim.stopped().empty());

    gate->fail = true;
    sim.advance(2);
    sim.finish();
    CHECK_THAT(sim.stopped(), Catch::Contains("the gated step failed"));
    gate->fail = false;

    sim.reset(setup);
    gate->saw_cancel = false;
    sim.advance(400);
    REQUIRE(sim.busy());
  } // the destructor cancels the steps and joins the worker
  CHECK(gate->saw_cancel);
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
