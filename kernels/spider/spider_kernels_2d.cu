#include "kernels/spider/spider_kernels.cuh"

namespace se::spider_gpu {
void launch_step_2d(const Tables& t, const KernelArgs& args, cudaStream_t stream) { launch_dims<2>(t, args, stream); }
} // namespace se::spider_gpu
