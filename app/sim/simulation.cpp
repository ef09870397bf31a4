// Simulation state and its backends. Throughput is measured around the backend's steps only (CUDA events on
// the GPU), not the texture update or UI, because that is what the number claims to describe.
#include "app/sim/simulation.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "app/platform/heatmap_renderer.hpp"
#include "core/error.hpp"
#include "core/fp16_range.hpp"
#include "core/reference.hpp"
#include "kernels/live_view.hpp"

namespace se {

double simulation_bytes(const Extent& extent, int radius) {
  // In double so absurd sizes (1e6 x 1e6 x 1e6) compare as huge instead of overflowing.
  double padded = 1.0, points = 1.0;
  for (int d = 0; d < 3; ++d) {
    const double n = static_cast<double>(extent.n[d]);
    points *= n;
    padded *= d < extent.dims ? n + 2.0 * radius : n;
  }
  // values + initial copy + float slice for display + the reference's two padded buffers.
  return points * (8 + 8 + 4) + padded * 2 * 8;
}

void check_simulation_setup(const SimulationSetup& setup) {
  validate(setup.stencil);
  check_extent_fits_stencil(setup.extent, setup.stencil);
  const double bytes = simulation_bytes(setup.extent, setup.stencil.radius);
  constexpr double kAddressable = 9.0e18; // beyond this the point count itself overflows
  if (bytes > kAddressable)
    throw InputError(fmt::format("grid {} is far too large for memory", setup.extent.to_string()));
  check_host_memory(static_cast<std::uint64_t>(bytes), fmt::format("a {} simulation", setup.extent.to_string()));
}

std::vector<double> setup_initial_values(const SimulationSetup& setup) {
  if (setup.initial != InitialCondition::Image) return initial_values(setup.extent, setup.initial, setup.seed);
  if (!setup.image) throw InputError("the image initial condition has no picture loaded");
  return image_values(setup.extent, *setup.image);
}

std::string MethodKey::label() const { return fmt::format("{} ({})", id, to_string(backend)); }
std::string MethodKey::probe_name() const { return fmt::format("{}.{}", id, to_string(backend)); }
MethodKey key_of(const Method& m) { return MethodKey{m.id, m.backend}; }

const Method& method_for(const std::vector<Method>& methods, const MethodKey& key) {
  for (const Method& m : methods)
    if (key_of(m) == key) return m;
  std::string known;
  for (const Method& m : methods) known += (known.empty() ? "" : ", ") + key_of(m).label();
  throw InputError(fmt::format("unknown method {} (known: {})", key.label(), known));
}

std::string_view to_string(FramePath p) {
  switch (p) {
  case FramePath::HostUpload: return "host values uploaded";
  case FramePath::DeviceInterop: return "CUDA-GL interop: no host copy";
  case FramePath::DeviceCopy: return "GPU -> host -> texture";
  }
  return "?";
}

namespace {

class CpuReferenceBackend final : public SimulationBackend {
public:
  std::string name() const override { return "CPU reference (FP64 arithmetic)"; }
  MethodKey method() const override { return {}; }
  Precision arithmetic() const override { return Precision::FP64; }
  void load(const SimulationSetup& setup, std::vector<double> values) override {
    ReferenceOptions options;
    options.boundary = setup.boundary;
    stepper_.emplace(setup.stencil, setup.extent, values, setup.storage, options);
    setup_ = setup;
    values_ = std::move(values);
    stale_ = false;
  }
  void reconfigure(const SimulationSetup& setup) override {
    stepper_->set_rule(setup.stencil, setup.boundary, setup.storage); // the grid stays in the stepper
    setup_ = setup;
  }
  Advanced advance(int steps, const StepProgress& progress) override {
    const auto start = std::chrono::steady_clock::now();
    Advanced a;
    a.steps = stepper_->advance(steps, progress);
    a.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    stale_ = true;
    return a;
  }
  std::span<const double> values() const override {
    if (stale_) {
      stepper_->read(values_);
      stale_ = false;
    }
    return values_;
  }
  void edit(const GridEdit& edit) override {
    values(); // brings values_ up to date
    apply_edit(values_, setup_.extent, edit, setup_.storage);
    ReferenceOptions options;
    options.boundary = setup_.boundary;
    stepper_.emplace(setup_.stencil, setup_.extent, values_, setup_.storage, options);
  }

private:
  SimulationSetup setup_{};
  std::optional<ReferenceStepper> stepper_;
  mutable std::vector<double> values_; // the stepper's values, read out when someone asks after a step
  mutable bool stale_ = false;
};

// FP16 storage holds at most 65504: before each advance, the bound of core's check_fp16_range on the values
// the run started from, over every step it will have done.
class Fp16Guard {
public:
  void start(const Method& m, const Stencil& s, std::span<const double> values) {
    active_ = m.precision == Precision::FP16;
    steps_ = 0;
    stencil_ = s;
    if (active_) start_values_.assign(values.begin(), values.end());
    else start_values_.clear();
  }
  void before_advance(const std::string& id, int steps) {
    if (active_) check_fp16_range(stencil_, start_values_, static_cast<int>(std::min<std::int64_t>(steps_ + steps, 1 << 30)), id);
    steps_ += steps;
  }

private:
  bool active_ = false;
  std::int64_t steps_ = 0;
  Stencil stencil_;
  std::vector<double> start_values_;
};

// What a backend running a registered Method shares: the method, its setup, the plan it runs (built once per
// setup, here, and handed to the emulation or the device stepper), and the checks on entry.
class RegisteredMethodBackend : public SimulationBackend {
public:
  RegisteredMethodBackend(Method m, std::string where) : method_(std::move(m)), where_(std::move(where)) {}
  std::string name() const override {
    return fmt::format("{} {} ({} arithmetic)", method_.id, where_, to_string(method_.precision));
  }
  MethodKey method() const override { return key_of(method_); }
  Precision arithmetic() const override { return method_.precision; }

protected:
  // The plan for `setup` after checking the method can run it here: throws InputError with the reason.
  PlanPtr plan_for(const SimulationSetup& setup) const {
    if (const std::string why = method_.unavailable_reason(); !why.empty())
      throw InputError(fmt::format("{} is unavailable: {}", method().label(), why));
    const auto refuse = [&](const std::string& why) {
      return InputError(fmt::format("{} cannot run {} on {}: {}", method().label(), setup.stencil.name,
                                    setup.extent.to_string(), why));
    };
    PlanPtr plan;
    try {
      plan = method_.plan(setup.stencil);
    } catch (const InputError& e) {
      throw refuse(e.what());
    }
    if (const std::string why = method_.check(*plan, setup.extent); !why.empty()) throw refuse(why);
    return plan;
  }
  // Takes `setup` and its plan, and restarts the FP16 guard from `values`.
  void accept(const SimulationSetup& setup, PlanPtr plan, std::span<const double> values) {
    setup_ = setup;
    plan_ = std::move(plan);
    guard_.start(method_, setup.stencil, values);
  }

  Method method_;
  std::string where_;
  SimulationSetup setup_{};
  PlanPtr plan_;
  Fp16Guard guard_;
};

// A CPU method from the registry (the reference through Method::run, or a fragment-level emulation).
class EmulationBackend final : public RegisteredMethodBackend {
public:
  explicit EmulationBackend(Method m) : RegisteredMethodBackend(std::move(m), "emulated on the CPU") {}
  void load(const SimulationSetup& setup, std::vector<double> values) override {
    accept(setup, plan_for(setup), values);
    values_ = std::move(values);
  }
  void reconfigure(const SimulationSetup& setup) override { accept(setup, plan_for(setup), values_); }
  Advanced advance(int steps, const StepProgress& progress) override {
    guard_.before_advance(method_.id, steps);
    bool cancelled = false; // the emulation stopped because progress said so, not by itself
    StepProgress watched;
    if (progress)
      watched = [&](int done, int total) {
        cancelled = !progress(done, total);
        return !cancelled;
      };
    MethodRun run{setup_.stencil, setup_.extent, steps, setup_.boundary, std::move(values_), watched};
    MethodTiming t;
    try {
      t = method_.run(*plan_, run);
    } catch (...) {
      values_ = std::move(run.values);
      throw;
    }
    values_ = std::move(run.values);
    if (t.steps_done != steps && !cancelled)
      throw InputError(fmt::format("{} did {} of the {} steps asked for", method_.id, t.steps_done, steps));
    return {t.steps_done, t.seconds};
  }
  std::span<const double> values() const override { return values_; }
  void edit(const GridEdit& edit) override {
    apply_edit(values_, setup_.extent, edit, method_.precision);
    guard_.start(method_, setup_.stencil, values_); // FP16 runs check their range from the painted grid
  }

private:
  std::vector<double> values_;
};

// A GPU method on a device-resident grid. Frames go into the heat map texture through CUDA-GL interop; the
// host copy exists only when someone reads values() (hover, Compare's error map, a 1D profile). New weights
// keep the device grid in place (GridStepper::set_stencil): a weight dragged while the run plays costs one plan.
class GpuBackend final : public RegisteredMethodBackend {
public:
  explicit GpuBackend(Method m) : RegisteredMethodBackend(std::move(m), "on the GPU") {}
  void load(const SimulationSetup& setup, std::vector<double> values) override {
    PlanPtr plan = plan_for(setup);
    run_.reset(); // frees the device grid before the new one is allocated
    run_ = std::make_unique<GpuLiveRun>(method_, *plan, setup.extent, setup.boundary, values);
    accept(setup, std::move(plan), values);
    host_ = std::move(values);
    host_stale_ = false;
  }
  void reconfigure(const SimulationSetup& setup) override {
    PlanPtr plan = plan_for(setup); // fails before the device grid is touched
    const bool same_rule = setup.boundary.kind == setup_.boundary.kind && setup.boundary.value == setup_.boundary.value;
    if (run_ && same_rule && run_->set_stencil(*plan)) {
      accept(setup, std::move(plan), {});
      ++in_place_;
      return;
    }
    // Another boundary or a wider halo: a new device grid from the current values.
    const std::span<const double> now = values();
    std::vector<double> current(now.begin(), now.end());
    run_.reset();
    run_ = std::make_unique<GpuLiveRun>(method_, *plan, setup.extent, setup.boundary, current);
    accept(setup, std::move(plan), current);
    host_ = std::move(current);
    host_stale_ = false;
  }
  Advanced advance(int steps, const StepProgress&) override {
    guard_.before_advance(method_.id, steps);
    const double seconds = run_->advance(steps);
    host_stale_ = true;
    return {steps, seconds};
  }
  bool runs_on_host() const override { return false; }
  std::optional<double> value_at(std::int64_t x, std::int64_t y, std::int64_t z) const override {
    if (!host_stale_) return std::nullopt; // the host copy is current
    return run_->value_at(x, y, z);
  }
  void edit(const GridEdit& edit) override {
    run_->edit(edit); // on the device grid, where the next step reads it
    host_stale_ = true;
    // FP16 runs check their range from the painted grid: the one download painting costs them.
    if (method_.precision == Precision::FP16) guard_.start(method_, setup_.stencil, values());
  }
  std::span<const double> values() const override {
    if (host_stale_) {
      host_ = run_->download();
      host_stale_ = false;
    }
    return host_;
  }
  std::optional<ValueRange> store_frame(HeatmapRenderer& heatmap, std::int64_t z) override {
    const Extent& e = setup_.extent;
    // A 1D grid is drawn as a line plot from host values anyway, so it takes the host path.
    if (e.dims == 1 || !interop_problem_.empty()) return std::nullopt;
    try {
      double seconds = 0;
      const ValueRange range = heatmap.store_on_device(
          static_cast<int>(e.n[0]), static_cast<int>(e.n[1]),
          [&](cudaArray_t array) { seconds = run_->write_r32f(array, static_cast<int>(z)); });
      store_seconds_ = seconds;
      return range;
    } catch (const InputError& err) {
      interop_problem_ = err.what(); // stays on the host path from now on, and says why
      return std::nullopt;
    }
  }
  double last_store_seconds() const override { return store_seconds_; }
  std::string interop_problem() const override { return interop_problem_; }
  std::int64_t stencil_changes_in_place() const override { return in_place_; }

private:
  std::unique_ptr<GpuLiveRun> run_;
  mutable std::vector<double> host_;
  mutable bool host_stale_ = false;
  double store_seconds_ = 0;
  std::string interop_problem_;
  std::int64_t in_place_ = 0;
};

} // namespace

std::unique_ptr<SimulationBackend> make_cpu_reference_backend() { return std::make_unique<CpuReferenceBackend>(); }

std::unique_ptr<SimulationBackend> make_method_backend(const Method& method) {
  if (method.backend == Backend::GPU) return std::make_unique<GpuBackend>(method);
  // The reference keeps its own backend: it rounds to the chosen storage precision, Method::run does not.
  if (method.backend == Backend::CPU && method.id == "cpu-reference") return make_cpu_reference_backend();
  return std::make_unique<EmulationBackend>(method);
}

void ThroughputMeter::add(double point_steps, double seconds) {
  acc_points_ += point_steps;
  acc_seconds_ += seconds;
  if (acc_seconds_ <= 0) return;
  if (!have_window_ || acc_seconds_ >= window_) shown_ = acc_points_ / acc_seconds_ / 1e9;
  if (acc_seconds_ >= window_) {
    have_window_ = true;
    acc_points_ = acc_seconds_ = 0;
  }
}

double ThroughputMeter::gstencils() const { return shown_; }

Simulation::Simulation(std::unique_ptr<SimulationBackend> backend) {
  if (!backend) throw InputError("a simulation needs a backend");
  take_backend(std::move(backend));
}

Simulation::~Simulation() {
  pending_.reset();
  pending_edits_.clear();
  if (busy_) cancel_background();
  if (worker_.joinable()) {
    worker_.request_stop(); // wakes its interruptible wait
    worker_.join();         // before the mutex and condition variables it waits on go
  }
}

void Simulation::take_backend(std::unique_ptr<SimulationBackend> backend) {
  backend_ = std::move(backend);
  backend_name_ = backend_->name();
  method_ = backend_->method();
  arithmetic_ = backend_->arithmetic();
  predicted_step_seconds_ = 0;
}

namespace {

// Backend failures that are not the user's input (a CUDA fault, a driver error) still reach the window as a
// message instead of ending the app.
template <typename F> void as_input_error(const std::string& what, F&& f) {
  try {
    f();
  } catch (const InputError&) {
    throw;
  } catch (const std::exception& e) {
    throw InputError(fmt::format("{}: {}", what, e.what()));
  }
}

} // namespace

void Simulation::reset(const SimulationSetup& setup) {
  check_simulation_setup(setup);
  pending_.reset();
  pending_edits_.clear();
  if (busy_) cancel_background();
  std::vector<double> values = setup_initial_values(setup);
  const ValueRange range = finite_range(values);
  as_input_error(backend_->name(), [&] { backend_->load(setup, std::move(values)); });
  setup_ = setup;
  loaded_ = true;
  steps_done_ = 0;
  ++version_;
  meter_.clear();
  stopped_.clear();
  pending_.reset();
  predicted_step_seconds_ = 0;
  initial_min_ = range.empty() ? 0.0 : range.min;
  initial_max_ = range.empty() ? 0.0 : range.max;
}

void Simulation::apply(const SimulationSetup& setup) {
  poll();
  if (loaded_ && setup == setup_) {
    pending_.reset();
    return;
  }
  if (!loaded_ || !setup.same_grid(setup_)) return reset(setup);
  if (busy_) { // a new rule for the same grid: taken as soon as the background advance ends
    pending_ = setup;
    return;
  }
  // The same grid: its memory was checked when it was made; the backend checks the new rule (once, as it plans).
  as_input_error(backend_->name(), [&] { backend_->reconfigure(setup); });
  if (setup.stencil.radius != setup_.stencil.radius || setup.storage != setup_.storage) predicted_step_seconds_ = 0;
  setup_ = setup;
  meter_.clear();
  stopped_.clear();
}

void Simulation::use_backend(std::unique_ptr<SimulationBackend> backend) {
  if (!backend) throw InputError("a simulation needs a backend");
  pending_.reset();
  pending_edits_.clear();
  if (busy_) cancel_background();
  if (loaded_) {
    std::vector<double> values = setup_initial_values(setup_);
    as_input_error(backend->name(), [&] { backend->load(setup_, std::move(values)); });
  }
  take_backend(std::move(backend)); // the old run (and its device memory) goes only once the new one started
  steps_done_ = 0;
  ++version_;
  meter_.clear();
  stopped_.clear();
  pending_.reset();
  last_step_seconds_ = last_advance_seconds_ = last_show_seconds_ = 0;
}

void Simulation::edit(const GridEdit& edit) {
  poll();
  if (!loaded_) return;
  if (busy_) {
    pending_edits_.push_back(edit);
    return;
  }
  as_input_error(backend_->name(), [&] { backend_->edit(edit); });
  ++edits_applied_;
  ++version_;
}

void Simulation::account(const SimulationBackend::Advanced& done) {
  steps_done_ += done.steps;
  ++version_;
  if (done.steps <= 0) return;
  meter_.add(static_cast<double>(setup_.extent.points()) * done.steps, done.seconds);
  last_step_seconds_ = done.seconds / done.steps;
  predicted_step_seconds_ = last_step_seconds_;
}

void Simulation::advance(int steps) {
  poll();
  if (!loaded_ || steps <= 0 || !stopped_.empty() || busy_) return;
  // Steps known to be short run here, on the caller's thread; GPU runs always do (their frames go through GL).
  // Before a step was measured, a grid of a few thousand points is taken to be short whatever the method.
  const double work = static_cast<double>(setup_.extent.points()) * std::max(setup_.stencil.nonzero_count(), 1);
  const bool inline_run = !backend_->runs_on_host() ||
                          (predicted_step_seconds_ > 0 ? predicted_step_seconds_ * steps < kInlineSeconds
                                                       : work * steps <= kInlineWork);
  if (!inline_run) {
    start_background(steps);
    std::unique_lock lock(mutex_);
    finished_cv_.wait_for(lock, std::chrono::duration<double>(kWaitSeconds), [&] { return job_finished_; });
    lock.unlock();
    poll();
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  SimulationBackend::Advanced done;
  try {
    done = backend_->advance(steps, {});
  } catch (const std::exception& e) {
    stopped_ = e.what();
    ++version_; // the backend may have changed some values before it failed
    return;
  }
  last_advance_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  account(done);
}

void Simulation::start_background(int steps) {
  // The values as they are now stay readable (values(), show()) while the worker changes the backend's.
  const auto now = backend_->values();
  snapshot_.assign(now.begin(), now.end());
  {
    std::lock_guard lock(mutex_);
    job_steps_ = steps;
    job_finished_ = false;
    job_error_ = nullptr;
    job_result_ = {};
  }
  cancel_ = false;
  job_done_ = 0;
  job_total_ = steps;
  busy_ = true;
  job_started_ = std::chrono::steady_clock::now();
  if (!worker_.joinable()) worker_ = std::jthread([this](std::stop_token stop) { worker_loop(stop); });
  wake_.notify_all();
}

void Simulation::worker_loop(const std::stop_token& stop) {
  std::unique_lock lock(mutex_);
  while (true) {
    if (!wake_.wait(lock, stop, [&] { return job_steps_ > 0; })) return; // stop requested
    const int steps = std::exchange(job_steps_, 0);
    lock.unlock();
    SimulationBackend::Advanced result;
    std::exception_ptr error;
    try {
      result = backend_->advance(steps, [this](int done, int) {
        job_done_ = done;
        return !cancel_.load();
      });
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    job_result_ = result;
    job_error_ = error;
    job_finished_ = true;
    finished_cv_.notify_all();
  }
}

void Simulation::poll() {
  if (!busy_) return;
  SimulationBackend::Advanced result;
  std::exception_ptr error;
  {
    std::lock_guard lock(mutex_);
    if (!job_finished_) return;
    result = job_result_;
    error = job_error_;
    job_finished_ = false;
  }
  busy_ = false;
  std::vector<double>().swap(snapshot_); // a large grid's copy is not kept between background advances
  last_advance_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - job_started_).count();
  if (error) {
    try {
      std::rethrow_exception(error);
    } catch (const std::exception& e) {
      stopped_ = e.what();
    } catch (...) {
      stopped_ = "the step failed";
    }
    ++version_;
  } else {
    account(result);
  }
  for (const GridEdit& e : std::exchange(pending_edits_, {})) {
    try {
      edit(e);
    } catch (const InputError& err) {
      stopped_ = fmt::format("painting failed: {}", err.what());
    }
  }
  if (pending_) {
    const SimulationSetup next = *std::exchange(pending_, std::nullopt);
    try {
      apply(next);
    } catch (const InputError&) {
      // The caller applies its setup again (the app does every frame) and then hears why it cannot run.
    }
  }
}

void Simulation::finish() {
  if (!busy_) return;
  {
    std::unique_lock lock(mutex_);
    finished_cv_.wait(lock, [&] { return job_finished_; });
  }
  poll();
}

void Simulation::cancel_background() {
  cancel_ = true;
  finish();
}

Simulation::Progress Simulation::progress() const {
  if (!busy_) return {};
  Progress p;
  p.done = job_done_.load();
  p.total = job_total_;
  p.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - job_started_).count();
  return p;
}

Simulation::Frame Simulation::show(HeatmapRenderer& heatmap, std::int64_t z) {
  Frame frame;
  const auto start = std::chrono::steady_clock::now();
  const Extent& e = setup_.extent;
  try {
    std::optional<ValueRange> stored;
    if (!busy_) stored = backend_->store_frame(heatmap, z); // while busy, the backend is the worker's
    if (stored) {
      frame.width = static_cast<int>(e.n[0]);
      frame.height = static_cast<int>(e.n[1]);
      frame.range = *stored;
      frame_path_ = FramePath::DeviceInterop;
    } else {
      const auto values = this->values();
      GridSlice slice = extract_slice(values, e, z, heatmap.max_side(), heatmap.spare_values());
      frame.width = slice.width;
      frame.height = slice.height;
      frame.stride = slice.stride;
      frame.range = slice.grid_range ? *slice.grid_range : finite_range(values);
      if (e.dims == 1) frame.profile = slice.values;
      heatmap.upload(std::move(slice));
      frame_path_ = method_.backend == Backend::GPU ? FramePath::DeviceCopy : FramePath::HostUpload;
    }
  } catch (const std::exception& err) {
    // A device that failed mid-run: the last image stays on screen and the window says why.
    stopped_ = fmt::format("showing the grid failed: {}", err.what());
    frame.width = heatmap.width();
    frame.height = heatmap.height();
  }
  last_show_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return frame;
}

double Simulation::value_at(std::int64_t x, std::int64_t y, std::int64_t z) const {
  const Extent& e = setup_.extent;
  if (x < 0 || y < 0 || z < 0 || x >= e.n[0] || y >= e.n[1] || z >= e.n[2])
    throw InputError(fmt::format("({}, {}, {}) is outside the {} grid", x, y, z, e.to_string()));
  if (!busy_)
    if (const auto v = backend_->value_at(x, y, z)) return *v;
  return values()[static_cast<std::size_t>((z * e.n[1] + y) * e.n[0] + x)];
}

std::span<const double> Simulation::values() const {
  if (busy_) return snapshot_;
  return backend_->values();
}

} // namespace se
