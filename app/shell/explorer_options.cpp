// Command-line entry of the GUI. Every message is one line on stderr that names the problem.
#include "app/shell/explorer_options.hpp"
#include "app/shell/record_video.hpp"

#include <stdlib.h>

#include <charconv>
#include <filesystem>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "app/shell/explorer_app.hpp"
#include "app/platform/gl_resources.hpp"
#include "app/platform/platform.hpp"
#include "app/platform/screenshot.hpp"
#include "app/sim/benchmark_job.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "kernels/capabilities.hpp"

namespace se {
namespace {

struct CommandLine {
  std::string stencil, size, screenshot, state_dir, view, record, record_video;
  bool lecture = false;
  std::string platform = "auto";
  std::string window = "1600x1000";
  bool headless = false, no_state = false;
  int frames = -1;
  std::string scale; // --scale as written; "": the monitor's content scale
};

constexpr int kHeadlessDefaultFrames = 30;
// --record: frames rendered before a step's first capture (layout settles, plans are built, headless waits for
// background work) and between the captures of an animated step.
constexpr int kRecordSettleFrames = 3;
constexpr int kRecordFramesBetweenCaptures = 24;

// --scale as written: the content scale of a monitor, from 50% to 400%.
float parse_scale(const std::string& text) {
  double v = 0;
  const auto res = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || res.ec != std::errc() || res.ptr != text.data() + text.size() || !(v >= 0.5 && v <= 4.0))
    throw InputError(fmt::format("--scale takes a number from 0.5 to 4 (1 is 96 dpi, 2 a 200% HiDPI monitor); got '{}'",
                                 text));
  return static_cast<float>(v);
}

// The scripted tour as numbered PNGs: frame_0001.png, ... in `dir`, with tour.ffconcat saying how long a video
// shows each. Returns the frames written. The fonts are the lecture's larger ones with --lecture and the normal
// ones without, so a recording shows what that mode shows on screen (the tour itself runs either way).
std::vector<RecordedFrame> record_tour(ExplorerApp& app, const std::filesystem::path& dir, bool large_fonts) {
  app.start_lecture_tour(large_fonts);
  const std::vector<LectureStep> steps = lecture_steps(app.state().stencil);
  std::vector<RecordedFrame> written;
  RgbaImage shot;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    go_to_lecture_step(app.layout(), app.lecture(), app.state().stencil, static_cast<int>(i));
    for (int f = 0; f < kRecordSettleFrames; ++f) app.frame();
    for (int capture = 0; capture < steps[i].captures; ++capture) {
      if (capture > 0)
        for (int f = 1; f < kRecordFramesBetweenCaptures; ++f) app.frame();
      app.frame(&shot);
      const std::string name = fmt::format("frame_{:04d}.png", written.size() + 1);
      write_png(shot, (dir / name).string());
      written.push_back({name, recorded_frame_seconds(steps[i].captures)});
    }
  }
  write_ffconcat(dir, written);
  return written;
}

// Where --record-video's frames go when no --record folder was named: a new folder under the temporary one.
std::filesystem::path temporary_frames_folder() {
  std::string pattern = (std::filesystem::temp_directory_path() / "stencil-explorer-record-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr)
    throw InputError(fmt::format("--record-video: cannot create a folder for the frames in {}",
                                 std::filesystem::temp_directory_path().string()));
  return pattern;
}

// --version's last line: where the Performance view's recorded results come from.
std::string data_report() {
  const auto dir = find_results_dir();
  return fmt::format("recorded results: {}\n", dir ? dir->string() : std::string("none found (set SE_RESULTS_DIR)"));
}

int run(const CommandLine& cl) {
  // Everything the user typed is checked here, before any window, context or grid exists.
  ExplorerOptions options;
  if (!cl.stencil.empty()) options.stencil = resolve_stencil(cl.stencil);
  if (!cl.size.empty()) options.size = parse_extent(cl.size);
  if (!cl.state_dir.empty()) options.state_dir = cl.state_dir;
  options.use_state = !cl.no_state;
  PlatformRequest request;
  request.kind = parse_platform_kind(cl.platform);
  request.headless = cl.headless;
  const Extent window = parse_extent(cl.window);
  if (window.dims != 2) throw InputError(fmt::format("--window needs WxH; got '{}'", cl.window));
  if (window.n[0] > 16384 || window.n[1] > 16384)
    throw InputError(fmt::format("--window {} is larger than 16384 pixels per side", cl.window));
  request.width = static_cast<int>(window.n[0]);
  request.height = static_cast<int>(window.n[1]);
  if (!cl.scale.empty()) request.content_scale = parse_scale(cl.scale);
  const int frames = cl.frames >= 0 ? cl.frames : (cl.headless ? kHeadlessDefaultFrames : -1);
  if (!cl.screenshot.empty() && frames < 1)
    throw InputError("--screenshot needs --headless or --frames N (N >= 1) to know which frame to save");
  if (!cl.screenshot.empty()) check_writable(cl.screenshot, "screenshot"); // before any frame is drawn
  if (!cl.view.empty()) options.view = cl.view;
  options.lecture = cl.lecture;
  std::filesystem::path record_dir;
  std::vector<std::string> ffmpeg;
  if (!cl.record_video.empty()) {
    if (!cl.headless) throw InputError("--record-video records the lecture tour offscreen: add --headless");
    if (!cl.screenshot.empty()) throw InputError("--record-video and --screenshot both write frames: choose one");
    ffmpeg = ffmpeg_command("tour.ffconcat", cl.record_video); // refuses an extension it cannot encode
    check_writable(cl.record_video, "video");
    if (!find_program("ffmpeg"))
      throw InputError("--record-video needs ffmpeg, which is not on the PATH (Debian: apt install ffmpeg); "
                       "--record DIR writes the frames and prints the ffmpeg command that makes the video");
  }
  if (!cl.record.empty()) {
    if (!cl.headless) throw InputError("--record writes the lecture tour's frames offscreen: add --headless");
    if (!cl.screenshot.empty()) throw InputError("--record and --screenshot both write frames: choose one");
    record_dir = cl.record;
    std::error_code ec;
    std::filesystem::create_directories(record_dir, ec);
    if (ec || !std::filesystem::is_directory(record_dir))
      throw InputError(fmt::format("--record {}: cannot create that folder ({})", cl.record,
                                   ec ? ec.message() : "a file of that name exists"));
    check_writable((record_dir / "frame_0001.png").string(), "recorded frame"); // a read-only folder fails now
  }

  StartupState startup = prepare_startup(options);
  for (const auto& m : startup.messages) std::cerr << "stencil-explorer: " << m << "\n";

  auto platform = open_platform(request);
  ExplorerApp app(*platform, std::move(startup));
  if (!cl.record_video.empty()) {
    const bool keep_frames = !record_dir.empty();
    if (!keep_frames) record_dir = temporary_frames_folder();
    const std::vector<RecordedFrame> frames = record_tour(app, record_dir, cl.lecture);
    ffmpeg = ffmpeg_command(record_dir / "tour.ffconcat", cl.record_video);
    std::cerr << fmt::format("stencil-explorer: recorded {} lecture frames; running {}\n", frames.size(), shell_line(ffmpeg));
    const int code = run_program(ffmpeg);
    if (code != 0)
      throw InputError(fmt::format("ffmpeg failed (exit code {}); the frames are in {}", code, record_dir.string()));
    if (!keep_frames) {
      std::error_code ec;
      std::filesystem::remove_all(record_dir, ec);
    }
    std::error_code ec;
    const auto bytes = std::filesystem::file_size(cl.record_video, ec);
    std::cerr << fmt::format("stencil-explorer: wrote {} ({:.1f} MB, {}x{}, {})\n", cl.record_video, ec ? 0.0 : bytes / 1e6,
                             platform->width(), platform->height(), platform->description());
    return 0;
  }
  if (!record_dir.empty()) {
    const std::vector<RecordedFrame> frames = record_tour(app, record_dir, cl.lecture);
    std::cerr << fmt::format("stencil-explorer: wrote {} lecture frames to {} ({}x{}, {}, {})\n", frames.size(),
                             record_dir.string(), platform->width(), platform->height(), platform->description(),
                             cl.lecture ? "lecture fonts" : "normal fonts; --lecture records the larger ones");
    std::cerr << "stencil-explorer: to make a video of them: "
              << shell_line(ffmpeg_command(record_dir / "tour.ffconcat", "tour.mp4")) << "\n";
    return 0;
  }
  RgbaImage shot;
  for (int i = 0; (frames < 0 || i < frames) && !platform->should_close(); ++i) {
    const bool last = i == frames - 1;
    app.frame(last && !cl.screenshot.empty() ? &shot : nullptr);
  }
  if (!cl.screenshot.empty() && shot.width > 0) {
    write_png(shot, cl.screenshot);
    std::cerr << fmt::format("stencil-explorer: wrote {} ({}x{}, {} frames, step {}, {})\n", cl.screenshot, shot.width,
                             shot.height, frames, app.simulation().steps_done(), platform->description());
  }
  return 0;
}

} // namespace

int run_explorer(int argc, char** argv) {
  CLI::App cli{"stencil-explorer: see how stencils run, step by step, as a live heat map"};
  CommandLine cl;
  cli.add_option("--stencil", cl.stencil, "a preset name (e.g. heat-2d, box-3d27p) or a path to a stencil .json");
  cli.add_option("--size", cl.size, "grid size N, NxM or NxMxK (x first); its dims must match the stencil's");
  cli.add_flag("--headless", cl.headless, "render without a visible window (hidden GLFW window or EGL)");
  cli.add_option("--frames", cl.frames, "render this many frames, then exit (headless default: 30)")
      ->check(CLI::NonNegativeNumber);
  cli.add_option("--screenshot", cl.screenshot, "write the last frame to this PNG file");
  cli.add_option("--platform", cl.platform, "auto, glfw or egl (egl needs --headless)");
  cli.add_option("--window", cl.window, "window or framebuffer size WxH (default 1600x1000)");
  cli.add_option("--scale", cl.scale,
                 "the monitor content scale to draw at (e.g. 2 for a 200% HiDPI screen; default: the monitor's, 1 headless)");
  cli.add_option("--state-dir", cl.state_dir, "where state.json and imgui.ini are kept");
  cli.add_flag("--no-state", cl.no_state, "neither restore nor save settings and layout");
  cli.add_option("--view", cl.view, "show one view large: " + view_names());
  cli.add_flag("--lecture", cl.lecture, "lecture mode: larger fonts and the guided tour (PageDown / PageUp)");
  cli.add_option("--record", cl.record,
                 "with --headless: write the lecture tour as numbered PNGs into this folder (and print the ffmpeg "
                 "command that makes a video of them); add --lecture for the lecture's larger fonts");
  cli.add_option("--record-video", cl.record_video,
                 "with --headless: record the lecture tour into this video (.mp4, .mkv, .mov, .webm) with ffmpeg; add "
                 "--lecture for the lecture's larger fonts");
  cli.set_version_flag("--version", [] { return version_report("stencil-explorer") + data_report(); },
                       "print the version, the git revision and what this machine offers (CUDA, cuDNN, cuFFT, NVRTC)");
  try {
    cli.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return cli.exit(e);
  } catch (const CLI::CallForVersion& e) {
    std::cout << e.what();
    return 0;
  } catch (const CLI::ParseError& e) {
    std::cerr << "stencil-explorer: " << e.what() << " (see --help)\n";
    return 2;
  }
  try {
    return run(cl);
  } catch (const InputError& e) {
    std::cerr << "stencil-explorer: " << e.what() << "\n";
    return 2;
  } catch (const PlatformError& e) {
    std::cerr << "stencil-explorer: " << e.what() << "\n";
    return 1;
  } catch (const GlError& e) {
    std::cerr << "stencil-explorer: OpenGL: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "stencil-explorer: " << e.what() << "\n";
    return 1;
  }
}

} // namespace se
