// The 2D CUDA-core step on periodic grids: each store also writes the point's images in the halo.
#include "kernels/cuda_core/step_2d.cuh"

namespace se::step2d {

template <typename S>
void launch_periodic(int radius, const S* in, S* out, const PaddedLayout& L, const std::vector<double>& weights,
                     cudaStream_t stream) {
  launch<S, true>(radius, in, out, L, weights, stream);
}

template void launch_periodic<double>(int, const double*, double*, const PaddedLayout&, const std::vector<double>&,
                                      cudaStream_t);
template void launch_periodic<float>(int, const float*, float*, const PaddedLayout&, const std::vector<double>&,
                                     cudaStream_t);
template void launch_periodic<__half>(int, const __half*, __half*, const PaddedLayout&, const std::vector<double>&,
                                      cudaStream_t);

} // namespace se::step2d
