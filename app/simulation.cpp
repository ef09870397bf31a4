// Simulation state and the CPU reference backend. Throughput is measured around the backend's advance
// only (not the texture upload or UI), because that is what the number claims to describe.
#include "app/simulation.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "app/grid_slice.hpp"
#include "core/error.hpp"
#include "core/reference.hpp"

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

namespace {

class CpuReferenceBackend final : public SimulationBackend {
public:
  std::string name() const override { return "CPU reference (FP64 arithmetic)"; }
  void load(const SimulationSetup& setup, std::vector<double> values) override {
    setup_ = setup;
    values_ = std::move(values);
  }
  void reconfigure(const SimulationSetup& setup) override { setup_ = setup; }
  void advance(int steps) override {
    ReferenceOptions options;
    options.boundary = setup_.boundary;
    reference_advance(setup_.stencil, setup_.extent, values_, steps, setup_.storage, options);
  }
  std::span<const double> values() const override { return values_; }

private:
  SimulationSetup setup_{};
  std::vector<double> values_;
};

} // namespace

std::unique_ptr<SimulationBackend> make_cpu_reference_backend() { return std::make_unique<CpuReferenceBackend>(); }

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

Simulation::Simulation(std::unique_ptr<SimulationBackend> backend) : backend_(std::move(backend)) {
  if (!backend_) throw InputError("a simulation needs a backend");
}

void Simulation::reset(const SimulationSetup& setup) {
  check_simulation_setup(setup);
  std::vector<double> values = initial_values(setup.extent, setup.initial, setup.seed);
  const ValueRange range = finite_range(values);
  backend_->load(setup, std::move(values));
  setup_ = setup;
  loaded_ = true;
  steps_done_ = 0;
  ++version_;
  meter_.clear();
  initial_min_ = range.empty() ? 0.0 : range.min;
  initial_max_ = range.empty() ? 0.0 : range.max;
}

void Simulation::apply(const SimulationSetup& setup) {
  if (loaded_ && setup == setup_) return;
  if (!loaded_ || !setup.same_grid(setup_)) return reset(setup);
  check_simulation_setup(setup);
  backend_->reconfigure(setup);
  setup_ = setup;
  meter_.clear();
}

void Simulation::advance(int steps) {
  if (!loaded_ || steps <= 0) return;
  const auto start = std::chrono::steady_clock::now();
  backend_->advance(steps);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  steps_done_ += steps;
  ++version_;
  meter_.add(static_cast<double>(setup_.extent.points()) * steps, seconds);
  last_step_seconds_ = seconds / steps;
}

std::span<const double> Simulation::values() const { return backend_->values(); }

} // namespace se
