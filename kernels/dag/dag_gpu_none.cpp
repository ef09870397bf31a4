// A build without CUDA: the GPU strategies say why they cannot run.
#include "kernels/dag/dag_gpu.hpp"

namespace se::dag {

std::string gpu_strategies_unavailable_reason() { return "this build has no CUDA support"; }

std::string nvrtc_unavailable_reason_for_dag() { return "this build has no CUDA support"; }

std::size_t compile_only(const GeneratedCode&, int, int) {
  throw InputError("NVRTC: this build has no CUDA support");
}

std::vector<char> compile_to_cubin(const GeneratedCode&, int, int) {
  throw InputError("NVRTC: this build has no CUDA support");
}

std::vector<KernelResources> ptxas_resources(const std::string&, int, int) {
  throw InputError("NVRTC: this build has no CUDA support");
}

GpuTiming run_gpu(const Program&, Strategy, const State&, State&, double, int) {
  throw InputError("the GPU strategies need a CUDA build; this build has no CUDA support");
}

} // namespace se::dag
