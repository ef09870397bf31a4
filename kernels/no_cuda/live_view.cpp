// Builds without nvcc: a live GPU run cannot be created, and the constructor says why (the GUI then stays on
// its CPU path). The members exist for the linker; no object can reach them.
#include "core/error.hpp"
#include "kernels/live_view.hpp"
#include "kernels/registry.hpp"

namespace se {

struct GpuLiveRun::State {};

GpuLiveRun::GpuLiveRun(const Method&, const MethodPlan&, const Extent&, const Boundary&, std::span<const double>) {
  throw InputError(gpu_unavailable_reason());
}
GpuLiveRun::~GpuLiveRun() = default;
bool GpuLiveRun::set_stencil(const MethodPlan&) { throw InputError(gpu_unavailable_reason()); }
double GpuLiveRun::advance(int) { throw InputError(gpu_unavailable_reason()); }
double GpuLiveRun::edit(const GridEdit&) { throw InputError(gpu_unavailable_reason()); }
double GpuLiveRun::write_rgba8(cudaArray_t, const ColourMapping&) { throw InputError(gpu_unavailable_reason()); }
double GpuLiveRun::write_r32f(cudaArray_t, int) { throw InputError(gpu_unavailable_reason()); }
std::vector<double> GpuLiveRun::download() { throw InputError(gpu_unavailable_reason()); }
double GpuLiveRun::value_at(std::int64_t, std::int64_t, std::int64_t) { throw InputError(gpu_unavailable_reason()); }
const std::string& GpuLiveRun::method_id() const { throw InputError(gpu_unavailable_reason()); }
int GpuLiveRun::steps_done() const { throw InputError(gpu_unavailable_reason()); }
int GpuLiveRun::fused_steps() const { throw InputError(gpu_unavailable_reason()); }

} // namespace se
