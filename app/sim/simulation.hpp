// The running simulation behind the Simulation and Compare windows: a backend that advances the grid (the CPU
// FP64 reference, a method's CPU emulation, or a GPU method whose frames reach the heat map through CUDA-GL
// interop), the step count, the measured GStencil/s, and why a run stopped when it had to. CPU steps that
// would hold up a frame run on the simulation's worker thread, with progress, while the window keeps drawing.
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "app/sim/grid_slice.hpp"
#include "core/brush.hpp"
#include "core/image_field.hpp"
#include "core/grid.hpp"
#include "core/method.hpp"
#include "core/reference.hpp"
#include "core/stencil.hpp"

namespace se {

class HeatmapRenderer;

// Everything that decides the grid's values: changing any of it means new values (or new physics).
struct SimulationSetup {
  Stencil stencil;
  Extent extent;
  InitialCondition initial = InitialCondition::HotSpot;
  std::uint64_t seed = 1;
  std::shared_ptr<const GrayImage> image; // the picture of InitialCondition::Image (shared, never changed)
  Boundary boundary{};
  Precision storage = Precision::FP64;
  bool operator==(const SimulationSetup& o) const {
    return stencil == o.stencil && same_grid(o) && boundary.kind == o.boundary.kind &&
           boundary.value == o.boundary.value && storage == o.storage;
  }
  // Same grid and initial values: only the update rule (weights, boundary, storage) differs.
  bool same_grid(const SimulationSetup& o) const {
    return extent == o.extent && initial == o.initial && seed == o.seed &&
           (initial != InitialCondition::Image || image == o.image);
  }
};
// The setup's initial values: initial_values(), or its picture resampled (InputError when it has none).
std::vector<double> setup_initial_values(const SimulationSetup& setup);

// Throws InputError when the setup cannot run: invalid stencil, grid smaller than the stencil or of other
// dims, or more memory than the machine has (checked before allocating anything).
void check_simulation_setup(const SimulationSetup& setup);
// Host bytes a simulation of this grid needs (values, initial copy, the reference's padded ping-pong pair).
double simulation_bytes(const Extent& extent, int radius);

// Names one registered method variant: the same id names a CPU emulation and a GPU kernel.
struct MethodKey {
  std::string id = "cpu-reference";
  Backend backend = Backend::CPU;
  bool operator==(const MethodKey&) const = default;
  std::string label() const; // "lorastencil (gpu)"
  std::string probe_name() const; // "lorastencil.gpu", for widget probes
};
MethodKey key_of(const Method& m);
// The entry of `methods` with this key; throws InputError naming the known ones.
const Method& method_for(const std::vector<Method>& methods, const MethodKey& key);

// How a frame's values reached the heat map texture.
enum class FramePath {
  HostUpload,   // values on the host (CPU backends), uploaded with glTexSubImage2D
  DeviceInterop, // a GPU run stored them into the texture through CUDA-GL interop, no host round trip
  DeviceCopy,   // a GPU run whose texture cannot be shared with CUDA: downloaded, then uploaded
};
std::string_view to_string(FramePath p);

// Advances grid values. A GPU backend keeps its own copy on the device and downloads values() on demand.
class SimulationBackend {
public:
  virtual ~SimulationBackend() = default;
  virtual std::string name() const = 0;
  virtual MethodKey method() const = 0;
  virtual Precision arithmetic() const = 0;
  // Starts from `values` with this setup (already checked). Throws InputError when the method cannot run it.
  virtual void load(const SimulationSetup& setup, std::vector<double> values) = 0;
  // Changes the update rule without touching the values (same extent as loaded).
  virtual void reconfigure(const SimulationSetup& setup) = 0;
  // Advances `steps` base steps, calling `progress` (if set) after each; returns the steps done (fewer only when
  // progress returned false) and the seconds they took (CUDA events for GPU runs, wall clock else). Host backends
  // may be advanced on the simulation's worker thread: nothing else calls them meanwhile.
  struct Advanced {
    int steps = 0;
    double seconds = 0;
  };
  virtual Advanced advance(int steps, const StepProgress& progress) = 0;
  virtual std::span<const double> values() const = 0;
  // One point's value copied from where it lives, when that is cheaper than values() (a GPU run's device grid:
  // a hover must not download the grid); nullopt: read it from values().
  virtual std::optional<double> value_at(std::int64_t, std::int64_t, std::int64_t) const { return std::nullopt; }
  // Paints or clears the grid where it lives: host values (rounded to the run's storage), or the device grid
  // through a kernel (no host copy). Throws InputError.
  virtual void edit(const GridEdit& edit) = 0;
  // False for GPU runs: they advance on the thread that owns the GL context (frames go through interop).
  virtual bool runs_on_host() const { return true; }
  // GPU runs: stores plane z into the heat map's values texture on the device and returns the stored range;
  // nullopt where the values live on the host (the caller uploads values() instead).
  virtual std::optional<ValueRange> store_frame(HeatmapRenderer&, std::int64_t /*z*/) { return std::nullopt; }
  virtual double last_store_seconds() const { return 0.0; }
  // Why frames take the host path although the run is on the GPU ("" when they do not).
  virtual std::string interop_problem() const { return {}; }
  // Weight changes applied to a device grid in place (GPU runs), for the status and the tests.
  virtual std::int64_t stencil_changes_in_place() const { return 0; }
};

// The FP64 reference on host memory (a ReferenceStepper kept between frames, so a step is one pass over the
// grid), rounding to the storage precision after every step.
std::unique_ptr<SimulationBackend> make_cpu_reference_backend();
// A backend for any registered method: the CPU reference, a CPU emulation (Method::run on host values), or a
// GPU method (kernels' GpuLiveRun: frames through CUDA-GL interop, new weights on the device grid in place).
// Each builds the method's plan once per setup and hands it down. FP16 methods stop with a message before a
// step could overflow FP16.
std::unique_ptr<SimulationBackend> make_method_backend(const Method& method);

// GStencil/s over the last completed window of at least `window` seconds (the first measurement is shown
// until a window completes), so the number is steady enough to read while it is live.
class ThroughputMeter {
public:
  explicit ThroughputMeter(double window_seconds = 0.5) : window_(window_seconds) {}
  void add(double point_steps, double seconds);
  double gstencils() const; // 0 before any measurement
  void clear() { *this = ThroughputMeter(window_); }

private:
  double window_;
  double acc_points_ = 0, acc_seconds_ = 0;
  double shown_ = 0;
  bool have_window_ = false;
};

class Simulation {
public:
  explicit Simulation(std::unique_ptr<SimulationBackend> backend);
  ~Simulation(); // cancels a background advance and joins the worker
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  // Host steps expected to take longer than kInlineSeconds run on the worker thread; advance() then waits up
  // to kWaitSeconds for them (so short steps still finish within the call) and otherwise returns, leaving them
  // to finish in the background (busy()) while the caller goes on drawing frames.
  static constexpr double kInlineSeconds = 0.008;
  static constexpr double kWaitSeconds = 0.05;
  // Before any step was timed: points x taps x steps up to this count as short.
  static constexpr double kInlineWork = 65536;

  // New values from the setup's initial condition; throws InputError (and keeps the old run) when invalid.
  void reset(const SimulationSetup& setup);
  // Brings the run to `setup`: a reset when the grid or initial values differ, else a reconfigure
  // that keeps the values (editing weights while it runs). Throws InputError like reset. While a background
  // advance runs, a new rule waits for it (and is applied when it ends); a new grid cancels it.
  void apply(const SimulationSetup& setup);
  // Switches to another backend, restarted from the initial values of the current setup. Throws InputError
  // (keeping the current backend and its run) when the new one cannot start: unsupported stencil, no device,
  // missing library, out of device memory.
  void use_backend(std::unique_ptr<SimulationBackend> backend);
  // Advances `steps` base-stencil steps and measures them. Does nothing before the first reset or after the
  // run stopped; a failing step (FP16 overflow, a device error) stops the run and stopped() says why. While a
  // background advance runs, a call only collects it when it has finished (the request is not queued).
  void advance(int steps);
  // Paints or clears the grid (brush strokes from the Simulation window, Clear). While a background advance
  // runs the edits wait and are applied, in order, when it ends. Does nothing before the first reset. Throws
  // InputError (the run goes on unchanged).
  void edit(const GridEdit& edit);
  std::int64_t edits_applied() const { return edits_applied_; }
  // Collects a finished background advance (advance() does too).
  void poll();
  // Waits for a background advance to finish and collects it.
  void finish();
  // A background advance is running: values() and show() give the grid as it was when it started.
  bool busy() const { return busy_; }
  struct Progress {
    int done = 0, total = 0; // steps of the background advance
    double seconds = 0;      // since it started
  };
  Progress progress() const;
  // Puts the current values into the heat map's values texture (plane z): through CUDA-GL interop for GPU
  // runs, else as a host upload of the sampled slice. Returns the slice shown and the values' finite range.
  struct Frame {
    int width = 0, height = 0, stride = 1;
    ValueRange range{};
    std::vector<float> profile; // a 1D grid's values, for its line plot
  };
  Frame show(HeatmapRenderer& heatmap, std::int64_t z);

  bool loaded() const { return loaded_; }
  const SimulationSetup& setup() const { return setup_; }
  std::span<const double> values() const;
  // One point's value, cheap on the GPU too (one point copied). Throws InputError outside the grid.
  double value_at(std::int64_t x, std::int64_t y, std::int64_t z) const;
  std::int64_t steps_done() const { return steps_done_; }
  std::uint64_t version() const { return version_; } // changes whenever values() may have changed
  double gstencils() const { return meter_.gstencils(); }
  double last_step_seconds() const { return last_step_seconds_; }
  double last_advance_seconds() const { return last_advance_seconds_; } // the latest advance() in total
  double last_show_seconds() const { return last_show_seconds_; }       // the latest show(): store or upload
  FramePath frame_path() const { return frame_path_; }
  const std::string& stopped() const { return stopped_; }
  double initial_min() const { return initial_min_; }
  double initial_max() const { return initial_max_; }
  std::string backend_name() const { return backend_name_; }
  MethodKey method() const { return method_; }
  Precision arithmetic() const { return arithmetic_; }
  std::string interop_problem() const { return busy_ ? std::string() : backend_->interop_problem(); }
  std::int64_t stencil_changes_in_place() const { return busy_ ? 0 : backend_->stencil_changes_in_place(); }

private:
  void take_backend(std::unique_ptr<SimulationBackend> backend);
  void account(const SimulationBackend::Advanced& done);
  void start_background(int steps);
  void cancel_background(); // asks the background advance to stop after its current step, waits, collects
  void worker_loop(const std::stop_token& stop);

  std::unique_ptr<SimulationBackend> backend_;
  std::string backend_name_;
  MethodKey method_;
  Precision arithmetic_ = Precision::FP64;
  double predicted_step_seconds_ = 0; // per step, from the latest advance; 0 when unknown

  // The worker: one thread per simulation, started on the first background advance.
  std::jthread worker_;
  mutable std::mutex mutex_;
  std::condition_variable_any wake_;       // the worker: a job arrived (or stop)
  std::condition_variable finished_cv_;    // the caller: the job finished
  int job_steps_ = 0;                      // > 0: a job for the worker
  bool job_finished_ = false;
  SimulationBackend::Advanced job_result_{};
  std::exception_ptr job_error_;
  std::atomic<bool> cancel_{false};
  std::atomic<int> job_done_{0};
  int job_total_ = 0;
  bool busy_ = false;
  std::chrono::steady_clock::time_point job_started_{};
  std::vector<double> snapshot_;            // the values while busy
  std::optional<SimulationSetup> pending_;  // a rule that waits for the background advance
  std::vector<GridEdit> pending_edits_;     // strokes that wait for it
  std::int64_t edits_applied_ = 0;
  SimulationSetup setup_{};
  bool loaded_ = false;
  std::int64_t steps_done_ = 0;
  std::uint64_t version_ = 0;
  ThroughputMeter meter_{};
  double last_step_seconds_ = 0, last_advance_seconds_ = 0, last_show_seconds_ = 0;
  FramePath frame_path_ = FramePath::HostUpload;
  std::string stopped_;
  double initial_min_ = 0, initial_max_ = 0;
};

} // namespace se
