// The live view's GPU side: runs a registered GPU method on a device-resident grid and writes each frame's
// values straight into a CUDA array, the one the GUI gets by registering and mapping its GL texture, so no
// frame goes through the host. Plain C++: no CUDA or GL headers needed to use it.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/brush.hpp"
#include "core/grid.hpp"
#include "core/method.hpp"
#include "core/stencil.hpp"

struct cudaArray;                       // as CUDA's driver_types.h declares it
typedef struct cudaArray* cudaArray_t;  // identical redeclaration of CUDA's typedef

namespace se {

struct ColourMapping {
  double lo = 0.0, hi = 1.0;                   // values mapped to the first and last LUT entry (clamped)
  std::vector<std::array<std::uint8_t, 4>> lut; // RGBA entries, at least 2 (the GUI's colormap)
  int slice_z = -1;                             // plane of a 3D grid to show; -1: the middle plane
};

class GpuLiveRun {
public:
  // Runs `plan` (built by the GPU variant `method`) from `initial`. Throws InputError when the method is unavailable
  // here or the plan cannot run on this grid.
  GpuLiveRun(const Method& method, const MethodPlan& plan, const Extent& e, const Boundary& b,
             std::span<const double> initial);
  ~GpuLiveRun();
  GpuLiveRun(const GpuLiveRun&) = delete;
  GpuLiveRun& operator=(const GpuLiveRun&) = delete;

  // New weights (the same method's plan for them) on the device grid in place: no download, no reallocation.
  // Returns false, changing nothing, when the plan needs another grid layout (then make a new run).
  bool set_stencil(const MethodPlan& plan);
  // Advances `steps` base steps and waits; returns the GPU time they took (seconds, CUDA events).
  double advance(int steps);
  // Paints or clears the device grid in place (core/brush.hpp's arithmetic in a kernel on the run's stream; no
  // host copy). Returns the GPU time (seconds).
  double edit(const GridEdit& edit);
  // Writes the grid (a 1D grid as one row, a 3D grid's slice) as RGBA8 into `array`, which must be at
  // least nx x ny of uchar4 and allow surface stores. Returns the GPU time of the write (seconds).
  double write_rgba8(cudaArray_t array, const ColourMapping& mapping);
  // The same values as 32-bit floats into an R32F array.
  double write_r32f(cudaArray_t array, int slice_z = -1);
  std::vector<double> download();
  // One point's value (interior coordinates), copied from the device: what a hover tooltip needs, not the grid.
  double value_at(std::int64_t x, std::int64_t y, std::int64_t z);

  const std::string& method_id() const;
  int steps_done() const;
  int fused_steps() const;

private:
  struct State;
  std::unique_ptr<State> state_;
};

} // namespace se
