// The running simulation behind the Simulation window: a backend that advances the grid (today the CPU
// FP64 reference; later GPU methods), the step count, and the measured GStencil/s of that backend.
#pragma once
#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/grid.hpp"
#include "core/stencil.hpp"

namespace se {

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

// Advances grid values in place. A GPU backend keeps its own copy and writes values() back on demand.
class SimulationBackend {
public:
  virtual ~SimulationBackend() = default;
  virtual std::string name() const = 0;
  // Starts from `values` with this setup (already checked).
  virtual void load(const SimulationSetup& setup, std::vector<double> values) = 0;
  // Changes the update rule without touching the values (same extent as loaded).
  virtual void reconfigure(const SimulationSetup& setup) = 0;
  virtual void advance(int steps) = 0;
  virtual std::span<const double> values() const = 0;
};

// se::reference_advance on host memory, rounding to the storage precision after every step.
std::unique_ptr<SimulationBackend> make_cpu_reference_backend();

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
  // Advances `steps` base-stencil steps and measures them. Does nothing before the first reset.
  void advance(int steps);

  bool loaded() const { return loaded_; }
  const SimulationSetup& setup() const { return setup_; }
  std::span<const double> values() const;
  std::int64_t steps_done() const { return steps_done_; }
  std::uint64_t version() const { return version_; } // changes whenever values() may have changed
  double gstencils() const { return meter_.gstencils(); }
  double last_step_seconds() const { return last_step_seconds_; }
  double initial_min() const { return initial_min_; }
  double initial_max() const { return initial_max_; }
  std::string backend_name() const { return backend_->name(); }

private:
  std::unique_ptr<SimulationBackend> backend_;
  SimulationSetup setup_{};
  bool loaded_ = false;
  std::int64_t steps_done_ = 0;
  std::uint64_t version_ = 0;
  ThroughputMeter meter_{};
  double last_step_seconds_ = 0;
  double initial_min_ = 0, initial_max_ = 0;
};

} // namespace se
