// The CUDA-core descriptors. Plain C++: without CUDA in the build the same methods are listed, unavailable.
#include "kernels/cuda_core/cuda_core_method.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/streaming_model.hpp"
#include "kernels/registry.hpp"

#if defined(SE_HAVE_CUDA)
#include "kernels/cuda_core/cuda_core.hpp"
#endif

namespace se {
namespace {

// cuda-core-tb aims for 4 steps per launch in 1D/2D and 2 in 3D, where the recomputed halo of a 3D tile grows
// fastest (fewer where shared memory is short).
constexpr int kTemporalBlockSteps = 4;
constexpr int kTemporalBlockSteps3D = 2;

std::string id_of(Precision storage) {
  return storage == Precision::FP64 ? "cuda-core" : fmt::format("cuda-core-{}", to_string(storage));
}

std::shared_ptr<MethodDescriptor> gpu_only(const std::string& id, Precision p, std::string description) {
  auto d = make_descriptor(id, id, "", p, std::move(description));
  d->summary = streaming_summary;
  return d;
}

} // namespace

DescriptorPtr cuda_core_descriptor(Precision storage) {
  static const char* const kDescriptions[] = {
      "CUDA cores, FP64: shared-memory tiles, register-blocked columns (3D streams along z)",
      "CUDA cores, FP32 storage and arithmetic, same kernels",
      "CUDA cores, FP16 storage with FP32 arithmetic (rounded to FP16 once per step)"};
  auto d = gpu_only(id_of(storage), storage, kDescriptions[static_cast<int>(storage)]);
  d->plan = [id = d->id, storage](const Stencil& s, const PlanRequest& request) {
    if (request.fused_steps > 1)
      throw InputError(fmt::format("{} runs one step per launch; use cuda-core-tb to fuse steps", id));
    return streaming_plan(id, s, request, storage, 1,
                          fmt::format("one launch per step, {} weights in registers, {} storage", s.nonzero_count(),
                                      to_string(storage)));
  };
  GpuKernel k;
  k.unavailable_reason = gpu_unavailable_reason;
#if defined(SE_HAVE_CUDA)
  k.make_stepper = [storage](const MethodPlan& p, const Extent& e, const Boundary& b) {
    return make_cuda_core_stepper(storage, p.stencil, e, b);
  };
#endif
  d->gpu = std::make_shared<GpuKernel>(std::move(k));
  if (storage == Precision::FP64) d->compare_rank = 5;
  return d;
}

DescriptorPtr cuda_core_tb_descriptor() {
  auto d = gpu_only("cuda-core-tb", Precision::FP64,
                    "CUDA cores, FP64, temporally blocked: up to 4 steps per launch in shared memory (2 in 3D)");
  d->plan = [](const Stencil& s, const PlanRequest& request) {
    int T = request.fused_steps > 0 ? request.fused_steps : (s.dims == 3 ? kTemporalBlockSteps3D : kTemporalBlockSteps);
#if defined(SE_HAVE_CUDA)
    // Fewer steps where a tile with its T r halo does not fit this GPU's shared memory.
    if (request.target == Backend::GPU && gpu_unavailable_reason().empty()) {
      const int fits = cuda_core_tb_fused_steps(s, T);
      if (fits == 0)
        throw InputError(fmt::format("cuda-core-tb: a {}D tile of radius {} does not fit in this GPU's shared memory; "
                                     "use cuda-core", s.dims, s.radius));
      T = fits;
    }
#endif
    return streaming_plan("cuda-core-tb", s, request, Precision::FP64, T,
                          fmt::format("{} steps per launch on overlapped tiles in shared memory, the halo recomputed",
                                      T));
  };
  GpuKernel k;
  k.unavailable_reason = gpu_unavailable_reason;
#if defined(SE_HAVE_CUDA)
  k.make_stepper = [](const MethodPlan& p, const Extent& e, const Boundary& b) {
    return make_cuda_core_tb_stepper(p.stencil, e, b, p.fused_steps);
  };
#endif
  d->gpu = std::make_shared<GpuKernel>(std::move(k));
  return d;
}

} // namespace se
