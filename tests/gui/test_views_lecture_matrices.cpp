// Issue 17: the pyramid view's printed counts come from LoRAStencil's plan (its descriptor's, the one the CPU
// run, the cost model and `stencil-bench plan` use), for several presets; the matrix widget's letters never run
// out and distinct values never print alike.
#include <algorithm>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "app/widgets/matrix_widget.hpp"
#include "core/lorastencil/lorastencil_plan.hpp"
#include "gui_test_support.hpp"
#include "kernels/registry.hpp"

using namespace se;
using se::test::HeadlessExplorer;

namespace {

StartupState pyramid_of(const std::string& stencil) {
  ExplorerOptions o;
  o.use_state = false;
  o.view = "pyramid";
  o.stencil = preset(stencil);
  o.size = Extent{o.stencil->dims, {32, o.stencil->dims > 1 ? 32 : 1, o.stencil->dims > 2 ? 16 : 1}};
  return prepare_startup(o);
}

LoraStencilPlan descriptor_plan(const Stencil& s, DecompositionChoice choice = DecompositionChoice::Auto) {
  if (choice != DecompositionChoice::Auto) {
    LoraStencilOptions o;
    o.fused_steps = 1;
    o.decomposition = choice;
    return make_lorastencil_plan(s, o);
  }
  for (const DescriptorPtr& d : method_list())
    if (d->id == "lorastencil") return plan_value<LoraStencilPlan>(*d->plan(s, PlanRequest{Backend::Emulate, 1}));
  FAIL("no lorastencil descriptor");
  return {};
}

} // namespace

TEST_CASE("the pyramid view prints the plan's MMA counts for every 2D preset", "[gui][egl][views][lecture17]") {
  for (const std::string name : {"box-2d9p", "box-2d25p", "box-2d49p", "heat-2d", "star-2d13p"}) {
    INFO("preset " << name);
    const Stencil s = preset(name);
    const LoraStencilPlan plan = descriptor_plan(s);
    const LoraStencilPlan svd = descriptor_plan(s, DecompositionChoice::Svd);
    REQUIRE(plan.planes.size() == 1);
    const int plan_mma = decomposition_tile_mma(plan.planes[0].decomposition, plan.tile);
    const int svd_mma = decomposition_tile_mma(svd.planes[0].decomposition, svd.tile);
    // The plan's count is the cost model's: MMAs per warp tile over its points.
    CHECK(plan.cost.mma_per_point == Approx(static_cast<double>(plan_mma) / plan.tile.warp_points()));

    HeadlessExplorer ex(PlatformKind::Egl, pyramid_of(name), 1280, 720);
    ex.frames(3);
    CHECK(ex.fact("pyramid.plan_tile_mma") == std::to_string(plan_mma));
    CHECK(ex.fact("pyramid.planned_kind") == std::string(to_string(plan.planes[0].decomposition.kind)));
    CHECK(ex.fact("pyramid.svd_tile_mma") == std::to_string(svd_mma));
    CHECK(ex.fact("pyramid.mma_per_point") == fmt::format("{:.4g}", plan.cost.mma_per_point));
    if (ex.fact("pyramid.kind") == ex.fact("pyramid.planned_kind")) {
      CHECK(ex.fact("pyramid.tile_mma") == std::to_string(plan_mma));
      CHECK(ex.fact("pyramid.svd_ratio") == fmt::format("{:.3g}", static_cast<double>(svd_mma) / plan_mma));
    }
  }
  // The numbers: box-2d49p's pyramid is 32 MMAs against the SVD's 48 (1.5x), not 36 and 1.33x.
  HeadlessExplorer ex(PlatformKind::Egl, pyramid_of("box-2d49p"), 1280, 720);
  ex.frames(3);
  CHECK(ex.fact("pyramid.tile_mma") == "32");
  CHECK(ex.fact("pyramid.svd_tile_mma") == "48");
  CHECK(ex.fact("pyramid.svd_ratio") == "1.5");
}

TEST_CASE("palette letters never run out and distinct values never print alike", "[gui][views][lecture17]") {
  ValuePalette palette;
  std::vector<double> many;
  for (int i = 1; i <= 120; ++i) many.push_back(i);
  palette.add(many);
  std::vector<std::string> letters;
  for (double v : many) letters.push_back(palette.letter(v));
  CHECK(palette.letter(120) == "a");
  CHECK(palette.letter(120 - 26) == "A");
  CHECK(palette.letter(120 - 52) == "a2");
  std::sort(letters.begin(), letters.end());
  CHECK(std::adjacent_find(letters.begin(), letters.end()) == letters.end());
  for (const std::string& l : letters) CHECK(l.size() <= 3);
  // 0.0153 and 0.0149 both print as 0.015 at two digits: three tell them apart.
  CHECK(distinguishing_digits({0.0153, 0.0149}, 2) == 3);
  CHECK(distinguishing_digits({0.5, 0.25}, 3) == 3);
}

TEST_CASE("equal colours mean equal values past the twenty hand-picked colours", "[gui][views][lecture17]") {
  // Every palette index has its own colour (the old scheme repeated the first 20 hues darker, and from index 60
  // on repeated itself: 20 and 60 shared a colour).
  std::vector<ImU32> colors;
  for (int i = 0; i < 3000; ++i) colors.push_back(categorical_color(i));
  std::sort(colors.begin(), colors.end());
  CHECK(std::adjacent_find(colors.begin(), colors.end()) == colors.end());
  CHECK(std::find(colors.begin(), colors.end(), zero_cell_color()) == colors.end());
  // A palette of 300 distinct values: 300 colours, and no two values print alike at the digits it needs.
  ValuePalette palette;
  std::vector<double> values;
  for (int i = 1; i <= 300; ++i) values.push_back(1.0 / (100.0 + i)); // 0.0099..., 0.0098..., close together
  palette.add(values);
  REQUIRE(palette.size() == 300);
  std::vector<ImU32> used;
  for (double v : values) used.push_back(palette.color(v));
  std::sort(used.begin(), used.end());
  CHECK(std::adjacent_find(used.begin(), used.end()) == used.end());
  const int digits = distinguishing_digits(palette.values(), 3);
  std::vector<std::string> printed;
  for (double v : values) printed.push_back(compact_number(v, digits));
  std::sort(printed.begin(), printed.end());
  CHECK(std::adjacent_find(printed.begin(), printed.end()) == printed.end());
}
