// The ConvStencil emulation. A tile is 8 segments wide (the m of m8n8k4) and spans every row of the grid; per
// input plane its stencil2row matrices A and B are filled through the plan's lookup tables (the paper fills
// shared memory the same way), then each output row runs ceil(K/4) MMAs on A and as many on B per kernel
// plane, accumulating in the same fragments, and stores the 8 x U outputs.
#include "core/convstencil/convstencil_emulation.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/fragment/mma_emulation.hpp"
#include "core/common/emulation_checks.hpp"
#include "core/common/halo_padding.hpp"

namespace se {
namespace {

constexpr MmaShape kShape = MmaShape::M8N8K4_F64;

void check_run(const Stencil& s, const Extent& extent, const std::vector<double>& values) {
  check_stencil_grid(s, extent);
  check_value_count("ConvStencil", extent, values.size());
}

// The kernel matrices as B fragments, loaded once (the paper keeps them in registers): [plane][matrix][chunk][n-tile].
std::vector<WarpFragment<double>> kernel_fragments(const ConvStencilPlan& p) {
  std::vector<WarpFragment<double>> f;
  for (const auto& kern : p.kernels)
    for (const std::vector<double>* m : {&kern.kernel_a, &kern.kernel_b})
      for (int c = 0; c < p.chunks(); ++c)
        for (int nt = 0; nt < p.n_tiles(); ++nt)
          f.push_back(load_fragment(kShape, Operand::B, m->data() + (4 * c) * p.n_padded + 8 * nt, p.n_padded));
  return f;
}

} // namespace

void convstencil_pass(const ConvStencilPlan& p, const Extent& extent, std::vector<double>& values,
                      const Boundary& boundary) {
  check_run(p.stencil, extent, values);
  const std::int64_t R = p.fused.radius, Ry = extent.dims >= 2 ? R : 0, Rz = extent.dims >= 3 ? R : 0;
  const std::int64_t nx = extent.n[0], ny = extent.n[1], nz = extent.n[2];
  const int U = p.segment, k = p.k, tile_outputs = p.outputs_per_tile_row();
  const std::int64_t tiles = (nx + tile_outputs - 1) / tile_outputs;
  const std::int64_t rows_in = ny + 2 * Ry, planes_in = nz + 2 * Rz;
  const PaddedGrid<double> in = pad_with_halo<double>(extent, values, {R, Ry, Rz}, {tiles * tile_outputs + 2 * R, 1, 1},
                                                      boundary);
  const std::vector<WarpFragment<double>> kernels = kernel_fragments(p);
  const int per_matrix = p.chunks() * p.n_tiles();
  // A row of a stencil2row matrix: k columns per input row, and zeros past the last row for the last chunk.
  const int ld = static_cast<int>(rows_in * k + (p.k_padded - p.k_columns));
  const std::size_t matrix_size = static_cast<std::size_t>(p.layout.segments) * static_cast<std::size_t>(ld);
  std::vector<double> s2r(static_cast<std::size_t>(planes_in) * 2 * matrix_size);
  const std::vector<double> zeros(static_cast<std::size_t>(8 * p.n_padded), 0.0);
  std::vector<double> out(static_cast<std::size_t>(8 * p.n_padded));
  const Stencil2RowLayout& l = p.layout;
  std::vector<double> next(values.size());

  for (std::int64_t tile = 0; tile < tiles; ++tile) {
    const std::int64_t x0 = tile * tile_outputs; // padded column where the tile's first window starts
    std::fill(s2r.begin(), s2r.end(), 0.0);
    for (std::int64_t z = 0; z < planes_in; ++z) {
      double* a = s2r.data() + static_cast<std::size_t>(z) * 2 * matrix_size;
      double* b = a + matrix_size;
      for (std::int64_t i = 0; i < rows_in; ++i) {
        const double* row = in.at(x0, i, z);
        for (int c = 0; c < l.input_columns; ++c) {
          const auto u = static_cast<std::size_t>(c);
          if (l.a_segment[u] >= 0) a[static_cast<std::size_t>(l.a_segment[u] * ld + i * k + l.a_offset[u])] = row[c];
          if (l.b_segment[u] >= 0) b[static_cast<std::size_t>(l.b_segment[u] * ld + i * k + l.b_offset[u])] = row[c];
        }
      }
    }
    for (std::int64_t z = 0; z < nz; ++z)
      for (std::int64_t y = 0; y < ny; ++y) {
        std::vector<WarpFragment<double>> acc;
        for (int nt = 0; nt < p.n_tiles(); ++nt) acc.push_back(load_fragment(kShape, Operand::C, zeros.data() + 8 * nt, p.n_padded));
        for (int pz = 0; pz < p.planes; ++pz) {
          const double* plane = s2r.data() + static_cast<std::size_t>(z + pz) * 2 * matrix_size;
          for (int which = 0; which < 2; ++which) { // A with kernel_a, then B with kernel_b
            const double* m = plane + which * matrix_size + y * k;
            const std::size_t first = static_cast<std::size_t>((pz * 2 + which) * per_matrix);
            for (int c = 0; c < p.chunks(); ++c) {
              const WarpFragment<double> frag = load_fragment(kShape, Operand::A, m + 4 * c, ld);
              for (int nt = 0; nt < p.n_tiles(); ++nt)
                mma_f64(kShape, frag, kernels[first + static_cast<std::size_t>(c * p.n_tiles() + nt)],
                        acc[static_cast<std::size_t>(nt)]);
            }
          }
        }
        for (int nt = 0; nt < p.n_tiles(); ++nt) store_fragment(acc[static_cast<std::size_t>(nt)], out.data() + 8 * nt, p.n_padded);
        for (int s = 0; s < l.segments; ++s)
          for (int t = 0; t < U; ++t) {
            const std::int64_t x = x0 + s * U + t;
            if (x < nx) next[static_cast<std::size_t>((z * ny + y) * nx + x)] = out[static_cast<std::size_t>(s * p.n_padded + t)];
          }
      }
  }
  if (p.fused_steps > 1) fix_fused_boundary_band(p.stencil, extent, values, next, p.fused_steps, boundary);
  values.swap(next);
}

int convstencil_advance(const ConvStencilPlan& plan, const Extent& extent, std::vector<double>& values, int steps,
                        const Boundary& boundary, const StepProgress& progress) {
  check_run(plan.stencil, extent, values);
  if (steps < 0) throw InputError("the number of steps cannot be negative");
  const int T = plan.fused_steps;
  const int remainder = steps % T;
  int done = 0;
  const auto report = [&](int advanced) {
    done += advanced;
    return !progress || progress(done, steps);
  };
  for (int pass = 0; pass < steps / T; ++pass) {
    convstencil_pass(plan, extent, values, boundary);
    if (!report(T)) return done;
  }
  if (remainder > 0) {
    convstencil_pass(make_convstencil_plan(plan.stencil, {remainder}), extent, values, boundary);
    report(remainder);
  }
  return done;
}

} // namespace se
