// Host side of the LoRAStencil GPU method: device grids, per-fusion-depth passes, band fixes, timing.
#include "kernels/lorastencil/lora_gpu_runner.hpp"

#include <cuda_runtime.h>

#include <algorithm>

#include <fmt/format.h>

#include "core/error.hpp"
#include "kernels/lorastencil/lora_launch.hpp"

namespace se::lora_gpu {
namespace {

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) throw InputError(fmt::format("LoRAStencil GPU: {} failed: {}", what, cudaGetErrorString(err)));
}

template <typename T> T* device_alloc(std::size_t count, const char* what) {
  void* p = nullptr;
  const cudaError_t err = cudaMalloc(&p, std::max<std::size_t>(count, 1) * sizeof(T));
  if (err != cudaSuccess) {
    cudaGetLastError();
    throw InputError(fmt::format("LoRAStencil GPU: no device memory for {} ({} MB): {}", what,
                                 count * sizeof(T) >> 20, cudaGetErrorString(err)));
  }
  return static_cast<T*>(p);
}

template <typename T> T* device_copy(const std::vector<T>& host, const char* what) {
  T* p = device_alloc<T>(host.size(), what);
  if (!host.empty()) check(cudaMemcpy(p, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), what);
  return p;
}

} // namespace

struct LoraGpuRunner::Pass {
  LoraStencilPlan plan;
  GpuPass gpu;
  PassArgs args;
  int blocks = 0;
  double* tables = nullptr;
  FixBox* boxes = nullptr;
  BandFixArgs fix;
  ~Pass() {
    cudaFree(tables);
    cudaFree(boxes);
  }
};

LoraGpuRunner::LoraGpuRunner(const LoraStencilPlan& plan, const Extent& e, const Boundary& b, const RunnerOptions& options,
                             cudaStream_t stream)
    : extent_(e), boundary_(b), options_(options), stream_(stream) {
  check_extent_fits_stencil(e, plan.stencil);
  const std::size_t points = static_cast<std::size_t>(e.points());
  grid_[0] = device_alloc<double>(points, "the input grid");
  grid_[1] = device_alloc<double>(points, "the output grid");
  set_plan(plan);
}

void LoraGpuRunner::set_plan(const LoraStencilPlan& plan) {
  check_extent_fits_stencil(extent_, plan.stencil);
  check(cudaStreamSynchronize(stream_), "the LoRAStencil passes"); // nothing queued still reads the old tables
  passes_.clear();
  cudaFree(weights_);
  weights_ = nullptr;
  stencil_ = plan.stencil;
  plan_ = plan;
  passes_.resize(static_cast<std::size_t>(plan_.fused_steps));
  weights_ = device_copy(stencil_.weights, "the stencil weights");
  // Every depth a run can need (T, and the shallower remainder passes) is planned and uploaded here, so that
  // advance() only launches: no planning or allocation inside a timed region, no failure halfway through.
  for (int t = plan_.fused_steps; t >= 1; --t) pass_for(t);
}

LoraGpuRunner::~LoraGpuRunner() {
  passes_.clear();
  cudaFree(grid_[0]);
  cudaFree(grid_[1]);
  cudaFree(weights_);
}

LoraGpuRunner::Pass& LoraGpuRunner::pass_for(int steps) {
  auto& slot = passes_[static_cast<std::size_t>(steps - 1)];
  if (slot) return *slot;
  auto p = std::make_unique<Pass>();
  if (steps == plan_.fused_steps) {
    p->plan = plan_;
  } else { // a remainder pass: the same options (the kernels' tile) at a shallower depth
    LoraStencilOptions o = plan_.options;
    o.fused_steps = steps;
    p->plan = make_lorastencil_plan(stencil_, o);
  }
  p->gpu = make_gpu_pass(p->plan);
  p->args = make_pass_args(p->gpu, extent_, boundary_);
  p->tables = device_copy(p->gpu.tables, "the fragment tables");
  p->args.tables = p->tables;
  p->blocks = pass_blocks(p->args);
  if (boundary_.kind == BoundaryKind::Dirichlet && steps > 1) {
    const std::size_t budget = band_fix_shared_budget();
    const std::vector<FixBox> boxes = band_fix_boxes(extent_, stencil_.radius, steps, budget);
    p->boxes = device_copy(boxes, "the band boxes");
    p->fix = band_fix_args(extent_, stencil_, weights_, steps, boundary_.value, boxes, p->boxes);
  }
  slot = std::move(p);
  return *slot;
}

const GpuPass& LoraGpuRunner::pass() const { return passes_[static_cast<std::size_t>(plan_.fused_steps - 1)]->gpu; }
int LoraGpuRunner::blocks() const { return passes_[static_cast<std::size_t>(plan_.fused_steps - 1)]->blocks; }

void LoraGpuRunner::upload(std::span<const double> values) {
  const std::size_t bytes = static_cast<std::size_t>(extent_.points()) * sizeof(double);
  if (values.size() != static_cast<std::size_t>(extent_.points()))
    throw InputError(fmt::format("LoRAStencil GPU: {} values for a grid of {} points", values.size(), extent_.points()));
  check(cudaMemcpyAsync(grid_[current_], values.data(), bytes, cudaMemcpyHostToDevice, stream_), "upload");
  check(cudaMemsetAsync(grid_[1 - current_], 0xFF, bytes, stream_), "poison");
  check(cudaStreamSynchronize(stream_), "upload");
}

void LoraGpuRunner::download(std::span<double> values) const {
  if (values.size() != static_cast<std::size_t>(extent_.points()))
    throw InputError(fmt::format("LoRAStencil GPU: room for {} values, the grid has {}", values.size(), extent_.points()));
  check(cudaMemcpyAsync(values.data(), grid_[current_], values.size() * sizeof(double), cudaMemcpyDeviceToHost, stream_),
        "download");
  check(cudaStreamSynchronize(stream_), "the LoRAStencil passes");
}

std::vector<double> LoraGpuRunner::download() const {
  std::vector<double> v(static_cast<std::size_t>(extent_.points()));
  download(v);
  return v;
}

void LoraGpuRunner::run_pass(Pass& p) {
  double* in = grid_[current_];
  double* out = grid_[1 - current_];
  if (options_.poison_each_pass)
    check(cudaMemsetAsync(out, 0xFF, static_cast<std::size_t>(extent_.points()) * sizeof(double), stream_), "poison");
  p.args.in = in;
  p.args.out = out;
  launch_pass(p.args, p.blocks, stream_);
  if (p.fix.box_count > 0) {
    p.fix.in = in;
    p.fix.out = out;
    launch_band_fix(p.fix, stream_);
  }
  current_ = 1 - current_;
}

std::vector<int> LoraGpuRunner::advance(int steps) {
  if (steps < 0) throw InputError("the number of steps cannot be negative");
  // When T does not divide `steps`, the last T + rest steps run as the passes the cost model finds quickest: at
  // T = 4 (heat-2d) 6 steps as 3 + 3 rather than 4 + 2, 5 as 3 + 2 rather than 4 + 1. Every pass is a real pass
  // of its depth (W^d and its band fix), so the base steps counted are the steps done.
  const int T = plan_.fused_steps;
  std::vector<double> cost(static_cast<std::size_t>(T), 0.0);
  if (steps % T != 0)
    for (int d = 1; d <= T; ++d)
      for (const FusionCandidate& c : pass_for(d).plan.fusion_candidates)
        if (c.steps == d && c.estimated_ps_per_point > 0) cost[static_cast<std::size_t>(d - 1)] = d * c.estimated_ps_per_point;
  const std::vector<int> depths = split_into_passes(steps, T, cost);
  for (int d : depths) run_pass(pass_for(d));
  return depths;
}

double LoraGpuRunner::timed_advance(int steps) {
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  check(cudaEventRecord(start, stream_), "cudaEventRecord");
  advance(steps);
  check(cudaEventRecord(stop, stream_), "cudaEventRecord");
  check(cudaEventSynchronize(stop), "the LoRAStencil passes");
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return ms * 1e-3;
}

} // namespace se::lora_gpu
