// The run views headless: Compare and Performance render non-blank and unlike each other and the Simulation
// window; synthetic input picks methods, starts and cancels a sweep, zooms a plot and exports (the CSV, JSON and
// PNGs are read back); the Simulation window's method selector runs CPU emulations and stops an FP16 run before
// it overflows. The plain parts (ticks, costs, roofline points, recorded results, CSV) are checked directly.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <GLFW/glfw3.h>
#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#include <stb/stb_image.h>

#include "app/sim/benchmark_job.hpp"
#include "app/widgets/plot_widgets.hpp"
#include "core/error_bound.hpp"
#include "core/reference.hpp"
#include "kernels/registry.hpp"
#include "gui_test_support.hpp"

using namespace se;
using se::test::HeadlessExplorer;
using se::test::TempDir;

namespace {

StartupState focused(const std::string& view, const std::string& stencil = "heat-2d", std::int64_t side = 64) {
  ExplorerOptions o;
  o.use_state = false;
  o.view = view;
  o.stencil = preset(stencil);
  o.size = Extent{o.stencil->dims, {side, o.stencil->dims > 1 ? side : 1, o.stencil->dims > 2 ? side : 1}};
  return prepare_startup(o);
}

// Opens a combo by its probe, then clicks the item (the popup exists only from the frame after the click).
void pick(HeadlessExplorer& ex, const std::string& combo, const std::string& item) {
  ex.click(combo);
  ex.frames(1);
  ex.click(item);
}

// Frames until `done` or the deadline; background jobs need wall time, not frames.
template <typename F> bool frames_until(HeadlessExplorer& ex, F done, double seconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    ex.frames(1);
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

// Types `folder` into the Performance view's export field (replacing what is there) and presses Export.
void export_performance(HeadlessExplorer& ex, const std::string& folder) {
  ex.replace_text("performance.export_dir", folder);
  ex.click("performance.export");
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

} // namespace

TEST_CASE("axis ticks: 1-2-5 steps on linear axes, decades on log axes", "[gui][plots]") {
  const auto lin = axis_ticks(0.0, 1.0, AxisScale::Linear, 5);
  REQUIRE(lin.size() == 6);
  CHECK(lin.front().value == 0.0);
  CHECK(lin.back().value == Approx(1.0));
  CHECK(lin[1].label == "0.2");
  const auto log = axis_ticks(1e-3, 1e3, AxisScale::Log, 8);
  std::vector<double> majors;
  for (const auto& t : log)
    if (!t.label.empty()) majors.push_back(t.value);
  REQUIRE(majors.size() == 7);
  CHECK(majors.front() == Approx(1e-3));
  CHECK(majors.back() == Approx(1e3));
  CHECK(log.size() > majors.size()); // minor ticks 2..9 within six decades
  // A narrow log range labels its 2s and 5s so the scale can be read.
  int labelled = 0;
  for (const auto& t : axis_ticks(3000, 70000, AxisScale::Log, 8)) labelled += t.label.empty() ? 0 : 1;
  CHECK(labelled >= 3);
  // A narrow plot's two majors still label two ticks (over 0..4096 a step of 5000 labelled only 0, issue 17).
  CHECK(axis_ticks(0.0, 4096.0, AxisScale::Linear, 2).size() >= 2);
  CHECK(axis_ticks(-3.0, 4200.0, AxisScale::Linear, 2).size() >= 2);
  CHECK(tick_label(1e9) == "1e9");
  CHECK(tick_label(1e-5) == "1e-5");
  CHECK_THROWS_AS(axis_ticks(0.0, 1.0, AxisScale::Log), InputError);
  CHECK_THROWS_AS(axis_ticks(2.0, 1.0, AxisScale::Linear), InputError);
}

TEST_CASE("roofline points: the model under the roofs and the measurement on the same intensity", "[gui][plots]") {
  const Stencil s = preset("heat-2d");
  const Extent e{2, {512, 512, 1}};
  // cuda-core has no plan: 2 x 5 FLOPs over 16 bytes per point in FP64.
  const MethodCost simple = method_cost("cuda-core", Backend::GPU, Precision::FP64, 1, s, e);
  CHECK_FALSE(simple.from_plan);
  CHECK(simple.flops_per_point == 10.0);
  CHECK(simple.bytes_per_point == 16.0);
  CHECK(method_cost("cuda-core-tb", Backend::GPU, Precision::FP64, 4, s, e).bytes_per_point == 4.0);
  // lorastencil has one: the point sits where core's cost report says.
  const MethodCost lora = method_cost("lorastencil", Backend::Emulate, Precision::FP64, 1, s, e);
  REQUIRE(lora.from_plan);
  const CostReport report = find_method(all_methods(), "lorastencil", Backend::Emulate).plan(s, 1)->cost;
  CHECK(lora.intensity() == Approx(report.arithmetic_intensity()));
  // A GPU record's point is the kernel's own plan (its m16n8k4 tile), at the fusion the record ran.
  const MethodCost lora_gpu = method_cost("lorastencil", Backend::GPU, Precision::FP64, 4, s, e);
  CHECK_THAT(lora_gpu.mma_shape, Catch::Contains("m16n8k4"));
  CHECK(lora_gpu.intensity() ==
        Approx(find_method(all_methods(), "lorastencil", Backend::GPU).plan(s, 4)->cost.arithmetic_intensity()));

  RooflineCeilings c;
  c.device = "test device";
  c.bandwidth_gbs = 1000;
  c.compute = {{"mma.m8n8k4.f64", 0.001}}; // 1 GFLOP/s: a compute roof low enough to bind
  BenchmarkRecord r;
  r.method = "cuda-core";
  r.backend = Backend::GPU;
  r.stencil = s.name;
  r.extent = e;
  r.gstencils = 2.0;
  const auto points = roofline_points({r}, s, c);
  REQUIRE(points.size() == 2);
  const RooflinePoint& model = points[0];
  const RooflinePoint& measured = points[1];
  CHECK_FALSE(model.measured);
  CHECK(measured.measured);
  CHECK(model.intensity == Approx(10.0 / 16.0));
  CHECK(model.flops == Approx(1000e9 * 10.0 / 16.0)); // a CUDA-core method: no MMA roof applies
  CHECK(measured.flops == Approx(2.0e9 * 10.0));
  r.method = "lorastencil";
  r.fused_steps = 4;
  const auto lora_points = roofline_points({r}, s, c);
  REQUIRE(lora_points.size() == 2);
  CHECK(lora_points[0].flops > 1e9); // the GPU kernel runs m16n8k4: the m8n8k4 roof is not its roof
  c.compute.push_back({"mma.m16n8k4.f64", 0.002});
  const auto with_roof = roofline_points({r}, s, c);
  CHECK(with_roof[0].flops == Approx(2e9)); // its own MMA shape's roof binds
  r.backend = Backend::Emulate; // the emulation's plan is the paper's m8n8k4 tile
  CHECK(roofline_points({r}, s, c)[0].note.find("m8n8k4") != std::string::npos);
}

TEST_CASE("recorded results: the suite's file, its nested ceilings, and malformed files refused", "[gui][plots]") {
  const std::filesystem::path file = std::filesystem::path(SE_SOURCE_DIR) / "assets/results/NVIDIA_H200.json";
  REQUIRE(std::filesystem::exists(file));
  const RecordedResults r = load_recorded_results(file);
  CHECK(r.gpu == "NVIDIA H200");
  CHECK(r.ceilings.bandwidth_gbs > 1000);
  REQUIRE_FALSE(r.records.empty());
  CHECK(r.records.size() == r.experiments.size());
  const nlohmann::json j = nlohmann::json::parse(read_file(file));
  CHECK(r.records.size() == j["results"].size());
  CHECK(r.records[0].gstencils == Approx(j["results"][0]["gstencils"].get<double>()));
  CHECK_THAT(r.records[0].source, Catch::Contains("NVIDIA H200 (recorded"));

  TempDir dir;
  std::ofstream(dir.path() / "bad.json") << "{\"results\": 3}";
  std::ofstream(dir.path() / "not.json") << "not json";
  std::ofstream(dir.path() / "other.json") << "{\"hello\": 1}";
  std::filesystem::copy_file(file, dir.path() / "a.json");
  std::filesystem::copy_file(file, dir.path() / "b.json"); // the same runs twice count once
  std::vector<std::string> problems;
  const auto loaded = load_results_dir(dir.path(), problems);
  REQUIRE(loaded.size() == 2);
  CHECK(loaded[0].records.size() == r.records.size());
  CHECK(loaded[1].records.empty());
  CHECK(problems.size() == 3);
  // The suite nests the device ceilings; `stencil-bench device` writes them at the top.
  const nlohmann::json rates = nlohmann::json::array(
      {{{"name", "copy.memcpy"}, {"unit", "GB/s"}, {"supported", true}, {"median", 4000.0}},
       {{"name", "mma.m16n8k4.f64"}, {"unit", "TFLOP/s"}, {"supported", true}, {"median", 66.0}},
       {{"name", "mma.m16n8k8.f64"}, {"unit", "TFLOP/s"}, {"supported", false}, {"median", 0.0}}});
  const RooflineCeilings nested = ceilings_from_json(nlohmann::json{{"gpu", "G"}, {"ceilings", {{"copy_gbs", 4000.0}, {"rates", rates}}}}, "x");
  CHECK(nested.bandwidth_gbs == 4000.0);
  REQUIRE(nested.compute.size() == 1);
  CHECK(nested.compute[0].tflops == 66.0);
  CHECK(ceilings_from_json(nlohmann::json{{"copy_gbs", 10.0}, {"rates", rates}}, "x").compute.size() == 1);
  const RooflineCeilings flat = ceilings_from_json(nlohmann::json{{"gpu", "G"}, {"dmma_tflops", {{"m8n8k4", 33.0}}}, {"copy_gbs", 10.0}}, "x");
  REQUIRE(flat.compute.size() == 1);
  CHECK(flat.compute[0].name == "mma.m8n8k4.f64");
}

TEST_CASE("a sweep task times each method, checks it against FP64, and stops when cancelled", "[gui][sweep]") {
  std::vector<Method> methods;
  for (const Method& m : all_methods())
    if (m.backend != Backend::GPU) methods.push_back(m);
  SweepRequest q;
  q.stencil = preset("heat-2d");
  q.methods = {MethodKey{"cpu-reference", Backend::CPU}, MethodKey{"lorastencil", Backend::Emulate},
               MethodKey{"tcstencil", Backend::Emulate}};
  q.sizes = {Extent{2, {33, 33, 1}}, Extent{2, {48, 40, 1}}};
  q.seconds_per_run = 0.01;
  BenchmarkJob job;
  job.start("test sweep", sweep_task(methods, q));
  job.wait();
  CHECK_FALSE(job.running());
  CHECK(job.progress() == 1.0);
  CHECK_THAT(job.status(), Catch::Contains("done"));
  const auto records = job.records();
  REQUIRE(records.size() == 6);
  for (const auto& r : records) {
    INFO(r.method << " " << r.extent.to_string());
    CHECK(r.steps >= 1);
    CHECK(r.gstencils > 0);
    CHECK(r.passed);
    // The check: on the timed run, or on a shorter one whose bound resolves the precision's limit.
    CHECK(r.rel_l2 <= r.bound);
    CHECK(r.timed_rel_l2 <= r.timed_bound);
    CHECK(r.checked_steps >= 1);
    CHECK(r.checked_steps <= r.steps);
    CHECK(r.bound <= check_bound_limit(r.precision));
    if (r.checked_steps == r.steps) CHECK(r.timed_rel_l2 == r.rel_l2);
  }
  CHECK(records[0].rel_l2 == 0.0); // the reference against itself
  CHECK(records[2].rel_l2 > 1e-8); // FP16 storage differs from FP64, within its bound

  const std::string csv = records_csv(records);
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 7);
  CHECK(csv.rfind("method,backend,precision,stencil,size", 0) == 0);

  // Cancelled runs end early and say so.
  q.sizes = {Extent{2, {512, 512, 1}}, Extent{2, {1024, 1024, 1}}};
  q.seconds_per_run = 5;
  job.clear_records();
  job.start("long sweep", sweep_task(methods, q));
  CHECK_THROWS_AS(job.start("second", sweep_task(methods, q)), InputError);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  job.cancel();
  job.wait();
  CHECK_THAT(job.status(), Catch::Contains("cancelled"));
  CHECK(job.records().size() < 6);

  SweepRequest empty = q;
  empty.methods.clear();
  CHECK_THROWS_AS(sweep_task(methods, empty), InputError);
  SweepRequest unknown = q;
  unknown.methods = {MethodKey{"no-such-method", Backend::GPU}};
  CHECK_THROWS_AS(sweep_task(methods, unknown), InputError);
}

TEST_CASE("the CPU's own roofs are measured, naming the ISA that ran", "[gui][sweep]") {
  const RooflineCeilings c = measure_cpu_ceilings();
  CHECK(c.bandwidth_gbs > 0.1);
  REQUIRE(c.compute.size() == 1);
  CHECK(c.compute[0].tflops > 1e-4);
  CHECK_THAT(c.device, Catch::Contains("CPU"));
  const std::string isa(to_string(best_cpu_isa()));
  CHECK_THAT(c.device, Catch::Contains(isa));
  CHECK_THAT(c.compute[0].name, Catch::Contains(isa));
}

TEST_CASE("the compare and performance views render non-blank, unlike each other and the simulation", "[gui][egl][runs]") {
  std::vector<RgbaImage> shots;
  for (const std::string view : {"compare", "performance", "simulation"}) {
    HeadlessExplorer ex(PlatformKind::Egl, focused(view), 1280, 800);
    ex.frames(4);
    shots.push_back(ex.screenshot());
    const WidgetRect w = ex.probe(view + ".window");
    INFO(view);
    CHECK(se::test::count_distinct_colors(shots.back(), int(w.x0), int(w.y0), int(w.x1), int(w.y1)) > 150);
  }
  CHECK(se::test::differing_fraction(shots[0], shots[1]) > 0.2);
  CHECK(se::test::differing_fraction(shots[0], shots[2]) > 0.2);
  CHECK(se::test::differing_fraction(shots[1], shots[2]) > 0.2);
}

TEST_CASE("compare: methods run in lockstep with the FP64 reference and take synthetic input", "[gui][egl][runs]") {
  HeadlessExplorer ex(PlatformKind::Egl, focused("compare"), 1400, 900);
  ex.frames(3);
  REQUIRE(ex.fact("compare.panels") == "4");
  const std::string steps = ex.fact("compare.reference_steps");
  CHECK(std::stoi(steps) >= 2);
  for (int i = 0; i < 4; ++i) {
    const std::string p = "compare.panel" + std::to_string(i) + ".";
    INFO(ex.fact(p + "method"));
    CHECK(ex.fact(p + "steps") == steps);
    REQUIRE_FALSE(ex.fact(p + "rel_l2").empty());
    const double err = std::stod(ex.fact(p + "rel_l2"));
    const bool fp16 = ex.fact(p + "method").find("tcstencil") != std::string::npos ||
                      ex.fact(p + "method").find("spider") != std::string::npos;
    CHECK(err <= (fp16 ? 1e-2 : 1e-12));
    CHECK(std::stod(ex.fact(p + "gstencils")) > 0);
  }
  // Four panels is the most: Add is disabled; Remove takes one away and everything restarts.
  ex.click("compare.add");
  CHECK(ex.fact("compare.panels") == "4");
  ex.click("compare.panel3.remove");
  ex.frames(1);
  CHECK(ex.fact("compare.panels") == "3");
  ex.click("compare.add");
  ex.frames(1);
  CHECK(ex.fact("compare.panels") == "4");
  // The reference itself in a panel: exactly zero error.
  pick(ex, "compare.panel0.method", "compare.panel0.method.cpu-reference.cpu");
  ex.frames(2);
  CHECK(ex.fact("compare.panel0.method") == "cpu-reference (cpu)");
  CHECK(std::stod(ex.fact("compare.panel0.rel_l2")) == 0.0);
  // A few steps after the restart, so FP16 panels have rounding errors to show (steps of slow emulations go to
  // worker threads: on a loaded machine the first frames may do none).
  for (int i = 0; i < 600 && std::stoll(ex.fact("compare.reference_steps")) < 4; ++i) ex.frames(1);
  // Pause holds every panel and the reference still, once steps already under way have landed.
  ex.click("compare.play");
  const auto all_landed = [&] {
    for (int i = 0; i < 4; ++i)
      if (ex.fact("compare.panel" + std::to_string(i) + ".steps") != ex.fact("compare.reference_steps")) return false;
    return true;
  };
  for (int i = 0; i < 600 && !all_landed(); ++i) ex.frames(1);
  const std::string held = ex.fact("compare.reference_steps");
  ex.frames(3);
  CHECK(ex.fact("compare.reference_steps") == held);
  CHECK(ex.fact("compare.panel1.steps") == held);
  // An FP16 panel's error map shows its rounding pattern; FP64 ones may agree with the reference exactly.
  const RgbaImage image = ex.screenshot();
  int fp16_panels = 0;
  for (int i = 0; i < 4; ++i) {
    const std::string p = "compare.panel" + std::to_string(i) + ".";
    const std::string method = ex.fact(p + "method");
    if (method.find("tcstencil (") == std::string::npos && method.find("spider") == std::string::npos) continue;
    ++fp16_panels;
    INFO(method);
    const WidgetRect err = ex.probe(p + "errormap");
    CHECK(se::test::count_distinct_colors(image, int(err.x0), int(err.y0), int(err.x1), int(err.y1)) > 5);
  }
  CHECK(fp16_panels >= 1);
}

TEST_CASE("the Simulation window's method selector runs CPU emulations, and GPU methods only with a device",
          "[gui][egl][runs]") {
  HeadlessExplorer ex(PlatformKind::Egl, focused("simulation", "heat-2d", 48), 1400, 900);
  ex.frames(2);
  CHECK(ex.fact("simulation.method") == "cpu-reference (cpu)");
  ex.press(GLFW_KEY_SPACE); // pause, so the step count is ours
  REQUIRE_FALSE(ex.state().playing);
  pick(ex, "simulation.method", "simulation.method.lorastencil.emulate");
  CHECK(ex.simulation().method() == MethodKey{"lorastencil", Backend::Emulate});
  CHECK(ex.simulation().steps_done() == 0);
  for (int i = 0; i < 5; ++i) ex.press(GLFW_KEY_S);
  REQUIRE(ex.simulation().steps_done() == 5);
  // The emulation's grid is the FP64 reference's, to FP64 rounding.
  const SimulationSetup& setup = ex.simulation().setup();
  std::vector<double> reference = initial_values(setup.extent, setup.initial, setup.seed);
  ReferenceOptions options;
  options.boundary = setup.boundary;
  reference_advance(setup.stencil, setup.extent, reference, 5, Precision::FP64, options);
  const auto values = ex.simulation().values();
  CHECK(compare({values.begin(), values.end()}, reference).rel_l2 < 1e-13);
  CHECK(ex.fact("simulation.frame_path") == std::string(to_string(FramePath::HostUpload)));

  if (ex.fact("simulation.gpu") == "no") {
    // Without a device GPU entries are greyed: clicking one leaves the CPU run in place.
    pick(ex, "simulation.method", "simulation.method.cuda-core.gpu");
    CHECK(ex.simulation().method() == MethodKey{"lorastencil", Backend::Emulate});
    const RgbaImage image = ex.screenshot();
    const WidgetRect hm = ex.probe("simulation.heatmap");
    CHECK(se::test::count_distinct_colors(image, int(hm.x0), int(hm.y0), int(hm.x1), int(hm.y1)) > 10);
  }
}

TEST_CASE("a CPU emulation too slow for a frame steps on a worker thread while the window goes on drawing",
          "[gui][egl][runs]") {
  HeadlessExplorer ex(PlatformKind::Egl, focused("simulation", "heat-2d", 1024), 1400, 900);
  ex.state().grid.steps_per_frame = 8; // a fraction of a second to seconds on the CPU
  ex.frames(1);
  pick(ex, "simulation.method", "simulation.method.convstencil.emulate");
  REQUIRE(ex.simulation().method() == MethodKey{"convstencil", Backend::Emulate});
  REQUIRE(ex.state().playing);
  REQUIRE(frames_until(ex, [&] { return ex.fact("simulation.busy") == "yes"; }, 60.0));
  const std::int64_t at = ex.simulation().steps_done();
  const auto frame = ex.state().frame;
  ex.frames(3); // frames keep coming while the steps run
  CHECK(ex.state().frame == frame + 3);
  const WidgetRect bar = ex.probe("simulation.progress");
  CHECK(bar.x1 > bar.x0);
  // Its text fits the bar (centred and too wide, it was cut at both ends in a lecture's narrow column) and never
  // counts past the request ('step 5 of 4' while the last step's result was collected, issue 17).
  if (ex.fact("simulation.busy") == "yes") {
    CHECK(std::stof(ex.fact("simulation.progress_text_w")) <= bar.x1 - bar.x0);
    std::smatch m;
    const std::string text = ex.fact("simulation.progress_text");
    REQUIRE(std::regex_search(text, m, std::regex("(\\d+) of (\\d+)")));
    CHECK(std::stoi(m[1].str()) <= std::stoi(m[2].str()));
  }
  REQUIRE(frames_until(ex, [&] { return ex.simulation().steps_done() > at; }, 120.0));
  CHECK(ex.simulation().stopped().empty());
  CHECK((ex.simulation().steps_done() - at) % 8 == 0); // whole requests, none queued twice
  // Pause, and Reset while steps may still run: it cancels them and starts again.
  ex.press(GLFW_KEY_SPACE);
  ex.press(GLFW_KEY_R);
  ex.frames(1);
  CHECK(ex.simulation().steps_done() == 0);
}

TEST_CASE("an FP16 run stops with a message before it could overflow, and the app goes on", "[gui][egl][runs]") {
  HeadlessExplorer ex(PlatformKind::Egl, focused("simulation", "heat-2d", 48), 1400, 900);
  ex.frames(1);
  pick(ex, "simulation.method", "simulation.method.tcstencil.emulate");
  REQUIRE(ex.simulation().method() == MethodKey{"tcstencil", Backend::Emulate});
  ex.state().stencil.at(0, 0) = 3.0; // sum |w| = 3.5: values grow 3.5x per step
  ex.state().stencil.name = "amplifying";
  REQUIRE(frames_until(ex, [&] { return !ex.simulation().stopped().empty(); }, 20.0));
  CHECK_THAT(ex.simulation().stopped(), Catch::Contains("FP16"));
  const auto at = ex.simulation().steps_done();
  ex.frames(3);
  CHECK(ex.simulation().steps_done() == at); // stopped, not crashed
  CHECK_THAT(ex.fact("simulation.stopped"), Catch::Contains("FP16"));
  // Back to a stable stencil and Reset: it runs again.
  ex.state().stencil = preset("heat-2d");
  ex.click("simulation.reset");
  ex.frames(2);
  CHECK(ex.simulation().stopped().empty());
  CHECK(ex.simulation().steps_done() > 0);
}

TEST_CASE("performance: a first sweep at opening, a sweep started and cancelled, zoom, and exports that parse",
          "[gui][egl][runs]") {
  HeadlessExplorer ex(PlatformKind::Egl, focused("performance"), 1600, 1000);
  ex.frames(2);
  // Headless runs wait for the opening sweep and the roofs, so the plots have data from the first frame.
  const int first = std::stoi(ex.fact("performance.records"));
  CHECK(first >= 6);
  CHECK(ex.fact("performance.running") == "no");
  CHECK_THAT(ex.fact("performance.ceilings"), Catch::Contains("GB/s"));
  CHECK(std::stoi(ex.fact("performance.roofline_points")) > first);

  // Fewer methods for the next sweeps: six emulations unticked.
  const int selected = std::stoi(ex.fact("performance.methods_selected"));
  ex.click("performance.methods");
  ex.frames(1);
  int unticked = 0;
  for (const std::string m : {"tcstencil-fp64.emulate", "convstencil.emulate", "flashfft.emulate", "spider.emulate",
                              "spider-dense.emulate", "tcstencil.emulate"}) {
    REQUIRE(ex.state().probes.count("performance.method." + m));
    ex.click("performance.method." + m);
    ++unticked;
  }
  ex.click("performance.progress"); // a click outside closes the popup
  CHECK(std::stoi(ex.fact("performance.methods_selected")) == selected - unticked);

  ex.click("performance.full_sweep");
  CHECK(ex.fact("performance.running") == "yes");
  ex.click("performance.cancel");
  REQUIRE(frames_until(ex, [&] { return ex.fact("performance.running") == "no"; }, 60.0));
  CHECK_THAT(ex.fact("performance.status"), Catch::Contains("cancelled"));

  ex.click("performance.quick_sweep");
  REQUIRE(frames_until(ex, [&] { return ex.fact("performance.running") == "no"; }, 60.0));
  CHECK_THAT(ex.fact("performance.status"), Catch::Contains("done"));

  // Right-drag a box on the roofline: the range shown narrows.
  const std::string before = ex.fact("performance.roofline_zoom");
  const WidgetRect r = ex.probe("performance.roofline");
  const float w = r.x1 - r.x0, h = r.y1 - r.y0;
  ex.input().move_mouse(r.x0 + 0.3f * w, r.y0 + 0.3f * h);
  ex.input().mouse_button(1, true);
  ex.input().move_mouse(r.x0 + 0.5f * w, r.y0 + 0.45f * h);
  ex.input().move_mouse(r.x0 + 0.6f * w, r.y0 + 0.6f * h);
  ex.input().mouse_button(1, false);
  ex.settle();
  const std::string after = ex.fact("performance.roofline_zoom");
  REQUIRE(after != before);
  std::istringstream b(before), a(after);
  double bx0, bx1, by0, by1, ax0, ax1, ay0, ay1;
  b >> bx0 >> bx1 >> by0 >> by1;
  a >> ax0 >> ax1 >> ay0 >> ay1;
  CHECK(std::log10(ax1 / ax0) < 0.5 * std::log10(bx1 / bx0));
  CHECK(std::log10(ay1 / ay0) < 0.5 * std::log10(by1 / by0));

  // Export into a fresh folder: CSV and JSON read back with the records, each PNG decodes.
  TempDir dir;
  const std::string out = (dir.path() / "export").string();
  export_performance(ex, out);
  ex.frames(2);
  CHECK_THAT(ex.fact("performance.message"), Catch::Contains("4 plots as PNG"));
  const int records = std::stoi(ex.fact("performance.records")) + std::stoi(ex.fact("performance.recorded"));
  const std::string csv = read_file(std::filesystem::path(out) / "performance.csv");
  CHECK(std::count(csv.begin(), csv.end(), '\n') == records + 1);
  const nlohmann::json j = nlohmann::json::parse(read_file(std::filesystem::path(out) / "performance.json"));
  CHECK(static_cast<int>(j["records"].size()) == records);
  CHECK(j["ceilings"]["bandwidth_gbs"].get<double>() > 0);
  CHECK(j["roofline"].size() == static_cast<std::size_t>(std::stoi(ex.fact("performance.roofline_points"))));
  for (const char* name : {"throughput.png", "scaling.png", "roofline.png", "accuracy.png"}) {
    INFO(name);
    int width = 0, height = 0, channels = 0;
    unsigned char* pixels =
        stbi_load((std::filesystem::path(out) / name).string().c_str(), &width, &height, &channels, 4);
    REQUIRE(pixels != nullptr);
    CHECK(width > 200);
    CHECK(height > 150);
    std::set<std::uint32_t> colors;
    for (int i = 0; i < width * height; ++i)
      colors.insert(static_cast<std::uint32_t>(pixels[4 * i]) << 16 | pixels[4 * i + 1] << 8 | pixels[4 * i + 2]);
    stbi_image_free(pixels);
    CHECK(colors.size() > 20);
  }
}

TEST_CASE("performance: hovering a roofline point gives its numbers", "[gui][egl][runs]") {
  HeadlessExplorer ex(PlatformKind::Egl, focused("performance"), 1600, 1000);
  ex.frames(2);
  // The points, from the JSON export; the plot's area and range, from its facts.
  TempDir dir;
  export_performance(ex, dir.str());
  ex.frames(2);
  const nlohmann::json j = nlohmann::json::parse(read_file(dir.path() / "performance.json"));
  std::istringstream area(ex.fact("performance.roofline_area")), range(ex.fact("performance.roofline_zoom"));
  double ax0, ay0, ax1, ay1, x0, x1, y0, y1;
  area >> ax0 >> ay0 >> ax1 >> ay1;
  range >> x0 >> x1 >> y0 >> y1;
  REQUIRE(ax1 > ax0);
  // A measured point (filled markers are drawn over the legend), moved to along the log axes.
  const auto measured = std::find_if(j["roofline"].begin(), j["roofline"].end(),
                                     [](const nlohmann::json& p) { return p["kind"] == "measured"; });
  REQUIRE(measured != j["roofline"].end());
  const double ix = (*measured)["flop_per_byte"].get<double>(), fy = (*measured)["flops"].get<double>();
  const double px = ax0 + (ax1 - ax0) * std::log10(ix / x0) / std::log10(x1 / x0);
  const double py = ay1 - (ay1 - ay0) * std::log10(fy / y0) / std::log10(y1 / y0);
  ex.input().move_mouse(static_cast<float>(px), static_cast<float>(py));
  ex.settle();
  ex.frames(1);
  const std::string hover = ex.fact("performance.roofline_hover");
  CHECK_THAT(hover, Catch::Contains("FLOP/byte"));
  CHECK_THAT(hover, Catch::Contains("GStencil/s"));
  // The nearest point is this one or one on top of it: the same intensity either way.
  CHECK_THAT(hover, Catch::Contains(fmt::format("{:.3g} FLOP/byte", ix)));
}
