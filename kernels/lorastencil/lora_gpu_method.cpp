// LoRAStencil in the GPU method registry. Which stencils and grids it takes is decided from the same plan the
// stepper runs, so the registry's reason and a failed launch cannot disagree.
#include "kernels/lorastencil/lora_gpu_method.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/lorastencil/lorastencil_method.hpp"
#include "kernels/common/grid_stepper.hpp"
#include "kernels/lorastencil/lora_gpu_plan.hpp"
#include "kernels/registry.hpp"

#if defined(SE_HAVE_CUDA)
#include "kernels/lorastencil/lora_gpu_runner.hpp"
#endif

namespace se {
namespace {

// Shared memory an H100/H200 block may opt into; the kernels refuse passes beyond it (3D radius above 4).
constexpr std::size_t kHopperSharedPerBlock = 227 * 1024;

std::string shared_memory_reason(const MethodPlan& p, const Extent& e) {
  const LoraStencilPlan& plan = plan_value<LoraStencilPlan>(p);
  try {
    const lora_gpu::PassArgs args = lora_gpu::make_pass_args(lora_gpu::make_gpu_pass(plan), e, Boundary{});
    if (lora_gpu::shared_bytes(args) > kHopperSharedPerBlock)
      return fmt::format("a LoRAStencil block for W^{} (radius {}) needs {} KB of shared memory, more than a GPU gives "
                         "one block",
                         plan.fused_steps, plan.kernel.radius, lora_gpu::shared_bytes(args) / 1024);
  } catch (const InputError& err) {
    return err.what();
  }
  return {};
}

#if defined(SE_HAVE_CUDA)
class LoraStencilStepper final : public GridStepper {
public:
  LoraStencilStepper(const LoraStencilPlan& plan, const Extent& e, const Boundary& b)
      : extent_(e), runner_(plan, e, b, lora_gpu::RunnerOptions{}, stream()) {}
  void upload(std::span<const double> values) override {
    clear_passes();
    runner_.upload(values);
  }
  void advance(int steps) override {
    for (const int depth : runner_.advance(steps)) record_pass(depth);
  }
  void download(std::span<double> values) override { runner_.download(values); }
  DeviceGridView view() const override { return {runner_.current(), Precision::FP64, make_packed_layout(extent_)}; }
  int fused_steps() const override { return runner_.fused_steps(); }
  bool set_stencil(const MethodPlan& plan) override { // the grid is packed (no halo): any radius fits
    runner_.set_plan(plan_value<LoraStencilPlan>(plan));
    return true;
  }

private:
  Extent extent_;
  lora_gpu::LoraGpuRunner runner_;
};
#endif

} // namespace

GpuKernel lorastencil_gpu_kernel() {
  GpuKernel k;
  k.description = "LoRAStencil on FP64 tensor cores (mma.m16n8k4): rank-1 pyramid U·X·V chains with butterfly-swapped "
                  "V, the apex on CUDA cores, star planes as single U·X / X·V gathers (cross split, and the "
                  "multinomial expansion of fused stars), cp.async staging, cost-model temporal fusion. Weights "
                  "without mirror symmetry take the general SVD split: more rank-1 terms, slower";
  k.unavailable_reason = gpu_unavailable_reason;
  k.plan = [](const Stencil& s, const PlanRequest& request) {
    LoraStencilOptions options = lora_gpu::gpu_plan_options();
    options.fused_steps = request.fused_steps;
    return wrap_lorastencil_plan(s, request, lora_gpu::plan_for_gpu(s, options));
  };
  k.unsupported_reason = shared_memory_reason;
#if defined(SE_HAVE_CUDA)
  k.make_stepper = [](const MethodPlan& p, const Extent& e, const Boundary& b) -> std::unique_ptr<GridStepper> {
    return std::make_unique<LoraStencilStepper>(plan_value<LoraStencilPlan>(p), e, b);
  };
#endif
  return k;
}

} // namespace se
