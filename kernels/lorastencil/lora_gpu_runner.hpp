// Runs LoRAStencil on the GPU: plans the pass (and the remainder pass) from core's plan, owns the device
// grids, advances them by any number of base steps with the Dirichlet band fixed after fused passes.
#pragma once
#include <cuda_runtime.h>

#include <memory>
#include <span>
#include <vector>

#include "core/grid.hpp"
#include "core/lorastencil/lorastencil_plan.hpp"
#include "core/stencil.hpp"
#include "kernels/lorastencil/lora_gpu_plan.hpp"

namespace se::lora_gpu {

struct RunnerOptions {
  bool poison_each_pass = false; // fill each pass's output with NaN first (checks that every point is written)
};

class LoraGpuRunner {
public:
  // Runs `plan` (core's plan for the kernels' tile: plan_for_gpu). Throws InputError for a grid the kernels
  // cannot take, or when the device lacks memory. Everything runs on `stream` (0: the default stream).
  LoraGpuRunner(const LoraStencilPlan& plan, const Extent& e, const Boundary& b, const RunnerOptions& options,
                cudaStream_t stream = nullptr);
  ~LoraGpuRunner();
  LoraGpuRunner(const LoraGpuRunner&) = delete;
  LoraGpuRunner& operator=(const LoraGpuRunner&) = delete;

  // Replaces the state; the other grid is filled with NaN, so a point a pass fails to write shows.
  void upload(std::span<const double> values);
  std::vector<double> download() const;
  void download(std::span<double> values) const; // waits for the stream
  const double* current() const { return grid_[current_]; }
  // New weights on the same grid: the passes of `plan` from now on; the device grids and their values stay.
  void set_plan(const LoraStencilPlan& plan);
  // Queues `steps` base steps and returns the depths of the passes queued, at once. Passes of T, and when T does
  // not divide `steps` the last T + rest steps split into the passes the cost model says are quickest (e.g. 3 + 3
  // rather than 4 + 2 at T = 4).
  std::vector<int> advance(int steps);
  // advance(steps) between two events, synchronized: the seconds the device spent.
  double timed_advance(int steps);

  const LoraStencilPlan& plan() const { return plan_; }
  const GpuPass& pass() const;
  int fused_steps() const { return plan_.fused_steps; }
  int blocks() const;

private:
  struct Pass;
  Pass& pass_for(int steps);
  void run_pass(Pass& p);

  Stencil stencil_;
  Extent extent_;
  Boundary boundary_;
  RunnerOptions options_;
  LoraStencilPlan plan_;
  std::vector<std::unique_ptr<Pass>> passes_; // [T - 1]: created on first use
  double* grid_[2] = {nullptr, nullptr};
  double* weights_ = nullptr;
  int current_ = 0;
  cudaStream_t stream_ = nullptr;
};

} // namespace se::lora_gpu
