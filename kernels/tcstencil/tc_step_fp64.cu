// TCStencil's FP64 step (mma.m16n8k4): one launch per base step, one block per 64 x 32 outputs.
#include "kernels/tcstencil/tc_launch.cuh"

namespace se::tc {

std::size_t step_shared_bytes_fp64(int radius, bool star) { return shared_bytes_for<double>(radius, star); }

void launch_step_fp64(const StepArgs& a, const double* in, double* out, cudaStream_t stream) {
  dispatch(a.radius, a.star, [&]<int R, bool STAR>() {
    using G = Geometry<double, R>;
    const auto kernel = step_fp64<R, STAR>;
    const std::size_t shared = shared_bytes<double, R>(STAR);
    static const int resident = prepare_kernel(kernel, G::THREADS, shared);
    (void)resident;
    const dim3 grid(static_cast<unsigned>((a.layout.n[0] + G::BX - 1) / G::BX),
                    static_cast<unsigned>((a.layout.n[1] + G::BY - 1) / G::BY));
    kernel<<<grid, G::THREADS, shared, stream>>>(a, in, out);
    SE_CUDA_CHECK(cudaGetLastError());
  });
}

} // namespace se::tc
