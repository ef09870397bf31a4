// A build without CUDA: the labeller says why it cannot run.
#include "kernels/dag/dag_label.hpp"

#include "core/error.hpp"

namespace se::dag {

std::string label_programs(const std::vector<Program>&, const LabelOptions&,
                           const std::function<void(std::size_t, std::size_t, const LabelTiming&)>&) {
  throw InputError("the labeller times the GPU strategies: it needs a CUDA build; this build has no CUDA support");
}

std::array<std::vector<KernelResources>, 3> module_resources(const Program&, int, int, int) {
  throw InputError("NVRTC: this build has no CUDA support");
}

} // namespace se::dag
