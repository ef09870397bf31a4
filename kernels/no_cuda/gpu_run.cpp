// Builds without nvcc list the GPU methods as unavailable; running one says why.
#include "core/error.hpp"
#include "kernels/registry.hpp"

namespace se {

MethodTiming run_gpu_method(const GpuKernel&, const MethodPlan&, MethodRun&) { throw InputError(gpu_unavailable_reason()); }

double gpu_seconds_per_step(const Method&, const MethodPlan&, const Extent&, const Boundary&, std::span<const double>,
                            double) {
  throw InputError(gpu_unavailable_reason());
}

} // namespace se
