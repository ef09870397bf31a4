// TCStencil's FP16 step (mma.m16n8k16, FP32 accumulate): one launch per base step, one block per 128 x 16*TY
// outputs (TY = 8 up to radius 2, else 4; tc_kernel.cuh), and for stars of radius 1-2 on sm_90 two base steps per
// launch (step2_fp16; SE_TCSTENCIL_FUSE=1 makes the stepper take one step per launch instead). On sm_90 the
// block's region arrives as one TMA box and each warp's outputs leave as one TMA store when both tensor maps
// encode; SE_TCSTENCIL_FP16_TMA=0 takes the
// cp.async and lane-store kernel that other GPUs run, on the same GPU (the tests run both).
#include "core/tcstencil/tcstencil_method.hpp"
#include "kernels/tcstencil/tc_launch.cuh"

namespace se::tc {
namespace {

// The output's interior as a tensor map with a box of one warp's strip (16 x `rows`). False when it does not encode.
bool encode_strip_map(const PaddedLayout& L, __half* out, std::uint32_t rows, CUtensorMap& out_map) {
  const std::uint64_t dims[2] = {static_cast<std::uint64_t>(L.n[0]), static_cast<std::uint64_t>(L.n[1])};
  const std::uint64_t pitch[1] = {static_cast<std::uint64_t>(L.pitch_y) * sizeof(__half)};
  const std::uint32_t box[2] = {16, rows};
  return encode_tensor_map(&out_map, out + L.index(0, 0, 0), 2, 2, dims, pitch, box);
}

// The input's region map (encode_region_map) and the output's strip map. False when either does not encode.
template <typename G> bool encode_maps(const PaddedLayout& L, const __half* in, __half* out, CUtensorMap& in_map, CUtensorMap& out_map) {
  return encode_region_map<G>(L, in, in_map) && encode_strip_map(L, out, G::BY, out_map);
}

template <int R, bool STAR, bool TMA>
void launch(const StepArgs& a, const __half* in, __half* out, const CUtensorMap& in_map, const CUtensorMap& out_map,
            cudaStream_t stream) {
  using G = Geometry<__half, R, fp16_tile_rows<R>()>;
  const auto kernel = step_fp16<R, STAR, TMA>;
  const std::size_t shared = Fp16Smem<R, fp16_tile_rows<R>()>::bytes(TMA);
  static const bool opted = opt_in_shared(kernel, shared);
  (void)opted;
  launch_blocks<G>(kernel, shared, a, stream, in, out, in_map, out_map);
}

template <int R> bool launch2(const StepArgs& a, const __half* in, __half* out, cudaStream_t stream) {
  using F = Fused2Geometry<R>;
  static_assert(F::TY == kFusedBlockTiles && F::BX == 16 * kFusedBlockTiles, "core's cost model counts this block");
  CUtensorMap in_map{}, out_map{};
  if (!encode_padded_map(a.layout, in, F::IP, F::IN_ROWS, in_map) || !encode_strip_map(a.layout, out, F::BY, out_map))
    return false;
  const auto kernel = step2_fp16<R>;
  static const bool opted = opt_in_shared(kernel, F::BYTES);
  (void)opted;
  launch_blocks<F>(kernel, F::BYTES, a, stream, out, in_map, out_map);
  return true;
}

} // namespace

bool launch_step2_fp16(const StepArgs& a, const __half* in, __half* out, cudaStream_t stream) {
  if (a.line != 0 || !a.star || !tma_wanted("SE_TCSTENCIL_FP16_TMA")) return false;
  switch (std::max(1, a.radius)) {
  case 1: return launch2<1>(a, in, out, stream);
  case 2: return launch2<2>(a, in, out, stream);
  default: return false;
  }
}

void launch_step_fp16(const StepArgs& a, const __half* in, __half* out, cudaStream_t stream) {
  dispatch(a.radius, a.star, [&]<int R, bool STAR>() {
    using G = Geometry<__half, R, fp16_tile_rows<R>()>;
    CUtensorMap in_map{}, out_map{};
    if (a.line == 0 && tma_wanted("SE_TCSTENCIL_FP16_TMA") && encode_maps<G>(a.layout, in, out, in_map, out_map))
      launch<R, STAR, true>(a, in, out, in_map, out_map, stream);
    else
      launch<R, STAR, false>(a, in, out, in_map, out_map, stream);
  });
}

} // namespace se::tc
