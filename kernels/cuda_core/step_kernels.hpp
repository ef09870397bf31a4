// Launchers of the single-step CUDA-core kernels (one translation unit per dimensionality, each
// instantiated for double, float and __half storage and every kernel radius 1..7).
#pragma once
#include <vector>

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "kernels/common/padded_layout.hpp"

namespace se {

// One base step from `in` to `out` (both in layout L, whose halo is at least `radius`). `weights` is the
// dense (2*radius+1)^dims array in the stencil's order. On a periodic grid the kernel also writes images.
template <typename S>
void launch_step_1d(int radius, const S* in, S* out, const PaddedLayout& L, bool periodic,
                    const std::vector<double>& weights, cudaStream_t stream);
template <typename S>
void launch_step_2d(int radius, const S* in, S* out, const PaddedLayout& L, bool periodic,
                    const std::vector<double>& weights, cudaStream_t stream);
template <typename S>
void launch_step_3d(int radius, const S* in, S* out, const PaddedLayout& L, bool periodic,
                    const std::vector<double>& weights, cudaStream_t stream);

namespace step1d {
// FP16 in 1D on Dirichlet grids (step_1d_half.cu): two points per thread, any radius 1..7. Returns false, launching
// nothing, for a layout whose rows do not start on 16-byte boundaries or a weight count that is not 2 radius + 1.
bool launch_half_pair(int radius, const __half* in, __half* out, const PaddedLayout& L, const std::vector<double>& weights,
                      cudaStream_t stream);
} // namespace step1d

// The 7-point star in 3D (radius 1, weights nonzero only at the centre and the six faces; FP64, FP32 or FP16 storage):
// step_3d_star.cu's per-point kernel. Returns false, launching nothing, for any other weights or a halo below 1.
template <typename S>
bool launch_step_3d_star(const S* in, S* out, const PaddedLayout& L, bool periodic, const std::vector<double>& weights,
                         cudaStream_t stream);

} // namespace se
