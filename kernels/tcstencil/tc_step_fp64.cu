// TCStencil's FP64 step (mma.m16n8k4): one launch per base step, one block per 64 x 32 outputs. On sm_90 the
// block's region arrives as one TMA box when the tensor map encodes; SE_TCSTENCIL_FP64_TMA=0 takes the cp.async
// kernel that other GPUs run, on the same GPU (the tests run both).
#include <cstdlib>

#include "kernels/common/tensor_map.hpp"
#include "kernels/tcstencil/tc_launch.cuh"

namespace se::tc {
namespace {

bool fp64_tma_wanted() {
  const char* v = std::getenv("SE_TCSTENCIL_FP64_TMA");
  return v == nullptr || std::atoi(v) != 0;
}

// The padded input as a tensor map whose box is a block's staged region (P x ROWS, the padded grid's corner at
// (0, 0)). False when it does not encode.
template <typename G> bool encode_input_map(const PaddedLayout& L, const double* in, CUtensorMap& map) {
  if (L.halo[0] != kHalo || L.halo[1] != kHalo) return false;
  const std::uint64_t dims[2] = {static_cast<std::uint64_t>(L.n[0]) + 2 * kHalo, static_cast<std::uint64_t>(L.n[1]) + 2 * kHalo};
  const std::uint64_t pitch[1] = {static_cast<std::uint64_t>(L.pitch_y) * sizeof(double)};
  const std::uint32_t box[2] = {G::P, G::ROWS};
  return encode_tensor_map(&map, in + L.index(-kHalo, -kHalo, 0), 8, 2, dims, pitch, box);
}

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
    if (fp64_tma_wanted() && encode_input_map<Geometry<double, R>>(a.layout, in, map))
      launch<R, STAR, true>(a, in, out, map, stream);
    else
      launch<R, STAR, false>(a, in, out, map, stream);
  });
}

} // namespace se::tc
