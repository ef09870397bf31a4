// Helpers for the GUI tests: temporary state folders, running the stencil-explorer executable, a
// headless explorer driven by synthetic input, and counting the colours of a screenshot.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <string_view>

#include <GLFW/glfw3.h>
#include <catch2/catch.hpp>

#include "app/shell/explorer_app.hpp"
#include "app/platform/platform.hpp"
#include "app/platform/screenshot.hpp"
#include "tests/run_command.hpp"

namespace se::test {

// A fresh folder under the system temp dir, removed again at the end of the test.
class TempDir {
public:
  TempDir() {
    std::random_device rd;
    path_ = std::filesystem::temp_directory_path() / ("se-gui-test-" + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::string str() const { return path_.string(); }

private:
  std::filesystem::path path_;
};

using se::testing::CommandResult;
using se::testing::run_command;

inline std::size_t count_distinct_colors(const RgbaImage& image, int x0, int y0, int x1, int y1) {
  std::set<std::uint32_t> colors;
  for (int y = std::max(y0, 0); y < std::min(y1, image.height); ++y)
    for (int x = std::max(x0, 0); x < std::min(x1, image.width); ++x) {
      const std::uint8_t* p = image.pixel(x, y);
      colors.insert(static_cast<std::uint32_t>(p[0]) << 16 | static_cast<std::uint32_t>(p[1]) << 8 | p[2]);
    }
  return colors.size();
}

// Fraction of pixels that differ visibly between two frames of the same size.
inline double differing_fraction(const RgbaImage& a, const RgbaImage& b) {
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

// An explorer on a headless platform, with helpers to click named widgets and run frames.
class HeadlessExplorer {
public:
  HeadlessExplorer(PlatformKind kind, StartupState startup, int width = 1600, int height = 1000,
                   EglDisplayKind egl_display = EglDisplayKind::Any, float content_scale = 0) {
    PlatformRequest request;
    request.kind = kind;
    request.egl_display = egl_display;
    request.content_scale = content_scale;
    request.headless = true;
    request.width = width;
    request.height = height;
    platform_ = open_platform(request);
    app_ = std::make_unique<ExplorerApp>(*platform_, std::move(startup));
  }
  ExplorerApp& app() { return *app_; }
  ExplorerState& state() { return app_->state(); }
  const Simulation& simulation() const { return app_->simulation(); }
  SyntheticInput& input() { return *platform_->synthetic_input(); }
  Platform& platform() { return *platform_; }

  void frames(int n) {
    for (int i = 0; i < n; ++i) app_->frame();
  }
  // Runs frames until every queued event has been seen, then one more so its effect is applied.
  void settle() {
    for (int guard = 0; input().pending() && guard < 1000; ++guard) app_->frame();
    app_->frame();
  }
  const WidgetRect& probe(std::string_view name) {
    const auto it = state().probes.find(name);
    INFO("widget probe " << name);
    REQUIRE(it != state().probes.end());
    return it->second;
  }
  void click(std::string_view name) {
    const WidgetRect r = probe(name);
    input().click(r.center_x(), r.center_y());
    settle();
  }
  // Presses `button` at (x0, y0), moves to (x1, y1) in `moves` frames and releases there.
  void drag(float x0, float y0, float x1, float y1, int button = 0, int moves = 8) {
    input().move_mouse(x0, y0);
    input().mouse_button(button, true);
    for (int i = 1; i <= moves; ++i) {
      const float t = static_cast<float>(i) / static_cast<float>(moves);
      input().move_mouse(x0 + t * (x1 - x0), y0 + t * (y1 - y0));
      input().end_frame();
    }
    input().mouse_button(button, false);
    settle();
  }
  void press(int glfw_key) {
    input().press_key(glfw_key);
    settle();
  }
  // Clicks the text field `name`, selects all it holds (Ctrl+A), deletes it, types `text` and presses Enter.
  void replace_text(std::string_view name, const std::string& text) {
    const WidgetRect r = probe(name);
    input().click(r.center_x(), r.center_y());
    input().key(GLFW_KEY_LEFT_CONTROL, true);
    input().press_key(GLFW_KEY_A);
    input().key(GLFW_KEY_LEFT_CONTROL, false);
    input().press_key(GLFW_KEY_BACKSPACE);
    input().type_text(text);
    input().press_key(GLFW_KEY_ENTER);
    settle();
  }
  // A value a view published this frame (see ViewFacts); the test fails when there is none.
  std::string fact(std::string_view key) {
    const auto& facts = app_->view_facts();
    const auto it = facts.find(key);
    INFO("view fact " << key);
    REQUIRE(it != facts.end());
    return it->second;
  }
  RgbaImage screenshot() {
    RgbaImage image;
    app_->frame(&image);
    return image;
  }
  // Closes the app (saving its state) but keeps the platform.
  void close_app() { app_.reset(); }

private:
  std::unique_ptr<Platform> platform_;
  std::unique_ptr<ExplorerApp> app_;
};

// Issue 17's scenes: the preset `stencil` on a small grid, in lecture mode (larger fonts) or not, no saved state.
inline StartupState lecture_scene(const std::string& stencil, bool lecture) {
  ExplorerOptions o;
  o.use_state = false;
  o.lecture = lecture;
  o.stencil = preset(stencil);
  o.size = Extent{o.stencil->dims, {32, o.stencil->dims > 1 ? 32 : 1, o.stencil->dims > 2 ? 16 : 1}};
  return prepare_startup(o);
}

// Shows the tour's step for `view` (and `page`, where given; else the view's first step) and lets it settle.
inline void show_step(HeadlessExplorer& ex, const std::string& view, const std::string& page) {
  const std::vector<LectureStep> steps = lecture_steps(ex.app().state().stencil);
  int step = -1;
  for (std::size_t i = 0; i < steps.size() && step < 0; ++i)
    if (steps[i].view == view && (page.empty() || steps[i].page == page)) step = static_cast<int>(i);
  REQUIRE(step >= 0);
  go_to_lecture_step(ex.app().layout(), ex.app().lecture(), ex.app().state().stencil, step);
  ex.frames(4);
}

// The figure `probe` lies inside the window of `view` ("<view>.window"): not cut at the left, the right or the bottom.
inline void check_inside(HeadlessExplorer& ex, const std::string& view, const std::string& probe) {
  INFO(probe);
  const WidgetRect window = ex.probe(view + ".window");
  const WidgetRect r = ex.probe(probe);
  CHECK(r.x0 >= window.x0);
  CHECK(r.x1 <= window.x1);
  CHECK(r.y1 <= window.y1);
}

// The options of a test run: its own state folder, never the user's.
inline ExplorerOptions options_in(const TempDir& dir) {
  ExplorerOptions o;
  o.state_dir = dir.str();
  return o;
}

} // namespace se::test
