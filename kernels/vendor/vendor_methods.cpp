// The cuDNN and cuFFT descriptors. Plain C++: without CUDA in the build they are listed, unavailable.
#include "kernels/vendor/vendor_methods.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/streaming_model.hpp"
#include "kernels/registry.hpp"

#if defined(SE_HAVE_CUDA)
#include "kernels/vendor/vendor_libraries.hpp"
#include "kernels/vendor/vendor_steppers.hpp"
#endif

namespace se {
namespace {

constexpr int kFftFusedSteps = 6; // FlashFFTStencil's Figure 7 fuses six steps

std::shared_ptr<MethodDescriptor> vendor(const std::string& id, Precision p, std::string description) {
  auto d = make_descriptor(id, id, "", p, std::move(description));
  d->summary = streaming_summary;
  return d;
}

// No device, or the library missing.
std::function<std::string()> unavailable(std::string (*library_reason)()) {
  return [library_reason] {
    std::string why = gpu_unavailable_reason();
    if (why.empty() && library_reason) why = library_reason();
    return why;
  };
}

} // namespace

DescriptorPtr cudnn_descriptor(Precision precision) {
  const bool fp64 = precision == Precision::FP64;
  auto d = vendor(fp64 ? "cudnn" : "cudnn-fp32", precision,
                  fp64 ? "cuDNN forward convolution, FP64 (the papers' vendor baseline)"
                       : "cuDNN forward convolution, FP32 (FMA math, no TF32)");
  d->plan = [id = d->id, precision](const Stencil& s, const PlanRequest& request) {
    check_unfused(id, request);
    return streaming_plan(id, s, request, precision, 1,
                          fmt::format("one cudnnConvolutionForward per step with a {}-point filter", s.nonzero_count()));
  };
  GpuKernel k;
  k.library = "cuDNN";
  k.unsupported_reason = [](const MethodPlan&, const Extent& e) {
    return e.points() > 2147483647 ? std::string("cuDNN tensors hold at most 2^31-1 points") : std::string();
  };
#if defined(SE_HAVE_CUDA)
  k.unavailable_reason = unavailable(cudnn_unavailable_reason);
  k.make_stepper = [precision](const MethodPlan& p, const Extent& e, const Boundary& b) {
    return make_cudnn_stepper(precision, p.stencil, e, b);
  };
#else
  k.unavailable_reason = unavailable(nullptr);
#endif
  d->gpu = std::make_shared<GpuKernel>(std::move(k));
  return d;
}

DescriptorPtr cufft_descriptor() {
  auto d = vendor("cufft", Precision::FP64,
                  "cuFFT stencil, FP64: 6 steps per FFT round trip by k_f^6 on periodic grids, 1 on Dirichlet");
  d->plan = [](const Stencil& s, const PlanRequest& request) {
    const int T = request.fused_steps > 0 ? request.fused_steps : kFftFusedSteps;
    return streaming_plan("cufft", s, request, Precision::FP64, T,
                          fmt::format("an FFT round trip times k_f^{} per pass on periodic grids (one step per round "
                                      "trip on Dirichlet grids)", T));
  };
  GpuKernel k;
  k.library = "cuFFT";
#if defined(SE_HAVE_CUDA)
  k.unavailable_reason = unavailable(cufft_unavailable_reason);
  k.make_stepper = [](const MethodPlan& p, const Extent& e, const Boundary& b) {
    return make_cufft_stepper(p.stencil, e, b, p.fused_steps);
  };
#else
  k.unavailable_reason = unavailable(nullptr);
#endif
  d->gpu = std::make_shared<GpuKernel>(std::move(k));
  return d;
}

} // namespace se
