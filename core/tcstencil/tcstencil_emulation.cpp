// The TCStencil emulation. One step per pass: pad the grid with its halo (like the kernel's shared-memory tile
// plus halo), then per L x L tile run one GEMM per parameter matrix into the accumulator fragments, store them
// (the paper's sout), add the CUDA-core remainder from the halo, and round to the grid's precision.
#include "core/tcstencil/tcstencil_emulation.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/fragment/mma_emulation.hpp"
#include "core/common/emulation_checks.hpp"
#include "core/common/halo_padding.hpp"

namespace se {
namespace {

void mma(MmaShape shape, const WarpFragment<Half>& a, const WarpFragment<Half>& b, WarpFragment<float>& c) {
  mma_f16_f32(shape, a, b, c);
}
void mma(MmaShape shape, const WarpFragment<double>& a, const WarpFragment<double>& b, WarpFragment<double>& c) {
  mma_f64(shape, a, b, c);
}

// The parameter matrices as fragments, loaded once and kept for every tile (the paper's Algorithm 2 builds
// them once per thread block). Left matrices are A operands indexed [mi][kc], right ones B operands [kc][ni].
template <typename Op> struct ParameterFragments {
  std::vector<Op> values;                 // L x L operand values
  std::vector<WarpFragment<Op>> fragments; // row-major over the two chunk indices
};

template <typename Op>
void check_fp16_range(const TCStencilPlan& plan, const std::vector<double>& values, const Boundary& boundary, int done) {
  if constexpr (std::is_same_v<Op, Half>) {
    double peak = boundary.kind == BoundaryKind::Dirichlet ? std::abs(boundary.value) : 0.0;
    for (const double v : values) peak = std::max(peak, std::abs(v));
    if (!(peak <= kHalfMax))
      throw InputError(fmt::format("TCStencil (FP16): the {} holds |values| up to {:g}, beyond FP16's 65504; scale "
                                   "the grid down or use tcstencil-fp64", done == 0 ? "initial grid" : "grid", peak));
    const double gain = tcstencil_fp16_gain(plan);
    if (peak * gain > kHalfMax)
      throw InputError(fmt::format("TCStencil (FP16): after {} steps the grid holds |values| up to {:g} and the "
                                   "|weights| sum to {:g}, so the next step could exceed FP16's 65504; scale the "
                                   "grid or the stencil down, or use tcstencil-fp64", done, peak, gain));
  } else {
    (void)plan, (void)values, (void)boundary, (void)done;
  }
}

template <typename Op, typename Acc>
int advance(const TCStencilPlan& plan, const Extent& extent, std::vector<double>& values, int steps,
            const Boundary& boundary, const StepProgress& progress) {
  const Stencil& s = plan.stencil;
  const MmaShapeInfo& info = mma_info(plan.shape);
  const int L = plan.L, m = info.m, n = info.n, k = info.k;
  const int mt = L / m, nt = L / n, kt = L / k;
  const std::int64_t r = s.radius, rz = s.dims >= 3 ? r : 0;
  const std::int64_t nx = extent.n[0], ny = extent.n[1], nz = extent.n[2];
  const std::int64_t tiles_x = (nx + L - 1) / L, tiles_y = (ny + L - 1) / L;

  std::vector<ParameterFragments<Op>> params;
  for (const ParameterMatrix& p : plan.matrices) {
    ParameterFragments<Op> f;
    for (const double v : p.operand) f.values.push_back(Op(v));
    if (p.side == ParameterSide::Left)
      for (int mi = 0; mi < mt; ++mi)
        for (int kc = 0; kc < kt; ++kc)
          f.fragments.push_back(load_fragment(plan.shape, Operand::A, f.values.data() + mi * m * L + kc * k, L));
    else
      for (int kc = 0; kc < kt; ++kc)
        for (int ni = 0; ni < nt; ++ni)
          f.fragments.push_back(load_fragment(plan.shape, Operand::B, f.values.data() + kc * k * L + ni * n, L));
    params.push_back(std::move(f));
  }
  const std::vector<Acc> zeros(static_cast<std::size_t>(L * L), Acc(0));
  std::vector<Acc> sout(static_cast<std::size_t>(L * L));

  // One tile: every GEMM into the accumulator fragments, stored to sout (the paper's sout), then the CUDA-core
  // remainder. tile_at(p) is the tile's A' for matrix p (rows ld apart), tap_at(t, row) the neighbours of row's
  // outputs at the tap's offset.
  const auto run_tile = [&](std::ptrdiff_t ld, const auto& tile_at, const auto& tap_at) {
    std::vector<WarpFragment<Acc>> acc;
    for (int mi = 0; mi < mt; ++mi)
      for (int ni = 0; ni < nt; ++ni) acc.push_back(load_fragment(plan.shape, Operand::C, zeros.data(), L));
    for (std::size_t pi = 0; pi < plan.matrices.size(); ++pi) {
      const ParameterMatrix& p = plan.matrices[pi];
      const Op* tile = tile_at(p);
      for (int mi = 0; mi < mt; ++mi)
        for (int ni = 0; ni < nt; ++ni)
          for (int kc = 0; kc < kt; ++kc) {
            WarpFragment<Acc>& c = acc[static_cast<std::size_t>(mi * nt + ni)];
            if (p.side == ParameterSide::Left) {
              const auto b = load_fragment(plan.shape, Operand::B, tile + kc * k * ld + ni * n, static_cast<int>(ld));
              mma(plan.shape, params[pi].fragments[static_cast<std::size_t>(mi * kt + kc)], b, c);
            } else {
              const auto a = load_fragment(plan.shape, Operand::A, tile + mi * m * ld + kc * k, static_cast<int>(ld));
              mma(plan.shape, a, params[pi].fragments[static_cast<std::size_t>(kc * nt + ni)], c);
            }
          }
    }
    for (int mi = 0; mi < mt; ++mi)
      for (int ni = 0; ni < nt; ++ni)
        store_fragment(acc[static_cast<std::size_t>(mi * nt + ni)], sout.data() + mi * m * L + ni * n, L);
    // The CUDA-core remainder: neighbours the tile's GEMMs could not see, read from the halo.
    for (const CudaCoreTap& t : plan.cuda_core_taps) {
      const Acc w = static_cast<Acc>(static_cast<double>(Op(t.operand)));
      for (int row = t.row_begin; row < t.row_end; ++row) {
        const Op* src = tap_at(t, row);
        Acc* dst = sout.data() + row * L;
        for (int col = t.col_begin; col < t.col_end; ++col) dst[col] += w * static_cast<Acc>(src[col]);
      }
    }
  };

  int done = 0;
  for (; done < steps; ++done) {
    check_fp16_range<Op>(plan, values, boundary, done);
    std::vector<double> next(values.size());
    if (s.dims == 1) {
      // 1D: rows of L consecutive points, a tile L^2 consecutive points; A' and every tap read the padded line.
      const std::int64_t tile_points = static_cast<std::int64_t>(L) * L, tiles = (nx + tile_points - 1) / tile_points;
      const PaddedGrid<Op> in = pad_with_halo<Op>(extent, values, {r, 0, 0}, {tiles * tile_points + 2 * r, 1, 1}, boundary);
      for (std::int64_t tx = 0; tx < tiles; ++tx) {
        const Op* line = in.at(r + tx * tile_points, 0, 0); // the tile's first point
        run_tile(L, [&](const ParameterMatrix&) { return line; },
                 [&](const CudaCoreTap& t, int row) { return line + row * L + t.dx; });
        const std::int64_t count = std::min(tile_points, nx - tx * tile_points);
        for (std::int64_t i = 0; i < count; ++i)
          next[static_cast<std::size_t>(tx * tile_points + i)] = static_cast<double>(Op(sout[static_cast<std::size_t>(i)]));
      }
    } else {
      const PaddedGrid<Op> in = pad_with_halo<Op>(extent, values, {r, r, rz},
                                                  {tiles_x * L + 2 * r, tiles_y * L + 2 * r, 1}, boundary);
      for (std::int64_t z = 0; z < nz; ++z)
        for (std::int64_t ty = 0; ty < tiles_y; ++ty)
          for (std::int64_t tx = 0; tx < tiles_x; ++tx) {
            const std::int64_t x0 = tx * L, y0 = ty * L;
            // A' lives in the padded copy (the kernel's shared memory); box rows read it shifted by dy rows.
            run_tile(in.pitch_y(),
                     [&](const ParameterMatrix& p) { return in.at(x0 + r, y0 + r + p.row_shift, z + rz + p.plane); },
                     [&](const CudaCoreTap& t, int row) { return in.at(x0 + r + t.dx, y0 + r + row + t.dy, z + rz + t.dz); });
            const std::int64_t rows = std::min<std::int64_t>(L, ny - y0), cols = std::min<std::int64_t>(L, nx - x0);
            for (std::int64_t row = 0; row < rows; ++row)
              for (std::int64_t col = 0; col < cols; ++col)
                next[static_cast<std::size_t>((z * ny + y0 + row) * nx + x0 + col)] =
                    static_cast<double>(Op(sout[static_cast<std::size_t>(row * L + col)]));
          }
    }
    values.swap(next);
    if (progress && !progress(done + 1, steps)) {
      ++done;
      break;
    }
  }
  return done;
}

} // namespace

int tcstencil_advance(const TCStencilPlan& plan, const Extent& extent, std::vector<double>& values, int steps,
                      const Boundary& boundary, const StepProgress& progress) {
  check_stencil_grid(plan.stencil, extent);
  check_value_count("TCStencil", extent, values.size());
  if (steps < 0) throw InputError("the number of steps cannot be negative");
  // Work on a copy so that a rejected step (FP16 range) leaves the caller's grid as it was.
  std::vector<double> grid = values;
  int done = 0;
  if (plan.precision == Precision::FP16) {
    check_fp16_range<Half>(plan, grid, boundary, 0); // before rounding, so the message names the real values
    for (double& v : grid) v = round_to_half(v);     // an FP16 grid holds FP16 values from the start
    done = advance<Half, float>(plan, extent, grid, steps, boundary, progress);
  } else {
    done = advance<double, double>(plan, extent, grid, steps, boundary, progress);
  }
  values.swap(grid);
  return done;
}

} // namespace se
