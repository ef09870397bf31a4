// The 2D CUDA-core step on Dirichlet grids (the kernel is in step_2d.cuh; FP16 at radius 1 to 3 takes the two-column
// kernel of step_2d_half.cu); periodic grids go to step_2d_periodic.cu.
#include "kernels/cuda_core/step_2d.cuh"

namespace se {

template <typename S>
void launch_step_2d(int radius, const S* in, S* out, const PaddedLayout& L, bool periodic,
                    const std::vector<double>& weights, cudaStream_t stream) {
  if constexpr (std::is_same_v<S, __half>)
    if (!periodic && step2d::launch_half_pair(radius, in, out, L, weights, stream)) return;
  if (periodic) step2d::launch_periodic<S>(radius, in, out, L, weights, stream);
  else step2d::launch<S, false>(radius, in, out, L, weights, stream);
}

SE_INSTANTIATE_STEP_LAUNCHER(launch_step_2d)

} // namespace se
