// cuda-core-tb's 2D kernels for double storage (tb_2d.cuh), star and box variants at every radius 1..7; one file
// per precision so the two compile in parallel.
#include "kernels/cuda_core/tb_2d.cuh"

namespace se {

template void launch_tb_2d<double>(const TbLaunch&, const double*, double*, const PaddedLayout&, const std::vector<double>&,
                               cudaStream_t);

} // namespace se
