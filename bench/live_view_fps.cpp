// The live view's frame rate, measured headless (a benchmark, not a test): the explorer's Simulation window on
// a chosen stencil, grid and method, N frames with K steps per frame, timed from the first to the last frame
// with every frame's GL work finished (glFinish once at the end, as tests/gui/test_live_gpu.cpp does).
//
//   build/bench/se-live-fps --stencil heat-2d --size 1024x1024 --frames 300 [--method cpu-reference]
//                           [--steps-per-frame 1] [--window 1600x1000] [--repeats 3] [--json out.json]
//
// Prints frames per second (best of --repeats), the step and texture milliseconds the Simulation window shows,
// the GL renderer and the CPU ISA the reference dispatched to.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <glad/gl.h>
#include <nlohmann/json.hpp>

#include "app/shell/explorer_app.hpp"
#include "app/platform/platform.hpp"
#include "core/cpu_features.hpp"
#include "core/error.hpp"
#include "kernels/registry.hpp"

using namespace se;

namespace {

// Opens the method picker and clicks one entry, as a user would; false when it is not offered.
bool pick_method(ExplorerApp& app, SyntheticInput& input, const std::string& probe) {
  const auto click = [&](const std::string& name) {
    const auto it = app.state().probes.find(name);
    if (it == app.state().probes.end()) return false;
    input.click(it->second.center_x(), it->second.center_y());
    for (int guard = 0; input.pending() && guard < 100; ++guard) app.frame();
    app.frame();
    return true;
  };
  return click("simulation.method") && click(probe);
}

} // namespace

int main(int argc, char** argv) {
  CLI::App cli{"Frame rate of the live view, headless"};
  std::string stencil = "heat-2d", size = "1024x1024", method = "cpu-reference", backend = "cpu", window = "1600x1000",
              json;
  int frames = 300, steps_per_frame = 1, repeats = 3, warmup = 20;
  bool paused = false;
  cli.add_option("--stencil", stencil);
  cli.add_option("--size", size);
  cli.add_option("--method", method, "a method id");
  cli.add_option("--backend", backend, "cpu, emulate or gpu");
  cli.add_option("--frames", frames);
  cli.add_option("--steps-per-frame", steps_per_frame);
  cli.add_option("--repeats", repeats, "timed windows of --frames frames; the best is reported");
  cli.add_option("--warmup", warmup);
  cli.add_option("--window", window, "WxH");
  cli.add_option("--json", json, "write the measurement here");
  cli.add_flag("--paused", paused, "no steps: the frame rate of drawing alone");
  CLI11_PARSE(cli, argc, argv);
  try {
    ExplorerOptions o;
    o.use_state = false;
    o.view = "simulation";
    o.stencil = preset(stencil);
    o.size = parse_extent(size);
    int width = 1600, height = 1000;
    if (std::sscanf(window.c_str(), "%dx%d", &width, &height) != 2) throw InputError("--window takes WxH");
    PlatformRequest request;
    request.kind = PlatformKind::Egl;
    request.headless = true;
    request.width = width;
    request.height = height;
    const auto platform = open_platform(request);
    ExplorerApp app(*platform, prepare_startup(o));
    app.state().grid.steps_per_frame = steps_per_frame;
    app.frame();
    if (method != "cpu-reference" || backend != "cpu")
      if (!pick_method(app, *platform->synthetic_input(), "simulation.method." + method + "." + backend))
        throw InputError(fmt::format("the Simulation window does not offer {} ({})", method, backend));
    if (paused) app.state().playing = false;
    for (int i = 0; i < warmup; ++i) app.frame();
    glFinish();
    double best = 0;
    for (int r = 0; r < repeats; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < frames; ++i) app.frame();
      glFinish();
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      best = std::max(best, frames / s);
    }
    const auto fact = [&](const char* key) {
      const auto it = app.view_facts().find(key);
      return it == app.view_facts().end() ? std::string("?") : it->second;
    };
    const Simulation& sim = app.simulation();
    std::printf("%s %s, %s, %d step(s) per frame, window %dx%d: %.1f fps (best of %d x %d frames); step %s ms, "
                "texture %s ms, %.3f GStencil/s; GL %s via %s; CPU %s, %s\n",
                stencil.c_str(), size.c_str(), sim.method().label().c_str(), steps_per_frame, width, height, best,
                repeats, frames, fact("simulation.step_ms").c_str(), fact("simulation.texture_ms").c_str(),
                sim.gstencils(), app.environment().gl_renderer.c_str(), platform->description().c_str(),
                cpu_model_name().c_str(), std::string(to_string(best_cpu_isa())).c_str());
    if (!json.empty())
      std::ofstream(json) << nlohmann::json{{"stencil", stencil},
                                            {"size", size},
                                            {"method", sim.method().label()},
                                            {"steps_per_frame", steps_per_frame},
                                            {"window", window},
                                            {"frames", frames},
                                            {"repeats", repeats},
                                            {"fps", best},
                                            {"step_ms", fact("simulation.step_ms")},
                                            {"texture_ms", fact("simulation.texture_ms")},
                                            {"gstencils", sim.gstencils()},
                                            {"gl_renderer", app.environment().gl_renderer},
                                            {"platform", platform->description()},
                                            {"cpu", cpu_model_name()},
                                            {"cpu_threads", cpu_thread_count()},
                                            {"isa", std::string(to_string(best_cpu_isa()))}}
                                .dump(2)
                           << "\n";
  } catch (const std::exception& e) {
    std::fprintf(stderr, "se-live-fps: %s\n", e.what());
    return 2;
  }
  return 0;
}
