// The host side of TCStencil's launches, shared by the FP16 and FP64 files: the radius and the decomposition as
// template parameters, the shared-memory opt-in and the occupancy each instantiation asks once.
#pragma once
#include <algorithm>

#include "core/error.hpp"
#include "kernels/common/cuda_check.hpp"
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

// Opts `kernel` into `shared` bytes of dynamic shared memory; returns how many blocks the whole device holds at once.
template <typename K> int prepare_kernel(K kernel, int threads, std::size_t shared) {
  SE_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
  int per_sm = 0, device = 0, sms = 0;
  SE_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, shared));
  SE_CUDA_CHECK(cudaGetDevice(&device));
  SE_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return std::max(1, per_sm * sms);
}

template <typename S> std::size_t shared_bytes_for(int radius, bool star) {
  std::size_t out = 0;
  dispatch(radius, star, [&]<int R, bool STAR>() { out = shared_bytes<S, R>(STAR); });
  return out;
}

} // namespace se::tc
