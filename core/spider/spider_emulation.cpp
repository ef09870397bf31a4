#include "core/spider/spider_emulation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/half.hpp"

namespace se {

namespace {

constexpr std::ptrdiff_t kZeroRow = std::numeric_limits<std::ptrdiff_t>::min();

// The grid of one step as the kernel's shared memory sees it: FP16, with r halo cells on each active side
// and the far edges padded to whole warp tiles (cells past the halo feed only outputs that are dropped).
struct PaddedHalfGrid {
  std::int64_t px = 1, py = 1; // padded extent
  int halo = 0;
  std::vector<Half> cells;
};

Half checked_half(double v, const char* what) {
  if (!std::isfinite(v) || std::abs(v) > kHalfMax)
    throw InputError(fmt::format("SPIDER holds the grid in FP16: {} {} is not a finite number within +-{}; scale the "
                                 "values down or use an FP64 method", what, v, kHalfMax));
  return Half(v);
}

void fill_padded(PaddedHalfGrid& g, const Extent& e, const std::vector<Half>& grid, const Boundary& boundary,
                 Half outside) {
  const std::int64_t nx = e.n[0], ny = e.n[1];
  const bool periodic = boundary.kind == BoundaryKind::Periodic;
  for (std::int64_t y = 0; y < g.py; ++y) {
    const std::int64_t sy = y - (e.dims == 1 ? 0 : g.halo);
    const std::int64_t wy = ((sy % ny) + ny) % ny;
    const bool y_inside = sy >= 0 && sy < ny;
    for (std::int64_t x = 0; x < g.px; ++x) {
      const std::int64_t sx = x - g.halo;
      Half v = outside;
      if (sx >= 0 && sx < nx && y_inside)
        v = grid[static_cast<std::size_t>(sy * nx + sx)];
      else if (periodic)
        v = grid[static_cast<std::size_t>(wy * nx + ((sx % nx) + nx) % nx)];
      g.cells[static_cast<std::size_t>(y * g.px + x)] = v;
    }
  }
}

// Per chunk and B register slot: where the element comes from, relative to the tile's first input cell.
std::vector<std::ptrdiff_t> b_slot_offsets(const SpiderPlan& plan, const FragmentLayout& b_layout, std::int64_t px) {
  const SpiderGeometry& g = plan.geometry;
  const std::size_t slots = b_layout.coords.size();
  std::vector<std::ptrdiff_t> offsets(slots * static_cast<std::size_t>(g.k_chunks));
  for (int q = 0; q < g.k_chunks; ++q)
    for (std::size_t s = 0; s < slots; ++s) {
      const FragmentCoord rc = b_layout.coords[s];
      const SpiderInputRow& in = plan.input_rows[static_cast<std::size_t>(16 * q + rc.row)];
      std::ptrdiff_t off = kZeroRow;
      if (!in.padding)
        off = g.dims == 1 ? static_cast<std::ptrdiff_t>(rc.col * g.blocks_along_k * g.L + in.dx)
                          : static_cast<std::ptrdiff_t>(rc.col * g.parts_along_m) * px + in.dx;
      offsets[static_cast<std::size_t>(q) * slots + s] = off;
    }
  return offsets;
}

// Where accumulator element (m, c) lands relative to the tile's first output: {dx, dy}, or dx < 0 when
// row m holds no part (16 rows, fewer used).
struct OutputSlot {
  int dx = -1, dy = 0;
};
std::vector<OutputSlot> c_slot_targets(const SpiderGeometry& g, const FragmentLayout& c_layout) {
  const int part_rows = g.blocks_along_k * g.L;
  std::vector<OutputSlot> targets(c_layout.coords.size());
  for (std::size_t s = 0; s < targets.size(); ++s) {
    const FragmentCoord rc = c_layout.coords[s];
    const int part = rc.row / part_rows, within = rc.row % part_rows;
    if (part >= g.parts_along_m) continue;
    targets[s] = g.dims == 1 ? OutputSlot{rc.col * part_rows + within, 0}
                             : OutputSlot{within, rc.col * g.parts_along_m + part};
  }
  return targets;
}

} // namespace

SpiderRunCounts spider_advance(const SpiderPlan& plan, const Extent& extent, std::vector<double>& values, int steps,
                               const Boundary& boundary, const StepProgress& progress) {
  const SpiderGeometry& g = plan.geometry;
  if (extent.dims != g.dims)
    throw InputError(fmt::format("the SPIDER plan is for a {}D stencil but the grid is {}D", g.dims, extent.dims));
  for (int d = 0; d < g.dims; ++d)
    if (extent.n[static_cast<std::size_t>(d)] < 2 * g.radius + 1)
      throw InputError(fmt::format("grid {} is smaller than the stencil (2r+1 = {} along each axis)", extent.to_string(),
                                   2 * g.radius + 1));
  if (steps < 0) throw InputError("the number of steps cannot be negative");
  if (values.size() != static_cast<std::size_t>(extent.points()))
    throw InputError(fmt::format("SPIDER: {} values for a {} grid", values.size(), extent.to_string()));

  const bool sparse = plan.options.variant == SpiderVariant::Sparse;
  const MmaShape shape = sparse ? MmaShape::SP_M16N8K16_F16_F32 : MmaShape::M16N8K16_F16_F32;
  const Half outside = boundary.kind == BoundaryKind::Dirichlet ? checked_half(boundary.value, "the boundary value")
                                                                : Half(0.0);
  std::vector<Half> grid(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) grid[i] = checked_half(values[i], "initial value");

  const std::int64_t nx = extent.n[0], ny = g.dims == 1 ? 1 : extent.n[1];
  const std::int64_t tiles_x = (nx + g.tile_x - 1) / g.tile_x, tiles_y = (ny + g.tile_y - 1) / g.tile_y;
  PaddedHalfGrid padded;
  padded.halo = g.radius;
  padded.px = tiles_x * g.tile_x + 2 * g.radius;
  padded.py = g.dims == 1 ? 1 : tiles_y * g.tile_y + 2 * g.radius;
  check_host_memory(static_cast<std::uint64_t>(padded.px * padded.py) * sizeof(Half), "SPIDER's padded FP16 grid");
  padded.cells.resize(static_cast<std::size_t>(padded.px * padded.py));

  // A fragments never change: load them once, as the kernel keeps them in registers (§3.3.1).
  std::vector<WarpFragment<Half>> a_fragments;
  for (const SpiderMma& mma : plan.mmas) {
    const std::vector<double>& src = sparse ? mma.a_compressed.values : mma.a;
    std::vector<Half> a(src.size());
    std::transform(src.begin(), src.end(), a.begin(), [](double v) { return Half(v); });
    a_fragments.push_back(load_fragment(shape, Operand::A, a.data(), sparse ? 8 : 16));
  }
  const FragmentLayout b_layout = fragment_layout(shape, Operand::B);
  const FragmentLayout c_layout = fragment_layout(shape, Operand::C);
  const std::vector<std::ptrdiff_t> b_offsets = b_slot_offsets(plan, b_layout, padded.px);
  const std::vector<OutputSlot> c_targets = c_slot_targets(g, c_layout);
  const std::size_t b_slots = b_layout.coords.size();

  SpiderRunCounts counts;
  counts.tiles_per_step = tiles_x * tiles_y;
  std::vector<Half> next(grid.size());
  WarpFragment<Half> b{b_layout, std::vector<Half>(b_slots)};
  WarpFragment<float> c{c_layout, std::vector<float>(c_layout.coords.size())};
  for (int step = 0; step < steps; ++step) {
    fill_padded(padded, extent, grid, boundary, outside);
    for (std::int64_t ty = 0; ty < tiles_y; ++ty)
      for (std::int64_t tx = 0; tx < tiles_x; ++tx) {
        const std::int64_t x0 = tx * g.tile_x, y0 = ty * g.tile_y;
        std::fill(c.regs.begin(), c.regs.end(), 0.0f);
        for (std::size_t i = 0; i < plan.mmas.size(); ++i) {
          const SpiderMma& mma = plan.mmas[i];
          // The tile's first input cell for this shift: padded (x0 + r + 0, y0 + r + shift).
          const std::int64_t base = g.dims == 1 ? x0 + g.radius
                                                : (y0 + g.radius + mma.shift) * padded.px + x0 + g.radius;
          const std::ptrdiff_t* off = b_offsets.data() + static_cast<std::size_t>(mma.k_chunk) * b_slots;
          for (std::size_t s = 0; s < b_slots; ++s)
            b.regs[s] = off[s] == kZeroRow ? Half(0.0) : padded.cells[static_cast<std::size_t>(base + off[s])];
          if (sparse)
            mma_sp_f16_f32(a_fragments[i], mma.metadata, b, c);
          else
            mma_f16_f32(shape, a_fragments[i], b, c);
        }
        for (std::size_t s = 0; s < c_targets.size(); ++s) {
          const OutputSlot t = c_targets[s];
          if (t.dx < 0) continue;
          const std::int64_t x = x0 + t.dx, y = y0 + t.dy;
          if (x < nx && y < ny) next[static_cast<std::size_t>(y * nx + x)] = Half(c.regs[s]); // cvt.rn.f16.f32
        }
      }
    for (std::size_t i = 0; i < next.size(); ++i)
      if (!std::isfinite(static_cast<float>(next[i])))
        throw InputError(fmt::format(
            "SPIDER's FP16 grid overflowed at step {} of {}: the result at {} exceeds FP16's largest value {} "
            "(sum|w| = {:.4g}, so inputs must stay below {:.4g}); scale the initial values or the weights down",
            step + 1, steps, g.dims == 1 ? fmt::format("x = {}", i) : fmt::format("({}, {})", i % nx, i / nx), kHalfMax,
            plan.weight_abs_sum, plan.max_abs_input));
    grid.swap(next);
    counts.steps_done = step + 1;
    counts.mma_issued += counts.tiles_per_step * static_cast<std::int64_t>(plan.mmas.size());
    if (progress && !progress(step + 1, steps)) break;
  }
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<double>(static_cast<float>(grid[i]));
  return counts;
}

} // namespace se
