// The running simulation behind the Simulation and Compare windows: a backend that advances the grid (the CPU
// FP64 reference, a method's CPU emulation, or a GPU method whose frames reach the heat map through CUDA-GL
// interop), the step count, the measured GStencil/s, and why a run stopped when it had to.
#pragma once
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "app/sim/grid_slice.hpp"
#include "core/grid.hpp"
#include "core/method.hpp"
#include "core/stencil.hpp"

namespace se {

class HeatmapRenderer;

// Everything that decides the grid's values: changing any of it means new values (or new physics).
struct SimulationSetup {
  Stencil stencil;
  Extent extent;
  InitialCondition initial = InitialCondition::HotSpot;
  std::uint64_t seed = 1;
  Boundary boundary{};
  Precision storage = Precision::FP64;
  bool operator==(const SimulationSetup& o) const {
    return stencil == o.stencil && same_grid(o) && boundary.kind == o.boundary.kind &&
           boundary.value == o.boundary.value && storage == o.storage;
  }
  // Same grid and initial values: only the update rule (weights, boundary, storage) differs.
  bool same_grid(const SimulationSetup& o) const { return extent == o.extent && initial == o.initial && seed == o.seed; }
};

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
  // Advances `steps` base steps; returns the seconds they took (CUDA events for GPU runs, wall clock else).
  virtual double advance(int steps) = 0;
  virtual std::span<const double> values() const = 0;
  // GPU runs: stores plane z into the heat map's values texture on the device and returns the stored range;
  // nullopt where the values live on the host (the caller uploads values() instead).
  virtual std::optional<ValueRange> store_frame(HeatmapRenderer&, std::int64_t /*z*/) { return std::nullopt; }
  virtual double last_store_seconds() const { return 0.0; }
  // Why frames take the host path although the run is on the GPU ("" when they do not).
  virtual std::string interop_problem() const { return {}; }
  // Weight changes applied to a device grid in place (GPU runs), for the status and the tests.
  virtual std::int64_t stencil_changes_in_place() const { return 0; }
};

// se::reference_advance on host memory, rounding to the storage precision after every step.
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

  // New values from the setup's initial condition; throws InputError (and keeps the old run) when invalid.
  void reset(const SimulationSetup& setup);
  // Brings the run to `setup`: a reset when the grid or initial values differ, else a reconfigure
  // that keeps the values (editing weights while it runs). Throws InputError like reset.
  void apply(const SimulationSetup& setup);
  // Switches to another backend, restarted from the initial values of the current setup. Throws InputError
  // (keeping the current backend and its run) when the new one cannot start: unsupported stencil, no device,
  // missing library, out of device memory.
  void use_backend(std::unique_ptr<SimulationBackend> backend);
  // Advances `steps` base-stencil steps and measures them. Does nothing before the first reset or after the
  // run stopped; a failing step (FP16 overflow, a device error) stops the run and stopped() says why.
  void advance(int steps);
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
  std::string backend_name() const { return backend_->name(); }
  MethodKey method() const { return backend_->method(); }
  Precision arithmetic() const { return backend_->arithmetic(); }
  std::string interop_problem() const { return backend_->interop_problem(); }
  std::int64_t stencil_changes_in_place() const { return backend_->stencil_changes_in_place(); }

private:
  std::unique_ptr<SimulationBackend> backend_;
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
