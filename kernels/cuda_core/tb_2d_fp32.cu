// cuda-core-tb's 2D kernels for float storage (tb_2d.cuh), star and box variants at every radius 1..7; one file
// per precision so the two compile in parallel.
#include "kernels/cuda_core/tb_2d.cuh"

namespace se {

template void launch_tb_2d<float>(const TbLaunch&, const float*, float*, const PaddedLayout&, const std::vector<double>&,
                               cudaStream_t);

} // namespace se
