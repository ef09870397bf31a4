// The cube-symmetric radius-1 3D kernel (tb_3d_sym.cuh) for double storage, depths 1..3, both boundaries; one file
// per precision so the two compile in parallel. Also device_is_h100 (declared in step_common.cuh), which picks the planes-per-block table's
// H100 entries (tb_3d_sym.cuh) and the star kernel's points per thread (step_3d_star.cu).
#include "kernels/cuda_core/tb_3d_sym.cuh"
#include "kernels/device.hpp"

namespace se {

bool device_is_h100() {
  static const bool h100 = [] {
    int device = 0;
    SE_CUDA_CHECK(cudaGetDevice(&device));
    return query_device(device).name.find("H100") != std::string::npos;
  }();
  return h100;
}

} // namespace se

namespace se {

template bool launch_tb_3d_sym<double>(const TbLaunch&, const double*, double*, const PaddedLayout&, const std::vector<double>&,
                                   cudaStream_t);

} // namespace se
