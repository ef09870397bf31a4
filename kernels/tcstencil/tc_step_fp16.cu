// TCStencil's FP16 step (mma.m16n8k16, FP32 accumulate): one launch per base step, one block per 128 x 16*TY
// outputs (TY = 8 up to radius 2, else 4; tc_kernel.cuh). On sm_90 the block's region arrives as one TMA box and
// each warp's outputs leave as one TMA store when both tensor maps encode; SE_TCSTENCIL_FP16_TMA=0 takes the
// cp.async and lane-store kernel that other GPUs run, on the same GPU (the tests run both).
#include <cstdlib>

#include "kernels/common/tensor_map.hpp"
#include "kernels/tcstencil/tc_launch.cuh"

namespace se::tc {
namespace {

bool fp16_tma_wanted() {
  const char* v = std::getenv("SE_TCSTENCIL_FP16_TMA");
  return v == nullptr || std::atoi(v) != 0;
}

// The padded input as a tensor map whose box is a block's staged region (P x ROWS, the padded grid's corner at
// (0, 0)), and the output's interior with a box of one warp's strip (16 x BY). False when either does not encode.
template <typename G> bool encode_maps(const PaddedLayout& L, const __half* in, __half* out, CUtensorMap& in_map, CUtensorMap& out_map) {
  if (L.halo[0] != kHalo || L.halo[1] != kHalo) return false;
  const std::uint64_t nx = static_cast<std::uint64_t>(L.n[0]), ny = static_cast<std::uint64_t>(L.n[1]);
  const std::uint64_t pitch[1] = {static_cast<std::uint64_t>(L.pitch_y) * sizeof(__half)};
  const std::uint64_t in_dims[2] = {nx + 2 * kHalo, ny + 2 * kHalo}, out_dims[2] = {nx, ny};
  const std::uint32_t in_box[2] = {G::P, G::ROWS}, out_box[2] = {16, G::BY};
  return encode_tensor_map(&in_map, in + L.index(-kHalo, -kHalo, 0), 2, 2, in_dims, pitch, in_box) &&
         encode_tensor_map(&out_map, out + L.index(0, 0, 0), 2, 2, out_dims, pitch, out_box);
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

} // namespace

void launch_step_fp16(const StepArgs& a, const __half* in, __half* out, cudaStream_t stream) {
  dispatch(a.radius, a.star, [&]<int R, bool STAR>() {
    using G = Geometry<__half, R, fp16_tile_rows<R>()>;
    CUtensorMap in_map{}, out_map{};
    if (fp16_tma_wanted() && encode_maps<G>(a.layout, in, out, in_map, out_map))
      launch<R, STAR, true>(a, in, out, in_map, out_map, stream);
    else
      launch<R, STAR, false>(a, in, out, in_map, out_map, stream);
  });
}

} // namespace se::tc
