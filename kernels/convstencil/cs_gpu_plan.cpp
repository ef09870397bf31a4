#include "kernels/convstencil/cs_gpu_plan.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace se::conv_gpu {

CsBlockShape block_shape(const ConvStencilPlan& p, const Extent& e, bool twice) {
  const int k = p.k, dims = p.stencil.dims, R = p.fused.radius, U = p.segment;
  CsBlockShape s;
  s.rows_per_warp = cs_rows_per_warp(k, dims);
  s.warps_y = cs_warps_y(k, dims);
  s.warps_z = cs_warps_z(k, dims);
  s.chunks = (k + 3) / 4;
  s.n_tiles = (U + 7) / 8;
  const int kr = dims >= 2 ? k : 1, kp = dims == 3 ? k : 1;
  s.kernel_fragments = kp * kr * 2 * s.chunks * s.n_tiles;
  s.kernel_in_registers = s.kernel_fragments <= 32;
  s.row_doubles = kSegmentsPerWarp * 8 * s.chunks;
  const int by = s.rows_per_warp * s.warps_y, bz = s.warps_z;
  s.in_rows = dims >= 2 ? by + 2 * R : by;
  s.in_planes = dims == 3 ? bz + 2 * R : 1;
  s.shared_bytes = static_cast<std::size_t>(s.in_planes) * s.in_rows * s.row_doubles * sizeof(double) +
                   (s.kernel_in_registers ? 0 : static_cast<std::size_t>(s.kernel_fragments) * 32 * sizeof(double)) +
                   static_cast<std::size_t>(s.row_doubles) * sizeof(int);
  const long long tw = static_cast<long long>(kSegmentsPerWarp) * U;
  s.twice = twice && dims == 1;
  if (s.twice) s.shared_bytes += static_cast<std::size_t>(by * tw) * sizeof(double);
  if (dims == 1) {
    const long long strips = s.twice ? by - 1 : by;
    s.tiles_x = (e.n[0] + strips * tw - 1) / (strips * tw);
  } else {
    s.tiles_x = (e.n[0] + tw - 1) / tw;
    s.tiles_y = (e.n[1] + by - 1) / by;
    if (dims == 3) s.tiles_z = (e.n[2] + bz - 1) / bz;
  }
  return s;
}

std::vector<int> stencil2row_table(const ConvStencilPlan& p) {
  const int k = p.k, U = p.segment, CH = (k + 3) / 4, E = 2 * CH, SS = 8 * CH;
  const Stencil2RowLayout& l = p.layout;
  // The plan's lookup tables, inverted: (matrix, segment, offset) -> input column.
  const auto column_of = [&](int matrix, int segment, int offset) {
    for (int c = 0; c < l.input_columns; ++c) {
      const auto u = static_cast<std::size_t>(c);
      const int seg = matrix == 0 ? l.a_segment[u] : l.b_segment[u];
      const int off = matrix == 0 ? l.a_offset[u] : l.b_offset[u];
      if (seg == segment % l.segments && off == offset) return c + (segment / l.segments) * l.segments * U;
    }
    throw std::logic_error("ConvStencil GPU: the plan's stencil2row layout misses a column");
  };
  std::vector<int> table(static_cast<std::size_t>(kSegmentsPerWarp * SS), -1);
  for (int s = 0; s < kSegmentsPerWarp; ++s)
    for (int e = 0; e < E; ++e)
      for (int q = 0; q < 4; ++q) {
        const int j = 4 * (e % CH) + q;
        if (j < k)
          table[static_cast<std::size_t>(s * SS + 4 * cs_swizzle(s, e, CH) + q)] = column_of(e / CH, s, j);
      }
  return table;
}

std::vector<double> kernel_fragments(const ConvStencilPlan& p) {
  const int k = p.k, dims = p.stencil.dims, CH = (k + 3) / 4, E = 2 * CH, NT = p.n_tiles();
  const int kr = dims >= 2 ? k : 1, kp = dims == 3 ? k : 1;
  std::vector<double> f;
  f.reserve(static_cast<std::size_t>(kp * kr * E * NT * 32));
  for (int pz = 0; pz < kp; ++pz) {
    const DualTessellationKernels& kern = p.kernels[static_cast<std::size_t>(pz)];
    for (int i = 0; i < kr; ++i)
      for (int e = 0; e < E; ++e)
        for (int nt = 0; nt < NT; ++nt)
          for (int lane = 0; lane < 32; ++lane) {
            const int g = lane >> 2, q = lane & 3, j = 4 * (e % CH) + q;
            const std::vector<double>& m = e < CH ? kern.kernel_a : kern.kernel_b;
            f.push_back(j < k ? m[static_cast<std::size_t>((i * k + j) * p.n_padded + 8 * nt + g)] : 0.0);
          }
  }
  return f;
}

std::string unsupported_reason(const ConvStencilPlan& p) {
  const int dims = p.stencil.dims;
  if (p.k > cs_max_k(dims))
    return fmt::format("the ConvStencil GPU kernel takes fused kernels up to {0} wide in {1}D; W^{2} of this stencil is "
                       "{3} wide (fuse fewer steps)", cs_max_k(dims), dims, p.fused_steps, p.k);
  const CsBlockShape s = block_shape(p, Extent{});
  if (s.shared_bytes > kSharedPerBlock)
    return fmt::format("a ConvStencil block for a {}-wide kernel in {}D needs {} KB of shared memory, more than a GPU "
                       "gives one block", p.k, dims, s.shared_bytes / 1024);
  return {};
}

} // namespace se::conv_gpu
