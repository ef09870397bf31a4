// Issue 17, the 2D presets' lecture tour looked at frame by frame: what a student at the back of the room could not
// read, each kept from coming back by a probe (the 1D and 3D presets' own checks are in test_lecture_fit.cpp).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <imgui_internal.h>

#include "app/platform/screenshot.hpp"
#include "app/widgets/ui_units.hpp"
#include "gui_test_support.hpp"

using namespace se;
using se::test::HeadlessExplorer;
using se::test::lecture_scene;

namespace {

const std::vector<std::string> k2dPresets{"heat-2d", "box-2d9p", "star-2d13p", "box-2d25p", "box-2d49p", "box-2d225p"};

// The windows (and child windows) drawn last frame that can scroll, with how far: where a part of a figure hides.
std::string scrolled_windows() {
  std::string out;
  for (ImGuiWindow* w : ImGui::GetCurrentContext()->Windows)
    if (w->WasActive && (w->ScrollMax.x > 0.5f || w->ScrollMax.y > 0.5f))
      out += fmt::format("  {} scrolls x {:.0f} y {:.0f} (content {:.0f} x {:.0f} in {:.0f} x {:.0f})\n", w->Name, w->ScrollMax.x,
                         w->ScrollMax.y, w->ContentSize.x, w->ContentSize.y, w->Size.x, w->Size.y);
  return out;
}

} // namespace

// Not a check: prints, for every step of the tour of every 2D preset, the windows that scroll (run by hand:
// test_gui "[.tour2d-scan]"; SE_TOUR_SIZE=1600x1000 for the larger window, SE_TOUR_NORMAL=1 for normal fonts,
// SE_TOUR_PRESET=name for one preset, SE_TOUR_STEP=n for one step, SE_TOUR_SHOTS=folder to write each step's frame,
// SE_TOUR_CLICK=probe to click a widget, a page's part, before the frame is taken).
TEST_CASE("the windows that scroll in the 2D presets' tour", "[.tour2d-scan]") {
  int w = 1280, h = 720;
  if (const char* size = std::getenv("SE_TOUR_SIZE")) std::sscanf(size, "%dx%d", &w, &h);
  const bool lecture = std::getenv("SE_TOUR_NORMAL") == nullptr;
  const char* only = std::getenv("SE_TOUR_PRESET");
  const char* only_step = std::getenv("SE_TOUR_STEP");
  const char* shots = std::getenv("SE_TOUR_SHOTS");
  const char* click = std::getenv("SE_TOUR_CLICK");
  // SE_TOUR_PRESET may name any preset (the 1D and 3D ones too).
  for (const std::string& name : only != nullptr ? std::vector<std::string>{only} : k2dPresets) {
    HeadlessExplorer ex(PlatformKind::Egl, lecture_scene(name, lecture), w, h);
    const std::vector<LectureStep> steps = lecture_steps(ex.app().state().stencil);
    for (std::size_t i = 0; i < steps.size(); ++i) {
      if (only_step != nullptr && std::to_string(i + 1) != only_step) continue;
      go_to_lecture_step(ex.app().layout(), ex.app().lecture(), ex.app().state().stencil, static_cast<int>(i));
      ex.frames(4);
      if (click != nullptr && ex.state().probes.count(click) != 0) ex.click(click), ex.frames(2);
      if (shots != nullptr) write_png(ex.screenshot(), fmt::format("{}/{}-{:02d}.png", shots, name, i + 1));
      std::printf("%s step %zu %s/%s\n%s", name.c_str(), i + 1, steps[i].view.c_str(), steps[i].page.c_str(),
                  scrolled_windows().c_str());
    }
  }
}

// The Stencil window showed four of a radius-3 grid's seven rows at a lecture's 1280x720, the rest in a scrolled
// box under them, beside every step of the tour: the rows are tighter there and the preset's description goes to the
// combo's tooltip where the window is too short for both.
TEST_CASE("the Stencil window shows the whole weight grid of radius-1 to radius-3 2D presets at 1280x720 in lecture mode",
          "[gui][egl][lecture17]") {
  for (const std::string name : {"heat-2d", "box-2d9p", "star-2d13p", "box-2d25p", "box-2d49p"}) {
    // The simulation's step (a two-line caption) and SPIDER's (three lines: the shortest window).
    for (const std::string view : {"simulation", "sparse24"}) {
      INFO("preset " << name << ", step " << view);
      HeadlessExplorer ex(PlatformKind::Egl, lecture_scene(name, true), 1280, 720);
      show_step(ex, view, "");
      const int r = preset(name).radius;
      CHECK(ex.fact("stencil.grid_scrolls") == "no");
      check_inside(ex, "stencil", fmt::format("stencil.weight.{}.{}.0", r, -r));
    }
  }
  // At 1600x1000 the description keeps its lines.
  HeadlessExplorer ex(PlatformKind::Egl, lecture_scene("box-2d49p", true), 1600, 1000);
  show_step(ex, "sparse24", "");
  CHECK(ex.fact("stencil.description") == "shown");
  CHECK(ex.fact("stencil.grid_scrolls") == "no");
}

// ImGui's wrapping breaks after a '.', which printed box-2d9p's "alpha = 0.1" as "alpha = 0." and "1" in the
// Stencil window: the description (and the properties) wrap at spaces only.
TEST_CASE("texts wrapped at spaces never split a number", "[gui][egl][lecture17]") {
  HeadlessExplorer ex(PlatformKind::Egl, lecture_scene("box-2d9p", true), 1280, 720);
  ex.frames(2);
  for (const std::string& name : preset_names())
    for (float width = 40.0f; width <= 400.0f; width += 7.0f) {
      const std::string text = preset_description(name);
      const std::vector<std::string> lines = wrap_at_spaces(text, width);
      std::string joined;
      for (const std::string& line : lines) joined += (joined.empty() ? "" : " ") + line;
      INFO(name << " at " << width << " px");
      CHECK(joined == text); // every break was a space
    }
}

// TCStencil's input picture is blue, orange, dark and framed in white; the key to those colours stood under "plan and
// taps" or in the text column only where it is wide, so at a lecture's 1280x720 nothing said what orange meant. The
// key stands under the picture, inside the window.
TEST_CASE("TCStencil's input picture has its colour key inside the window at 1280x720 in lecture mode", "[gui][egl][lecture17]") {
  for (const std::string name : {"heat-2d", "box-2d9p", "box-2d49p", "box-2d225p"}) {
    INFO("preset " << name);
    HeadlessExplorer ex(PlatformKind::Egl, lecture_scene(name, true), 1280, 720);
    show_step(ex, "params", "tcstencil");
    check_inside(ex, "params", "params.tc.key");
  }
}

namespace {

// How far the window `name` (its title) or a box in it scrolls down: what lies below their bottom edges, in pixels.
float hidden_below(const std::string& name) {
  REQUIRE(ImGui::FindWindowByName(name.c_str()) != nullptr);
  float most = 0;
  for (const ImGuiWindow* w : ImGui::GetCurrentContext()->Windows)
    if (w->WasActive && (w->Name == name || std::string(w->Name).rfind(name + "/", 0) == 0)) most = std::max(most, w->ScrollMax.y);
  return most;
}

} // namespace

// LoRAStencil's butterfly step: at a lecture's 1280x720 the operands U, X and V' (and the plan's schedule under them)
// lay below the window's edge, "operands from memory" cut in half; at 1600x1000 U and V' were colours without a
// legend. They stand beside T and T' with their letters and legend where they fit, else on a page of their own
// (a tooltip showed them to the lecturer alone), and nothing of the step lies below the window's bottom at any tour
// size on either page.
TEST_CASE("the butterfly step's operands carry their values and nothing lies below the window", "[gui][egl][lecture17]") {
  struct Size {
    bool lecture;
    int w, h;
  };
  for (const std::string& name : k2dPresets)
    for (const Size size : {Size{true, 1280, 720}, Size{true, 1600, 1000}, Size{false, 1600, 1000}, Size{false, 1280, 720}}) {
      INFO("preset " << name << (size.lecture ? ", lecture at " : ", normal at ") << size.w << "x" << size.h);
      HeadlessExplorer ex(PlatformKind::Egl, lecture_scene(name, size.lecture), size.w, size.h);
      show_step(ex, "fragments", "loop:lorastencil");
      check_inside(ex, "fragments", "fragments.operands");
      check_inside(ex, "fragments", "fragments.Tp");
      CHECK(hidden_below("Fragments") <= 1.0f); // was 3 px for star-2d13p at 1600x1000 in lecture mode
      // At 1600x1000 the operands stand beside T and T' (box-2d225p's 24-column tiles leave them a page).
      if (!size.lecture && size.w == 1600 && name != "box-2d225p") CHECK(ex.fact("fragments.operands") != "page");
      // Else on a page of their own (or U and X on one and V' on another), every block of V' inside the window.
      if (ex.fact("fragments.operands") == "page") {
        const bool two_pages = ex.state().probes.count("fragments.page.operands.V") != 0;
        for (const char* page : {"fragments.page.operands", "fragments.page.operands.V"}) {
          if (std::string(page).back() == 'V' && !two_pages) continue;
          INFO(page);
          ex.click(page);
          check_inside(ex, "fragments", "fragments.operands");
          check_inside(ex, "fragments", "fragments.page.T");
          CHECK(hidden_below("Fragments") <= 1.0f);
        }
        ex.click("fragments.page.T");
      }
    }
}

// The pyramid page of the cross split (heat-2d, star-2d13p) and of box-2d9p's pyramid scrolled at a lecture's 1280x720:
// the level's box by 48 to 69 px (ImGui counted u, placed under the "=" on its line, from the line's top), the window
// by 20 (the box kept room for a horizontal scroll bar it never shows). Nothing of the page lies below the window now.
TEST_CASE("the pyramid page's level does not scroll at 1280x720 in lecture mode", "[gui][egl][lecture17]") {
  for (const std::string& name : k2dPresets) {
    INFO("preset " << name);
    HeadlessExplorer ex(PlatformKind::Egl, lecture_scene(name, true), 1280, 720);
    show_step(ex, "pyramid", "");
    CHECK(hidden_below("Rank-1 pyramid (LoRAStencil)") <= 1.0f);
  }
}

// The Performance step's 24 bars were labelled 'c…e', 'tc…cil' at a lecture's font: each label is the method's name
// with the machine named once under its run of bars; at 1600x1000 none is cut, at 1280x720 the short names are whole
// and the long ones (cpu-reference, tcstencil-fp64, cuda-core-tb-fp32, ...) keep their ends: about half of the 24.
// The recorded CPU's one bar had its group's name ("AMD EPYC, recorded") cut to "…" at both sizes; it counts as a cut
// label where even its first word is cut, and "AMD" stands whole at both now. The bars grow with every recorded
// results file (32 for heat-2d once the H100's SPIDER rows came, 15 of them cut at 1280x720; box-2d49p 28, 13 cut), so the small size
// allows at most 60% of them cut.
TEST_CASE("the Performance step's bar labels are whole at 1600x1000 and half of them at 1280x720 in lecture mode", "[gui][egl][lecture17]") {
  for (const std::string name : {"heat-2d", "box-2d49p"}) {
    for (const bool small : {false, true}) {
      INFO("preset " << name << (small ? " at 1280x720" : " at 1600x1000"));
      HeadlessExplorer ex(PlatformKind::Egl, lecture_scene(name, true), small ? 1280 : 1600, small ? 720 : 1000);
      show_step(ex, "performance", "");
      REQUIRE(std::stoi(ex.fact("performance.records")) > 0);
      const int cut = std::stoi(ex.fact("performance.bars.cut_labels"));
      const int bars = std::stoi(ex.fact("performance.bars.count"));
      INFO(cut << " of " << bars << " labels cut");
      REQUIRE(bars >= 24);
      if (small)
        CHECK(cut * 5 <= bars * 3); // was 24 of 24
      else
        CHECK(cut == 0);
    }
  }
}

// box-2d225p's seven terms on the RDG page pushed the last part's radio button ("the numbers") past the window's
// right edge at a lecture's 1280x720: the term is chosen in a combo there, and every part stays inside the window.
TEST_CASE("the RDG page's term and part choices lie inside the window for the 2D presets", "[gui][egl][lecture17]") {
  for (const std::string& name : k2dPresets) {
    INFO("preset " << name);
    HeadlessExplorer ex(PlatformKind::Egl, lecture_scene(name, true), 1280, 720);
    show_step(ex, "pyramid", "rdg");
    for (int part = 0; part < 3; ++part) check_inside(ex, "pyramid", fmt::format("pyramid.rdg.part.{}", part));
    CHECK(hidden_below("Rank-1 pyramid (LoRAStencil)") <= 1.0f);
  }
}

// X (the input window) is coloured by where the inputs lie, not by value: its key (inputs, 0 padding) stands under
// it, and with it U·X·V stays inside the window, at a lecture's two sizes. box-2d225p's 24-row V stood in two blocks
// at 1280x720, the second past the window's right edge: where U, X and V are wider than the page, V stands on the
// "V and V'" part (a button shows it), and that part's V and V' lie inside the window too.
TEST_CASE("the RDG page's X has its colour key and U·X·V fits for the 2D presets", "[gui][egl][lecture17]") {
  for (const auto& [w, h] : {std::pair{1280, 720}, std::pair{1600, 1000}})
    for (const std::string& name : k2dPresets) {
      INFO("preset " << name << " at " << w << "x" << h);
      HeadlessExplorer ex(PlatformKind::Egl, lecture_scene(name, true), w, h);
      show_step(ex, "pyramid", "rdg");
      const WidgetRect x = ex.probe("pyramid.X"), key = ex.probe("pyramid.X.key");
      CHECK(key.y0 >= x.y1 - 1.0f);
      CHECK(key.y1 - key.y0 > 1.0f);
      for (const char* probe : {"pyramid.U", "pyramid.X", "pyramid.X.key", "pyramid.V"}) check_inside(ex, "pyramid", probe);
      CHECK(hidden_below("Rank-1 pyramid (LoRAStencil)") <= 1.0f);
      if (w == 1600 || name != "box-2d225p") CHECK(ex.fact("pyramid.V_on_part_0") == "yes");
      ex.click("pyramid.rdg.part.1");
      for (const char* probe : {"pyramid.V", "pyramid.Vswapped"}) check_inside(ex, "pyramid", probe);
      CHECK(hidden_below("Rank-1 pyramid (LoRAStencil)") <= 1.0f);
    }
}
