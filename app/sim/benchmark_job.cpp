// Sweeps, roofs, recorded results and exports for the Performance view. Nothing here touches ImGui or GL, so
// the tests check it directly; the view only starts tasks and draws what they produced.
#include "app/sim/benchmark_job.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <map>
#include <regex>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/checked_math.hpp"
#include "core/cpu_roofs.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/streaming_model.hpp"
#include "kernels/checked_run.hpp"
#include "kernels/common/ceilings.hpp"
#include "kernels/registry.hpp"

namespace se {

std::vector<Extent> sweep_sizes(int dims, bool quick, bool gpu) {
  if (dims < 1 || dims > 3) throw InputError(fmt::format("a sweep needs a 1D, 2D or 3D stencil; got {}D", dims));
  std::vector<std::int64_t> sides;
  if (dims == 1)
    sides = quick ? std::vector<std::int64_t>{4096, 16384, 65536}
                  : (gpu ? std::vector<std::int64_t>{65536, 262144, 1048576, 4194304, 16777216}
                         : std::vector<std::int64_t>{16384, 65536, 262144, 1048576});
  else if (dims == 2)
    sides = quick ? std::vector<std::int64_t>{64, 128, 256}
                  : (gpu ? std::vector<std::int64_t>{256, 512, 1024, 2048, 4096} : std::vector<std::int64_t>{128, 256, 512, 1024});
  else
    sides = quick ? std::vector<std::int64_t>{16, 24, 32}
                  : (gpu ? std::vector<std::int64_t>{32, 64, 128, 256} : std::vector<std::int64_t>{16, 32, 64});
  std::vector<Extent> out;
  for (const auto n : sides) {
    Extent e;
    e.dims = dims;
    for (int d = 0; d < dims; ++d) e.n[d] = n;
    out.push_back(e);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------- ceilings

RooflineCeilings measure_cpu_ceilings(const std::stop_token& stop) {
  // core's probes: the reference's own kernels, every thread, the dispatched ISA's vectors (named in the legend).
  CpuRoofOptions options;
  options.keep_going = [&stop] { return !stop.stop_requested(); };
  const CpuRoofs roofs = measure_cpu_roofs(options);
  RooflineCeilings c;
  c.device = roofs.device();
  c.source = "measured now";
  c.bandwidth_gbs = roofs.copy_gbs;
  if (roofs.fma_gflops > 0) c.compute.push_back({roofs.fma_name(), roofs.fma_gflops / 1e3});
  return c;
}

RooflineCeilings measure_gpu_ceilings() {
  const DeviceCeilings d = measure_device_ceilings(5, true);
  RooflineCeilings c;
  c.device = d.device.name;
  c.source = "measured now";
  c.bandwidth_gbs = d.copy_gbs;
  for (const auto& r : d.rates)
    if (r.supported && r.unit == "TFLOP/s" && r.median > 0) c.compute.push_back({r.name, r.median});
  return c;
}

RooflineCeilings ceilings_from_json(const nlohmann::json& j, const std::string& source) {
  RooflineCeilings c;
  c.source = source;
  if (j.contains("gpu") && j["gpu"].is_string()) c.device = j["gpu"].get<std::string>();
  if (j.contains("copy_gbs") && j["copy_gbs"].is_number()) c.bandwidth_gbs = j["copy_gbs"].get<double>();
  // The suite nests the device's ceilings ({ceilings: {copy_gbs, rates}}); `stencil-bench device` writes them
  // at the top; lorastencil-bench writes {dmma_tflops: {shape: rate}}.
  const nlohmann::json& rates_at = j.contains("ceilings") && j["ceilings"].is_object() ? j["ceilings"] : j;
  if (rates_at.contains("rates") && rates_at["rates"].is_array())
    for (const auto& r : rates_at["rates"]) {
      if (!r.is_object() || r.value("unit", "") != "TFLOP/s" || !r.value("supported", true)) continue;
      const double v = r.value("median", 0.0);
      if (v > 0) c.compute.push_back({r.value("name", "?"), v});
    }
  if (c.compute.empty() && j.contains("dmma_tflops") && j["dmma_tflops"].is_object())
    for (const auto& [shape, v] : j["dmma_tflops"].items())
      if (v.is_number() && v.get<double>() > 0) c.compute.push_back({"mma." + shape + ".f64", v.get<double>()});
  if (c.bandwidth_gbs <= 0 && rates_at.contains("copy_gbs") && rates_at["copy_gbs"].is_number())
    c.bandwidth_gbs = rates_at["copy_gbs"].get<double>();
  return c;
}

// ------------------------------------------------------------------------------------------ recorded

RecordedResults load_recorded_results(const std::filesystem::path& path) {
  const nlohmann::json j = parse_json_text(read_text_file(path.string(), "results file"), path.string());
  if (!j.is_object() || (!j.contains("results") && !j.contains("rates") && !j.contains("dmma_tflops")))
    throw InputError(fmt::format("{} holds neither benchmark results nor device ceilings", path.string()));
  RecordedResults r;
  r.path = path;
  r.gpu = j.contains("gpu") && j["gpu"].is_string() ? j["gpu"].get<std::string>() : std::string("unknown device");
  r.ceilings = ceilings_from_json(j, path.filename().string());
  if (!j.contains("results")) return r;
  if (!j["results"].is_array()) throw InputError(fmt::format("{}: 'results' is not an array", path.string()));
  for (const auto& x : j["results"]) {
    try {
      BenchmarkRecord b;
      b.method = x.at("method").get<std::string>();
      b.backend = parse_backend(x.value("backend", "gpu"));
      b.precision = parse_precision(x.value("precision", "fp64"));
      b.stencil = x.at("stencil").get<std::string>();
      const auto size = x.at("size").get<std::vector<std::int64_t>>();
      if (size.empty() || size.size() > 3) throw InputError("size needs 1 to 3 numbers");
      b.extent.dims = static_cast<int>(size.size());
      for (std::size_t d = 0; d < size.size(); ++d) b.extent.n[d] = size[d];
      validate(b.extent); // a size beyond any grid is the file's problem, not an overflow later
      b.steps = x.value("steps", 0);
      b.fused_steps = x.value("fused_steps", 1);
      b.seconds = x.value("seconds", 0.0);
      b.gstencils = x.at("gstencils").get<double>();
      b.finite = !x.contains("rel_l2_error") || x["rel_l2_error"].is_number();
      b.rel_l2 = b.finite && x.contains("rel_l2_error") ? x["rel_l2_error"].get<double>() : 0.0;
      b.max_abs = x.contains("max_abs_error") && x["max_abs_error"].is_number() ? x["max_abs_error"].get<double>() : 0.0;
      // A bound written as null overflowed (an amplifying stencil over many steps): no bound at all.
      const auto bound_at = [&](const char* key, double absent) {
        return !x.contains(key) ? absent : x[key].is_null() ? INFINITY : x[key].get<double>();
      };
      // An error written as null (not finite) reads as infinite.
      const auto error_at = [&](const char* key, double absent) {
        return !x.contains(key) ? absent : x[key].is_number() ? x[key].get<double>() : INFINITY;
      };
      b.bound = bound_at("error_bound", 0.0);
      b.passed = x.value("passed", false);
      // Files written before the suite's check runs: the check rested on the timed run.
      b.checked_steps = x.value("checked_steps", b.steps);
      b.timed_bound = bound_at("timed_error_bound", b.bound);
      b.timed_rel_l2 = error_at("timed_rel_l2_error", b.finite ? b.rel_l2 : INFINITY);
      b.timed_max_abs = error_at("timed_max_abs_error", b.max_abs);
      b.source = fmt::format("{} (recorded, {})", r.gpu, path.filename().string());
      r.records.push_back(std::move(b));
      r.experiments.push_back(x.value("experiment", "papers"));
    } catch (const std::exception& e) {
      throw InputError(fmt::format("{}: result {} is malformed: {}", path.string(), r.records.size(), e.what()));
    }
  }
  return r;
}

std::optional<std::filesystem::path> find_results_dir() {
  std::error_code ec;
  if (const char* env = std::getenv("SE_RESULTS_DIR"); env != nullptr && *env != '\0') {
    if (std::filesystem::is_directory(env, ec)) return std::filesystem::path(env);
    return std::nullopt;
  }
  return find_data_dir("results");
}

std::vector<RecordedResults> load_results_dir(const std::filesystem::path& dir, std::vector<std::string>& problems) {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
    if (entry.is_regular_file() && entry.path().extension() == ".json") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  std::vector<RecordedResults> out;
  std::vector<std::string> seen; // a run recorded in two files (a partial suite and the full one) counts once
  for (const auto& f : files) {
    try {
      RecordedResults r = load_recorded_results(f);
      RecordedResults kept = r;
      kept.records.clear();
      kept.experiments.clear();
      for (std::size_t i = 0; i < r.records.size(); ++i) {
        const BenchmarkRecord& b = r.records[i];
        const std::string id = fmt::format("{}|{}|{}|{}|{}|{}", r.gpu, b.key().label(), to_string(b.precision), b.stencil,
                                           b.extent.to_string(), r.experiments[i]);
        if (std::find(seen.begin(), seen.end(), id) != seen.end()) continue;
        seen.push_back(id);
        kept.records.push_back(b);
        kept.experiments.push_back(r.experiments[i]);
      }
      out.push_back(std::move(kept));
    } catch (const InputError& e) {
      problems.push_back(e.what());
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------- costs

MethodCost method_cost(const std::string& method_id, Backend backend, Precision precision, int fused_steps,
                       const Stencil& s, const Extent& e) {
  MethodCost c;
  // The plan the method's variant runs at the recorded fusion (a record's fused_steps is what its run used).
  const std::vector<Method> methods = all_methods();
  const Method* m = nullptr;
  for (const Method& v : methods)
    if (v.id == method_id && v.backend == backend) m = &v;
  CostReport r;
  if (m != nullptr) {
    try {
      PlanPtr plan;
      try {
        plan = m->plan(s, std::max(1, fused_steps));
      } catch (const InputError&) {
        plan = m->plan(s); // a method that does not fuse on request: its own plan
      }
      if (m->check(*plan, e).empty()) r = plan->cost;
    } catch (const InputError& err) {
      c.note = fmt::format("no plan for this stencil ({}); ", err.what());
    }
  }
  if (r.method.empty()) r = streaming_cost(method_id, s, precision, fused_steps); // recorded by another build
  c.flops_per_point = r.executed_flops_per_point;
  c.bytes_per_point = r.global_bytes_per_point;
  c.mma_shape = r.mma_shape;
  c.from_plan = !r.mma_shape.empty();
  if (c.from_plan)
    c.note = fmt::format("{}'s cost model: {:.1f} executed FLOPs and {:.1f} bytes per point and step", method_id,
                         c.flops_per_point, c.bytes_per_point);
  else // CUDA cores and the CPU: the stencil's own multiply-adds; one read and one write per point per launch.
    c.note += fmt::format("{} non-zero weights x 2 FLOPs; {} bytes read + written per point per launch{}",
                          s.nonzero_count(), 2 * bytes_per_value(precision),
                          fused_steps > 1 ? fmt::format(", {} steps per launch", fused_steps) : "");
  return c;
}

namespace {

// The compute roof an MMA shape runs against: same m n k, same sparsity, same operand type.
const ComputeRoof* roof_for_shape(const std::string& shape, const RooflineCeilings& c) {
  if (shape.empty()) return nullptr;
  static const std::regex mnk(R"(m\d+n\d+k\d+)");
  std::smatch m;
  if (!std::regex_search(shape, m, mnk)) return nullptr;
  const std::string token = m.str();
  const bool sparse = shape.find(".sp") != std::string::npos || shape.find("sp.") != std::string::npos;
  const bool f64 = shape.find("f64") != std::string::npos;
  for (const ComputeRoof& r : c.compute) {
    const bool r_sparse = r.name.find(".sp") != std::string::npos || r.name.find("sp.") != std::string::npos;
    if (r.name.find(token) != std::string::npos && r_sparse == sparse && (r.name.find("f64") != std::string::npos) == f64)
      return &r;
  }
  return nullptr;
}

} // namespace

std::vector<RooflinePoint> roofline_points(const std::vector<BenchmarkRecord>& records, const Stencil& s,
                                           const RooflineCeilings& ceilings) {
  std::vector<RooflinePoint> out;
  std::map<std::string, bool> modelled; // one model point per method variant
  for (const BenchmarkRecord& r : records) {
    const MethodCost cost = method_cost(r.method, r.backend, r.precision, r.fused_steps, s, r.extent);
    if (!(cost.intensity() > 0)) continue;
    const MethodKey key = r.key();
    if (!ceilings.empty() && !modelled[key.label()]) {
      modelled[key.label()] = true;
      RooflinePoint p;
      p.method = key;
      p.intensity = cost.intensity();
      double attainable = ceilings.bandwidth_gbs * 1e9 * p.intensity;
      std::string bound = fmt::format("memory roof {:.0f} GB/s", ceilings.bandwidth_gbs);
      const ComputeRoof* roof = r.backend == Backend::CPU || r.backend == Backend::Emulate
                                    ? (ceilings.compute.empty() ? nullptr : &ceilings.compute.front())
                                    : roof_for_shape(cost.mma_shape, ceilings);
      if (roof != nullptr && roof->tflops * 1e12 < attainable) {
        attainable = roof->tflops * 1e12;
        bound = fmt::format("compute roof {} {:.1f} TFLOP/s", roof->name, roof->tflops);
      }
      p.flops = attainable;
      p.gstencils = attainable / cost.flops_per_point / 1e9;
      p.source = ceilings.device;
      p.note = cost.note + "; bound by the " + bound;
      out.push_back(std::move(p));
    }
    RooflinePoint m;
    m.method = key;
    m.measured = true;
    m.intensity = cost.intensity();
    m.gstencils = r.gstencils;
    m.flops = r.gstencils * 1e9 * cost.flops_per_point;
    m.source = r.source;
    m.note = fmt::format("{} on {}", r.stencil, r.extent.to_string());
    out.push_back(std::move(m));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------- exports

std::string records_csv(const std::vector<BenchmarkRecord>& records) {
  std::string out = "method,backend,precision,stencil,size,points,steps,fused_steps,seconds,gstencils,rel_l2_error,"
                    "max_abs_error,error_bound,passed,source,checked_steps,timed_rel_l2_error,timed_error_bound\n";
  const auto error = [](double v) { return std::isfinite(v) ? fmt::format("{:.6g}", v) : std::string("nan"); };
  for (const auto& r : records) {
    std::string source = r.source;
    std::replace(source.begin(), source.end(), ',', ';'); // keeps the columns intact without quoting rules
    out += fmt::format("{},{},{},{},{},{},{},{},{:.9g},{:.9g},{},{},{:.3g},{},{},{},{},{:.3g}\n", r.method,
                       to_string(r.backend), to_string(r.precision), r.stencil, r.extent.to_string(), r.extent.points(),
                       r.steps, r.fused_steps, r.seconds, r.gstencils, r.finite ? error(r.rel_l2) : "nan",
                       r.finite ? error(r.max_abs) : "nan", r.bound, r.passed ? 1 : 0, source, r.checked_steps,
                       error(r.timed_rel_l2), r.timed_bound);
  }
  return out;
}

nlohmann::json performance_json(const std::vector<BenchmarkRecord>& records, const RooflineCeilings& ceilings,
                                const std::vector<RooflinePoint>& roofline) {
  nlohmann::json recs = nlohmann::json::array(), roofs = nlohmann::json::array(), points = nlohmann::json::array();
  for (const auto& r : records)
    recs.push_back({{"method", r.method},
                    {"backend", to_string(r.backend)},
                    {"precision", to_string(r.precision)},
                    {"stencil", r.stencil},
                    {"size", std::vector<std::int64_t>(r.extent.n.begin(), r.extent.n.begin() + r.extent.dims)},
                    {"steps", r.steps},
                    {"fused_steps", r.fused_steps},
                    {"seconds", r.seconds},
                    {"gstencils", r.gstencils},
                    {"checked_steps", r.checked_steps},
                    {"rel_l2_error", r.finite ? nlohmann::json(r.rel_l2) : nlohmann::json(nullptr)},
                    {"max_abs_error", r.finite ? nlohmann::json(r.max_abs) : nlohmann::json(nullptr)},
                    {"error_bound", r.bound},
                    {"timed_rel_l2_error",
                     std::isfinite(r.timed_rel_l2) ? nlohmann::json(r.timed_rel_l2) : nlohmann::json(nullptr)},
                    {"timed_error_bound", r.timed_bound},
                    {"passed", r.passed},
                    {"source", r.source}});
  for (const auto& c : ceilings.compute) roofs.push_back({{"name", c.name}, {"tflops", c.tflops}});
  for (const auto& p : roofline)
    points.push_back({{"method", p.method.id},
                      {"backend", to_string(p.method.backend)},
                      {"kind", p.measured ? "measured" : "model"},
                      {"flop_per_byte", p.intensity},
                      {"flops", p.flops},
                      {"gstencils", p.gstencils},
                      {"source", p.source},
                      {"note", p.note}});
  return {{"records", recs},
          {"ceilings",
           {{"device", ceilings.device},
            {"source", ceilings.source},
            {"bandwidth_gbs", ceilings.bandwidth_gbs},
            {"compute", roofs}}},
          {"roofline", points}};
}

// ---------------------------------------------------------------------------------------------- the job

BenchmarkJob::~BenchmarkJob() {
  cancel();
  if (thread_.joinable()) thread_.join();
}

void BenchmarkJob::start(std::string title, Task task) {
  if (running_.load()) throw InputError(fmt::format("'{}' is still running; cancel it first", title_));
  if (thread_.joinable()) thread_.join();
  {
    std::lock_guard lock(mutex_);
    title_ = std::move(title);
    status_ = title_ + ": starting";
  }
  done_ = 0;
  total_ = 0;
  running_ = true;
  thread_ = std::jthread([this, task = std::move(task)](std::stop_token stop) {
    Control control;
    control.stop = stop;
    control.progress = [this](int done, int total, const std::string& what) {
      done_ = done;
      total_ = total;
      std::lock_guard lock(mutex_);
      status_ = fmt::format("{}: {}/{} {}", title_, done, total, what);
    };
    control.add = [this](BenchmarkRecord r) {
      std::lock_guard lock(mutex_);
      // A new measurement of the same method, stencil and grid replaces the old one: plots show the latest.
      const auto same = std::find_if(records_.begin(), records_.end(), [&](const BenchmarkRecord& o) {
        return o.key() == r.key() && o.precision == r.precision && o.stencil == r.stencil && o.extent == r.extent;
      });
      if (same != records_.end())
        *same = std::move(r);
      else
        records_.push_back(std::move(r));
      ++version_;
    };
    std::string ending;
    try {
      task(control);
      ending = stop.stop_requested() ? "cancelled" : "done";
    } catch (const std::exception& e) {
      ending = std::string("failed: ") + e.what();
    }
    {
      std::lock_guard lock(mutex_);
      status_ = fmt::format("{} {} ({} of {} runs)", title_, ending, done_.load(), total_.load());
    }
    running_ = false;
  });
}

void BenchmarkJob::cancel() {
  if (thread_.joinable()) thread_.request_stop();
}

void BenchmarkJob::wait() {
  if (thread_.joinable()) thread_.join();
}

double BenchmarkJob::progress() const {
  const int total = total_.load();
  return total > 0 ? std::clamp(static_cast<double>(done_.load()) / total, 0.0, 1.0) : 0.0;
}

std::string BenchmarkJob::status() const {
  std::lock_guard lock(mutex_);
  return status_;
}

std::vector<BenchmarkRecord> BenchmarkJob::records() const {
  std::lock_guard lock(mutex_);
  return records_;
}

std::size_t BenchmarkJob::record_count() const {
  std::lock_guard lock(mutex_);
  return records_.size();
}

void BenchmarkJob::clear_records() {
  std::lock_guard lock(mutex_);
  records_.clear();
  ++version_;
}

BenchmarkJob::Task sweep_task(std::vector<Method> methods, SweepRequest request) {
  validate(request.stencil);
  if (request.methods.empty()) throw InputError("choose at least one method to sweep");
  if (request.sizes.empty()) throw InputError("a sweep needs at least one grid size");
  if (!(request.seconds_per_run > 0)) throw InputError("seconds per run must be positive");
  for (const Extent& e : request.sizes) check_extent_fits_stencil(e, request.stencil);
  for (const MethodKey& k : request.methods) method_for(methods, k); // throws for unknown ones
  return [methods = std::move(methods), q = std::move(request)](BenchmarkJob::Control& c) {
    const int total = static_cast<int>(q.sizes.size() * q.methods.size());
    int done = 0;
    const StepProgress keep_going = [&c](int, int) { return !c.stop.stop_requested(); };
    std::map<std::string, std::string> stopped; // method label -> why it stopped growing
    std::map<std::string, PlanPtr> plans;       // method label -> its plan for the stencil
    c.progress(0, total, "");
    for (std::size_t si = 0; si < q.sizes.size(); ++si) {
      const Extent& e = q.sizes[si];
      const std::vector<double> input = initial_values(e, InitialCondition::Random, q.seed + si);
      ReferenceCache references(q.stencil, e, q.boundary, input, {}, keep_going); // by step count
      for (const MethodKey& key : q.methods) {
        if (c.stop.stop_requested()) return;
        const Method& m = method_for(methods, key);
        const std::string label = fmt::format("{} {}", key.label(), e.to_string());
        // The method's plan for the swept stencil, built once for every size.
        PlanPtr& plan = plans[key.label()];
        if (!plan && m.unavailable_reason().empty()) {
          try {
            plan = m.plan(q.stencil);
          } catch (const InputError& err) {
            stopped[key.label()] = err.what();
          }
        }
        const bool skip = stopped.count(key.label()) || !plan || !m.check(*plan, e).empty();
        if (skip) {
          c.progress(++done, total, label + " (skipped)");
          continue;
        }
        c.progress(done, total, label);
        // One step first: it sizes the timed run, and is the timed run for methods slower than the target.
        MethodRun run{q.stencil, e, 1, q.boundary, input, keep_going};
        MethodTiming t = m.run(*plan, run);
        if (c.stop.stop_requested()) return;
        const double per_step = t.seconds / std::max(1, t.steps_done);
        if (per_step > q.max_step_seconds)
          stopped[key.label()] = fmt::format("{:.1f} s per step at {}", per_step, e.to_string());
        // A one-step run can misjudge a step (a fused method runs its remainder kernel; a GPU waking from idle
        // runs it at a low clock): a timed run that ends under half the target is sized again from itself, at
        // most twice, so that every timed run is about as long as asked.
        int steps = clamped_int(q.seconds_per_run / std::max(per_step, 1e-9), 1, 100000);
        for (int attempt = 0; steps > 1; ++attempt) {
          run = MethodRun{q.stencil, e, steps, q.boundary, input, keep_going};
          t = m.run(*plan, run);
          if (c.stop.stop_requested() || t.steps_done < steps) return;
          if (attempt == 2 || t.seconds >= 0.5 * q.seconds_per_run) break;
          const int next = clamped_int(q.seconds_per_run / std::max(t.seconds / steps, 1e-9), 1, 100000);
          if (next <= steps) break;
          steps = next;
        }
        const int n = t.steps_done;
        const RunCheck check = check_run(m, *plan, e, q.boundary, input, run.values, n, references, keep_going);
        if (c.stop.stop_requested()) return; // a cancelled reference or check run decides nothing
        BenchmarkRecord r;
        r.method = m.id;
        r.backend = m.backend;
        r.precision = m.precision;
        r.stencil = q.stencil.name;
        r.extent = e;
        r.steps = n;
        r.fused_steps = t.fused_steps;
        r.seconds = t.seconds;
        r.gstencils = gstencils_per_second(e.points(), n, t.seconds);
        r.take(check);
        r.source = "this machine";
        c.add(std::move(r));
        c.progress(++done, total, label);
      }
    }
  };
}

} // namespace se
