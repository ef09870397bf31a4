// Lecture mode and the view command line: --view opens any registered view large and refuses unknown names
// with exit code 2; the guided tour moves with PageDown/PageUp and its buttons; --headless --record writes the
// scripted tour as numbered PNG frames.
#include <algorithm>
#include <fstream>
#include <iterator>
#include <string>

#include <GLFW/glfw3.h>
#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <imgui.h>

#include "gui_test_support.hpp"

using namespace se;
using se::test::HeadlessExplorer;
using se::test::run_command;
using se::test::TempDir;

namespace {

std::string explorer(const std::string& args) { return std::string("'") + SE_EXPLORER_EXE + "' " + args; }

std::string file_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

} // namespace

TEST_CASE("the tour leaves out the steps a stencil's dimensions have nothing for, and words 1D steps for 1D", "[gui][lecture]") {
  const auto has = [](const std::vector<LectureStep>& steps, const std::string& view, const std::string& page) {
    return std::any_of(steps.begin(), steps.end(), [&](const LectureStep& s) { return s.view == view && s.page == page; });
  };
  const auto caption = [](const std::vector<LectureStep>& steps, const std::string& view, const std::string& page) {
    for (const LectureStep& s : steps)
      if (s.view == view && s.page == page) return s.caption;
    return std::string();
  };
  const std::vector<LectureStep> d1 = lecture_steps(preset("1d7p")), d2 = lecture_steps(preset("heat-2d")),
                                  d3 = lecture_steps(preset("heat-3d"));
  // 2D: every step. 1D: no butterfly (one product, X·V); TCStencil reads the line as rows of 16 points. 3D: no
  // SPIDER row.
  CHECK(d1.size() == d2.size() - 1);
  CHECK(d3.size() == d2.size() - 1);
  for (const auto* steps : {&d1, &d2, &d3}) CHECK(has(*steps, "params", "tcstencil"));
  for (const auto* steps : {&d2, &d3}) CHECK(has(*steps, "fragments", "loop:lorastencil"));
  CHECK_FALSE(has(d1, "fragments", "loop:lorastencil"));
  CHECK_THAT(caption(d1, "params", "tcstencil"), Catch::Contains("16 consecutive points"));
  CHECK(has(d1, "params", "convstencil"));
  CHECK(has(d1, "sparse24", ""));
  CHECK(has(d2, "sparse24", ""));
  CHECK_FALSE(has(d3, "sparse24", ""));
  CHECK(has(d3, "table2", ""));
  // The pyramid step speaks of rings in 2D and of a single row in 1D.
  CHECK_THAT(caption(d2, "pyramid", "pyramid"), Catch::Contains("ring"));
  CHECK_THAT(caption(d1, "pyramid", "pyramid"), Catch::Contains("single row"));
  CHECK_THAT(caption(d1, "pyramid", "rdg"), Catch::Contains("Y = X·V"));
  CHECK(caption(d3, "pyramid", "pyramid") == caption(d2, "pyramid", "pyramid"));
}

TEST_CASE("the --view option takes every registered view and refuses others with exit code 2", "[gui][cli][lecture]") {
  const auto bad = run_command(explorer("--headless --platform egl --no-state --frames 1 --view nope"));
  INFO(bad.output);
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.output, Catch::Contains("unknown view 'nope'"));
  for (const ViewEntry& v : explorer_views()) CHECK_THAT(bad.output, Catch::Contains(v.name));
  CHECK(std::count(bad.output.begin(), bad.output.end(), '\n') == 1);

  TempDir dir;
  const auto png = dir.path() / "sparse24.png";
  const auto ok = run_command(explorer("--headless --platform egl --no-state --frames 2 --window 900x560 --view sparse24 "
                                       "--stencil box-2d9p --size 32x32 --screenshot " + png.string()));
  INFO(ok.output);
  CHECK(ok.exit_code == 0);
  REQUIRE(std::filesystem::exists(png));
  CHECK(std::filesystem::file_size(png) > 20000);
}

TEST_CASE("the --record option writes the lecture tour as numbered PNG frames", "[gui][cli][lecture]") {
  TempDir dir;
  const auto frames = dir.path() / "tour";
  const auto r = run_command(explorer("--headless --platform egl --no-state --window 800x500 --stencil heat-2d "
                                      "--size 32x32 --record " + frames.string()));
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  int expected = 0;
  for (const LectureStep& s : lecture_steps(preset("heat-2d"))) expected += s.captures;
  CHECK_THAT(r.output, Catch::Contains(fmt::format("wrote {} lecture frames", expected)));
  // Without --lecture the tour is recorded at the normal fonts (it used to take the lecture's always).
  CHECK_THAT(r.output, Catch::Contains("normal fonts"));
  std::string previous;
  for (int i = 1; i <= expected; ++i) {
    const auto png = frames / fmt::format("frame_{:04d}.png", i);
    INFO(png);
    REQUIRE(std::filesystem::exists(png));
    const std::string bytes = file_bytes(png);
    CHECK(bytes.substr(1, 3) == "PNG");
    CHECK(bytes.size() > 15000); // a rendered view, not a blank frame
    CHECK(bytes != previous);    // every frame shows something new (a new step, or the animation moving on)
    previous = bytes;
  }
  CHECK_FALSE(std::filesystem::exists(frames / fmt::format("frame_{:04d}.png", expected + 1)));
  // The list ffmpeg reads (every frame with how long it is shown) and the command that makes the video.
  const std::string list = file_bytes(frames / "tour.ffconcat");
  CHECK(list.rfind("ffconcat version 1.0\n", 0) == 0);
  CHECK_THAT(list, Catch::Contains(fmt::format("file 'frame_{:04d}.png'\nduration ", expected)));
  CHECK_THAT(r.output, Catch::Contains("to make a video of them: ffmpeg") &&
                           Catch::Contains((frames / "tour.ffconcat").string()) && Catch::Contains("tour.mp4"));

  const auto windowed = run_command(explorer("--no-state --record " + (dir.path() / "x").string()));
  CHECK(windowed.exit_code == 2);
  CHECK_THAT(windowed.output, Catch::Contains("--headless"));
}

TEST_CASE("the lecture tour: larger fonts, PageDown/PageUp and the Next button move through the views",
          "[gui][egl][lecture]") {
  ExplorerOptions o;
  o.use_state = false;
  o.lecture = true;
  o.stencil = preset("box-2d9p");
  o.size = Extent{2, {32, 32, 1}};
  HeadlessExplorer ex(PlatformKind::Egl, prepare_startup(o), 1280, 800);
  ex.frames(2);
  const std::vector<LectureStep> steps = lecture_steps(ex.app().state().stencil);
  REQUIRE(steps.size() >= 10);
  CHECK(ex.app().lecture().large_fonts);
  CHECK(ImGui::GetFontSize() >= 20.0f);
  CHECK(ex.app().view_facts().at("lecture.step") == "1");
  CHECK(ex.app().layout().focus == steps[0].view);

  ex.press(GLFW_KEY_PAGE_DOWN);
  ex.frames(1);
  CHECK(ex.app().view_facts().at("lecture.step") == "2");
  CHECK(ex.app().layout().focus == steps[1].view);
  CHECK(ex.app().layout().is_open(steps[1].view));
  CHECK(ex.app().view_facts().at(steps[1].view + ".page") == steps[1].page);
  const WidgetRect w = ex.probe(steps[1].view + ".window");
  const WidgetRect bar = ex.probe("lecture.next");
  CHECK(w.y0 > bar.y1); // the view sits below the lecture bar, not under it

  ex.click("lecture.next");
  ex.frames(1);
  CHECK(ex.app().view_facts().at("lecture.step") == "3");
  CHECK(ex.app().view_facts().at(steps[2].view + ".page") == steps[2].page);
  ex.press(GLFW_KEY_PAGE_UP);
  ex.press(GLFW_KEY_PAGE_UP);
  CHECK(ex.app().view_facts().at("lecture.step") == "1");

  ex.click("lecture.end");
  CHECK_FALSE(ex.app().lecture().touring);
  ex.click("menu.lecture");
  ex.click("menu.lecture.fonts");
  CHECK_FALSE(ex.app().lecture().large_fonts);
  ex.frames(1);
  CHECK(ImGui::GetFontSize() < 20.0f);
  // What --record without --lecture does: the tour at the normal fonts.
  ex.app().start_lecture_tour(false);
  ex.frames(1);
  CHECK(ex.app().lecture().touring);
  CHECK(ImGui::GetFontSize() < 20.0f);
  ex.app().start_lecture_tour(true);
  ex.frames(1);
  CHECK(ImGui::GetFontSize() >= 20.0f);
}

TEST_CASE("a recorded video: --record-video runs ffmpeg on the tour, and says what to do without it", "[gui][cli][lecture]") {
  TempDir dir;
  // A stand-in ffmpeg that keeps its arguments and writes the file named last, so the test needs no real one.
  const auto bin = dir.path() / "bin";
  std::filesystem::create_directories(bin);
  const auto args_file = dir.path() / "ffmpeg-args.txt";
  {
    std::ofstream fake(bin / "ffmpeg");
    fake << "#!/bin/sh\nprintf '%s\\n' \"$@\" > '" << args_file.string() << "'\n"
         << "for last in \"$@\"; do :; done\nprintf 'video' > \"$last\"\n";
  }
  std::filesystem::permissions(bin / "ffmpeg", std::filesystem::perms::owner_all);
  const auto tmp = dir.path() / "tmp";
  std::filesystem::create_directories(tmp);
  const auto video = dir.path() / "demo.mp4";
  const std::string common = "--headless --platform egl --no-state --window 640x400 --stencil heat-2d --size 32x32 ";
  const auto r = run_command("env PATH=" + bin.string() + ":/usr/bin:/bin TMPDIR=" + tmp.string() + " " +
                             explorer(common + "--record-video " + video.string()));
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(file_bytes(video) == "video");
  const std::string args = file_bytes(args_file);
  CHECK_THAT(args, Catch::Contains("concat\n") && Catch::Contains("tour.ffconcat\n") && Catch::Contains("libx264\n") &&
                       Catch::Contains(video.string()));
  CHECK_THAT(r.output, Catch::Contains("wrote " + video.string()));
  CHECK(std::filesystem::is_empty(tmp)); // the frames' temporary folder is gone

  // With --record as well, the frames stay where they were asked for.
  const auto frames = dir.path() / "frames";
  const auto kept = run_command("env PATH=" + bin.string() + ":/usr/bin:/bin " +
                                explorer(common + "--record " + frames.string() + " --record-video " + video.string()));
  CHECK(kept.exit_code == 0);
  CHECK(std::filesystem::exists(frames / "frame_0001.png"));
  CHECK(std::filesystem::exists(frames / "tour.ffconcat"));

  // No ffmpeg on the PATH, an extension it cannot encode, no --headless: refused before any frame is drawn.
  const auto empty = dir.path() / "empty";
  std::filesystem::create_directories(empty);
  const auto missing = run_command("env PATH=" + empty.string() + " " + explorer(common + "--record-video " + video.string()));
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.output, Catch::Contains("needs ffmpeg") && Catch::Contains("--record DIR"));
  const auto gif = run_command(explorer(common + "--record-video " + (dir.path() / "x.gif").string()));
  CHECK(gif.exit_code == 2);
  CHECK_THAT(gif.output, Catch::Contains(".mp4, .mkv, .mov or .webm"));
  const auto windowed = run_command(explorer("--no-state --record-video " + video.string()));
  CHECK(windowed.exit_code == 2);
  CHECK_THAT(windowed.output, Catch::Contains("--headless"));
  // ffmpeg that fails: its exit code is reported with where the frames are.
  { std::ofstream(bin / "ffmpeg") << "#!/bin/sh\nexit 7\n"; }
  const auto failed = run_command("env PATH=" + bin.string() + ":/usr/bin:/bin TMPDIR=" + tmp.string() + " " +
                                  explorer(common + "--record-video " + video.string()));
  CHECK(failed.exit_code == 2);
  CHECK_THAT(failed.output, Catch::Contains("ffmpeg failed (exit code 7)") && Catch::Contains(tmp.string()));
}
