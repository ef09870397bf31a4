// stencil-bench subcommands. `run` checks every non-reference result against the FP64 reference on the same
// fresh random input and reports a result above its precision's bound as a failure, never as a throughput;
// `suite` does that for every method over the papers' experiments; `device` measures the roofs.
#include "app/cli/bench_cli.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "app/cli/dag_cli.hpp"
#include "core/common/comma_list.hpp"
#include "core/common/nearest_name.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "kernels/bench_suite.hpp"
#include "kernels/capabilities.hpp"
#include "kernels/checked_run.hpp"
#include "kernels/common/ceilings.hpp"
#include "kernels/device.hpp"
#include "kernels/registry.hpp"

namespace se {
namespace {

// A progress bar on stderr that appears only once a run has taken more than a second.
class ProgressBar {
public:
  explicit ProgressBar(std::string label, std::string unit = "steps")
      : label_(std::move(label)), unit_(std::move(unit)), start_(clock::now()), tty_(isatty(2)) {}
  ~ProgressBar() { finish(); }
  bool update(int done, int total) {
    const double elapsed = seconds();
    if (elapsed < 1.0 || total <= 0) return true;
    const double frac = static_cast<double>(done) / total;
    if (tty_) {
      if (elapsed - last_ < 0.1 && done < total) return true;
      const int width = 30, filled = static_cast<int>(frac * width);
      const double eta = frac > 0 ? elapsed * (1 - frac) / frac : 0;
      std::fprintf(stderr, "\r%s [%s%s] %3.0f%% %d/%d  ETA %.1fs ", label_.c_str(), std::string(filled, '#').c_str(),
                   std::string(width - filled, '.').c_str(), frac * 100, done, total, eta);
    } else {
      const int quarter = static_cast<int>(frac * 4);
      if (quarter <= printed_quarter_) return true;
      printed_quarter_ = quarter;
      std::fprintf(stderr, "%s: %d/%d %s (%.0f%%) after %.1fs, ETA %.0fs\n", label_.c_str(), done, total, unit_.c_str(),
                   frac * 100, elapsed, frac > 0 ? elapsed * (1 - frac) / frac : 0.0);
    }
    shown_ = true;
    last_ = elapsed;
    return true;
  }
  void finish() {
    if (shown_ && tty_) std::fprintf(stderr, "\n");
    shown_ = false;
  }

private:
  using clock = std::chrono::steady_clock;
  double seconds() const { return std::chrono::duration<double>(clock::now() - start_).count(); }
  std::string label_, unit_;
  clock::time_point start_;
  bool tty_;
  bool shown_ = false;
  double last_ = 0;
  int printed_quarter_ = 0;
};

int cmd_list(const std::vector<Method>& methods) {
  const DeviceInfo dev = query_device();
  std::printf("device: %s\n\nstencils:\n", dev.summary().c_str());
  for (const auto& name : preset_names()) {
    const Stencil s = preset(name);
    std::printf("  %-11s %dD r=%d %3d points  %s\n", name.c_str(), s.dims, s.radius, s.nonzero_count(),
                preset_description(name).c_str());
  }
  std::printf("\nmethods:\n");
  for (const auto& m : methods) {
    const std::string why = m.unavailable_reason();
    std::printf("  %-15s %-8s %-5s %-12s %s\n", m.id.c_str(), std::string(to_string(m.backend)).c_str(),
                std::string(to_string(m.precision)).c_str(), why.empty() ? "available" : "unavailable",
                why.empty() ? m.description.c_str() : why.c_str());
  }
  return 0;
}

// Prints the weight array plane by plane and optionally writes it as JSON.
int cmd_show(const std::string& name, const std::string& json) {
  const Stencil s = resolve_stencil(name);
  const auto sh = s.shape();
  std::printf("%s: %dD, radius %d, %d non-zero weights, sum %.6g, %s%s\n", s.name.c_str(), s.dims, s.radius,
              s.nonzero_count(), s.sum(), s.is_star() ? "star" : "box",
              s.is_radially_symmetric(1e-15) ? ", radially symmetric" : "");
  for (int z = 0; z < sh[2]; ++z) {
    if (s.dims == 3) std::printf("plane dz=%+d\n", z - s.radius);
    for (int y = 0; y < sh[1]; ++y) {
      for (int x = 0; x < sh[0]; ++x)
        std::printf(" %10.6g", s.weights[(static_cast<std::size_t>(z) * sh[1] + y) * sh[0] + x]);
      std::printf("\n");
    }
  }
  if (!json.empty()) save_stencil_file(s, json);
  return 0;
}

struct PlanOptions {
  std::string method, stencil = "box-2d49p", size, json, backend;
  int fused_steps = 0;
};

// Prints the plan a method's variant builds: the CPU run's by default (what the views draw), --backend gpu for the
// kernel's own; a GPU-only method's kernel plan.
int cmd_plan(const std::vector<Method>& methods, const PlanOptions& o) {
  const Stencil s = resolve_stencil(o.stencil);
  Extent e;
  if (o.size.empty()) { // a default grid of the stencil's dimensionality, for the per-point costs
    e.dims = s.dims;
    for (int d = 0; d < s.dims; ++d) e.n[d] = s.dims == 3 ? 512 : (s.dims == 2 ? 10240 : 10240000);
  } else {
    e = parse_extent(o.size);
  }
  check_extent_fits_stencil(e, s);
  if (o.fused_steps < 0) throw InputError(fmt::format("--fused-steps must be at least 1; got {}", o.fused_steps));
  std::optional<Backend> backend;
  if (!o.backend.empty()) backend = parse_backend(o.backend);
  const Method* m = nullptr;
  for (const Method& v : methods)
    if (v.id == o.method && (backend ? v.backend == *backend : (m == nullptr || v.backend != Backend::GPU))) m = &v;
  if (m == nullptr) m = &find_method(methods, o.method, backend); // throws: unknown id, or no such backend
  if (!o.json.empty()) check_writable(o.json, "plan JSON");
  const PlanPtr plan = m->plan(s, o.fused_steps);
  const PlanSummary p = m->descriptor->summary(*plan, e);
  std::printf("%s", p.text.c_str());
  if (!o.json.empty()) {
    // The cost block is written once, at the top level (the summary's, with its notes for this grid); the plan's
    // own JSON carries a copy of it, which is dropped here so that no reader finds two.
    nlohmann::json plan_json = p.json;
    if (plan_json.is_object()) plan_json.erase("cost");
    write_file(o.json,
               nlohmann::json{{"method", p.method},
                              {"backend", to_string(m->backend)},
                              {"stencil", s.name},
                              {"fused_steps", plan->fused_steps},
                              {"plan", plan_json},
                              {"cost", to_json(p.cost)}}
                       .dump(2) +
                   "\n",
               "plan JSON");
  }
  return 0;
}

struct RunOptions {
  std::string method = "cpu-reference";
  std::string backend;
  std::string stencil = "heat-2d";
  std::string size = "2048x2048";
  int steps = 10;
  std::string boundary = "dirichlet";
  std::uint64_t seed = 0;
  bool seed_given = false;
  std::string json;
  int fused_steps = 0; // 0: the method's own choice
};

int cmd_run(const std::vector<Method>& methods, const RunOptions& o) {
  std::optional<Backend> backend;
  if (!o.backend.empty()) backend = parse_backend(o.backend);
  const Method& m = find_method(methods, o.method, backend);
  const Stencil s = resolve_stencil(o.stencil);
  const Extent e = parse_extent(o.size);
  check_extent_fits_stencil(e, s);
  if (o.steps <= 0) throw InputError(fmt::format("--steps must be positive; got {}", o.steps));
  if (o.fused_steps < 0) throw InputError(fmt::format("--fused-steps must be at least 1; got {}", o.fused_steps));
  if (!o.json.empty()) check_writable(o.json, "result JSON"); // before the run, so its result is not lost at the end
  if (const std::string why = m.unavailable_reason(); !why.empty())
    throw InputError(fmt::format("method '{}' ({}) is unavailable: {}", m.id, to_string(m.backend), why));
  // The plan, built once: the run executes it and the model line beside the measurement reads it.
  PlanPtr plan;
  try {
    plan = m.plan(s, o.fused_steps);
  } catch (const InputError& err) {
    throw InputError(fmt::format("method '{}' cannot run {}: {}", m.id, s.name, err.what()));
  }
  if (const std::string why = m.check(*plan, e); !why.empty())
    throw InputError(fmt::format("method '{}' cannot run {}: {}", m.id, s.name, why));
  const bool is_reference = m.id == "cpu-reference";
  // Refuse before allocating: the initial grid, the method's copy, and the reference's padded pair (+ its result).
  const std::uint64_t points = static_cast<std::uint64_t>(e.points());
  check_host_memory(points * sizeof(double) * (is_reference ? 4 : 5), fmt::format("a {} run", e.to_string()));

  const std::uint64_t seed =
      o.seed_given ? o.seed : static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  MethodRun run;
  run.stencil = s;
  run.extent = e;
  run.steps = o.steps;
  run.boundary.kind = parse_boundary(o.boundary);
  run.values = initial_values(e, InitialCondition::Random, seed);
  const std::vector<double> initial = is_reference ? std::vector<double>() : run.values;
  MethodTiming timing;
  {
    ProgressBar bar(fmt::format("{} {}", m.id, s.name));
    run.progress = [&bar](int done, int total) { return bar.update(done, total); };
    timing = m.run(*plan, run);
  }
  // The check (check_run): against the reference of the run's length, and where that bound is too loose to tell
  // a wrong result, on a shorter check run from the same input.
  RunCheck check;
  if (!is_reference) {
    ProgressBar bar("fp64 reference check");
    ReferenceCache references(s, e, run.boundary, initial, {},
                              [&bar](int done, int total) { return bar.update(done, total); });
    check = check_run(m, *plan, e, run.boundary, initial, run.values, timing.steps_done, references);
  }
  const double gs = gstencils_per_second(e.points(), timing.steps_done, timing.seconds);
  const bool ok = is_reference || check.passed;
  const bool check_run_decides = !is_reference && check.checked_steps != timing.steps_done;

  std::printf("%s (%s, %s) %s %s, %d steps: %.4f s, %.3f GStencil/s", m.id.c_str(), std::string(to_string(m.backend)).c_str(),
              std::string(to_string(m.precision)).c_str(), s.name.c_str(), e.to_string().c_str(), timing.steps_done,
              timing.seconds, gs);
  if (is_reference)
    std::printf(" (reference)\n");
  else if (!check_run_decides)
    std::printf(", rel L2 %.3e, max abs %.3e vs FP64 reference (bound %.1e) %s\n", check.timed.rel_l2,
                check.timed.max_abs, check.timed_bound, ok ? "ok" : "FAILED");
  else
    std::printf(", rel L2 %.3e, max abs %.3e vs FP64 reference (bound %.1e: too loose to check)\n"
                "  check: %d steps from the same input, rel L2 %.3e, max abs %.3e (bound %.1e) %s\n",
                check.timed.rel_l2, check.timed.max_abs, check.timed_bound, check.checked_steps, check.error.rel_l2,
                check.error.max_abs, check.bound, ok ? "ok" : "FAILED");
  std::printf("  plan: %s\n", plan->brief.c_str());
  if (timing.fused_steps > 1 || !timing.passes.empty())
    std::printf("  %d base steps per launch (temporal fusion)%s\n", timing.fused_steps,
                timing.passes.empty() ? "" : fmt::format("; passes run: {}", timing.passes).c_str());
  if (m.backend == Backend::GPU && gs > 0)
    if (const std::string model = m.model_beside(*plan, gs); !model.empty()) std::printf("  %s\n", model.c_str());
  if (!check.reference.empty() && check.reference != "cpu-reference")
    std::printf("  reference: %s\n", check.reference.c_str());

  if (!o.json.empty()) {
    const auto number = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); };
    nlohmann::json j = {{"method", m.id},
                        {"stencil", s.name},
                        {"precision", to_string(m.precision)},
                        {"backend", to_string(m.backend)},
                        {"size", std::vector<std::int64_t>(e.n.begin(), e.n.begin() + e.dims)},
                        {"steps", timing.steps_done},
                        {"fused_steps", timing.fused_steps},
                        {"passes", timing.passes},
                        {"plan", plan->brief},
                        {"boundary", o.boundary},
                        {"seed", seed},
                        {"seconds", timing.seconds},
                        {"gstencils", gs},
                        {"checked_steps", is_reference ? timing.steps_done : check.checked_steps},
                        {"rel_l2_error", number(check.error.rel_l2)},
                        {"max_abs_error", number(check.error.max_abs)},
                        {"error_bound", check.bound},
                        {"timed_rel_l2_error", number(check.timed.rel_l2)},
                        {"timed_max_abs_error", number(check.timed.max_abs)},
                        {"timed_error_bound", check.timed_bound},
                        {"reference", check.reference},
                        {"passed", ok}};
    write_file(o.json, j.dump(2) + "\n", "result JSON");
  }
  if (!ok) {
    // The timed run fails on its own bound, however loose; otherwise the check run failed on its.
    const bool timed_failed = !check.timed_passed;
    std::fprintf(stderr, "error: %s's result after %d steps is above its %s error bound (rel L2 %.3e > %.1e)\n",
                 m.id.c_str(), timed_failed ? timing.steps_done : check.checked_steps,
                 std::string(to_string(m.precision)).c_str(), timed_failed ? check.timed.rel_l2 : check.error.rel_l2,
                 timed_failed ? check.timed_bound : check.bound);
    return 1;
  }
  if (timing.steps_done != o.steps) {
    std::fprintf(stderr, "error: the run stopped after %d of %d steps\n", timing.steps_done, o.steps);
    return 1;
  }
  return 0;
}

// --sustain-shapes: comma-separated FP64 MMA shapes, by full name (mma.m16n8k8.f64) or short (m16n8k8).
std::vector<std::string> parse_sustain_shapes(const std::string& list) {
  std::vector<std::string> out;
  for (const std::string& item : split_comma_list(list, "--sustain-shapes")) {
    const std::string name = item.rfind("mma.", 0) == 0 ? item : "mma." + item + ".f64";
    const auto& known = sustained_mma_shapes();
    if (std::find(known.begin(), known.end(), name) == known.end())
      throw InputError(fmt::format("--sustain-shapes takes m16n8k4, m16n8k8 and m16n8k16 (FP64); got '{}'", item));
    out.push_back(name);
  }
  if (out.empty()) throw InputError("--sustain-shapes names no shape");
  return out;
}

int cmd_device(const std::string& json, int repeats, double sustain_s, const std::string& sustain_shapes) {
  if (repeats < 1) throw InputError(fmt::format("--repeats must be at least 1; got {}", repeats));
  if (repeats > 1000) throw InputError(fmt::format("--repeats takes at most 1000; got {}", repeats));
  if (sustain_s < 0 || sustain_s > 600)
    throw InputError(fmt::format("--sustain takes 0 (off) to 600 seconds; got {}", sustain_s));
  const std::vector<std::string> shapes = parse_sustain_shapes(sustain_shapes);
  if (!json.empty()) check_writable(json, "ceilings JSON");
  const DeviceInfo dev = query_device();
  if (!dev.available) throw InputError(fmt::format("no CUDA device: {}", dev.reason));
  const DeviceCeilings c = measure_device_ceilings(repeats);
  std::printf("%s", format_ceilings(c).c_str());
  nlohmann::json j = to_json(c);
  // Each shape held in turn, the first right after the ceilings: later shapes start where the cap already holds.
  for (std::size_t k = 0; sustain_s > 0 && k < shapes.size(); ++k) {
    const std::string& shape = shapes[k];
    std::fprintf(stderr, "holding %s for %.1f s (%zu of %zu) ...\n", shape.c_str(), sustain_s, k + 1, shapes.size());
    const std::vector<SustainedWindow> w = measure_sustained_mma(sustain_s, 0.25, shape);
    std::printf("\n%s held for %.1f s (same operands every MMA: an upper bound for kernels whose operands change):\n",
                shape.c_str(), w.empty() ? 0.0 : w.back().end_s);
    nlohmann::json windows = nlohmann::json::array();
    std::vector<double> late; // the second half's windows: where the cap holds the clock
    for (const SustainedWindow& x : w) {
      std::printf("  %6.2f - %6.2f s  %6.1f TFLOP/s\n", x.start_s, x.end_s, x.tflops);
      windows.push_back({{"start_s", x.start_s}, {"end_s", x.end_s}, {"tflops", x.tflops}});
      if (x.start_s >= 0.5 * w.back().end_s) late.push_back(x.tflops);
    }
    if (!late.empty()) {
      std::sort(late.begin(), late.end());
      std::printf("  median of the second half: %.1f TFLOP/s\n", late[late.size() / 2]);
    }
    std::string key = shape; // mma.m16n8k8.f64 -> sustained_mma_m16n8k8_f64
    std::replace(key.begin(), key.end(), '.', '_');
    j["sustained_" + key] = windows;
  }
  if (!json.empty()) write_file(json, j.dump(2) + "\n", "ceilings JSON");
  return 0;
}

struct SuiteCliOptions {
  bool quick = false;
  std::string methods, stencils, json, csv, boundary = "dirichlet";
  double seconds = 1.0;
  bool no_sweep = false;
  int fused_steps = 0;
  std::uint64_t seed = 0;
  bool seed_given = false;
};

int cmd_suite(const std::vector<Method>& methods, const SuiteCliOptions& c) {
  SuiteOptions o;
  o.quick = c.quick;
  o.method_ids = split_comma_list(c.methods, "--methods");
  o.stencils = split_comma_list(c.stencils, "--stencils");
  o.seconds = c.seconds;
  o.boundary.kind = parse_boundary(c.boundary);
  o.sweep = !c.no_sweep;
  o.fused_steps = c.fused_steps;
  o.seed = c.seed_given ? c.seed : static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  // Fail on unwritable outputs before spending minutes on the runs.
  if (!c.json.empty()) check_writable(c.json, "suite JSON");
  if (!c.csv.empty()) check_writable(c.csv, "suite CSV");
  const DeviceInfo dev = query_device();
  if (dev.available) {
    o.gpu = dev.name;
    o.copy_gbs = measure_device_ceilings(5, false).copy_gbs;
    std::printf("device: %s, copy %.1f GB/s\n", dev.summary().c_str(), *o.copy_gbs);
  } else {
    std::printf("device: %s (CPU methods only)\n", dev.summary().c_str());
  }
  std::fflush(stdout);
  ProgressBar bar("suite", "runs");
  // The files are rewritten after every run, so an interrupted suite still leaves what it measured.
  const auto write_files = [&](const SuiteResult& r) { // a failed write ends the suite with its reason
    if (!c.json.empty()) write_file(c.json, to_json(r).dump(2) + "\n", "suite JSON");
    if (!c.csv.empty()) write_file(c.csv, to_csv(r), "suite CSV");
  };
  const SuiteResult r = run_suite(methods, o, [&](int done, int total, const std::string&, const SuiteResult& so_far) {
    bar.update(done, total);
    write_files(so_far);
  });
  bar.finish();
  std::printf("%s", format_table(r).c_str());
  write_files(r);
  if (!r.all_passed()) {
    std::fprintf(stderr, "error: some results are above their error bound (marked FAILED)\n");
    return 1;
  }
  return 0;
}

// The seeds as written: 0 to 2^64-1, digits only (a sign or a fraction is refused, not wrapped).
std::uint64_t parse_seed(const std::string& text) {
  std::uint64_t v = 0;
  const auto res = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || res.ec != std::errc() || res.ptr != text.data() + text.size())
    throw InputError(fmt::format("--seed takes a whole number from 0 to 18446744073709551615; got '{}'", text));
  return v;
}

// --seconds as written: a finite number above 0 and at most an hour per run.
double parse_seconds(const std::string& text) {
  double v = 0;
  const auto res = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || res.ec != std::errc() || res.ptr != text.data() + text.size() || !std::isfinite(v) ||
      !(v > 0) || v > 3600)
    throw InputError(fmt::format("--seconds takes a number above 0 and at most 3600; got '{}'", text));
  return v;
}

// ", did you mean 'X'" for the name nearest to `word` by edit distance, when one is near enough.
std::string closest_name(const std::string& word, const std::vector<std::string>& names) {
  const std::string best = nearest_name(word, names);
  return best.empty() ? std::string() : fmt::format(", did you mean '{}'?", best);
}

} // namespace

int bench_main(int argc, char** argv) {
  CLI::App app{"stencil-bench: run and compare tensor-core stencil methods against an FP64 reference"};
  app.set_version_flag("--version", [] { return version_report("stencil-bench"); },
                       "print the version, the git revision and what this machine offers (CUDA, cuDNN, cuFFT, NVRTC)");
  app.require_subcommand(1);
  auto* list = app.add_subcommand("list", "print the stencil presets and the methods with their availability");
  std::string show_name, show_json;
  auto* show = app.add_subcommand("show", "print a stencil's weights (and write them as JSON)");
  show->add_option("--stencil,-s", show_name, "preset name or path to a stencil JSON file")->required();
  show->add_option("--json", show_json, "write the stencil to this JSON file");
  PlanOptions po;
  auto* plan = app.add_subcommand("plan", "print the matrices, layouts and cost a method derives from a stencil");
  plan->add_option("--method,-m", po.method, "method id (tcstencil, convstencil, lorastencil, flashfft, spider, ...)")
      ->required();
  plan->add_option("--stencil,-s", po.stencil, "preset name or path to a stencil JSON file")->capture_default_str();
  plan->add_option("--size", po.size, "grid size for whole-grid costs (default: the papers' sizes)");
  plan->add_option("--backend,-b", po.backend, "emulate or gpu: whose plan (default: the CPU emulation's, as the views draw it)");
  plan->add_option("--fused-steps,-T", po.fused_steps, "base steps one pass fuses (default: the method's own choice)");
  plan->add_option("--json", po.json, "write the plan and cost as JSON to this file");
  RunOptions ro;
  auto* run = app.add_subcommand("run", "run one method and check it against the FP64 reference");
  run->add_option("--method,-m", ro.method, "method id (see `list`)")->capture_default_str();
  run->add_option("--backend,-b", ro.backend, "cpu, emulate or gpu (default: the method's best available)");
  run->add_option("--stencil,-s", ro.stencil, "preset name or path to a stencil JSON file")->capture_default_str();
  run->add_option("--size", ro.size, "grid size: N, NxM or NxMxK (x first)")->capture_default_str();
  run->add_option("--steps,-t", ro.steps, "base-stencil time steps")->capture_default_str();
  run->add_option("--boundary", ro.boundary, "dirichlet (zero outside) or periodic")->capture_default_str();
  std::string run_seed;
  auto* seed_opt = run->add_option("--seed", run_seed, "seed of the random input, 0 to 2^64-1 (default: fresh each run)");
  run->add_option("--json", ro.json, "write the result as one JSON object to this file");
  run->add_option("--fused-steps,-T", ro.fused_steps, "base steps one pass fuses (default: the method's own choice)");
  std::string device_json;
  int device_repeats = 7;
  auto* device = app.add_subcommand("device", "measure the GPU's copy bandwidth and tensor-core rates (the roofs)");
  device->alias("ceilings");
  device->add_option("--json", device_json, "write the measurements as JSON to this file");
  device->add_option("--repeats", device_repeats, "timed repeats per measurement (the median is reported)")
      ->capture_default_str();
  double device_sustain = 0;
  device->add_option("--sustain", device_sustain,
                     "then hold each --sustain-shapes MMA for this many seconds and print its rate per 0.25 s (the power cap)");
  std::string device_sustain_shapes = "m16n8k4";
  device->add_option("--sustain-shapes", device_sustain_shapes,
                     "comma-separated FP64 MMA shapes --sustain holds, one after another: m16n8k4, m16n8k8, m16n8k16")
      ->capture_default_str();
  SuiteCliOptions so;
  auto* suite = app.add_subcommand("suite", "run the papers' experiments and a size sweep for every available method");
  suite->add_flag("--quick", so.quick, "small grids and 4 steps (works without a GPU)");
  suite->add_option("--methods", so.methods, "comma-separated method ids, id:gpu, id:emulate or id:cpu for one backend (default: every available one)");
  suite->add_option("--stencils", so.stencils, "comma-separated presets or files (default: every preset)");
  suite->add_option("--json", so.json, "write {gpu, copy_gbs, results: [...]} to this file");
  suite->add_option("--csv", so.csv, "write one row per result to this file");
  std::string suite_seconds = "1";
  suite->add_option("--seconds", suite_seconds, "target time of each timed run, above 0 and at most 3600")
      ->capture_default_str();
  suite->add_option("--boundary", so.boundary, "dirichlet or periodic")->capture_default_str();
  suite->add_flag("--no-sweep", so.no_sweep, "leave out the heat-2d size sweep");
  suite->add_option("--fused-steps,-T", so.fused_steps,
                    "base steps one pass fuses, asked of every method (default: each method's own choice; a method "
                    "that cannot is skipped with its reason)");
  std::string suite_seed_text;
  auto* suite_seed = suite->add_option("--seed", suite_seed_text, "base seed of the inputs, 0 to 2^64-1 (default: fresh each run)");
  DagCliOptions dago;
  auto* dag = add_dag_subcommand(app, dago);
  DagGenCliOptions dag_gen_o;
  auto* dag_gen = add_dag_gen_subcommand(app, dag_gen_o);
  DagLabelCliOptions dag_label_o;
  auto* dag_label = add_dag_label_subcommand(app, dag_label_o);

  // A misspelt subcommand: say which exist (CLI11 alone would only say that one is required).
  if (argc >= 2 && argv[1][0] != '-') {
    const std::string word = argv[1];
    std::vector<std::string> names;
    for (const CLI::App* sub : app.get_subcommands({})) {
      names.push_back(sub->get_name());
      for (const std::string& alias : sub->get_aliases()) names.push_back(alias);
    }
    if (std::find(names.begin(), names.end(), word) == names.end()) {
      std::fprintf(stderr, "error: unknown subcommand '%s'%s (subcommands: list, show, plan, run, device, suite, dag, dag-gen, dag-label; see --help)\n",
                   word.c_str(), closest_name(word, names).c_str());
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    std::printf("%s", e.what());
    return 0;
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "error: %s (see --help)\n", e.what());
    return 2;
  }
  try {
    ro.seed_given = seed_opt->count() > 0;
    if (ro.seed_given) ro.seed = parse_seed(run_seed);
    so.seed_given = suite_seed->count() > 0;
    if (so.seed_given) so.seed = parse_seed(suite_seed_text);
    if (suite->parsed()) so.seconds = parse_seconds(suite_seconds);
    const std::vector<Method> methods = all_methods();
    if (list->parsed()) return cmd_list(methods);
    if (show->parsed()) return cmd_show(show_name, show_json);
    if (plan->parsed()) return cmd_plan(methods, po);
    if (run->parsed()) return cmd_run(methods, ro);
    if (device->parsed()) return cmd_device(device_json, device_repeats, device_sustain, device_sustain_shapes);
    if (suite->parsed()) return cmd_suite(methods, so);
    if (dag->parsed()) {
      dago.strategy_given = dag->get_option("--strategy")->count() > 0;
      return cmd_dag(dago);
    }
    if (dag_gen->parsed()) return cmd_dag_gen(dag_gen_o);
    if (dag_label->parsed()) return cmd_dag_label(dag_label_o);
  } catch (const InputError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "error: out of memory\n");
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 2;
}

} // namespace se
