// TCStencil's FP64 step (mma.m16n8k4): one launch per base step, one block per 64 x 32 outputs.
#include "kernels/tcstencil/tc_launch.cuh"

namespace se::tc {

void launch_step_fp64(const StepArgs& a, const double* in, double* out, cudaStream_t stream) {
  dispatch(a.radius, a.star, [&]<int R, bool STAR>() {
    using G = Geometry<double, R>;
    const auto kernel = step_fp64<R, STAR>;
    const std::size_t shared = shared_bytes_fp64<R>(STAR);
    static const bool opted = opt_in_shared(kernel, shared);
    (void)opted;
    launch_blocks<G>(kernel, shared, a, stream, in, out);
  });
}

} // namespace se::tc
