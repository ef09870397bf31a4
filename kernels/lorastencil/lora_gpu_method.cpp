// LoRAStencil in the GPU method registry. Which stencils and grids it takes is decided by building the same
// plan and pass the stepper will run, so the registry's reason and a failed launch cannot disagree.
#include "kernels/lorastencil/lora_gpu_method.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "kernels/common/grid_stepper.hpp"
#include "kernels/lorastencil/lora_gpu_plan.hpp"

#if defined(SE_HAVE_CUDA)
#include "kernels/lorastencil/lora_gpu_runner.hpp"
#endif

namespace se {
namespace {

// Shared memory an H100/H200 block may opt into; the kernels refuse passes beyond it (3D radius above 4).
constexpr std::size_t kHopperSharedPerBlock = 227 * 1024;

std::string lorastencil_unsupported(const Stencil& s, const Extent& e) {
  try {
    const LoraStencilPlan plan = lora_gpu::plan_for_gpu(s, lora_gpu::gpu_plan_options());
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
  LoraStencilStepper(const Stencil& s, const Extent& e, const Boundary& b)
      : extent_(e), runner_(s, e, b, lora_gpu::RunnerOptions{}, stream()) {}
  void upload(std::span<const double> values) override { runner_.upload(values); }
  void advance(int steps) override { runner_.advance(steps); }
  void download(std::span<double> values) override { runner_.download(values); }
  DeviceGridView view() const override { return {runner_.current(), Precision::FP64, make_packed_layout(extent_)}; }
  int fused_steps() const override { return runner_.fused_steps(); }

private:
  Extent extent_;
  lora_gpu::LoraGpuRunner runner_;
};
#endif

} // namespace

#if defined(SE_HAVE_CUDA)
std::unique_ptr<GridStepper> make_lorastencil_stepper(const Stencil& s, const Extent& e, const Boundary& b) {
  return std::make_unique<LoraStencilStepper>(s, e, b);
}
#endif

GpuMethodSpec lorastencil_gpu_spec() {
  GpuMethodSpec s;
  s.id = "lorastencil";
  s.precision = Precision::FP64;
  s.description = "LoRAStencil on FP64 tensor cores (mma.m16n8k4): rank-1 pyramid U·X·V chains with butterfly-swapped "
                  "V, the apex on CUDA cores, star planes as single U·X / X·V gathers (cross split, and the "
                  "multinomial expansion of fused stars), cp.async staging, cost-model temporal fusion. Weights "
                  "without mirror symmetry take the general SVD split: more rank-1 terms, slower";
  s.fused_steps = 3;
  s.extra_unsupported_reason = lorastencil_unsupported;
  s.unavailable_reason = [] { return gpu_unavailable_reason(); };
#if defined(SE_HAVE_CUDA)
  s.make_stepper = make_lorastencil_stepper;
#else
  s.make_stepper = [](const Stencil&, const Extent&, const Boundary&) -> std::unique_ptr<GridStepper> {
    throw InputError(gpu_unavailable_reason());
  };
#endif
  return s;
}

} // namespace se
