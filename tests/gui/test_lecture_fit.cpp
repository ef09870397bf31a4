// Issue 17: at a projector's 1280x720 in lecture mode (and at larger UI scales) the views lay out to fit the
// window instead of clipping: the Stencil window's weight grid shares the panel's width, the status line elides
// its texts to the window's width (the whole line in a tooltip).
#include <string>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "gui_test_support.hpp"

using namespace se;
using se::test::HeadlessExplorer;

namespace {

StartupState lecture_scene(const std::string& stencil, bool lecture) {
  ExplorerOptions o;
  o.use_state = false;
  o.lecture = lecture;
  o.stencil = preset(stencil);
  o.size = Extent{o.stencil->dims, {32, o.stencil->dims > 1 ? 32 : 1, o.stencil->dims > 2 ? 16 : 1}};
  return prepare_startup(o);
}

} // namespace

TEST_CASE("the weight grid's cells lie inside the Stencil window at 1280x720 in lecture mode", "[gui][egl][lecture17]") {
  for (const std::string name : {"heat-1d", "heat-2d", "box-2d49p", "heat-3d", "box-3d27p"}) {
    for (const float scale : {1.0f, 1.5f}) {
      INFO("preset " << name << ", content scale " << scale);
      HeadlessExplorer ex(PlatformKind::Egl, lecture_scene(name, true), 1280, 720, EglDisplayKind::Any, scale);
      ex.frames(3);
      const Stencil s = preset(name);
      const WidgetRect window = ex.probe("stencil.window");
      const int r = s.radius;
      const WidgetRect first = ex.probe(fmt::format("stencil.weight.{}.{}.0", -r, s.dims >= 2 ? r : 0));
      const WidgetRect last = ex.probe(fmt::format("stencil.weight.{}.{}.0", r, s.dims >= 2 ? r : 0));
      CHECK(first.x0 >= window.x0);
      CHECK(last.x1 <= window.x1 - ImGui::GetStyle().ScrollbarSize); // left of the window's scroll bar
      CHECK(last.x1 - last.x0 >= 4.0f);
      // Normalise sits inside the window too (beside Symmetry lock, or under it).
      CHECK(ex.probe("stencil.normalise").x1 <= window.x1);
    }
  }
}

TEST_CASE("the status line elides its texts to the window's width", "[gui][egl][lecture17]") {
  for (const int width : {1280, 900}) {
    INFO("width " << width);
    HeadlessExplorer ex(PlatformKind::Egl, lecture_scene("heat-2d", true), width, 720);
    ex.state().status_message = "a long message about a state file that was set aside, with the reason and the path";
    ex.frames(3);
    CHECK(ex.probe("status.compute").x1 <= width);
    CHECK(ex.probe("status.gl").x1 <= width);
    CHECK(ex.probe("status.message").x1 <= width);
    CHECK(ex.probe("status.compute").x1 <= ex.probe("status.gl").x0);
  }
}

TEST_CASE("the FFT view's k_f and k_f^T lie inside the window at 1280x720 in lecture mode", "[gui][egl][lecture17]") {
  for (const std::string name : {"heat-1d", "heat-2d"}) {
    INFO("preset " << name);
    HeadlessExplorer ex(PlatformKind::Egl, lecture_scene(name, true), 1280, 720);
    const std::vector<LectureStep> steps = lecture_steps();
    int step = -1;
    for (std::size_t i = 0; i < steps.size(); ++i)
      if (steps[i].view == "fft" && steps[i].page == "fusion") step = static_cast<int>(i);
    REQUIRE(step >= 0);
    go_to_lecture_step(ex.app().layout(), ex.app().lecture(), step);
    ex.frames(4);
    REQUIRE(ex.fact("fft.page") == "fusion");
    const WidgetRect window = ex.probe("fft.window");
    for (const char* map : {"fft.kf", "fft.kfT"}) {
      INFO(map);
      CHECK(ex.probe(map).x0 >= window.x0);
      CHECK(ex.probe(map).x1 <= window.x1);
    }
  }
}
