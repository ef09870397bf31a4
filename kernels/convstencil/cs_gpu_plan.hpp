// From core's ConvStencil plan to what the GPU pass needs (plain C++, testable without a GPU): the block shape,
// the stencil2row lookup table of one warp tile's shared-memory row, and the triangular kernel matrices as
// lane-ordered mma.m16n8k4 B fragments.
#pragma once
#include <string>
#include <vector>

#include "core/convstencil/convstencil_plan.hpp"
#include "core/grid.hpp"
#include "kernels/convstencil/cs_pass_args.hpp"

namespace se::conv_gpu {

// Shared memory an H100/H200 block may opt into.
constexpr std::size_t kSharedPerBlock = 227 * 1024;

// twice (1D only): the block shape of two passes per launch.
CsBlockShape block_shape(const ConvStencilPlan& plan, const Extent& extent, bool twice = false);

// Slot p of a tile row (16 segments x 8 * chunks doubles, swizzled) -> the input column of the tile it holds,
// -1 for a zero pad. Built from the plan's Stencil2RowLayout (its 8 segments, repeated for segments 8-15).
std::vector<int> stencil2row_table(const ConvStencilPlan& plan);

// B fragments [plane][kernel row][A chunks, then B chunks][n-tile][lane]: lane 4g + q holds
// kernel_{a|b}[(i k + 4c + q)][8 nt + g] of the plan, zero where 4c + q >= k (the kernel rows are padded to
// 4-wide chunks one by one, so that a fragment of one input row serves every kernel row).
std::vector<double> kernel_fragments(const ConvStencilPlan& plan);

// Why the GPU kernel cannot run this plan ("" when it can): the fused width or the shared memory.
std::string unsupported_reason(const ConvStencilPlan& plan);

} // namespace se::conv_gpu
