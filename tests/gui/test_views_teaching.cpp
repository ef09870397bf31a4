// The teaching views headless: each renders a non-blank picture unlike the others, draws the core plan of the
// stencil being edited (checked through the facts each view publishes against core's own functions), follows
// weight edits made in the Stencil window, takes synthetic input on its controls, and says why a method cannot
// take a stencil.
#include <complex>
#include <cstdlib>
#include <string>
#include <vector>

#include <GLFW/glfw3.h>
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "app/widgets/matrix_widget.hpp"
#include "core/flashfft/flashfft_plan.hpp"
#include "core/fragment/fragment_layout.hpp"
#include "core/lorastencil/lorastencil_plan.hpp"
#include "core/lorastencil/weight_decomposition.hpp"
#include "core/tcstencil/tcstencil_plan.hpp"
#include "gui_test_support.hpp"

using namespace se;
using se::test::HeadlessExplorer;

namespace {

// Every view `--view` can show large, the run views too: each must look unlike all the others.
const std::vector<std::string> kLargeViews{"pyramid", "sparse24", "params", "fft", "fragments", "compare", "performance"};

StartupState focused(const std::string& view, const std::string& stencil = "box-2d25p") {
  ExplorerOptions o;
  o.use_state = false;
  o.view = view;
  o.stencil = preset(stencil);
  o.size = Extent{o.stencil->dims, {32, o.stencil->dims > 1 ? 32 : 1, o.stencil->dims > 2 ? 16 : 1}};
  return prepare_startup(o);
}

std::string fact(HeadlessExplorer& ex, const std::string& key) {
  const auto& facts = ex.app().view_facts();
  const auto it = facts.find(key);
  INFO("view fact " << key);
  REQUIRE(it != facts.end());
  return it->second;
}

bool has_fact(HeadlessExplorer& ex, const std::string& key) { return ex.app().view_facts().count(key) > 0; }

// Fraction of pixels that differ between two frames of the same size.
double differing_fraction(const RgbaImage& a, const RgbaImage& b) {
  REQUIRE(a.width == b.width);
  REQUIRE(a.height == b.height);
  std::size_t differ = 0;
  for (int y = 0; y < a.height; ++y)
    for (int x = 0; x < a.width; ++x) {
      const std::uint8_t *p = a.pixel(x, y), *q = b.pixel(x, y);
      if (std::abs(p[0] - q[0]) + std::abs(p[1] - q[1]) + std::abs(p[2] - q[2]) > 24) ++differ;
    }
  return static_cast<double>(differ) / (static_cast<double>(a.width) * a.height);
}

// Tabs take a click only when the mouse already hovered them the frame before (ImGui's overlap rule), so
// the pointer goes there first.
void click_tab(HeadlessExplorer& ex, const std::string& probe) {
  const WidgetRect r = ex.probe(probe);
  ex.input().move_mouse(r.center_x(), r.center_y());
  ex.settle();
  ex.click(probe);
  ex.frames(1);
}

// Click, click again (a double-click: the weight cell turns into a text field), type, Enter.
void type_into(HeadlessExplorer& ex, const std::string& probe, const std::string& text) {
  const WidgetRect r = ex.probe(probe);
  ex.input().click(r.center_x(), r.center_y());
  ex.input().click(r.center_x(), r.center_y());
  ex.input().type_text(text);
  ex.input().press_key(GLFW_KEY_ENTER);
  ex.settle();
}

// The number (C1, C2, ...) of the first tensor-core term of `plan` that runs as a full U·X·V chain, or 0.
int first_chain_term(const LoraStencilPlan& plan) {
  for (const LoraPlane& p : plan.planes) {
    if (p.kind != PlaneKind::TensorCores) continue;
    std::size_t band = 0;
    for (std::size_t t = 0; t < p.decomposition.terms.size(); ++t) {
      if (p.decomposition.terms[t].on_cuda_cores) continue;
      if (p.gathers.at(band++).kind == GatherKind::Chain) return static_cast<int>(t) + 1;
    }
  }
  return 0;
}

std::vector<double> real_parts(const std::vector<std::complex<double>>& v) {
  std::vector<double> out;
  for (const auto& c : v) out.push_back(c.real());
  return out;
}

} // namespace

TEST_CASE("each view renders non-blank and unlike the other views", "[gui][egl][views]") {
  std::vector<RgbaImage> shots;
  for (const std::string& view : kLargeViews) {
    HeadlessExplorer ex(PlatformKind::Egl, focused(view), 1100, 700);
    ex.frames(3);
    const RgbaImage image = ex.screenshot();
    const WidgetRect w = ex.probe(view + ".window");
    INFO("view " << view);
    CHECK(w.x1 - w.x0 > 500); // shown large beside the Stencil editor
    CHECK(ex.app().layout().is_open("stencil"));
    CHECK_FALSE(ex.app().layout().is_open("simulation"));
    const std::size_t colors = se::test::count_distinct_colors(image, int(w.x0), int(w.y0), int(w.x1), int(w.y1));
    INFO("distinct colours in the view: " << colors);
    CHECK(colors > 150);
    CHECK_FALSE(has_fact(ex, view + ".unsupported"));
    shots.push_back(image);
  }
  for (std::size_t i = 0; i < shots.size(); ++i)
    for (std::size_t j = i + 1; j < shots.size(); ++j) {
      INFO(kLargeViews[i] << " vs " << kLargeViews[j]);
      CHECK(differing_fraction(shots[i], shots[j]) > 0.08);
    }
}

TEST_CASE("the pyramid draws core's decomposition and follows weight edits in the Stencil window", "[gui][egl][views]") {
  HeadlessExplorer ex(PlatformKind::Egl, focused("pyramid", "box-2d25p"), 1280, 800);
  ex.frames(2);
  const WeightDecomposition before = pyramid_decomposition(weight_matrix(preset("box-2d25p")));
  CHECK(fact(ex, "pyramid.kind") == "pyramid");
  CHECK(fact(ex, "pyramid.W") == fact_numbers(before.weights.values));
  CHECK(fact(ex, "pyramid.rank") == std::to_string(before.rank));
  CHECK(fact(ex, "pyramid.terms") == std::to_string(before.terms.size()));
  CHECK(fact(ex, "pyramid.v1") == fact_numbers(before.terms[0].v));

  // A corner weight, mirrored to all four corners by the symmetry lock: still a pyramid, with a new outer term.
  type_into(ex, "stencil.weight.-2.2.0", "0.05");
  ex.frames(1);
  const Stencil& edited = ex.state().stencil;
  REQUIRE(edited.at(-2, -2) == 0.05);
  const WeightDecomposition after = pyramid_decomposition(weight_matrix(edited));
  CHECK(fact(ex, "pyramid.W") == fact_numbers(after.weights.values));
  CHECK(fact(ex, "pyramid.v1") == fact_numbers(after.terms[0].v));
  CHECK(fact(ex, "pyramid.u1") == fact_numbers(after.terms[0].u));
  CHECK(fact(ex, "pyramid.v1") != fact_numbers(before.terms[0].v));

  // Without the lock one weight breaks the symmetry: the view switches to the SVD and says so.
  ex.click("stencil.symmetry_lock");
  REQUIRE_FALSE(ex.state().symmetry_lock);
  type_into(ex, "stencil.weight.-1.0.0", "0.2");
  ex.frames(1);
  const WeightMatrix w = weight_matrix(ex.state().stencil);
  REQUIRE_FALSE(pyramid_obstacle(w).empty());
  const WeightDecomposition svd = svd_decomposition(w);
  CHECK(fact(ex, "pyramid.kind") == "svd");
  CHECK(fact(ex, "pyramid.rank") == std::to_string(svd.rank));
  CHECK(fact(ex, "pyramid.terms") == std::to_string(svd.terms.size()));
  CHECK(fact(ex, "pyramid.W") == fact_numbers(w.values));
}

TEST_CASE("the pyramid view shows the plan's cross split of a star (which has no pyramid)", "[gui][egl][views]") {
  HeadlessExplorer ex(PlatformKind::Egl, focused("pyramid", "heat-2d"), 1280, 800);
  ex.frames(2);
  LoraStencilOptions one_step;
  one_step.fused_steps = 1;
  const LoraStencilPlan plan = make_lorastencil_plan(preset("heat-2d"), one_step);
  REQUIRE(plan.planes.size() == 1);
  const WeightDecomposition& d = plan.planes[0].decomposition;
  REQUIRE(d.kind == DecompositionKind::Cross);
  CHECK(fact(ex, "pyramid.kind") == "cross");
  CHECK(fact(ex, "pyramid.terms") == std::to_string(d.terms.size()));
  for (std::size_t i = 0; i < d.terms.size(); ++i) {
    CHECK(fact(ex, fmt::format("pyramid.u{}", i + 1)) == fact_numbers(d.terms[i].u));
    CHECK(fact(ex, fmt::format("pyramid.v{}", i + 1)) == fact_numbers(d.terms[i].v));
  }
}

TEST_CASE("the teaching views' controls take synthetic input", "[gui][egl][views]") {
  SECTION("pyramid: the RDG page and its term buttons") {
    HeadlessExplorer ex(PlatformKind::Egl, focused("pyramid", "box-2d49p"), 1100, 700);
    ex.frames(2);
    click_tab(ex, "pyramid.tab.rdg");
    CHECK(fact(ex, "pyramid.page") == "rdg");
    const std::string first = fact(ex, "pyramid.U");
    ex.click("pyramid.term.2");
    CHECK(fact(ex, "pyramid.U") != first);
  }
  SECTION("sparse24: kernel rows and the swap parity") {
    HeadlessExplorer ex(PlatformKind::Egl, focused("sparse24", "box-2d9p"), 1100, 700);
    ex.frames(2);
    CHECK(fact(ex, "sparse24.validator") == "pass");
    CHECK(fact(ex, "sparse24.parity") == "even"); // §3.2's offset formula: the even reading is the default
    const std::string even = fact(ex, "sparse24.swapped");
    ex.click("sparse24.parity.odd");
    ex.frames(1);
    CHECK(fact(ex, "sparse24.parity") == "odd");
    CHECK(fact(ex, "sparse24.swapped") != even);
    CHECK(fact(ex, "sparse24.validator") == "pass");
    ex.click("sparse24.row.1");
    CHECK(fact(ex, "sparse24.row") == "1");
  }
  SECTION("params: the ConvStencil tab and TCStencil's FP64 variant") {
    HeadlessExplorer ex(PlatformKind::Egl, focused("params", "heat-2d"), 1100, 700);
    ex.frames(2);
    CHECK(fact(ex, "params.page") == "tcstencil");
    ex.click("params.tc.fp64");
    ex.frames(1);
    const TCStencilPlan fp64 = make_tcstencil_plan(preset("heat-2d"), Precision::FP64);
    CHECK(fact(ex, "params.tc.matrix") == fp64.matrices[0].name);
    CHECK(fact(ex, "params.tc.operand") == fact_numbers(fp64.matrices[0].operand));
    click_tab(ex, "params.tab.convstencil");
    CHECK(fact(ex, "params.page") == "convstencil");
    CHECK(has_fact(ex, "params.conv.kernel_a"));
  }
  SECTION("fft: the CRT map's factors and the measured error of fusion") {
    HeadlessExplorer ex(PlatformKind::Egl, focused("fft", "heat-1d"), 1100, 700);
    ex.frames(2);
    click_tab(ex, "fft.tab.crt");
    ex.click("fft.crt.choice.1");
    CHECK(fact(ex, "fft.crt.map") == "3x4");
    click_tab(ex, "fft.tab.fusion");
    // Measured on a worker thread; headless frames wait for it. A stable stencil's error stays at rounding level.
    const std::string curve = fact(ex, "fft.error_curve");
    std::vector<double> errors;
    for (const char* p = curve.c_str(); *p != '\0';) {
      char* end = nullptr;
      errors.push_back(std::strtod(p, &end));
      p = end;
    }
    CHECK(errors.size() == 24);
    for (double e : errors) CHECK(e < 1e-10);
  }
  SECTION("fragments: the shape combo and the step-through") {
    HeadlessExplorer ex(PlatformKind::Egl, focused("fragments", "box-2d25p"), 1100, 700);
    ex.frames(2);
    CHECK(fact(ex, "fragments.shape") == "m8n8k4.f64");
    ex.click("fragments.shape");
    ex.click("fragments.shape.wmma.m16n16k16.f16.f32");
    CHECK(fact(ex, "fragments.shape") == "wmma.m16n16k16.f16.f32");
    CHECK_THAT(fact(ex, "fragments.record_disabled"), Catch::Contains("CUDA"));
    click_tab(ex, "fragments.tab.loop");
    CHECK(fact(ex, "fragments.step") == "1");
    ex.click("fragments.next");
    CHECK(fact(ex, "fragments.step") == "2");
    ex.click("fragments.loop.flashfft");
    ex.frames(1);
    // Step 2 of the DFT chain is the C -> A feed: every register stays in its lane (checked from the layouts).
    CHECK_THAT(fact(ex, "fragments.step_text"), Catch::Contains("swizzled"));
    CHECK(fact(ex, "fragments.feed_in_lane") == "yes");
  }
}

TEST_CASE("every teaching view redraws core's plan of the stencil as a weight is edited", "[gui][egl][views]") {
  // heat-2d's corners set to 0.05 (the symmetry lock mirrors the edit to all four): a 9-point box.
  const auto edit = [](HeadlessExplorer& ex) {
    type_into(ex, "stencil.weight.-1.1.0", "0.05");
    ex.frames(1);
    REQUIRE(ex.state().stencil.at(1, -1) == 0.05);
    return ex.state().stencil;
  };
  SECTION("sparse24") {
    HeadlessExplorer ex(PlatformKind::Egl, focused("sparse24", "heat-2d"), 1280, 800);
    ex.frames(2);
    ex.click("sparse24.row.1"); // the kernel row dy = +1, where two of the corners are
    REQUIRE(fact(ex, "sparse24.row") == "1");
    const std::string before = fact(ex, "sparse24.swapped");
    edit(ex);
    CHECK(fact(ex, "sparse24.swapped") != before);
    CHECK(fact(ex, "sparse24.validator") == "pass");
  }
  SECTION("params") {
    HeadlessExplorer ex(PlatformKind::Egl, focused("params", "heat-2d"), 1280, 800);
    ex.frames(2);
    const std::string before = fact(ex, "params.tc.operand");
    const Stencil s = edit(ex);
    const TCStencilPlan plan = make_tcstencil_plan(s, Precision::FP16);
    CHECK(fact(ex, "params.tc.matrix") == plan.matrices[0].name);
    CHECK(fact(ex, "params.tc.operand") == fact_numbers(plan.matrices[0].operand));
    CHECK(fact(ex, "params.tc.operand") != before);
  }
  SECTION("fft") {
    HeadlessExplorer ex(PlatformKind::Egl, focused("fft", "heat-2d"), 1280, 800);
    ex.frames(2);
    const std::string before = fact(ex, "fft.kernel_spectrum");
    CHECK(before == fact_numbers(real_parts(make_flashfft_plan(preset("heat-2d"), FlashFftOptions{4}).kernel_spectrum)));
    const Stencil s = edit(ex);
    CHECK(fact(ex, "fft.kernel_spectrum") == fact_numbers(real_parts(make_flashfft_plan(s, FlashFftOptions{4}).kernel_spectrum)));
    CHECK(fact(ex, "fft.kernel_spectrum") != before);
  }
  SECTION("fragments: the step-through follows the plan's terms") {
    HeadlessExplorer ex(PlatformKind::Egl, focused("fragments", "heat-2d"), 1280, 800);
    ex.frames(2);
    click_tab(ex, "fragments.tab.loop");
    // One step of heat-2d is a cross split into single products: the fused kernel's first chain is shown.
    LoraStencilOptions one_step;
    one_step.fused_steps = 1;
    REQUIRE(first_chain_term(make_lorastencil_plan(preset("heat-2d"), one_step)) == 0);
    const LoraStencilPlan fused = make_lorastencil_plan(preset("heat-2d"));
    REQUIRE(first_chain_term(fused) > 0);
    const std::string before = fact(ex, "fragments.loop_term");
    CHECK_THAT(before, Catch::Contains("has no U·X·V chain"));
    CHECK_THAT(before, Catch::Contains(fmt::format("T = {} fused kernel's term C{}", fused.fused_steps, first_chain_term(fused))));
    const Stencil s = edit(ex);
    const int chain = first_chain_term(make_lorastencil_plan(s, one_step));
    REQUIRE(chain > 0);
    const std::string after = fact(ex, "fragments.loop_term");
    CHECK_THAT(after, Catch::Contains(fmt::format("term C{} of", chain)));
    CHECK_THAT(after, Catch::Contains("the first term that is a full U·X·V chain"));
    // The feed of the chain keeps every register in its lane.
    for (int i = 0; i < 20 && fact(ex, "fragments.step_text").find("Butterfly") == std::string::npos; ++i) ex.click("fragments.next");
    CHECK(fact(ex, "fragments.feed_in_lane") == "yes");
  }
}

TEST_CASE("equal weights share a colour and a letter; zeros are drawn as zeros", "[gui][views]") {
  const WeightMatrix w = weight_matrix(preset("box-2d25p"));
  ValuePalette palette;
  palette.add(w.values);
  // box-2d25p is 1/(1+d²) normalised: one value per distance d² in {0, 1, 2, 4, 5, 8}.
  CHECK(palette.size() == 6);
  const double corner = w.values.front(), other_corner = w.values.back();
  CHECK(palette.color(corner) == palette.color(other_corner));
  CHECK(palette.letter(corner) == palette.letter(other_corner));
  CHECK(palette.color(corner * (1 + 1e-13)) == palette.color(corner)); // rounding residue is the same weight
  CHECK(palette.color(w.values[2]) != palette.color(corner));
  CHECK(palette.letter(w.values[12]) == "a"); // the centre, the largest
  CHECK(palette.color(0.0) == zero_cell_color());
  CHECK(palette.color(1e-17) == zero_cell_color()); // below the figure's zero tolerance
  CHECK(palette.letter(0.0) == "0");
  CHECK(compact_number(0.0) == "0");
  CHECK(compact_number(-0.0) == "0");
}

TEST_CASE("hovering a fragment cell names its lane and register", "[gui][egl][views]") {
  HeadlessExplorer ex(PlatformKind::Egl, focused("fragments", "box-2d25p"), 1280, 800);
  ex.frames(2);
  // m8n8k4.f64's A, 8x4 below its title (which is wider than the cells): the bottom-left cell is (7, 0).
  const WidgetRect a = ex.probe("fragments.A");
  ex.input().move_mouse(a.x0 + 4, a.y1 - 4);
  ex.settle();
  ex.frames(1);
  const FragmentOwner o = hardware_fragment_layout(MmaShape::M8N8K4_F64, Operand::A).owner(7, 0);
  CHECK(fact(ex, "fragments.hover") == fmt::format("A lane {} reg {}", o.lane, o.reg));
}

TEST_CASE("the LoRAStencil step-through takes every 2D and 3D preset; 1D says why not", "[gui][egl][views]") {
  for (const std::string name : {"box-2d9p", "star-2d13p", "box-2d49p", "heat-3d", "box-3d27p"}) {
    INFO(name);
    HeadlessExplorer ex(PlatformKind::Egl, focused("fragments", name), 1100, 700);
    ex.frames(2);
    click_tab(ex, "fragments.tab.loop");
    CHECK_FALSE(has_fact(ex, "fragments.unsupported"));
    CHECK_THAT(fact(ex, "fragments.loop_term"), Catch::Contains("Animated: "));
    for (int i = 0; i < 40 && fact(ex, "fragments.step_text").find("Butterfly") == std::string::npos; ++i)
      ex.click("fragments.next");
    CHECK(fact(ex, "fragments.feed_in_lane") == "yes");
  }
  HeadlessExplorer ex(PlatformKind::Egl, focused("fragments", "heat-1d"), 1100, 700);
  ex.frames(2);
  click_tab(ex, "fragments.tab.loop");
  CHECK_THAT(fact(ex, "fragments.unsupported"), Catch::Contains("1D"));
}

TEST_CASE("the WMMA recorder button: disabled with the reason where there is no CUDA device", "[gui][egl][views]") {
  HeadlessExplorer ex(PlatformKind::Egl, focused("fragments", "heat-2d"), 1280, 800);
  ex.frames(2);
  CHECK_FALSE(has_fact(ex, "fragments.record_enabled")); // m8n8k4.f64 has a documented layout: nothing to record
  ex.click("fragments.shape");
  ex.click("fragments.shape.wmma.m16n16k16.f16.f32");
  if (fact(ex, "fragments.record_enabled") == "yes") {
    // A GPU machine: the recording runs and is compared with core's table (tests/gpu checks it in detail).
    ex.click("fragments.record_wmma");
    CHECK(has_fact(ex, "fragments.record"));
    return;
  }
  const std::string why = fact(ex, "fragments.record_disabled");
  CHECK(why.rfind("no CUDA device: ", 0) == 0);
  CHECK(why.find("no CUDA device: no CUDA device") == std::string::npos);
  ex.click("fragments.record_wmma"); // disabled: nothing runs
  CHECK_FALSE(has_fact(ex, "fragments.record"));
}

TEST_CASE("teaching views say why a method cannot take the stencil", "[gui][egl][views]") {
  {
    HeadlessExplorer ex(PlatformKind::Egl, focused("sparse24", "heat-3d"), 900, 600);
    ex.frames(2);
    CHECK_THAT(fact(ex, "sparse24.unsupported"), Catch::Contains("1D and 2D"));
  }
  {
    // TCStencil takes 1D lines (rows of 16 consecutive points, P_hor alone); its FP64 CPU plan (m8n8k4, L = 8) stops
    // at radius 3.
    HeadlessExplorer ex(PlatformKind::Egl, focused("params", "1d15p"), 900, 600);
    ex.frames(2);
    CHECK(fact(ex, "params.tc.matrix") == "P_hor");
    ex.click("params.tc.fp64");
    ex.frames(1);
    CHECK_THAT(fact(ex, "params.unsupported"), Catch::Contains("at most 3"));
  }
  {
    HeadlessExplorer ex(PlatformKind::Egl, focused("params", "heat-2d"), 1100, 700);
    ex.frames(1);
    ex.state().stencil = with_radius(preset("heat-2d"), 4);
    ex.click("params.tc.fp64");
    ex.frames(1);
    CHECK(fact(ex, "params.unsupported") == tcstencil_unsupported_reason(ex.state().stencil, Precision::FP64));
  }
  {
    HeadlessExplorer ex(PlatformKind::Egl, focused("pyramid", "heat-2d"), 900, 600);
    ex.frames(1);
    ex.state().stencil = with_radius(preset("heat-2d"), 0);
    ex.frames(1);
    CHECK_THAT(fact(ex, "pyramid.unsupported"), Catch::Contains("radius 0"));
  }
}

TEST_CASE("the Views menu opens a teaching view beside the default layout", "[gui][egl][views]") {
  ExplorerOptions o;
  o.use_state = false;
  o.size = Extent{2, {32, 32, 1}};
  HeadlessExplorer ex(PlatformKind::Egl, prepare_startup(o), 1100, 700);
  ex.frames(1);
  CHECK_FALSE(ex.app().layout().is_open("fft"));
  ex.click("menu.views");
  ex.click("menu.view.fft");
  CHECK(ex.app().layout().is_open("fft"));
  CHECK(ex.app().layout().is_open("simulation"));
  ex.frames(1);
  CHECK(has_fact(ex, "fft.tile"));
}
