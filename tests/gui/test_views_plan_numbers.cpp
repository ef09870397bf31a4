// The numbers the Parameter-matrix and Fragments views print come from the plan the kernel and the cost model
// use: each view publishes what it printed (view facts) and this test recomputes it from core's plan.
#include <cstdlib>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "core/lorastencil/lorastencil_plan.hpp"
#include "core/lorastencil/residual_gathering.hpp"
#include "core/tcstencil/tcstencil_plan.hpp"
#include "gui_test_support.hpp"

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

TEST_CASE("fft view says where its Eq. 8 differs from the paper's", "[gui][egl][plan-numbers]") {
  ExplorerOptions o;
  o.use_state = false;
  o.view = "fft";
  o.stencil = preset("heat-1d");
  o.size = Extent{1, {64, 1, 1}};
  HeadlessExplorer ex(PlatformKind::Egl, prepare_startup(o), 1280, 720);
  ex.frames(2);
  open_tab(ex, "fft.tab.crt");
  CHECK_THAT(ex.fact("fft.crt.eq8"), Catch::Contains("input index"));
  if (const char* dir = std::getenv("SE_TEST_SHOTS")) write_png(ex.screenshot(), std::string(dir) + "/fft_crt.png");
}
