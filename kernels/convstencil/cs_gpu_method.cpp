// ConvStencil in the GPU method registry: core's plan (the 3D default fuses one step on the GPU, see
// notes/convstencil-gpu.md), the kernel's limits, and the stepper: one pass of W^T per launch (1D: three while
// the steps last), the remainder of steps % T as one shallower pass, the exact Dirichlet band after fused
// launches on CUDA cores (LoRAStencil's band-fix kernel).
#include "kernels/convstencil/cs_gpu_method.hpp"

#include <fmt/format.h>

#include "core/convstencil/convstencil_method.hpp"
#include "core/error.hpp"
#include "kernels/common/grid_stepper.hpp"
#include "kernels/convstencil/cs_gpu_plan.hpp"
#include "kernels/registry.hpp"

#if defined(SE_HAVE_CUDA)
#include <cuda_runtime.h>

#include <memory>

#include "kernels/convstencil/cs_launch.hpp"
#include "kernels/lorastencil/lora_gpu_plan.hpp"
#include "kernels/lorastencil/lora_launch.hpp"
#endif

namespace se {
namespace {

const DescriptorPtr& core_descriptor() {
  static const DescriptorPtr d = convstencil_descriptor();
  return d;
}

#if defined(SE_HAVE_CUDA)
void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    cudaGetLastError();
    throw InputError(fmt::format("ConvStencil GPU: {} failed: {}", what, cudaGetErrorString(err)));
  }
}

template <typename T> T* device_copy(const std::vector<T>& host, const char* what) {
  void* p = nullptr;
  check(cudaMalloc(&p, std::max<std::size_t>(host.size(), 1) * sizeof(T)), what);
  if (!host.empty()) check(cudaMemcpy(p, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), what);
  return static_cast<T*>(p);
}

// One pass depth: its plan, block shape, tables on the device and (Dirichlet, depth > 1) the band fix.
struct Pass {
  ConvStencilPlan plan;
  int steps = 1; // base steps the launch advances
  conv_gpu::CsBlockShape shape;
  conv_gpu::CsPassArgs args;
  double* kfrag = nullptr;
  int* table = nullptr;
  lora_gpu::FixBox* boxes = nullptr;
  lora_gpu::BandFixArgs fix;
  ~Pass() {
    cudaFree(kfrag);
    cudaFree(table);
    cudaFree(boxes);
  }
};

class ConvStencilStepper final : public GridStepper {
public:
  ConvStencilStepper(const ConvStencilPlan& plan, const Extent& e, const Boundary& b) : extent_(e), boundary_(b) {
    check_extent_fits_stencil(e, plan.stencil);
    const std::size_t bytes = static_cast<std::size_t>(e.points()) * sizeof(double);
    for (double*& g : grid_) check(cudaMalloc(reinterpret_cast<void**>(&g), bytes), "allocating the grid");
    set_plan(plan);
  }
  ~ConvStencilStepper() override {
    passes_.clear();
    twice_.reset();
    for (double* g : grid_) cudaFree(g);
    cudaFree(weights_);
  }
  void upload(std::span<const double> values) override {
    clear_passes();
    if (values.size() != static_cast<std::size_t>(extent_.points()))
      throw InputError(fmt::format("ConvStencil GPU: {} values for a grid of {} points", values.size(), extent_.points()));
    const std::size_t bytes = values.size() * sizeof(double);
    check(cudaMemcpyAsync(grid_[current_], values.data(), bytes, cudaMemcpyHostToDevice, stream()), "upload");
    check(cudaMemsetAsync(grid_[1 - current_], 0xFF, bytes, stream()), "poison");
    synchronize();
  }
  void advance(int steps) override {
    if (steps < 0) throw InputError("the number of steps cannot be negative");
    const int T = plan_.fused_steps;
    if (twice_)
      for (; steps >= twice_->steps; steps -= twice_->steps) run_pass(*twice_);
    for (; steps >= T; steps -= T) run_pass(*passes_[static_cast<std::size_t>(T - 1)]);
    if (steps > 0) run_pass(*passes_[static_cast<std::size_t>(steps - 1)]);
  }
  void download(std::span<double> values) override {
    if (values.size() != static_cast<std::size_t>(extent_.points()))
      throw InputError(fmt::format("ConvStencil GPU: room for {} values, the grid has {}", values.size(), extent_.points()));
    check(cudaMemcpyAsync(values.data(), grid_[current_], values.size() * sizeof(double), cudaMemcpyDeviceToHost, stream()),
          "download");
    check(cudaStreamSynchronize(stream()), "the ConvStencil passes");
  }
  DeviceGridView view() const override { return {grid_[current_], Precision::FP64, make_packed_layout(extent_)}; }
  int fused_steps() const override { return twice_ ? twice_->steps : plan_.fused_steps; }
  bool set_stencil(const MethodPlan& plan) override { // the grid is packed (no halo): any radius fits
    set_plan(plan_value<ConvStencilPlan>(plan));
    return true;
  }

private:
  void set_plan(const ConvStencilPlan& plan) {
    check_extent_fits_stencil(extent_, plan.stencil);
    if (const std::string why = conv_gpu::unsupported_reason(plan); !why.empty()) throw InputError(why);
    check(cudaStreamSynchronize(stream()), "the ConvStencil passes"); // nothing queued reads the old tables
    passes_.clear();
    twice_.reset();
    cudaFree(weights_);
    weights_ = nullptr;
    plan_ = plan;
    weights_ = device_copy(plan.stencil.weights, "the stencil weights");
    // Every depth a run can need (T and the shallower remainder; in 1D several passes of T in one launch) is built
    // here: advance() only launches.
    passes_.resize(static_cast<std::size_t>(plan.fused_steps));
    for (int d = 1; d <= plan.fused_steps; ++d)
      passes_[static_cast<std::size_t>(d - 1)] =
          make_pass(d == plan.fused_steps ? plan : make_convstencil_plan(plan.stencil, {d}), d, false);
    twice_ = extent_.dims == 1 ? make_pass(plan, conv_gpu::kPassesPerLaunch1d * plan.fused_steps, true) : nullptr;
  }

  // A launch of `plan` advancing `steps` base steps (twice: kPassesPerLaunch1d passes of W^T).
  std::unique_ptr<Pass> make_pass(const ConvStencilPlan& plan, int steps, bool twice) {
    auto p = std::make_unique<Pass>();
    p->plan = plan;
    p->steps = steps;
    p->shape = conv_gpu::block_shape(plan, extent_, twice);
    p->kfrag = device_copy(conv_gpu::kernel_fragments(plan), "the kernel fragments");
    p->table = device_copy(conv_gpu::stencil2row_table(plan), "the stencil2row table");
    conv_gpu::CsPassArgs& a = p->args;
    a.kfrag = p->kfrag;
    a.table = p->table;
    a.nx = extent_.n[0];
    a.ny = extent_.n[1];
    a.nz = extent_.n[2];
    a.periodic = boundary_.kind == BoundaryKind::Periodic;
    a.boundary_value = boundary_.value;
    a.k = plan.k;
    a.dims = extent_.dims;
    if (boundary_.kind == BoundaryKind::Dirichlet && steps > 1) {
      const int r = plan.stencil.radius;
      const std::vector<lora_gpu::FixBox> boxes =
          lora_gpu::band_fix_boxes(extent_, r, steps, lora_gpu::band_fix_shared_budget());
      p->boxes = device_copy(boxes, "the band boxes");
      p->fix = lora_gpu::band_fix_args(extent_, plan.stencil, weights_, steps, boundary_.value, boxes, p->boxes);
    }
    return p;
  }

  void run_pass(Pass& p) {
    double* in = grid_[current_];
    double* out = grid_[1 - current_];
    p.args.in = in;
    p.args.out = out;
    const bool launched = extent_.dims == 1   ? conv_gpu::launch_pass_1d(p.args, p.shape, stream())
                          : extent_.dims == 2 ? conv_gpu::launch_pass_2d(p.args, p.shape, stream())
                                              : conv_gpu::launch_pass_3d(p.args, p.shape, stream());
    if (!launched) throw InputError(fmt::format("ConvStencil GPU: no kernel for a {}-wide kernel in {}D", p.plan.k, extent_.dims));
    check(cudaGetLastError(), "the ConvStencil pass launch");
    if (p.fix.box_count > 0) {
      p.fix.in = in;
      p.fix.out = out;
      lora_gpu::launch_band_fix(p.fix, stream());
    }
    current_ = 1 - current_;
    record_pass(p.steps);
  }

  Extent extent_;
  Boundary boundary_;
  ConvStencilPlan plan_;
  double* grid_[2] = {nullptr, nullptr};
  double* weights_ = nullptr;
  int current_ = 0;
  std::vector<std::unique_ptr<Pass>> passes_; // by depth 1 .. T
  std::unique_ptr<Pass> twice_;               // 1D: kPassesPerLaunch1d passes of T per launch
};
#endif

} // namespace

GpuKernel convstencil_gpu_kernel() {
  GpuKernel k;
  k.description = "ConvStencil on FP64 tensor cores (mma.m16n8k4): stencil2row into shared memory through the plan's "
                  "lookup table, dual tessellation with the lower- and upper-triangular kernel matrices (kernel rows "
                  "padded to 4-wide chunks so each fragment serves every kernel row), 3 steps fused for radius-1 "
                  "kernels in 1D and 2D (3D: one step per pass by default), the Dirichlet band exact on CUDA cores";
  k.unavailable_reason = gpu_unavailable_reason;
  k.plan = [](const Stencil& s, const PlanRequest& request) {
    PlanRequest r = request;
    // 3D: W^3 of a radius-1 kernel is 7 x 7 x 7 (196 m16n8k4 per 128 outputs and pass, 522 flops per point and
    // step) against 18 per 64 outputs unfused (288); the GPU fuses 3D kernels only when asked.
    if (r.fused_steps == 0 && s.dims == 3) r.fused_steps = 1;
    return core_descriptor()->plan(s, r);
  };
  k.unsupported_reason = [](const MethodPlan& p, const Extent&) {
    return conv_gpu::unsupported_reason(plan_value<ConvStencilPlan>(p));
  };
#if defined(SE_HAVE_CUDA)
  k.make_stepper = [](const MethodPlan& p, const Extent& e, const Boundary& b) -> std::unique_ptr<GridStepper> {
    return std::make_unique<ConvStencilStepper>(plan_value<ConvStencilPlan>(p), e, b);
  };
#endif
  return k;
}

} // namespace se
