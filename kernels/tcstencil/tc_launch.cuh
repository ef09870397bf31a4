// The host side of TCStencil's launches, shared by the FP16 and FP64 files: the radius and the decomposition as
// template parameters, the input region's tensor map, the shared-memory opt-in (once per
// instantiation) and the grid of blocks.
#pragma once
#include <algorithm>

#include "core/error.hpp"
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/tensor_map.hpp"
#include "kernels/tcstencil/tc_kernel.cuh"

namespace se::tc {

// Calls f.template operator()<R, STAR>() for the step's radius (at least 1) and decomposition.
template <typename F> void dispatch(int radius, bool star, F&& f) {
  const auto with = [&]<int R>() {
    if (star) f.template operator()<R, true>();
    else f.template operator()<R, false>();
  };
  switch (std::max(1, radius)) {
  case 1: return with.template operator()<1>();
  case 2: return with.template operator()<2>();
  case 3: return with.template operator()<3>();
  case 4: return with.template operator()<4>();
  case 5: return with.template operator()<5>();
  case 6: return with.template operator()<6>();
  case 7: return with.template operator()<7>();
  default: throw InputError("TCStencil's GPU step takes radius 0 to 7 (L = 16 > 2r + 1)");
  }
}

// The padded input as a tensor map with a box of box_x x box_y (the padded grid's corner at (0, 0)); false when it
// does not encode (not sm_90, no driver encoder, a halo other than kHalo). encode_region_map: the box of a
// one-step block's staged region (G::P x G::ROWS, which stage_region loads).
template <typename S>
bool encode_padded_map(const PaddedLayout& L, const S* in, std::uint32_t box_x, std::uint32_t box_y, CUtensorMap& map) {
  if (L.halo[0] != kHalo || L.halo[1] != kHalo) return false;
  const std::uint64_t dims[2] = {static_cast<std::uint64_t>(L.n[0]) + 2 * kHalo,
                                 static_cast<std::uint64_t>(L.n[1]) + 2 * kHalo};
  const std::uint64_t pitch[1] = {static_cast<std::uint64_t>(L.pitch_y) * sizeof(S)};
  const std::uint32_t box[2] = {box_x, box_y};
  return encode_tensor_map(&map, in + L.index(-kHalo, -kHalo, 0), static_cast<int>(sizeof(S)), 2, dims, pitch, box);
}
template <typename G, typename S> bool encode_region_map(const PaddedLayout& L, const S* in, CUtensorMap& map) {
  return encode_padded_map(L, in, G::P, G::ROWS, map);
}

// Opts `kernel` into `shared` bytes of dynamic shared memory (above 48 KB needs it); the callers keep the result in
// a static, so each instantiation asks once.
template <typename K> bool opt_in_shared(K kernel, std::size_t shared) {
  SE_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
  return true;
}

// One block per G::BX x G::BY outputs of the grid, on `stream`, with the step's arguments and the kernel's own
// (the grids, and for the FP16 TMA kernel its tensor maps). The caller opts `kernel` into `shared` bytes once.
template <typename G, typename K, typename... Args>
void launch_blocks(K kernel, std::size_t shared, const StepArgs& a, cudaStream_t stream, const Args&... args) {
  const dim3 grid(static_cast<unsigned>((a.layout.n[0] + G::BX - 1) / G::BX),
                  static_cast<unsigned>((a.layout.n[1] + G::BY - 1) / G::BY));
  kernel<<<grid, G::THREADS, shared, stream>>>(a, args...);
  SE_CUDA_CHECK(cudaGetLastError());
}

} // namespace se::tc
