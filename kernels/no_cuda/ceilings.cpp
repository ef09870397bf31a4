// Builds without nvcc have no device whose ceilings could be measured.
#include "core/error.hpp"
#include "kernels/common/ceilings.hpp"

namespace se {

DeviceCeilings measure_device_ceilings(int, bool) {
  throw InputError("no CUDA device: " + query_device().reason);
}

double measure_mma_grid_tflops(int, int, bool, int) { throw InputError("no CUDA device: " + query_device().reason); }

std::vector<SustainedWindow> measure_sustained_mma(double, double, const std::string&) {
  throw InputError("no CUDA device: " + query_device().reason);
}

} // namespace se
