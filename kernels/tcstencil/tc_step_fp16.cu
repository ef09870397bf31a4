// TCStencil's FP16 step (mma.m16n8k16, FP32 accumulate): one launch per base step. The grid holds one wave of
// blocks; each streams its 128-column strip down an equal share of the tile rows. SE_TCSTENCIL_CHUNKS_PER_BLOCK
// (tile rows per block) overrides the share, so that small grids also wrap the ring (tests, sanitizers).
#include <cstdlib>

#include "kernels/tcstencil/tc_launch.cuh"

namespace se::tc {

std::size_t step_shared_bytes_fp16(int radius, bool star) { return shared_bytes_for<__half>(radius, star); }

void launch_step_fp16(const StepArgs& a, const __half* in, __half* out, cudaStream_t stream) {
  dispatch(a.radius, a.star, [&]<int R, bool STAR>() {
    using G = Geometry<__half, R>;
    const auto kernel = step_fp16<R, STAR>;
    const std::size_t shared = shared_bytes<__half, R>(STAR);
    static const int resident = prepare_kernel(kernel, G::THREADS, shared);
    const std::int64_t strips = (a.layout.n[0] + G::BX - 1) / G::BX, chunks = (a.layout.n[1] + 15) / 16;
    const std::int64_t columns = std::max<std::int64_t>(1, resident / strips); // blocks down each strip
    std::int64_t per_block = (chunks + columns - 1) / columns;
    if (const char* forced = std::getenv("SE_TCSTENCIL_CHUNKS_PER_BLOCK"); forced && std::atoi(forced) > 0)
      per_block = std::atoi(forced);
    const dim3 grid(static_cast<unsigned>(strips), static_cast<unsigned>((chunks + per_block - 1) / per_block));
    kernel<<<grid, G::THREADS, shared, stream>>>(a, static_cast<int>(per_block), in, out);
    SE_CUDA_CHECK(cudaGetLastError());
  });
}

} // namespace se::tc
