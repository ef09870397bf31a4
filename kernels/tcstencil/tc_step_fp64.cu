// TCStencil's FP64 step (mma.m16n8k4): one launch per base step, one block per 64 x 32 outputs. On sm_90 the
// block's region arrives as one TMA box when the tensor map encodes; SE_TCSTENCIL_FP64_TMA=0 takes the cp.async
// kernel that other GPUs run, on the same GPU (the tests run both).
#include "kernels/tcstencil/tc_launch.cuh"

namespace se::tc {
namespace {

template <int R, bool STAR, bool TMA>
void launch(const StepArgs& a, const double* in, double* out, const CUtensorMap& map, cudaStream_t stream) {
  using G = Geometry<double, R>;
  const auto kernel = step_fp64<R, STAR, TMA>;
  const std::size_t shared = shared_bytes_fp64<R>(STAR);
  static const bool opted = opt_in_shared(kernel, shared);
  (void)opted;
  launch_blocks<G>(kernel, shared, a, stream, in, out, map);
}

} // namespace

void launch_step_fp64(const StepArgs& a, const double* in, double* out, cudaStream_t stream) {
  dispatch(a.radius, a.star, [&]<int R, bool STAR>() {
    CUtensorMap map{};
    if (a.line == 0 && tma_wanted("SE_TCSTENCIL_FP64_TMA") && encode_region_map<Geometry<double, R>>(a.layout, in, map))
      launch<R, STAR, true>(a, in, out, map, stream);
    else
      launch<R, STAR, false>(a, in, out, map, stream);
  });
}

} // namespace se::tc
