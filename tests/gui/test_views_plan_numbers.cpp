// The numbers the Parameter-matrix and Fragments views print come from the plan the kernel and the cost model
// use: each view publishes what it printed (view facts) and this test recomputes it from core's plan.
#include <cstdlib>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "core/convstencil/convstencil_method.hpp"
#include "core/flashfft/flashfft_plan.hpp"
#include "core/lorastencil/lorastencil_plan.hpp"
#include "core/lorastencil/residual_gathering.hpp"
#include "core/spider/spider_cost.hpp"
#include "core/tcstencil/tcstencil_plan.hpp"
#include "gui_test_support.hpp"
#include "kernels/registry.hpp"

using namespace se;
using se::test::HeadlessExplorer;

namespace {

// A 2D stencil's view shown large on a small 32 x 32 grid (these tests read plans, not runs).
StartupState view_of(const std::string& view, const std::string& stencil) {
  ExplorerOptions o;
  o.use_state = false;
  o.view = view;
  o.stencil = preset(stencil);
  REQUIRE(o.stencil->dims == 2);
  o.size = Extent{2, {32, 32, 1}};
  return prepare_startup(o);
}

// A tab takes the click once the mouse has hovered it.
void open_tab(HeadlessExplorer& ex, const std::string& probe) {
  const WidgetRect tab = ex.probe(probe);
  ex.input().move_mouse(tab.center_x(), tab.center_y());
  ex.settle();
  ex.click(probe);
  ex.frames(2);
}

} // namespace

TEST_CASE("params view prints TCStencil's per-tile numbers from its plan", "[gui][egl][plan-numbers]") {
  for (const char* name : {"box-2d9p", "heat-2d", "box-2d25p", "star-2d13p"}) {
    INFO(name);
    HeadlessExplorer ex(PlatformKind::Egl, view_of("params", name), 1280, 720);
    ex.frames(2);
    const TCStencilPlan plan = make_tcstencil_plan(preset(name), Precision::FP16);
    CHECK(ex.fact("params.tc.mma_per_tile") == std::to_string(plan.mma_per_tile()));
    CHECK(ex.fact("params.tc.cuda_core_fma_per_tile") == std::to_string(plan.cuda_core_fma_per_tile()));
    CHECK(ex.fact("params.tc.gemm_only_points") == std::to_string(plan.gemm_only_points_per_tile()));
    CHECK(ex.fact("params.tc.paper_inner_points") == std::to_string(plan.inner_points_per_tile()));
    // The points the GEMMs finish are the tile minus the outputs some CUDA-core tap touches.
    const int L = plan.L, r = plan.stencil.radius;
    if (plan.decomposition == TCStencilDecomposition::Box) {
      CHECK(plan.gemm_only_points_per_tile() == L * (L - 2 * r)); // only columns are cut: 224 for box-2d9p
    } else {
      CHECK(plan.gemm_only_points_per_tile() == (L - 2 * r) * (L - 2 * r));
    }
    // The input picture marks as needed exactly the neighbours the taps finishing this GEMM read outside its
    // operand: the 2r columns beside the shifted tile for a box row (or a star's P_hor), 2r rows for P_ver.
    CHECK(ex.fact("params.tc.needed_not_read") == std::to_string(2 * r * L));
  }
  // box-2d9p: the figure the issue names.
  HeadlessExplorer ex(PlatformKind::Egl, view_of("params", "box-2d9p"), 1280, 720);
  ex.frames(2);
  CHECK(ex.fact("params.tc.gemm_only_points") == "224");
  CHECK(ex.fact("params.tc.paper_inner_points") == "196");
}

TEST_CASE("fragments view prints LoRAStencil's MMAs per term from the plan", "[gui][egl][plan-numbers]") {
  for (const char* name : {"heat-2d", "box-2d9p", "box-2d25p", "box-2d49p"}) {
    INFO(name);
    HeadlessExplorer ex(PlatformKind::Egl, view_of("fragments", name), 1280, 720);
    ex.frames(2);
    open_tab(ex, "fragments.tab.loop");
    const int fused = std::stoi(ex.fact("fragments.loop_fused_steps"));
    LoraStencilOptions o;
    o.fused_steps = fused;
    const LoraStencilPlan plan = make_lorastencil_plan(preset(name), o);
    // 2D: one plane; its terms as the plan runs them add up to the cost model's MMAs per point and base step.
    int plane_mma = 0;
    for (const LoraPlane& p : plan.planes)
      if (p.kind == PlaneKind::TensorCores)
        for (const TermGather& g : p.gathers) plane_mma += term_schedule(plan.tile, g).mma;
    CHECK(ex.fact("fragments.loop_plane_mma") == std::to_string(plane_mma));
    CHECK(static_cast<double>(plane_mma) / plan.tile.warp_points() / plan.fused_steps == Approx(plan.cost.mma_per_point).epsilon(1e-12));
    CHECK(ex.fact("fragments.loop_mma_per_point") == fmt::format("{:.6f}", plan.cost.mma_per_point));
    CHECK(ex.fact("fragments.loop_full_term_mma") ==
          fmt::format("{} + {}", plan.tile.step1_mma(), plan.tile.step2_mma()));
  }
}

namespace {

// The FFT view on heat-1d over 64 points.
StartupState fft_of_heat_1d() {
  ExplorerOptions o;
  o.use_state = false;
  o.view = "fft";
  o.stencil = preset("heat-1d");
  o.size = Extent{1, {64, 1, 1}};
  return prepare_startup(o);
}

} // namespace

TEST_CASE("fft view says where its Eq. 8 differs from the paper's", "[gui][egl][plan-numbers]") {
  HeadlessExplorer ex(PlatformKind::Egl, fft_of_heat_1d(), 1280, 720);
  ex.frames(2);
  open_tab(ex, "fft.tab.crt");
  CHECK_THAT(ex.fact("fft.crt.eq8"), Catch::Contains("input index"));
  if (const char* dir = std::getenv("SE_TEST_SHOTS")) write_png(ex.screenshot(), std::string(dir) + "/fft_crt.png");
}

namespace {

// Ours in the Table 2 view: each method's descriptor plan at one base step, its cost model's numbers.
const CostReport* descriptor_cost(const std::string& id, const Stencil& s, PlanPtr& keep) {
  for (const DescriptorPtr& d : method_list())
    if (d->id == id) {
      try {
        keep = d->plan(s, PlanRequest{Backend::Emulate, 1});
        return &keep->cost;
      } catch (const InputError&) {
        return nullptr;
      }
    }
  return nullptr;
}

std::string printed(double a, double b, double c) { return fmt::format("{:.4g} {:.4g} {:.4g}", a, b, c); }

} // namespace

TEST_CASE("table2 view prints SPIDER's Table 2 beside the plans' costs", "[gui][egl][plan-numbers][table2]") {
  for (const char* name : {"box-2d49p", "heat-2d", "box-2d9p", "star-2d13p"}) {
    INFO(name);
    const Stencil s = preset(name);
    HeadlessExplorer ex(PlatformKind::Egl, view_of("table2", name), 1280, 720);
    ex.frames(2);
    for (const char* id : {"convstencil", "tcstencil", "lorastencil", "spider"}) {
      INFO(id);
      PlanPtr plan;
      const CostReport* cost = descriptor_cost(id, s, plan);
      REQUIRE(cost != nullptr);
      CHECK(cost->input_loads_per_point > 0);
      CHECK(cost->parameter_loads_per_point > 0);
      CHECK(ex.fact(std::string("table2.") + id) ==
            printed(cost->executed_flops_per_point / 2, cost->input_loads_per_point, cost->parameter_loads_per_point));
    }
    // The paper's column: Table 1 evaluated at this radius, c = 8.
    const auto paper = spider_paper_table(s.radius, 8);
    for (const auto& [fact, row] : {std::pair<const char*, const char*>{"table2.lower_bound.paper", "Lower Bound"},
                                    {"table2.convstencil.paper", "ConvStencil"},
                                    {"table2.tcstencil.paper", "TCStencil"},
                                    {"table2.lorastencil.paper", "LoRAStencil"},
                                    {"table2.spider.paper", "SPIDER"}}) {
      const PaperPointCosts& p = paper_row(paper, row);
      CHECK(ex.fact(fact) == printed(p.computation_tabulated, p.input, p.parameter));
    }
    CHECK(ex.fact("table2.lower_bound") ==
          printed(s.nonzero_count(), (8.0 + 2 * s.radius) * (8.0 + 2 * s.radius) / 64, s.nonzero_count() / 64.0));
  }
  // Box-2D3R: the paper's Table 2 as printed, and ConvStencil's plan counting exactly what the paper counts.
  HeadlessExplorer ex(PlatformKind::Egl, view_of("table2", "box-2d49p"), 1280, 720);
  ex.frames(2);
  CHECK(ex.fact("table2.paper_is_table2") == "yes");
  CHECK(ex.fact("table2.lower_bound.paper") == "49 3.062 0.7656");
  CHECK(ex.fact("table2.convstencil.paper") == "104 13 13");
  CHECK(ex.fact("table2.tcstencil.paper") == "286.7 17.92 17.92");
  CHECK(ex.fact("table2.lorastencil.paper") == "144 4 12");
  CHECK(ex.fact("table2.spider.paper") == "56 14 7");
  CHECK(ex.fact("table2.convstencil") == "104 13 13");
  if (const char* dir = std::getenv("SE_TEST_SHOTS")) write_png(ex.screenshot(), std::string(dir) + "/table2.png");
}

TEST_CASE("pyramid view prints LoRAStencil's load, MMA and fusion-waste figures from the plans", "[gui][egl][plan-numbers]") {
  for (const char* name : {"box-2d49p", "heat-2d", "box-2d9p"}) {
    INFO(name);
    const Stencil s = preset(name);
    HeadlessExplorer ex(PlatformKind::Egl, view_of("pyramid", name), 1280, 720);
    ex.frames(2);
    open_tab(ex, "pyramid.tab.rdg");
    ex.click("pyramid.rdg.part.2"); // the RDG page's numbers part
    ex.frames(2);
    PlanPtr lora_keep, conv_keep;
    const CostReport* lora = descriptor_cost("lorastencil", s, lora_keep);
    const CostReport* conv = descriptor_cost("convstencil", s, conv_keep);
    REQUIRE(lora != nullptr);
    REQUIRE(conv != nullptr);
    CHECK(ex.fact("pyramid.loads_eliminated") ==
          fmt::format("{:.2f}", 100.0 * (1.0 - lora->input_loads_per_point / conv->input_loads_per_point)));
    CHECK(ex.fact("pyramid.mma_ratio") == fmt::format("{:.3g}", lora->mma_per_point / conv->mma_per_point));
    const int h = s.radius;
    CHECK(ex.fact("pyramid.loads_eliminated.paper") == fmt::format("{:.2f}", 100.0 * (1.0 - 1.0 / lorastencil_eq14_ratio(h))));
    // The fusion waste: the X operand against its window, at T = 1 and at the cost model's depth.
    LoraStencilOptions one, chosen;
    one.fused_steps = 1;
    const LoraStencilPlan p1 = make_lorastencil_plan(s, one), pt = make_lorastencil_plan(s, chosen);
    const int w1 = p1.tile.x_rows * p1.tile.x_cols - p1.tile.window_rows * p1.tile.window_cols;
    const int wt = pt.tile.x_rows * pt.tile.x_cols - pt.tile.window_rows * pt.tile.window_cols;
    CHECK(ex.fact("pyramid.fusion_waste_saved") ==
          (pt.fused_steps > 1 ? fmt::format("{:.2f}", 100.0 * (w1 - wt) / w1) : std::string("unfused")));
  }
  // The paper's figures at h = 3: 69.23% of ConvStencil's loads eliminated, 36/26 MMAs.
  HeadlessExplorer ex(PlatformKind::Egl, view_of("pyramid", "box-2d49p"), 1280, 720);
  ex.frames(2);
  open_tab(ex, "pyramid.tab.rdg");
  ex.click("pyramid.rdg.part.2");
  ex.frames(2);
  CHECK(ex.fact("pyramid.loads_eliminated.paper") == "69.23");
  CHECK(ex.fact("pyramid.mma_ratio.paper") == fmt::format("{:.4g}", 36.0 / 26.0));
}

TEST_CASE("fft view prints the auxiliary data against the paper's 2(2N^2+N) and 2(2L^2+L)", "[gui][egl][plan-numbers]") {
  HeadlessExplorer ex(PlatformKind::Egl, fft_of_heat_1d(), 1280, 720);
  ex.frames(2);
  open_tab(ex, "fft.tab.tailoring");
  const FlashFftPlan plan = make_flashfft_plan(preset("heat-1d"));
  const double n = 64, l = plan.tile[0];
  CHECK(ex.fact("fft.aux.standard") == fmt::format("{:.0f}", 2 * (2 * n * n + n)));
  CHECK(ex.fact("fft.aux.tailored") == fmt::format("{:.0f}", 2 * (2 * l * l + l)));
  double ours = 2.0 * static_cast<double>(plan.fused_spectrum.size());
  for (const FftMatrix* m : {&plan.forward_rows, &plan.forward_cols_swizzled, &plan.inverse_cols_swizzled,
                             &plan.inverse_rows_swizzled})
    ours += static_cast<double>(m->values.size());
  CHECK(ex.fact("fft.aux.ours") == fmt::format("{:.0f}", ours));
}

// Issue 17: the pyramid view counted LoRAStencil's MMAs on the CPU emulation's plan (m8n8k4, the paper's 8x8 tile)
// while the Baselines view printed the GPU kernel's plan (m16n8k4, its own tile) for the same stencil, both unnamed.
// The pyramid view now names its plan and prints the GPU kernel's figure beside it, from that kernel's plan.
TEST_CASE("pyramid view names its plan and prints the GPU kernel's MMAs per point from the GPU plan", "[gui][egl][plan-numbers][lecture17]") {
  DescriptorPtr lora;
  for (const DescriptorPtr& d : method_list())
    if (d->id == "lorastencil") lora = d;
  REQUIRE(lora);
  REQUIRE(lora->gpu); // the kernel's plan is built everywhere, with or without a device
  for (const char* name : {"heat-2d", "box-2d49p", "box-2d225p", "star-2d13p"}) {
    INFO(name);
    const Stencil s = preset(name);
    HeadlessExplorer ex(PlatformKind::Egl, view_of("pyramid", name), 1600, 1000);
    ex.frames(2);
    const PlanPtr gpu = gpu_variant(lora).plan(s, 1);
    CHECK(ex.fact("pyramid.gpu_mma_per_point") == fmt::format("{:.4g}", gpu->cost.mma_per_point));
    // The emulation's figure is the descriptor's (CPU) plan, not the GPU's.
    const PlanPtr cpu = lora->plan(s, PlanRequest{Backend::Emulate, 1});
    CHECK(ex.fact("pyramid.mma_per_point") == fmt::format("{:.4g}", cpu->cost.mma_per_point));
  }
}
