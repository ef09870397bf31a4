// The state every CUDA-core stepper keeps: two padded device grids that the launches write alternately,
// the current one being the state. Subclasses only launch kernels from current() into next().
#pragma once
#include <string>

#include "kernels/common/device_grid.hpp"
#include "kernels/common/grid_stepper.hpp"

namespace se {

template <typename S> class PingPongStepper : public GridStepper {
public:
  PingPongStepper(const PaddedLayout& layout, const Boundary& b, const std::string& what) : boundary_(b) {
    require_device_memory(2 * static_cast<std::uint64_t>(layout.total) * sizeof(S), what + " (two padded buffers)");
    grids_[0] = DeviceGrid<S>(layout, what);
    grids_[1] = DeviceGrid<S>(layout, what);
  }

  void upload(std::span<const double> values) override {
    clear_passes();
    current_ = 0;
    grids_[0].load(values, boundary_, stream());
    grids_[1].prepare_output(boundary_, stream());
    stream_.synchronize();
  }
  void download(std::span<double> values) override { grids_[current_].download_interior(values, stream()); }
  DeviceGridView view() const override {
    return {grids_[current_].data(), storage_precision<S>(), grids_[current_].layout()};
  }

protected:
  const S* current() const { return grids_[current_].data(); }
  S* next() { return grids_[1 - current_].data(); }
  void swap() { current_ = 1 - current_; }
  const PaddedLayout& layout() const { return grids_[0].layout(); }
  bool periodic() const { return boundary_.kind == BoundaryKind::Periodic; }
  const Boundary& boundary() const { return boundary_; }

private:
  Boundary boundary_;
  DeviceGrid<S> grids_[2];
  int current_ = 0;
};

} // namespace se
