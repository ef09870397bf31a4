// The method list: core's descriptors with their GPU kernels attached, and the GPU-only baselines. Adding a
// method is one line here (docs/ARCHITECTURE.md).
#include "kernels/registry.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/convstencil/convstencil_method.hpp"
#include "core/error.hpp"
#include "core/flashfft/flashfft_method.hpp"
#include "core/lorastencil/lorastencil_method.hpp"
#include "core/spider/spider_method.hpp"
#include "core/tcstencil/tcstencil_method.hpp"
#include "kernels/common/grid_stepper.hpp"
#include "kernels/cuda_core/cuda_core_method.hpp"
#include "kernels/convstencil/cs_gpu_method.hpp"
#include "kernels/device.hpp"
#include "kernels/flashfft/flashfft_gpu_method.hpp"
#include "kernels/lorastencil/lora_gpu_method.hpp"
#include "kernels/spider/spider_gpu_method.hpp"
#include "kernels/tcstencil/tc_gpu_method.hpp"
#include "kernels/vendor/vendor_methods.hpp"

namespace se {
namespace {

// `d` with its GPU kernel finished: the timed run bound to the kernel itself, and a build without CUDA saying so
// when a stepper is asked for.
DescriptorPtr finish(DescriptorPtr d) {
  if (!d->gpu) return d;
  auto copy = std::make_shared<MethodDescriptor>(*d);
  auto kernel = std::make_shared<GpuKernel>(*d->gpu);
  if (!kernel->make_stepper)
    kernel->make_stepper = [](const MethodPlan&, const Extent&, const Boundary&) -> std::unique_ptr<GridStepper> {
      throw InputError(gpu_unavailable_reason());
    };
  kernel->run = [k = kernel.get()](const MethodPlan& plan, MethodRun& r) { return run_gpu_method(*k, plan, r); };
  copy->gpu = std::move(kernel);
  return copy;
}

// A core descriptor with a GPU kernel attached.
DescriptorPtr with_gpu(const DescriptorPtr& d, GpuKernel kernel) {
  auto copy = std::make_shared<MethodDescriptor>(*d);
  copy->gpu = std::make_shared<GpuKernel>(std::move(kernel));
  return copy;
}

} // namespace

const std::vector<DescriptorPtr>& method_list() {
  static const std::vector<DescriptorPtr> list = [] {
    std::vector<DescriptorPtr> l = {
        cpu_reference_descriptor(),
        with_gpu(tcstencil_descriptor(), tcstencil_gpu_kernel(Precision::FP16)),
        with_gpu(tcstencil_fp64_descriptor(), tcstencil_gpu_kernel(Precision::FP64)),
        with_gpu(convstencil_descriptor(), convstencil_gpu_kernel()),
        with_gpu(lorastencil_descriptor(), lorastencil_gpu_kernel()),
        with_gpu(flashfft_descriptor(), flashfft_gpu_kernel()),
        with_gpu(spider_descriptor(), spider_gpu_kernel(SpiderVariant::Sparse)),
        with_gpu(spider_dense_descriptor(), spider_gpu_kernel(SpiderVariant::Dense)),
        cuda_core_descriptor(Precision::FP64),
        cuda_core_descriptor(Precision::FP32),
        cuda_core_descriptor(Precision::FP16),
        cuda_core_tb_descriptor(Precision::FP64),
        cuda_core_tb_descriptor(Precision::FP32),
        cudnn_descriptor(Precision::FP64),
        cudnn_descriptor(Precision::FP32),
        cufft_descriptor(),
    };
    for (DescriptorPtr& d : l) d = finish(d);
    return l;
  }();
  return list;
}

std::vector<Method> all_methods() { return method_variants(method_list()); }

const Method& find_method(const std::vector<Method>& methods, const std::string& id, std::optional<Backend> backend) {
  const Method* fallback = nullptr;
  for (const auto& m : methods) {
    if (m.id != id) continue;
    if (backend && m.backend == *backend) return m;
    if (!backend && (!fallback || (m.backend == Backend::GPU && m.unavailable_reason().empty()))) fallback = &m;
  }
  if (fallback) return *fallback;
  std::string known;
  for (const auto& m : methods)
    if (known.find(m.id) == std::string::npos) known += (known.empty() ? "" : ", ") + m.id;
  if (backend)
    for (const auto& m : methods)
      if (m.id == id) throw InputError(fmt::format("method '{}' has no {} backend", id, to_string(*backend)));
  throw InputError(fmt::format("unknown method '{}' (known: {})", id, known));
}

std::string gpu_unavailable_reason() {
  const DeviceInfo dev = query_device();
  return dev.available ? std::string() : "no CUDA device: " + dev.reason;
}

std::unique_ptr<GridStepper> make_gpu_stepper(const Method& m, const MethodPlan& plan, const Extent& e,
                                              const Boundary& b) {
  if (m.backend != Backend::GPU) throw std::logic_error("make_gpu_stepper: '" + m.id + "' is not a GPU variant");
  if (const std::string why = m.unavailable_reason(); !why.empty())
    throw InputError(fmt::format("method '{}' (gpu) is unavailable: {}", m.id, why));
  if (const std::string why = m.check(plan, e); !why.empty())
    throw InputError(fmt::format("method '{}' cannot run {}: {}", m.id, plan.stencil.name, why));
  return m.descriptor->gpu->make_stepper(plan, e, b);
}

} // namespace se
