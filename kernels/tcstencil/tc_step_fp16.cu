// TCStencil's FP16 step (mma.m16n8k16, FP32 accumulate): one launch per base step, one block per 128 x 16*TY
// outputs. SE_TCSTENCIL_FP16_CONFIG picks the block shape and store path for radius 1 and 2 (the configurations
// timed against each other on an H200 in notes/tcstencil-gpu.md): 0 = 128x64 blocks, 4-byte stores from the
// accumulators; 1 = 128x64 blocks, 16-byte stores through shared memory; 2 (default, the fastest of the three for
// all four stencils timed) = 128x128 blocks, 16-byte stores. Radius 3 and up always takes 1.
#include <cstdlib>

#include "kernels/tcstencil/tc_launch.cuh"

namespace se::tc {
namespace {

int fp16_config() {
  const char* v = std::getenv("SE_TCSTENCIL_FP16_CONFIG");
  const int c = v ? std::atoi(v) : 2;
  return c >= 0 && c <= 2 ? c : 2;
}

template <int R, bool STAR, int TY, bool STAGED> void launch(const StepArgs& a, const __half* in, __half* out, cudaStream_t stream) {
  using G = Geometry<__half, R, TY>;
  const auto kernel = step_fp16<R, STAR, TY, STAGED>;
  const std::size_t shared = shared_bytes<__half, R, TY>(STAR, STAGED);
  static const bool opted = opt_in_shared(kernel, shared);
  (void)opted;
  launch_blocks<G>(kernel, shared, a, in, out, stream);
}

} // namespace

void launch_step_fp16(const StepArgs& a, const __half* in, __half* out, cudaStream_t stream) {
  dispatch(a.radius, a.star, [&]<int R, bool STAR>() {
    if constexpr (R <= 2) {
      switch (fp16_config()) {
      case 0: return launch<R, STAR, 4, false>(a, in, out, stream);
      case 1: return launch<R, STAR, 4, true>(a, in, out, stream);
      default: return launch<R, STAR, 8, true>(a, in, out, stream);
      }
    } else {
      launch<R, STAR, 4, true>(a, in, out, stream);
    }
  });
}

} // namespace se::tc
