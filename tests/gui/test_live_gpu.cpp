// The live view on a GPU (its own binary: exits 77, which CTest reports as skipped, without a CUDA device). A
// GPU method's frames reach the heat map's R32F texture through CUDA-GL interop, texel for texel what the device
// holds; and the Simulation window at 4096^2 with one step per frame is timed headless (target: 60 fps on an
// H100/H200), also while a weight is dragged (new weights every frame, taken by the device grid in place). SE_LIVE_GPU_SCREENSHOT and SE_LIVE_GPU_REPORT name files for the screenshot and a JSON report.
#include <catch2/catch.hpp>

#include "tests/catch_run.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <fmt/format.h>
#include <string>
#include <vector>

#include <glad/gl.h>
#include <nlohmann/json.hpp>

#include "app/platform/heatmap_renderer.hpp"
#include "app/sim/simulation.hpp"
#include "core/brush.hpp"
#include "core/error_bound.hpp"
#include "core/reference.hpp"
#include "gui_test_support.hpp"
#include "kernels/device.hpp"
#include "kernels/registry.hpp"

using namespace se;
using se::test::HeadlessExplorer;

namespace {

std::vector<float> read_values_texture(const HeatmapRenderer& heatmap) {
  std::vector<float> texels(static_cast<std::size_t>(heatmap.width()) * heatmap.height());
  glBindTexture(GL_TEXTURE_2D, heatmap.values_texture());
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  glGetTexImage(GL_TEXTURE_2D, 0, GL_RED, GL_FLOAT, texels.data());
  REQUIRE(glGetError() == GL_NO_ERROR);
  return texels;
}

int color_distance(const std::uint8_t* p, const Rgba8& c) {
  return std::abs(p[0] - c[0]) + std::abs(p[1] - c[1]) + std::abs(p[2] - c[2]);
}

// No saved state, the heat stencil, `view` in front.
StartupState gpu_scene(const char* view, std::optional<Extent> size = std::nullopt) {
  ExplorerOptions o;
  o.use_state = false;
  o.view = view;
  o.stencil = preset("heat-2d");
  o.size = size;
  return prepare_startup(o);
}

// The Simulation view's method switched to cuda-core on the GPU, warmed up (registration, first launches, driver
// caches), its frames going through interop.
void use_cuda_core(HeadlessExplorer& ex) {
  ex.frames(1);
  ex.click("simulation.method");
  ex.frames(1);
  ex.click("simulation.method.cuda-core.gpu");
  REQUIRE(ex.simulation().method() == MethodKey{"cuda-core", Backend::GPU});
  ex.frames(30);
  INFO("interop problem: " << ex.simulation().interop_problem());
  REQUIRE(ex.fact("simulation.frame_path") == std::string(to_string(FramePath::DeviceInterop)));
}

} // namespace

TEST_CASE("a GPU run stores its grid into the GL texture through CUDA-GL interop, texel for texel", "[live-gpu]") {
  PlatformRequest request;
  request.kind = PlatformKind::Egl;
  request.headless = true;
  request.width = 640;
  request.height = 480;
  const auto platform = open_platform(request);
  INFO("GL platform: " << platform->description() << ", renderer " << gl_renderer_string());
  const std::vector<Method> methods = all_methods();
  for (const Extent& e : {Extent{2, {300, 200, 1}}, Extent{3, {40, 36, 20}}}) {
    INFO("grid " << e.to_string());
    SimulationSetup setup;
    setup.stencil = preset(e.dims == 2 ? "heat-2d" : "heat-3d");
    setup.extent = e;
    setup.initial = InitialCondition::Random;
    Simulation sim(make_method_backend(method_for(methods, MethodKey{"cuda-core", Backend::GPU})));
    sim.reset(setup);
    sim.advance(3);
    HeatmapRenderer heatmap;
    const Simulation::Frame frame = sim.show(heatmap, e.n[2] / 2);
    INFO("interop problem: " << sim.interop_problem());
    REQUIRE(sim.frame_path() == FramePath::DeviceInterop);
    REQUIRE(frame.width == e.n[0]);
    REQUIRE(frame.height == e.n[1]);
    REQUIRE(heatmap.width() == e.n[0]);
    const std::vector<float> texels = read_values_texture(heatmap);
    const auto values = sim.values(); // the download, only for this check
    const std::size_t plane = static_cast<std::size_t>(e.n[0] * e.n[1]) * static_cast<std::size_t>(e.n[2] / 2);
    float lo = 1e30f, hi = -1e30f;
    std::size_t mismatches = 0;
    for (std::size_t i = 0; i < texels.size(); ++i) {
      const float want = static_cast<float>(values[plane + i]);
      if (texels[i] != want) ++mismatches;
      lo = std::min(lo, want), hi = std::max(hi, want);
    }
    CHECK(mismatches == 0);
    // The colour range was reduced on the device from the same texels.
    CHECK(frame.range.min == Approx(lo).epsilon(0));
    CHECK(frame.range.max == Approx(hi).epsilon(0));
    CHECK(frame.range.not_finite == 0);
  }
}

TEST_CASE("the live view at 4096^2 with one step per frame, on the GPU through interop", "[live-gpu]") {
  HeadlessExplorer ex(PlatformKind::Egl, gpu_scene("simulation", Extent{2, {4096, 4096, 1}}), 1600, 1000);
  ex.state().grid.steps_per_frame = 1;
  ex.state().grid.initial = InitialCondition::Gaussian; // a gradient shows the colour map better than a disc
  use_cuda_core(ex);

  const auto steps_before = ex.simulation().steps_done();
  constexpr int kFrames = 300;
  const auto t0 = std::chrono::steady_clock::now();
  ex.frames(kFrames);
  glFinish(); // every frame's GL work counted, not just queued
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double fps = kFrames / seconds;
  CHECK(ex.simulation().steps_done() - steps_before == kFrames);
  const double step_ms = std::stod(ex.fact("simulation.step_ms"));
  const double texture_ms = std::stod(ex.fact("simulation.texture_ms"));
  const DeviceInfo device = query_device();
  std::printf("live view: %s, GL %s via %s: %.1f fps at 4096x4096, one step per frame (step %.3f ms, texture %.3f ms, "
              "%.1f GStencil/s)\n",
              device.name.c_str(), ex.app().environment().gl_renderer.c_str(), ex.platform().description().c_str(), fps,
              step_ms, texture_ms, ex.simulation().gstencils());

  // A weight dragged while the run plays: every frame brings new weights, which the GPU method takes on its device
  // grid in place (GridStepper::set_stencil), so the frame rate must hold and the run must go on, not restart.
  const std::int64_t in_place_before = ex.simulation().stencil_changes_in_place();
  const auto drag_steps_before = ex.simulation().steps_done();
  const Stencil base = ex.state().stencil;
  const auto t1 = std::chrono::steady_clock::now();
  for (int i = 0; i < kFrames; ++i) {
    Stencil dragged = base;
    const double delta = 0.004 * ((i % 20) - 10) / 10.0; // the centre weight swept up and down by up to 0.004
    dragged.at(0, 0) += delta;
    dragged.at(1, 0) -= delta;
    ex.state().stencil = dragged;
    ex.frames(1);
  }
  glFinish();
  const double drag_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  const double drag_fps = kFrames / drag_seconds;
  const std::int64_t in_place = ex.simulation().stencil_changes_in_place() - in_place_before;
  std::printf("live view while a weight is dragged (new weights every frame): %.1f fps, %lld of %d changes applied on "
              "the device grid in place\n", drag_fps, static_cast<long long>(in_place), kFrames);
  CHECK(in_place >= kFrames - 1);
  CHECK(ex.simulation().steps_done() - drag_steps_before == kFrames); // the run went on: no restart, no lost step
  ex.state().stencil = base;
  ex.frames(1);

  const RgbaImage image = ex.screenshot();
  const WidgetRect hm = ex.probe("simulation.heatmap");
  CHECK(se::test::count_distinct_colors(image, int(hm.x0), int(hm.y0), int(hm.x1), int(hm.y1)) > 30);
  CHECK(color_distance(image.pixel(int(hm.center_x()), int(hm.center_y())), colormap_color(Colormap::Viridis, 1.0)) < 40);
  CHECK(color_distance(image.pixel(int(hm.x0) + 3, int(hm.y0) + 3), colormap_color(Colormap::Viridis, 0.0)) < 40);
  if (const char* path = std::getenv("SE_LIVE_GPU_SCREENSHOT")) write_png(image, path);
  if (const char* path = std::getenv("SE_LIVE_GPU_REPORT"))
    std::ofstream(path) << nlohmann::json{{"gpu", device.name},
                                          {"gl_renderer", ex.app().environment().gl_renderer},
                                          {"platform", ex.platform().description()},
                                          {"grid", "4096x4096"},
                                          {"steps_per_frame", 1},
                                          {"frames", kFrames},
                                          {"seconds", seconds},
                                          {"fps", fps},
                                          {"fps_while_dragging_a_weight", drag_fps},
                                          {"weight_changes_in_place", in_place},
                                          {"step_ms", step_ms},
                                          {"texture_ms", texture_ms},
                                          {"gstencils", ex.simulation().gstencils()}}
                                .dump(2)
                        << "\n";
  CHECK(fps >= 60.0);
  CHECK(drag_fps >= 60.0);
}

TEST_CASE("painting a GPU run writes its device grid in place, value for value what the CPU brush writes", "[live-gpu][paint]") {
  const std::vector<Method> methods = all_methods();
  int painted = 0;
  for (const Method& m : methods) {
    if (m.backend != Backend::GPU || !m.unavailable_reason().empty()) continue;
    for (const Extent& e : {Extent{2, {300, 200, 1}}, Extent{3, {48, 40, 24}}})
      for (const BoundaryKind boundary : {BoundaryKind::Periodic, BoundaryKind::Dirichlet}) {
        SimulationSetup setup;
        setup.stencil = preset(e.dims == 2 ? "heat-2d" : "heat-3d");
        setup.extent = e;
        setup.boundary.kind = boundary;
        setup.initial = InitialCondition::Random;
        setup.seed = 11;
        PlanPtr plan;
        try {
          plan = m.plan(setup.stencil);
        } catch (const InputError&) {
          continue; // a method of other dims or stencils
        }
        if (!m.check(*plan, e).empty()) continue;
        INFO(m.id << " on " << e.to_string() << ", " << to_string(boundary));
        Simulation sim(make_method_backend(m));
        sim.reset(setup);
        sim.advance(2);
        std::vector<double> want(sim.values().begin(), sim.values().end());
        // A stroke across the corner, so periodic runs wrap it, and a Set dab in the middle.
        const std::int64_t z = e.dims == 3 ? e.n[2] / 2 : 0;
        const std::vector<BrushDab> stroke{{1.0, 2.0, static_cast<double>(z), 1.0}, {5.0, 3.5, static_cast<double>(z), 0.7}};
        const GridEdit add = brush_edit(e, boundary, Brush{6, 0.75, BrushMode::Add}, stroke);
        const std::vector<BrushDab> dab{{0.5 * e.n[0], 0.5 * e.n[1], static_cast<double>(z), 1.0}};
        const GridEdit set = brush_edit(e, boundary, Brush{5, -0.25, BrushMode::Set}, dab);
        for (const GridEdit* edit : {&add, &set}) {
          sim.edit(*edit);
          apply_edit(want, e, *edit, m.precision);
        }
        const auto got = sim.values();
        REQUIRE(got.size() == want.size());
        std::size_t mismatches = 0, first = got.size();
        for (std::size_t i = 0; i < got.size(); ++i)
          if (got[i] != want[i]) {
            if (first == got.size()) first = i;
            ++mismatches;
          }
        INFO("first mismatch at " << first << ": " << (first < got.size() ? got[first] : 0) << " vs "
                                  << (first < got.size() ? want[first] : 0));
        CHECK(mismatches == 0);
        CHECK(sim.steps_done() == 2); // painting is not stepping
        // The next step starts from the painted grid: against the FP64 reference from the same values.
        sim.advance(1);
        std::vector<double> ref = want;
        ReferenceOptions options;
        options.boundary = setup.boundary;
        reference_advance(setup.stencil, e, ref, 1, Precision::FP64, options);
        const ErrorMetrics err = compare(sim.values(), ref);
        CHECK(err.finite);
        CHECK(err.rel_l2 <= error_bound(setup.stencil, m.precision, 1, setup.boundary, want, ref));
        ++painted;
      }
  }
  std::printf("painted %d GPU runs (methods x grids x boundaries) on the device grid\n", painted);
  CHECK(painted >= 4);
}

TEST_CASE("painting at 4096^2 while the GPU run plays keeps the frame rate, through interop", "[live-gpu][paint]") {
  HeadlessExplorer ex(PlatformKind::Egl, gpu_scene("simulation", Extent{2, {4096, 4096, 1}}), 1600, 1000);
  ex.state().grid.steps_per_frame = 1;
  ex.state().grid.initial = InitialCondition::Zero;
  ex.state().brush = Brush{64, 1, BrushMode::Add};
  use_cuda_core(ex);
  const WidgetRect hm = ex.probe("simulation.heatmap");
  const auto steps_before = ex.simulation().steps_done();
  const auto edits_before = ex.simulation().edits_applied();
  constexpr int kMoves = 300;
  const auto t0 = std::chrono::steady_clock::now();
  // A diagonal stroke across the grid, one mouse move per frame, while the run plays.
  ex.drag(hm.x0 + 0.2f * (hm.x1 - hm.x0), hm.y0 + 0.2f * (hm.y1 - hm.y0), hm.x0 + 0.8f * (hm.x1 - hm.x0),
          hm.y0 + 0.8f * (hm.y1 - hm.y0), 0, kMoves);
  glFinish();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const std::int64_t frames = ex.simulation().steps_done() - steps_before; // one step per frame
  const double fps = static_cast<double>(frames) / seconds;
  const std::int64_t edits = ex.simulation().edits_applied() - edits_before;
  std::printf("painting at 4096x4096 while playing (cuda-core, brush radius 64): %.1f fps over %lld frames, %lld "
              "strokes applied on the device grid\n", fps, static_cast<long long>(frames), static_cast<long long>(edits));
  // A frame paints when the mouse went at least the dab spacing (r/3, 21 points) since the last dab: here a move
  // is ~8 grid points, so a stroke every second or third frame.
  CHECK(edits >= kMoves / 4);
  CHECK(frames >= kMoves);
  CHECK(ex.fact("simulation.frame_path") == std::string(to_string(FramePath::DeviceInterop)));
  // The stroke is there, unbroken: heat all along the diagonal (screen y down is grid y up), none in the corners.
  for (double t = 0.25; t <= 0.75; t += 0.05) {
    INFO("along the stroke at t = " << t);
    CHECK(ex.simulation().value_at(static_cast<std::int64_t>(4096 * t), static_cast<std::int64_t>(4096 * (1 - t)), 0) > 0.1);
  }
  CHECK(ex.simulation().value_at(100, 100, 0) == 0.0);
  CHECK(ex.simulation().value_at(4000, 4000, 0) == 0.0);
  const RgbaImage image = ex.screenshot();
  if (const char* path = std::getenv("SE_LIVE_GPU_PAINT_SCREENSHOT")) write_png(image, path);
  CHECK(fps >= 60.0);
}

TEST_CASE("the Compare view marks small-grid GPU numbers launch-bound and times them at the papers' size", "[live-gpu]") {
  HeadlessExplorer ex(PlatformKind::Egl, gpu_scene("compare"), 1600, 1000);
  ex.frames(5);
  int gpu_panel = -1;
  for (int i = 0; i < std::stoi(ex.fact("compare.panels")); ++i)
    if (ex.fact(fmt::format("compare.panel{}.method", i)).find("(gpu)") != std::string::npos) gpu_panel = i;
  REQUIRE(gpu_panel >= 0);
  const std::string prefix = fmt::format("compare.panel{}", gpu_panel);
  ex.probe(prefix + ".launch_bound"); // the 128x128 number says it is launch-bound
  ex.click("compare.paper_time");
  for (int i = 0; i < 6000 && !ex.app().view_facts().count(prefix + ".paper_gstencils"); ++i) ex.frames(1);
  const double paper = std::stod(ex.fact(prefix + ".paper_gstencils"));
  std::printf("compare: %s at 128x128 %.3f GStencil/s (launch-bound), at 10240x10240 %.1f GStencil/s\n",
              ex.fact(prefix + ".method").c_str(), std::stod(ex.fact(prefix + ".gstencils")), paper);
  CHECK(paper > 10 * std::stod(ex.fact(prefix + ".gstencils")));
}

int main(int argc, char** argv) {
  if (const std::string why = gpu_unavailable_reason(); !why.empty()) {
    std::printf("test_live_gpu skipped: %s\n", why.c_str());
    return 77;
  }
  return se::testing::run_catch(argc, argv);
}
