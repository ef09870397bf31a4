// The fragment-level LoRAStencil emulation. Weight fragments are built once per pass (the GPU keeps them in
// registers); per tile the input window is loaded as B fragments, T = U·X accumulates in C fragments whose
// registers become, untouched, the A fragments of Y += T'·V' (butterfly vector swapping).
#include "core/lorastencil/lorastencil_emulation.hpp"

#include <algorithm>
#include <chrono>
#include <thread>

#include <fmt/format.h>

#include "core/common/halo_padding.hpp"
#include "core/error.hpp"
#include "core/fragment/mma_emulation.hpp"

namespace se {
namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

WarpFragment<double> empty_fragment(MmaShape shape, Operand operand) {
  WarpFragment<double> f{fragment_layout(shape, operand), {}};
  f.regs.assign(f.layout.coords.size(), 0.0);
  return f;
}

// For each register slot of a fragment, the offset of its value from the tile's window origin in the padded
// grid, or -1 where the slot lies outside the window and is loaded as zero.
using LoadTable = std::vector<std::ptrdiff_t>;

LoadTable load_table(const FragmentLayout& l, int row0, int col0, int rows_used, int cols_used, std::ptrdiff_t pitch) {
  LoadTable t;
  t.reserve(l.coords.size());
  for (const FragmentCoord rc : l.coords) {
    const int r = row0 + rc.row, c = col0 + rc.col;
    t.push_back(r < rows_used && c < cols_used ? r * pitch + c : -1);
  }
  return t;
}

void load_through(const LoadTable& table, const double* origin, WarpFragment<double>& f) {
  for (std::size_t s = 0; s < table.size(); ++s) f.regs[s] = table[s] < 0 ? 0.0 : origin[table[s]];
}

// Splits [0, rows) over threads when the work is large enough to pay for them.
template <typename F> void for_rows(std::int64_t rows, double work, F&& f) {
  const int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int threads = work < 4e5 ? 1 : static_cast<int>(std::min<std::int64_t>(hw, rows));
  if (threads <= 1) {
    f(0, rows);
    return;
  }
  std::vector<std::thread> pool;
  const std::int64_t chunk = ceil_div(rows, threads);
  for (int t = 0; t < threads; ++t) {
    const std::int64_t b = t * chunk, e = std::min(rows, b + chunk);
    if (b < e) pool.emplace_back([&f, b, e] { f(b, e); });
  }
  for (auto& th : pool) th.join();
}

// ---- 1D: one gather Y = X·V per tile -------------------------------------------------------------------------

LoraPassCounts line_pass(const LoraStencilPlan& plan, const Extent& e, std::vector<double>& values, const Boundary& b) {
  const LineGather& g = plan.line;
  const MmaShape shape = g.shape;
  const std::int64_t n = e.n[0], per_tile = g.points(), tiles = ceil_div(n, per_tile);
  const PaddedGrid<double> p =
      pad_with_halo<double>(e, values, {g.radius, 0, 0}, {(tiles - 1) * per_tile + (g.m - 1) * g.n + g.inner, 1, 1}, b);
  const int blocks = g.inner / g.k;
  std::vector<LoadTable> a_tables;
  std::vector<WarpFragment<double>> v_frags;
  const FragmentLayout a_layout = fragment_layout(shape, Operand::A);
  for (int kb = 0; kb < blocks; ++kb) {
    // Row r of X is segment r: it starts n inputs after the previous one, and reads `window` of them.
    LoadTable t;
    for (const FragmentCoord rc : a_layout.coords) {
      const int c = kb * g.k + rc.col;
      t.push_back(c < g.window ? static_cast<std::ptrdiff_t>(rc.row) * g.n + c : -1);
    }
    a_tables.push_back(std::move(t));
    v_frags.push_back(load_fragment(shape, Operand::B, g.v_band.data() + static_cast<std::size_t>(kb * g.k * g.n), g.n));
  }
  std::vector<double> out(values.size());
  for_rows(tiles, static_cast<double>(n) * blocks * 64, [&](std::int64_t first, std::int64_t last) {
    WarpFragment<double> a = empty_fragment(shape, Operand::A), y = empty_fragment(shape, Operand::C);
    for (std::int64_t tile = first; tile < last; ++tile) {
      const double* origin = p.data.data() + tile * per_tile;
      std::fill(y.regs.begin(), y.regs.end(), 0.0);
      for (int kb = 0; kb < blocks; ++kb) {
        load_through(a_tables[static_cast<std::size_t>(kb)], origin, a);
        mma_f64(shape, a, v_frags[static_cast<std::size_t>(kb)], y);
      }
      for (std::size_t s = 0; s < y.regs.size(); ++s) {
        const FragmentCoord rc = y.layout.coords[s];
        const std::int64_t x = tile * per_tile + static_cast<std::int64_t>(rc.row) * g.n + rc.col;
        if (x < n) out[static_cast<std::size_t>(x)] = y.regs[s];
      }
    }
  });
  values = std::move(out);
  return {tiles, tiles * blocks, 0};
}

// ---- 2D and 3D: per plane, every term as its gather kind runs it, plus CUDA-core terms -----------------------

// One term as a warp runs it: its weight fragments, built once (the GPU keeps them in registers or shared
// memory), and where each input fragment lies from the warp tile's window origin.
struct TermProgram {
  TermOperands ops;
  std::vector<WarpFragment<double>> u; // Chain, Rows: U as A, per chunk
  std::vector<WarpFragment<double>> v; // Chain: V' as B, per chunk of T'; Columns: V as B, per chunk
  std::vector<LoadTable> x;            // Chain: [c * t_tiles + tt] (B); Rows: [c * F + j] (B); Columns: [c * F + j] (A)
};

TermProgram term_program(const GatherTile& t, const TermGather& g, std::ptrdiff_t pitch) {
  TermProgram p;
  p.ops = term_operands(t, g);
  const TermSchedule& s = p.ops.schedule;
  const MmaShape shape = t.shape;
  const int R = t.radius, F = t.warp_fragments, rows_used = t.m + 2 * R, cols_used = t.warp_cols() + 2 * R;
  const FragmentLayout a_layout = fragment_layout(shape, Operand::A), b_layout = fragment_layout(shape, Operand::B);
  if (g.kind == GatherKind::Chain || g.kind == GatherKind::Rows)
    for (int c = 0; c < s.chunks; ++c)
      p.u.push_back(load_fragment(shape, Operand::A, p.ops.u_band.data() + c * t.k, s.chunks * t.k));
  switch (g.kind) {
  case GatherKind::Chain:
    for (int b = 0; b < s.v_chunks; ++b)
      p.v.push_back(load_fragment(shape, Operand::B, p.ops.v_swapped.data() + static_cast<std::size_t>(b * t.k * t.n), t.n));
    for (int c = 0; c < s.chunks; ++c)
      for (int tt = 0; tt < s.t_tiles; ++tt)
        p.x.push_back(load_table(b_layout, R - g.wu + c * t.k, R - g.wv + tt * t.n, rows_used, cols_used, pitch));
    break;
  case GatherKind::Rows:
    for (int c = 0; c < s.chunks; ++c)
      for (int j = 0; j < F; ++j)
        p.x.push_back(load_table(b_layout, R - g.wu + c * t.k, R + j * t.n, rows_used, cols_used, pitch));
    break;
  case GatherKind::Columns:
    for (int c = 0; c < s.chunks; ++c) {
      p.v.push_back(load_fragment(shape, Operand::B, p.ops.v_band.data() + static_cast<std::size_t>(c * t.k * t.n), t.n));
      for (int j = 0; j < F; ++j)
        p.x.push_back(load_table(a_layout, R, R - g.wv + j * t.n + c * t.k, rows_used, cols_used, pitch));
    }
    break;
  case GatherKind::CudaCores: break;
  }
  return p;
}

// What one thread reuses warp tile after warp tile: accumulators and operand fragments.
struct WarpRegisters {
  std::vector<WarpFragment<double>> y; // the warp tile's C fragments, left to right
  std::vector<WarpFragment<double>> t; // the tiles of T = U·X
  WarpFragment<double> a, b;           // the operand being loaded
};

// CUDA cores: each lane adds weight x input to the outputs it already holds in its C registers.
void add_point_term(const GatherTile& t, double weight, int dx, int dy, const double* origin, std::ptrdiff_t pitch,
                    WarpRegisters& reg) {
  for (int j = 0; j < t.warp_fragments; ++j) {
    WarpFragment<double>& y = reg.y[static_cast<std::size_t>(j)];
    for (std::size_t s = 0; s < y.regs.size(); ++s) {
      const FragmentCoord rc = y.layout.coords[s];
      y.regs[s] += weight * origin[(rc.row + t.radius + dy) * pitch + j * t.n + rc.col + t.radius + dx];
    }
  }
}

void run_term(const GatherTile& t, const TermProgram& p, const double* origin, std::ptrdiff_t pitch,
              WarpRegisters& reg) {
  const MmaShape shape = t.shape;
  const TermSchedule& s = p.ops.schedule;
  const int F = t.warp_fragments;
  const auto at = [](const auto& v, int i) -> const auto& { return v[static_cast<std::size_t>(i)]; };
  switch (p.ops.gather.kind) {
  case GatherKind::Chain: {
    for (int tt = 0; tt < s.t_tiles; ++tt) std::fill(reg.t[static_cast<std::size_t>(tt)].regs.begin(), reg.t[static_cast<std::size_t>(tt)].regs.end(), 0.0);
    for (int c = 0; c < s.chunks; ++c) // vertical gather T = U·X, over the tiles every fragment shares
      for (int tt = 0; tt < s.t_tiles; ++tt) {
        load_through(at(p.x, c * s.t_tiles + tt), origin, reg.b);
        mma_f64(shape, at(p.u, c), reg.b, reg.t[static_cast<std::size_t>(tt)]);
      }
    // BVS: each lane hands its own C registers of T-tile (fragment + c_tile) to the same lane's A registers.
    const ButterflySwap& swap = p.ops.swap;
    for (int j = 0; j < F; ++j)
      for (int b = 0; b < s.v_chunks; ++b) {
        for (int ra = 0; ra < swap.a_regs; ++ra) {
          const RegisterSource src = swap.a_sources[static_cast<std::size_t>(b * swap.a_regs + ra)];
          const std::vector<double>& c = reg.t[static_cast<std::size_t>(j + src.c_tile)].regs;
          for (int lane = 0; lane < kWarpSize; ++lane)
            reg.a.regs[static_cast<std::size_t>(lane * swap.a_regs + ra)] =
                c[static_cast<std::size_t>(lane * swap.c_regs + src.c_reg)];
        }
        mma_f64(shape, reg.a, at(p.v, b), reg.y[static_cast<std::size_t>(j)]); // horizontal gather Y += T'·V'
      }
    break;
  }
  case GatherKind::Rows: // Y += U·X: the weights' column, v being one weight
    for (int c = 0; c < s.chunks; ++c)
      for (int j = 0; j < F; ++j) {
        load_through(at(p.x, c * F + j), origin, reg.b);
        mma_f64(shape, at(p.u, c), reg.b, reg.y[static_cast<std::size_t>(j)]);
      }
    break;
  case GatherKind::Columns: // Y += X·V: the weights' row, u being one weight; X is the A operand
    for (int c = 0; c < s.chunks; ++c)
      for (int j = 0; j < F; ++j) {
        load_through(at(p.x, c * F + j), origin, reg.a);
        mma_f64(shape, reg.a, at(p.v, c), reg.y[static_cast<std::size_t>(j)]);
      }
    break;
  case GatherKind::CudaCores: add_point_term(t, p.ops.gather.scalar(), 0, 0, origin, pitch, reg); break;
  }
}

LoraPassCounts plane_pass(const LoraStencilPlan& plan, const Extent& e, std::vector<double>& values, const Boundary& b) {
  const GatherTile& t = plan.tile;
  const MmaShape shape = t.shape;
  const int r = plan.kernel.radius, rz = e.dims == 3 ? r : 0, F = t.warp_fragments;
  const std::int64_t nx = e.n[0], ny = e.n[1], nz = e.n[2];
  const std::int64_t tiles_x = ceil_div(nx, t.warp_cols()), tiles_y = ceil_div(ny, t.tile_rows);
  const PaddedGrid<double> p = pad_with_halo<double>(
      e, values, {r, r, rz}, {tiles_x * t.warp_cols() + 2 * r, tiles_y * t.tile_rows + 2 * r, nz + 2 * rz}, b);
  const std::ptrdiff_t pitch = p.pitch_y();

  std::vector<std::vector<TermProgram>> programs(plan.planes.size());
  std::int64_t mma_per_tile = 0, cuda_per_tile = 0;
  int t_tiles = 0;
  for (std::size_t i = 0; i < plan.planes.size(); ++i) {
    const LoraPlane& plane = plan.planes[i];
    if (plane.mirrored) continue; // its mirror plane runs these terms on both planes' sum
    cuda_per_tile += (plane.kind == PlaneKind::CudaCores) + (plane.apex != 0.0);
    for (const TermGather& g : plane.gathers) {
      if (g.kind == GatherKind::CudaCores && g.scalar() == 0.0) continue;
      programs[i].push_back(term_program(t, g, pitch));
      const TermSchedule& s = programs[i].back().ops.schedule;
      mma_per_tile += s.mma;
      cuda_per_tile += g.kind == GatherKind::CudaCores;
      t_tiles = std::max(t_tiles, s.t_tiles);
    }
  }

  // Mirror folding: a plane dz < 0 that folds its mirror reads x[z+dz] + x[z-dz], one add per loaded value (as
  // the kernels add the two planes' staged values): the sums of padded planes q and q + 2|dz|, laid out as the grid.
  std::vector<std::vector<double>> folded(plan.planes.size());
  for (std::size_t i = 0; i < plan.planes.size(); ++i) {
    if (!plan.planes[i].folds_mirror) continue;
    const std::ptrdiff_t apart = static_cast<std::ptrdiff_t>(-2 * plan.planes[i].dz) * p.pitch_z();
    std::vector<double>& f = folded[i];
    f.assign(p.data.size(), 0.0);
    for (std::size_t k = 0; k + static_cast<std::size_t>(apart) < p.data.size(); ++k)
      f[k] = p.data[k] + p.data[k + static_cast<std::size_t>(apart)];
  }

  std::vector<double> out(values.size());
  const std::int64_t tile_rows_total = nz * tiles_y;
  const double work = static_cast<double>(tile_rows_total * tiles_x) * static_cast<double>(mma_per_tile + 1) * 600;
  for_rows(tile_rows_total, work, [&](std::int64_t first, std::int64_t last) {
    WarpRegisters reg;
    for (int j = 0; j < F; ++j) reg.y.push_back(empty_fragment(shape, Operand::C));
    for (int i = 0; i < t_tiles; ++i) reg.t.push_back(empty_fragment(shape, Operand::C));
    reg.a = empty_fragment(shape, Operand::A);
    reg.b = empty_fragment(shape, Operand::B);
    for (std::int64_t row = first; row < last; ++row) {
      const std::int64_t z = row / tiles_y, ty = row % tiles_y;
      for (std::int64_t tx = 0; tx < tiles_x; ++tx) {
        for (auto& y : reg.y) std::fill(y.regs.begin(), y.regs.end(), 0.0);
        for (std::size_t i = 0; i < plan.planes.size(); ++i) {
          const LoraPlane& plane = plan.planes[i];
          if (!plane.runs()) continue;
          // Top-left of this warp tile's window in plane z + dz of the padded grid (or of the folded sums).
          const double* base = plane.folds_mirror ? folded[i].data() : p.data.data();
          const double* origin = base + (z + plane.dz + rz) * p.pitch_z() + ty * t.tile_rows * pitch +
                                 tx * t.warp_cols();
          for (const TermProgram& term : programs[i]) run_term(t, term, origin, pitch, reg);
          if (plane.kind == PlaneKind::CudaCores) add_point_term(t, plane.weight, plane.dx, plane.dy, origin, pitch, reg);
          if (plane.apex != 0.0) add_point_term(t, plane.apex, 0, 0, origin, pitch, reg);
        }
        for (int j = 0; j < F; ++j) {
          const WarpFragment<double>& y = reg.y[static_cast<std::size_t>(j)];
          for (std::size_t s = 0; s < y.regs.size(); ++s) {
            const FragmentCoord rc = y.layout.coords[s];
            const std::int64_t yy = ty * t.tile_rows + rc.row, xx = tx * t.warp_cols() + j * t.n + rc.col;
            if (xx < nx && yy < ny) out[static_cast<std::size_t>((z * ny + yy) * nx + xx)] = y.regs[s];
          }
        }
      }
    }
  });
  values = std::move(out);
  LoraPassCounts counts;
  counts.tiles = tile_rows_total * tiles_x;
  counts.mma = counts.tiles * mma_per_tile;
  counts.cuda_core_updates = counts.tiles * cuda_per_tile * t.warp_points();
  return counts;
}

void check_run(const LoraStencilPlan& plan, const Extent& extent, const std::vector<double>& values) {
  check_extent_fits_stencil(extent, plan.stencil);
  if (values.size() != static_cast<std::size_t>(extent.points()))
    throw InputError(fmt::format("LoRAStencil: the grid holds {} values but {} has {} points", values.size(),
                                 extent.to_string(), extent.points()));
}

} // namespace

LoraPassCounts lorastencil_pass(const LoraStencilPlan& plan, const Extent& extent, std::vector<double>& values,
                                const Boundary& boundary) {
  check_run(plan, extent, values);
  return plan.stencil.dims == 1 ? line_pass(plan, extent, values, boundary) : plane_pass(plan, extent, values, boundary);
}

int lorastencil_advance(const LoraStencilPlan& plan, const Extent& extent, std::vector<double>& values, int steps,
                        const Boundary& boundary, const StepProgress& progress) {
  check_run(plan, extent, values);
  if (steps < 0) throw InputError("the number of steps cannot be negative");
  const int fused = plan.fused_steps;
  LoraStencilPlan remainder;
  int done = 0;
  while (done < steps) {
    const int chunk = std::min(fused, steps - done);
    const LoraStencilPlan* pass_plan = &plan;
    if (chunk < fused) {
      LoraStencilOptions options = plan.options;
      options.fused_steps = chunk;
      remainder = make_lorastencil_plan(plan.stencil, options);
      pass_plan = &remainder;
    }
    const bool band = chunk > 1 && boundary.kind == BoundaryKind::Dirichlet;
    const std::vector<double> initial = band ? values : std::vector<double>();
    lorastencil_pass(*pass_plan, extent, values, boundary);
    if (band) fix_fused_boundary_band(plan.stencil, extent, initial, values, chunk, boundary);
    done += chunk;
    if (progress && !progress(done, steps)) break;
  }
  return done;
}

} // namespace se
