// What the single-step kernels share: weights passed by value as a kernel parameter (constant bank,
// so each compile-time-indexed weight is an instruction operand), and the radius dispatch.
#pragma once
#include <cuda_pipeline_primitives.h>

#include <type_traits>
#include <utility>
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

// Calls f(std::integral_constant<int, T>) for the run-time depth `steps`, one instantiation per depth 1..kMax (nothing
// for a depth outside them: the callers check the range first).
template <int kMax, typename F> void dispatch_depth(int steps, F&& f) {
  [&]<int... kIndex>(std::integer_sequence<int, kIndex...>) {
    ((steps == kIndex + 1 ? f(std::integral_constant<int, kIndex + 1>()) : void()), ...);
  }(std::make_integer_sequence<int, kMax>());
}

// Elements per 16-byte chunk, and a staged row's left offset: the halo widened to a whole chunk so that every
// fetch of a row is an aligned 16-byte cp.async (the padded layout aligns rows and the interior to 128 bytes).
// 16-byte copies keep far more bytes in flight per thread than element copies (measured: notes/gpu.md).
template <typename S> constexpr int kChunk = static_cast<int>(16 / sizeof(S));
template <typename S, int R> constexpr int kLeft = (R + kChunk<S> - 1) / kChunk<S> * kChunk<S>;

#if defined(__CUDACC__)
// 16-byte chunks of the padded row from column x_first (a multiple of kChunk<S>, as every staged row's first
// column is) to the row's end: chunks past it would read the next row, and feed no output.
template <typename S> __device__ inline std::int64_t chunks_to_row_end(const PaddedLayout& L, std::int64_t x_first) {
  return (L.pitch_y - L.origin[0] - x_first) / kChunk<S>;
}

// Stages kH rows of kW elements, from `base` (rows `pitch` apart in device memory) into `dst` (rows kW apart), as
// 16-byte cp.async chunks spread over `threads` threads: consecutive threads take consecutive chunks of a row, so
// a warp reads contiguous runs. Rows from rows_left on (past the padding) and chunks from chunks_left on are
// not fetched. The caller commits the group.
template <typename S, int kW, int kH>
__device__ inline void stage_rows_async(S* dst, const S* base, std::int64_t pitch, std::int64_t rows_left,
                                        std::int64_t chunks_left, int tid, int threads) {
  constexpr int kChunks = kW / kChunk<S>;
  for (int i = tid; i < kH * kChunks; i += threads) {
    const int r = i / kChunks, c = i - r * kChunks;
    if (r < rows_left && c < chunks_left)
      __pipeline_memcpy_async(dst + r * kW + c * kChunk<S>, base + r * pitch + c * kChunk<S>, 16);
  }
}
// The two-row 3D kernels' work on one staged plane (step_3d.cu, tb_3d.cu): the 2R + 2 plane rows from `plane`
// (rows kW apart; plane[0] is the upper-left neighbour of the thread's first output) turned into, per weight plane
// dz, the partial sums of the thread's two output rows: each loaded row feeds both.
template <typename S, typename C, int R, int kW>
__device__ inline void two_row_plane_parts(const S* plane,
                                           const KernelWeights<C, (2 * R + 1) * (2 * R + 1) * (2 * R + 1)>& w,
                                           C (&part0)[2 * R + 1], C (&part1)[2 * R + 1]) {
  constexpr int kSide = 2 * R + 1;
#pragma unroll
  for (int dz = 0; dz < kSide; ++dz) part0[dz] = part1[dz] = C(0);
#pragma unroll(R <= 2 ? kSide + 1 : 1)
  for (int r = 0; r < kSide + 1; ++r) { // plane row r: weight row r for output row 0, r - 1 for output row 1
    C v[kSide];
#pragma unroll
    for (int dx = 0; dx < kSide; ++dx) v[dx] = load_as<C>(plane[r * kW + dx]);
    if (r < kSide) {
#pragma unroll
      for (int dz = 0; dz < kSide; ++dz)
#pragma unroll
        for (int dx = 0; dx < kSide; ++dx) part0[dz] = fma(w.w[(dz * kSide + r) * kSide + dx], v[dx], part0[dz]);
    }
    if (r > 0) {
#pragma unroll
      for (int dz = 0; dz < kSide; ++dz)
#pragma unroll
        for (int dx = 0; dx < kSide; ++dx) part1[dz] = fma(w.w[(dz * kSide + r - 1) * kSide + dx], v[dx], part1[dz]);
    }
  }
}
#endif

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

// Whether the current device's name names an H100 (asked once per process; tb_3d_sym_fp64.cu): the 3D kernels'
// per-GPU choices, measured on an H100 and an H200 (the cube-symmetric kernel's planes per block, the star kernel's
// points per thread).
bool device_is_h100();

} // namespace se
