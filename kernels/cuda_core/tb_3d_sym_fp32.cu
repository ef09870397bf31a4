// The cube-symmetric radius-1 3D kernel (tb_3d_sym.cuh) for float storage, depths 1..3, both boundaries; one file
// per precision so the two compile in parallel.
#include "kernels/cuda_core/tb_3d_sym.cuh"

namespace se {

template bool launch_tb_3d_sym<float>(const TbLaunch&, const float*, float*, const PaddedLayout&, const std::vector<double>&,
                                   cudaStream_t);

} // namespace se
