// The interface every GPU method implements: a grid that lives on the device and advances by base
// stencil steps on its own stream, by the plan its method's descriptor built (core/method.hpp). The benchmark
// driver, the GPU tests and the live view all use it.
#pragma once
#include <span>
#include <vector>

#include "core/grid.hpp"
#include "core/method.hpp"
#include "kernels/common/padded_layout.hpp"

#if defined(SE_HAVE_CUDA)
#include <cuda_runtime.h>

#include "kernels/common/device_buffer.hpp"
#endif

namespace se {

// Where the current state lies on the device, for readers such as the live view's colour mapping.
struct DeviceGridView {
  const void* data = nullptr;
  Precision storage = Precision::FP64;
  PaddedLayout layout{};
};

class GridStepper {
public:
  virtual ~GridStepper() = default;
  // Replaces the state with `values` (x fastest) and poisons with NaN every buffer a step writes, so an
  // output element that a kernel fails to write shows up as NaN in the check.
  virtual void upload(std::span<const double> values) = 0;
  // Enqueues `steps` base-stencil steps on stream() and returns without waiting.
  virtual void advance(int steps) = 0;
  // Waits for the stream and copies the interior out in FP64.
  virtual void download(std::span<double> values) = 0;
  virtual DeviceGridView view() const = 0;
  // Base steps one launch (or one library round trip) advances; 1 without temporal fusion.
  virtual int fused_steps() const = 0;
  // New weights on the same grid: advances by `plan` (the same method's, for the same dims) from now on and keeps
  // the device grid and its values in place. Returns false, changing nothing, when the plan needs another grid
  // layout (a wider halo); the caller then builds a new stepper.
  virtual bool set_stencil(const MethodPlan& plan) = 0;
  // The passes run since the last upload, in order, as (depth in base steps, how many in a row): a fused
  // method's remainder passes show here.
  const PassRuns& passes() const { return passes_; }
#if defined(SE_HAVE_CUDA) // without CUDA the interface exists (so the registry builds) but nothing implements it
  cudaStream_t stream() const { return stream_.get(); }
  void synchronize() const { stream_.synchronize(); }
#endif

protected:
  // Steppers record each pass they enqueue (depth in base steps) and clear the record on upload.
  void record_pass(int depth) { add_pass(passes_, depth); }
  void clear_passes() { passes_.clear(); }
#if defined(SE_HAVE_CUDA)
  CudaStream stream_;
#endif

private:
  PassRuns passes_;
};

} // namespace se
