// Launchers of cuda-core-tb's streaming temporal-blocking kernels (core/temporal_blocking_model.hpp describes
// them and picks their depth). Each advances `steps` base steps (1 <= steps <= the model's capacity for the
// radius) from `in` to `out`, both in layout L whose halo is at least halo_columns(capacity, radius).
#pragma once
#include <vector>

#include <cuda_runtime.h>

#include "kernels/common/padded_layout.hpp"

namespace se {

struct TbLaunch {
  int radius = 1;
  bool star = false;        // 2D: non-zero weights on the axes only (the kernel skips the off-axis taps)
  bool periodic = false;
  double boundary = 0.0;    // the Dirichlet value points outside the grid keep at every intermediate step
  int steps = 1;
  int sm_count = 132;       // the grid is sized to fill the device in whole waves
};

template <typename S>
void launch_tb_1d(const TbLaunch& a, const S* in, S* out, const PaddedLayout& L, const std::vector<double>& weights,
                  cudaStream_t stream);
// 3D, radius 1..3, 1 or 2 steps (tb_3d.cu); the layout's halo at least max((T+1) R, A + R rounded to a chunk).
template <typename S>
void launch_tb_3d(const TbLaunch& a, const S* in, S* out, const PaddedLayout& L, const std::vector<double>& weights,
                  cudaStream_t stream);
// 3D, radius 1, weights that depend only on how many offsets are non-zero (tb::cube_symmetric_r1), 1..3 steps (1 in
// FP16) (tb_3d_sym.cuh); the layout's halo at least T in y and z, and its x origin at least 16 bytes (the staged rows
// start one 16-byte chunk left of the grid). Returns false, launching nothing, for any other stencil or depth.
template <typename S>
bool launch_tb_3d_sym(const TbLaunch& a, const S* in, S* out, const PaddedLayout& L, const std::vector<double>& weights,
                      cudaStream_t stream);
template <typename S>
void launch_tb_2d(const TbLaunch& a, const S* in, S* out, const PaddedLayout& L, const std::vector<double>& weights,
                  cudaStream_t stream);
// FP64 and FP32 2D at radius 1..3 with two columns per thread (tb_2d_pair.cu, at the depths of tb::pair_capacity_steps); false, launching nothing,
// where it does not hold the depth or the radius.
template <typename S>
bool launch_tb_2d_pair(const TbLaunch& a, const S* in, S* out, const PaddedLayout& L, const std::vector<double>& weights,
                       cudaStream_t stream);

} // namespace se
