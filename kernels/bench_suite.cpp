// The suite runner: experiments, step counts, the shared reference per input, records and their forms.
#include "kernels/bench_suite.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "core/checked_math.hpp"
#include "core/common/nearest_name.hpp"
#include "core/error.hpp"
#include "core/streaming_model.hpp"
#include "core/wall_deadline.hpp"
#include "kernels/checked_run.hpp"
#include "kernels/registry.hpp"

namespace se {

namespace {

struct Experiment {
  std::string name; // "papers" / "sweep"
  Stencil stencil;
  Extent extent;
  double seconds;
};

Extent cube(int dims, std::int64_t n) {
  Extent e;
  e.dims = dims;
  for (int d = 0; d < dims; ++d) e.n[d] = n;
  return e;
}

// The papers' sizes, or small awkward ones (not multiples of any tile) for --quick.
Extent experiment_extent(int dims, bool quick) {
  if (quick) {
    Extent e;
    e.dims = dims;
    const std::int64_t sizes[3][3] = {{20011, 1, 1}, {157, 139, 1}, {37, 33, 29}};
    for (int d = 0; d < 3; ++d) e.n[d] = sizes[dims - 1][d];
    return e;
  }
  return cube(dims, dims == 1 ? 10240000 : (dims == 2 ? 10240 : 512));
}

std::vector<Experiment> plan_experiments(const SuiteOptions& o) {
  std::vector<Experiment> out;
  const std::vector<std::string> names = o.stencils.empty() ? preset_names() : o.stencils;
  for (const auto& name : names) {
    const Stencil s = resolve_stencil(name);
    out.push_back({"papers", s, experiment_extent(s.dims, o.quick), o.seconds});
  }
  if (o.sweep) {
    const std::vector<std::int64_t> sizes = o.quick ? std::vector<std::int64_t>{33, 65, 129}
                                                    : std::vector<std::int64_t>{256, 512, 1024, 2048, 4096, 8192, 10240};
    for (const auto n : sizes) out.push_back({"sweep", preset("heat-2d"), cube(2, n), o.seconds / 4});
  }
  return out;
}

std::vector<const Method*> select_methods(const std::vector<Method>& methods, const SuiteOptions& o,
                                          std::vector<SuiteSkip>& skipped) {
  std::vector<const Method*> out;
  // "id" names every backend of a method, "id:gpu" (or ":emulate", ":cpu") only that one.
  const auto base_id = [](const std::string& id) { return id.substr(0, id.find(':')); };
  if (!o.method_ids.empty())
    for (const auto& id : o.method_ids)
      if (std::none_of(methods.begin(), methods.end(), [&](const Method& m) { return m.id == base_id(id); })) {
        std::vector<std::string> known; // each id once (a method has a variant per backend)
        for (const auto& m : methods)
          if (std::find(known.begin(), known.end(), m.id) == known.end()) known.push_back(m.id);
        const std::string near = nearest_name(base_id(id), known);
        throw InputError(fmt::format("unknown method '{}' in --methods{} (known: {})", id,
                                     near.empty() ? "" : fmt::format(", did you mean '{}'?", near),
                                     fmt::join(known, ", ")));
      }
  for (const auto& m : methods) {
    const bool named = std::any_of(o.method_ids.begin(), o.method_ids.end(), [&](const std::string& id) {
      return id == m.id || id == m.id + ":" + std::string(to_string(m.backend));
    });
    if (!o.method_ids.empty() && !named) continue;
    if (!o.quick && !named && m.backend == Backend::Emulate) { // minutes per step at the papers' sizes
      skipped.push_back({m.id, "", "fragment-level CPU emulation: too slow at the papers' sizes (use --quick, or name it in --methods)"});
      continue;
    }
    if (const std::string why = m.unavailable_reason(); !why.empty()) {
      skipped.push_back({m.id, "", why});
      continue;
    }
    out.push_back(&m);
  }
  return out;
}

Method gpu_reference_method() { return gpu_variant(find_descriptor(method_list(), "cuda-core")); }

bool gpu_reference_available() { return gpu_reference_method().unavailable_reason().empty(); }

// Seconds per step of the FP64 cuda-core kernel on this input.
double reference_seconds_per_step(const Stencil& s, const Extent& e, const Boundary& b, const std::vector<double>& input) {
  const Method m = gpu_reference_method();
  return gpu_seconds_per_step(m, *m.plan(s), e, b, input, 0.05);
}

// CPU multiply-adds per second assumed when sizing CPU runs (deliberately low: they must not run away).
constexpr double kCpuRate = 1e9;

// A run stops after this many times --seconds of timed steps (a method much slower than the reference kernel).
constexpr int kStopAfter = 2;

} // namespace

bool SuiteResult::all_passed() const {
  return std::all_of(results.begin(), results.end(), [](const SuiteRecord& r) { return r.passed; });
}

SuiteResult run_suite(const std::vector<Method>& methods, const SuiteOptions& o, const SuiteProgress& progress) {
  if (!(o.seconds > 0)) throw InputError(fmt::format("--seconds must be positive; got {}", o.seconds));
  if (o.fused_steps < 0) throw InputError(fmt::format("--fused-steps must be at least 1; got {}", o.fused_steps));
  SuiteResult result;
  result.options = o;
  const std::vector<const Method*> chosen = select_methods(methods, o, result.skipped);
  const std::vector<Experiment> experiments = plan_experiments(o);
  const bool gpu_ref = gpu_reference_available();
  const int total = static_cast<int>(experiments.size() * chosen.size());
  int done = 0;
  for (std::size_t ei = 0; ei < experiments.size(); ++ei) {
    const Experiment& x = experiments[ei];
    const Stencil& s = x.stencil;
    check_extent_fits_stencil(x.extent, s);
    // Each method's plan for this stencil, built once: it tells whether the method takes the stencil and is what
    // the run executes.
    std::vector<std::pair<const Method*, PlanPtr>> runnable;
    for (const Method* m : chosen) {
      PlanPtr plan;
      std::string why;
      try {
        plan = m->plan(s, o.fused_steps);
        why = m->check(*plan, x.extent);
        if (why.empty() && o.fused_steps > 0 && plan->fused_steps != o.fused_steps)
          why = fmt::format("its plan fuses {} base step{} per pass, not the {} asked ({})", plan->fused_steps,
                            plan->fused_steps == 1 ? "" : "s", o.fused_steps, plan->brief);
      } catch (const InputError& err) {
        why = err.what();
      }
      if (!why.empty()) {
        result.skipped.push_back({m->id, s.name, why});
        if (progress) progress(++done, total, m->id + " " + s.name + " (skipped)", result);
        continue;
      }
      runnable.emplace_back(m, std::move(plan));
    }
    if (runnable.empty()) continue;
    const std::uint64_t seed = o.seed + 0x9e3779b97f4a7c15ull * (ei + 1); // a fresh input per experiment
    const std::vector<double> input = initial_values(x.extent, InitialCondition::Random, seed);
    const double cost_per_step = reference_cost(s, x.extent, 1);
    int steps = 4;
    if (!o.quick && gpu_ref)
      steps = clamped_int(x.seconds / reference_seconds_per_step(s, x.extent, o.boundary, input), 1,
                         1000000);
    else if (!o.quick)
      steps = clamped_int(x.seconds * kCpuRate / cost_per_step, 1, 1000000);
    ReferencePolicy policy;
    policy.cpu_budget = o.quick ? 1e12 : 4e9;
    ReferenceCache references(s, x.extent, o.boundary, input, policy); // one reference per input and length
    for (const auto& [m, plan] : runnable) {
      int t = steps;
      if (!o.quick && m->backend != Backend::GPU) // CPU methods at GPU sizes: as many steps as fit the time
        t = clamped_int(x.seconds * kCpuRate / cost_per_step, 1, steps);
      MethodRun r{s, x.extent, t, o.boundary, input, {}};
      // A method much slower than the one T was sized by stops after kStopAfter x the target time of timed steps
      // (core/wall_deadline.hpp: the clock starts after a GPU run's uploads and warm-up); the record
      // keeps the steps it did, and the check uses a reference of the same length. --quick runs its 4 steps
      // whole: it is the check CI and users without a GPU run, and a loaded machine must not shorten it.
      if (!o.quick) r.progress = wall_deadline(kStopAfter * x.seconds);
      SuiteRecord rec;
      rec.experiment = x.name;
      rec.method = m->id;
      rec.stencil = s.name;
      rec.backend = std::string(to_string(m->backend));
      rec.precision = m->precision;
      rec.extent = x.extent;
      rec.seed = seed;
      const MethodTiming timing = m->run(*plan, r);
      rec.steps = timing.steps_done;
      rec.steps_requested = t;
      rec.fused_steps = timing.fused_steps;
      rec.seconds = timing.seconds;
      rec.gstencils = gstencils_per_second(x.extent.points(), timing.steps_done, timing.seconds);
      // GB/s and the copy roof by the streaming model: every pass reads and writes each point once.
      const CostReport stream = streaming_cost(m->id, s, m->precision, timing.fused_steps);
      rec.gbs = rec.gstencils * stream.global_bytes_per_point;
      rec.flops = rec.gstencils * 1e9 * 2.0 * s.nonzero_count();
      if (o.copy_gbs && m->backend == Backend::GPU) rec.roof_fraction = rec.gbs / *o.copy_gbs;
      const RunCheck check = check_run(*m, *plan, x.extent, o.boundary, input, r.values, timing.steps_done, references);
      rec.reference = check.reference;
      rec.take(check);
      result.results.push_back(std::move(rec));
      if (progress) progress(++done, total, m->id + " " + s.name + " " + x.extent.to_string(), result);
    }
  }
  return result;
}

nlohmann::json to_json(const SuiteResult& r) {
  nlohmann::json results = nlohmann::json::array(), skipped = nlohmann::json::array();
  for (const auto& x : r.results) {
    const auto num = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); };
    results.push_back({{"experiment", x.experiment},
                       {"method", x.method},
                       {"stencil", x.stencil},
                       {"precision", to_string(x.precision)},
                       {"backend", x.backend},
                       {"size", std::vector<std::int64_t>(x.extent.n.begin(), x.extent.n.begin() + x.extent.dims)},
                       {"steps", x.steps},
                       {"steps_requested", x.steps_requested},
                       {"fused_steps", x.fused_steps},
                       {"boundary", to_string(r.options.boundary.kind)},
                       {"seed", x.seed},
                       {"seconds", x.seconds},
                       {"gstencils", x.gstencils},
                       {"gbs", x.gbs},
                       {"flops", x.flops},
                       {"roof_fraction", x.roof_fraction ? nlohmann::json(*x.roof_fraction) : nlohmann::json(nullptr)},
                       {"checked_steps", x.checked_steps},
                       {"rel_l2_error", num(x.rel_l2)},
                       {"max_abs_error", num(x.max_abs)},
                       {"error_bound", x.bound},
                       {"timed_rel_l2_error", num(x.timed_rel_l2)},
                       {"timed_max_abs_error", num(x.timed_max_abs)},
                       {"timed_error_bound", x.timed_bound},
                       {"reference", x.reference},
                       {"passed", x.passed}});
  }
  for (const auto& s : r.skipped) skipped.push_back({{"method", s.method}, {"stencil", s.stencil}, {"reason", s.reason}});
  return {{"gpu", r.options.gpu.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.options.gpu)},
          {"copy_gbs", r.options.copy_gbs ? nlohmann::json(*r.options.copy_gbs) : nlohmann::json(nullptr)},
          {"boundary", to_string(r.options.boundary.kind)},
          {"quick", r.options.quick},
          {"seconds_per_run", r.options.seconds},
          {"fused_steps_asked", r.options.fused_steps},
          {"results", results},
          {"skipped", skipped}};
}

std::string to_csv(const SuiteResult& r) {
  std::string out =
      "experiment,method,stencil,precision,backend,size,steps,fused_steps,seconds,gstencils,gbs,flops,roof_fraction,"
      "rel_l2_error,max_abs_error,error_bound,passed,checked_steps,timed_rel_l2_error,timed_max_abs_error,"
      "timed_error_bound\n";
  const auto error = [](double v) { return std::isfinite(v) ? fmt::format("{:.3e}", v) : std::string("nan"); };
  for (const auto& x : r.results)
    out += fmt::format("{},{},{},{},{},{},{},{},{:.6g},{:.6g},{:.6g},{:.6g},{},{},{},{:.1e},{},{},{},{},{:.1e}\n",
                       x.experiment, x.method, x.stencil, to_string(x.precision), x.backend, x.extent.to_string(),
                       x.steps, x.fused_steps, x.seconds, x.gstencils, x.gbs, x.flops,
                       x.roof_fraction ? fmt::format("{:.4f}", *x.roof_fraction) : std::string(), error(x.rel_l2),
                       error(x.max_abs), x.bound, x.passed ? "true" : "false", x.checked_steps, error(x.timed_rel_l2),
                       error(x.timed_max_abs), x.timed_bound);
  return out;
}

namespace {

// "ok" / "FAILED" for a check that rests on the timed run; with the length, error and bound of the check run where
// a shorter one decided ("ok (74 steps: 1.23e-02 <= 4.9e-02)").
std::string check_label(const SuiteRecord& x) {
  const char* verdict = x.passed ? "ok" : "FAILED";
  if (x.checked_steps == x.steps) return x.passed ? verdict : fmt::format("{} (bound {:.1e})", verdict, x.bound);
  return fmt::format("{} ({} steps: {} {} {:.1e})", verdict, x.checked_steps,
                     x.finite ? fmt::format("{:.2e}", x.rel_l2) : std::string("NaN"), x.rel_l2 <= x.bound ? "<=" : ">",
                     x.bound);
}

} // namespace

std::string format_table(const SuiteResult& r) {
  // "time": the timed run's seconds. Every method of an experiment runs the steps sized by the reference kernel
  // for --seconds, so a method k times faster than it is timed over about 1/k of that.
  std::string out = fmt::format("{:<7} {:<15} {:<11} {:<14} {:<5} {:>7} {:>7} {:>11} {:>9} {:>10} {:>6} {:>10}  {}\n",
                                "exp", "method", "stencil", "size", "prec", "steps", "time s", "GStencil/s", "GB/s",
                                "GFLOP/s", "roof", "rel L2", "check");
  for (const auto& x : r.results)
    out += fmt::format("{:<7} {:<15} {:<11} {:<14} {:<5} {:>7} {:>7.3f} {:>11.2f} {:>9.1f} {:>10.1f} {:>6} {:>10}  {}\n",
                       x.experiment, x.method, x.stencil, x.extent.to_string(), to_string(x.precision), x.steps,
                       x.seconds, x.gstencils, x.gbs, x.flops / 1e9,
                       x.roof_fraction ? fmt::format("{:.0f}%", *x.roof_fraction * 100) : std::string("-"),
                       std::isfinite(x.timed_rel_l2) ? fmt::format("{:.2e}", x.timed_rel_l2) : std::string("NaN"),
                       check_label(x));
  // A run the wall-time guard stopped is timed and checked over the steps it did; say so, or a short `time s`
  // reads like a fast method.
  for (const auto& x : r.results)
    if (x.steps < x.steps_requested)
      out += fmt::format("stopped {} {}: {} of {} steps, after {} x --seconds of timed steps (the steps were sized by "
                         "the reference kernel; this method is much slower)\n",
                         x.method, x.stencil, x.steps, x.steps_requested, kStopAfter);
  for (const auto& s : r.skipped)
    out += fmt::format("skipped {} {}: {}\n", s.method, s.stencil.empty() ? "(all)" : s.stencil, s.reason);
  return out;
}

} // namespace se
