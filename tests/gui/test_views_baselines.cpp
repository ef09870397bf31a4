// The Baselines view (issue 14): the best CUDA-core and the best tensor-core method for the stencil, side by side.
// What it prints is what it published (view facts): the rates must be recorded ones (the best that passed, FP64
// first) or, for an edited stencil, the cost model's prediction; the per-point numbers must be the plans' own cost.
// The view is one step of the lecture tour and lays out inside the window at 1280x720 in lecture mode.
#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "app/sim/benchmark_job.hpp"
#include "gui_test_support.hpp"
#include "kernels/registry.hpp"

using namespace se;
using se::test::HeadlessExplorer;

namespace {

StartupState baselines_of(const Stencil& s, bool lecture) {
  ExplorerOptions o;
  o.use_state = false;
  o.view = "baselines";
  o.lecture = lecture;
  o.stencil = s;
  o.size = Extent{s.dims, {32, s.dims > 1 ? 32 : 1, s.dims > 2 ? 16 : 1}};
  return prepare_startup(o);
}

std::vector<RecordedResults> recorded_files() {
  const auto dir = find_results_dir();
  REQUIRE(dir.has_value());
  std::vector<std::string> problems;
  return load_results_dir(*dir, problems);
}

// The plan the view says it built for `side`, rebuilt here from the descriptor.
PlanPtr side_plan(HeadlessExplorer& ex, const std::string& side, const Stencil& s) {
  const DescriptorPtr& d = find_descriptor(method_list(), ex.fact("baselines." + side + ".id"));
  return gpu_variant(d).plan(s, std::stoi(ex.fact("baselines." + side + ".plan_request")));
}

std::string printed_costs(const MethodPlan& p) {
  const CostReport& c = p.cost;
  return fmt::format("{} {:.4g} {:.4g} {:.4g} {:.4g} {:.4g}", p.fused_steps, c.global_bytes_per_point,
                     c.useful_flops_per_point, c.executed_flops_per_point, c.arithmetic_intensity(), c.mma_per_point);
}

// The tour's Baselines step (lecture mode starts the tour at its first step, whatever --view says).
int baselines_step(const Stencil& stencil) {
  const std::vector<LectureStep> steps = lecture_steps(stencil);
  for (std::size_t i = 0; i < steps.size(); ++i)
    if (steps[i].view == "baselines") return static_cast<int>(i);
  FAIL("no Baselines step in the lecture tour");
  return -1;
}

// The GPU named by the recorded file of that name.
std::string gpu_of(const std::vector<RecordedResults>& files, const std::string& file) {
  for (const RecordedResults& f : files)
    if (f.path.filename().string() == file) return f.gpu;
  return "";
}

bool cuda_core_side(const MethodDescriptor& d) { return !d.tensor_cores && d.gpu && d.gpu->library.empty(); }

void check_inside(HeadlessExplorer& ex, const char* probe) {
  INFO(probe);
  const WidgetRect window = ex.probe("baselines.window");
  const WidgetRect r = ex.probe(probe);
  CHECK(r.x0 >= window.x0);
  CHECK(r.x1 <= window.x1);
  CHECK(r.y1 <= window.y1);
}

} // namespace

TEST_CASE("the descriptors say which methods run on tensor cores", "[baselines]") {
  for (const DescriptorPtr& d : method_list()) {
    INFO(d->id);
    CHECK(d->tensor_cores == !d->paper.empty()); // the papers' methods, and only they
    if (d->id.rfind("cuda-core", 0) == 0) CHECK(cuda_core_side(*d));
    else CHECK_FALSE(cuda_core_side(*d));
  }
}

TEST_CASE("baselines view prints recorded rates and the plans' per-point costs", "[gui][egl][baselines]") {
  const std::vector<RecordedResults> files = recorded_files();
  for (const std::string name : {"heat-1d", "heat-2d", "box-2d49p", "heat-3d"}) {
    INFO(name);
    const Stencil s = preset(name);
    HeadlessExplorer ex(PlatformKind::Egl, baselines_of(s, true), 1280, 720);
    go_to_lecture_step(ex.app().layout(), ex.app().lecture(), ex.app().state().stencil, baselines_step(ex.app().state().stencil));
    ex.frames(2);
    for (const std::string side : {"cuda", "tensor"}) {
      INFO(side);
      const std::string id = ex.fact("baselines." + side + ".id");
      const DescriptorPtr& d = find_descriptor(method_list(), id);
      CHECK((side == "tensor" ? d->tensor_cores : cuda_core_side(*d)));
      CHECK(ex.fact("baselines." + side + ".costs") == printed_costs(*side_plan(ex, side, s)));
      // The rate is a passing GPU record of that method in the file named, and no passing FP64 record of a method
      // of the same side is faster.
      REQUIRE(ex.fact("baselines." + side + ".rate") == "recorded");
      const std::string rate = ex.fact("baselines." + side + ".gstencils");
      bool found = false;
      double best_fp64 = 0;
      const std::string gpu = gpu_of(files, ex.fact("baselines." + side + ".file"));
      for (const RecordedResults& f : files)
        for (const BenchmarkRecord& r : f.records) {
          if (r.backend != Backend::GPU || !r.passed || r.stencil != name) continue;
          if (f.gpu != gpu) continue; // the best of the GPU both sides come from
          if (r.method == id && f.path.filename().string() == ex.fact("baselines." + side + ".file") &&
              fmt::format("{:.4g}", r.gstencils) == rate)
            found = true;
          const DescriptorPtr& other = find_descriptor(method_list(), r.method);
          if (r.precision == Precision::FP64 && (side == "tensor" ? other->tensor_cores : cuda_core_side(*other)))
            best_fp64 = std::max(best_fp64, r.gstencils);
        }
      CHECK(found);
      CHECK(rate == fmt::format("{:.4g}", best_fp64));
    }
    // Both sides from one GPU: the recorded files hold both kinds of method for these presets on the H200.
    CHECK(gpu_of(files, ex.fact("baselines.cuda.file")) == gpu_of(files, ex.fact("baselines.tensor.file")));
    CHECK(ex.fact("baselines.cuda.file") != "");
    CHECK_FALSE(ex.fact("baselines.why").empty());
    for (const char* probe : {"baselines.table", "baselines.bars.rate", "baselines.bars.bytes", "baselines.why"})
      check_inside(ex, probe);
    // The layout does not move between frames (fixed widths, a scroll bar always shown).
    const WidgetRect before = ex.probe("baselines.bars.bytes");
    ex.frames(1);
    CHECK(ex.probe("baselines.bars.bytes").x1 == before.x1);
    CHECK(ex.probe("baselines.bars.bytes").y0 == before.y0);
  }
}

TEST_CASE("baselines view predicts from the cost models for an edited stencil", "[gui][egl][baselines]") {
  Stencil s = preset("heat-2d");
  s.at(0, 0) = 0.4; // no longer the preset: its recorded results do not describe it
  s.at(1, 0) = 0.175;
  s.at(-1, 0) = 0.175;
  HeadlessExplorer ex(PlatformKind::Egl, baselines_of(s, false), 1600, 1000);
  ex.frames(2);
  const std::vector<RecordedResults> files = recorded_files();
  for (const std::string side : {"cuda", "tensor"}) {
    INFO(side);
    CHECK(ex.fact("baselines." + side + ".rate") == "predicted");
    const PlanPtr plan = side_plan(ex, side, s);
    CHECK(ex.fact("baselines." + side + ".costs") == printed_costs(*plan));
    if (side == "cuda") { // no MMA roof: the copy roof of the file named over the plan's bytes
      const std::string file = ex.fact("baselines.cuda.file");
      const auto it = std::find_if(files.begin(), files.end(),
                                   [&](const RecordedResults& f) { return f.path.filename().string() == file; });
      REQUIRE(it != files.end());
      CHECK(ex.fact("baselines.cuda.gstencils") ==
            fmt::format("{:.4g}", it->ceilings.bandwidth_gbs / plan->cost.global_bytes_per_point));
    }
  }
  if (const char* dir = std::getenv("SE_TEST_SHOTS")) write_png(ex.screenshot(), std::string(dir) + "/baselines-predicted.png");
}

TEST_CASE("baselines is one lecture tour step after performance", "[gui][egl][baselines]") {
  const std::vector<LectureStep> steps = lecture_steps(preset("heat-2d"));
  int at = -1, performance = -1, count = 0;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    if (steps[i].view == "baselines") at = static_cast<int>(i), ++count;
    if (steps[i].view == "performance") performance = static_cast<int>(i);
  }
  CHECK(count == 1);
  REQUIRE(at >= 0);
  CHECK(at == performance + 1);
  HeadlessExplorer ex(PlatformKind::Egl, baselines_of(preset("heat-2d"), true), 1280, 720);
  go_to_lecture_step(ex.app().layout(), ex.app().lecture(), ex.app().state().stencil, at);
  ex.frames(3);
  CHECK(ex.fact("lecture.step") == std::to_string(at + 1));
  CHECK(ex.app().layout().focus == "baselines");
  CHECK(ex.fact("baselines.cuda.id") != "none");
  for (const char* probe : {"baselines.table", "baselines.bars.rate", "baselines.bars.bytes", "baselines.why"})
    check_inside(ex, probe);
}
