#include "kernels/spider/spider_kernels.cuh"

namespace se::spider_gpu {
void launch_step_1d(const Tables& t, const KernelArgs& args, cudaStream_t stream) { launch_dims<1>(t, args, stream); }
} // namespace se::spider_gpu
