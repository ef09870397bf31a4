// What the single-step kernels share: weights passed by value as a kernel parameter (constant bank,
// so each compile-time-indexed weight is an instruction operand), and the radius dispatch.
#pragma once
#include <cuda_pipeline_primitives.h>

#include <vector>

#include "core/error.hpp"
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/device_grid.hpp"

namespace se {

constexpr int kMaxKernelRadius = 7;

template <typename C, int N> struct KernelWeights {
  C w[N];
};

template <typename C, int N> KernelWeights<C, N> kernel_weights(const std::vector<double>& dense) {
  if (dense.size() != static_cast<std::size_t>(N)) throw InputError("kernel weights: wrong number of weights");
  KernelWeights<C, N> k{};
  for (int i = 0; i < N; ++i) k.w[i] = static_cast<C>(dense[static_cast<std::size_t>(i)]);
  return k;
}

// Calls f(std::integral_constant<int, R>) for the run-time radius 1..7.
template <typename F> void dispatch_radius(int radius, F&& f) {
  switch (radius) {
  case 1: f(std::integral_constant<int, 1>()); break;
  case 2: f(std::integral_constant<int, 2>()); break;
  case 3: f(std::integral_constant<int, 3>()); break;
  case 4: f(std::integral_constant<int, 4>()); break;
  case 5: f(std::integral_constant<int, 5>()); break;
  case 6: f(std::integral_constant<int, 6>()); break;
  case 7: f(std::integral_constant<int, 7>()); break;
  default: throw InputError("the CUDA-core kernels take radius 1 to 7 (radius 0 runs as radius 1)");
  }
}

// Elements per 16-byte chunk, and a staged row's left offset: the halo widened to a whole chunk so that every
// fetch of a row is an aligned 16-byte cp.async (the padded layout aligns rows and the interior to 128 bytes).
// 16-byte copies keep far more bytes in flight per thread than element copies (measured: notes/gpu.md).
template <typename S> constexpr int kChunk = static_cast<int>(16 / sizeof(S));
template <typename S, int R> constexpr int kLeft = (R + kChunk<S> - 1) / kChunk<S> * kChunk<S>;

// The three storage types every single-step launcher is compiled for.
#define SE_INSTANTIATE_STEP_LAUNCHER(launcher)                                                                  \
  template void launcher<double>(int, const double*, double*, const PaddedLayout&, bool, const std::vector<double>&, \
                                 cudaStream_t);                                                                 \
  template void launcher<float>(int, const float*, float*, const PaddedLayout&, bool, const std::vector<double>&,    \
                                cudaStream_t);                                                                  \
  template void launcher<__half>(int, const __half*, __half*, const PaddedLayout&, bool, const std::vector<double>&, \
                                 cudaStream_t);

inline unsigned grid_blocks(std::int64_t extent, std::int64_t tile) {
  return static_cast<unsigned>((extent + tile - 1) / tile);
}

} // namespace se
