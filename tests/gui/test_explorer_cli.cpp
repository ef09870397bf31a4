// The stencil-explorer executable: bad input gets one line on stderr and exit code 2, never a crash;
// a headless run writes its screenshot and its state where it was told to.
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

#include "gui_test_support.hpp"

using se::test::run_command;
using se::test::TempDir;

namespace {

std::string explorer(const std::string& args) { return std::string("'") + SE_EXPLORER_EXE + "' " + args; }

// Exit code 2 and exactly one line naming the problem.
void expect_input_error(const std::string& args, const std::string& fragment) {
  const auto r = run_command(explorer(args));
  INFO("stencil-explorer " << args << "\n" << r.output);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains(fragment));
  CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
}

} // namespace

TEST_CASE("stencil-explorer refuses bad input with exit code 2", "[gui][cli]") {
  TempDir dir;
  const std::string headless = "--headless --platform egl --no-state --frames 1 ";
  expect_input_error(headless + "--stencil no-such-preset", "unknown stencil 'no-such-preset'");
  expect_input_error(headless + "--size 0x5", "must be positive");
  expect_input_error(headless + "--size 12xq", "not of the form");
  expect_input_error(headless + "--size 64x64x64", "is 3D but the stencil");
  expect_input_error(headless + "--stencil box-2d49p --size 5x64", "smaller than the stencil");
  expect_input_error(headless + "--size 2000000x2000000", "available");
  expect_input_error("--headless --no-state --platform vulkan", "unknown platform 'vulkan'");
  expect_input_error(headless + "--window 800", "--window needs WxH");
  expect_input_error("--no-state --frames 0 --screenshot x.png --headless --platform egl", "--screenshot needs");
  expect_input_error("--frames -3", "--frames");
  // Outputs: a folder that does not exist or a folder in the file's place is refused before any frame is drawn; a
  // full disk is an error naming the path, never a reported success.
  expect_input_error(headless + "--screenshot /nonexistent-folder/x.png", "does not exist");
  expect_input_error(headless + "--screenshot " + dir.str(), "is a directory");
  expect_input_error(headless + "--screenshot /dev/full", "No space left on device");
  expect_input_error(headless + "--stencil " + dir.str(), "is a directory");
  expect_input_error("--bogus-flag", "bogus");

  const auto bad = dir.path() / "broken.json";
  { std::ofstream(bad) << "{\"dims\": 2, \"radius\": 1, \"weights\": [[0, 1, 0], [1, -4, 1]]}"; }
  expect_input_error(headless + "--stencil " + bad.string(), "broken.json");
  expect_input_error(headless + "--stencil " + (dir.path() / "missing.json").string(), "cannot open");
}

TEST_CASE("without a display and without --headless it says so and exits 2", "[gui][cli]") {
  const auto r = run_command("env -u DISPLAY -u WAYLAND_DISPLAY " + explorer("--no-state"));
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("no display") && Catch::Contains("--headless"));
  const auto egl_window = run_command(explorer("--no-state --platform egl"));
  CHECK(egl_window.exit_code == 2);
  CHECK_THAT(egl_window.output, Catch::Contains("add --headless"));
}

TEST_CASE("a headless run writes the screenshot and remembers the state", "[gui][cli]") {
  TempDir dir;
  const auto png = dir.path() / "shot.png";
  const auto state = dir.path() / "state";
  const auto r = run_command(explorer("--headless --platform egl --frames 3 --window 800x500 --stencil box-2d9p --size 96x64 "
                                      "--state-dir " + state.string() + " --screenshot " + png.string()));
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("wrote") && Catch::Contains("800x500"));
  REQUIRE(std::filesystem::exists(png));
  std::ifstream in(png, std::ios::binary);
  char magic[8] = {};
  in.read(magic, 8);
  CHECK(std::string(magic + 1, 3) == "PNG");
  CHECK(std::filesystem::file_size(png) > 10000); // a rendered UI, not a blank frame
  CHECK(std::filesystem::exists(state / "state.json"));
  CHECK(std::filesystem::exists(state / "imgui.ini"));

  // The next run without --stencil/--size starts from what was saved.
  const auto again = run_command(explorer("--headless --platform egl --frames 1 --state-dir " + state.string()));
  CHECK(again.exit_code == 0);
  std::ifstream saved(state / "state.json");
  const std::string text((std::istreambuf_iterator<char>(saved)), std::istreambuf_iterator<char>());
  CHECK_THAT(text, Catch::Contains("\"box-2d9p\"") && Catch::Contains("96x64"));
}
