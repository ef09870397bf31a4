// Tiles, banded matrices and the butterfly swap of residual dimension gathering.
#include "core/lorastencil/residual_gathering.hpp"

#include <algorithm>
#include <cstdlib>
#include <numeric>

#include <fmt/format.h>

#include "core/error.hpp"

namespace se {
namespace {

int round_up(int value, int multiple) { return (value + multiple - 1) / multiple * multiple; }

std::size_t at(int row, int col, int cols) { return static_cast<std::size_t>(row * cols + col); }

// Both gathers record the instruction they were planned for.
template <typename Gather> Gather for_instruction(MmaShape shape) {
  check_lorastencil_shape(shape);
  const MmaShapeInfo& info = mma_info(shape);
  Gather g;
  g.shape = shape;
  g.m = info.m;
  g.n = info.n;
  g.k = info.k;
  return g;
}

} // namespace

void check_lorastencil_shape(MmaShape shape) {
  const MmaShapeInfo& info = mma_info(shape);
  if (info.operands != Precision::FP64 || info.accumulate != Precision::FP64 || info.sparse)
    throw InputError(fmt::format("LoRAStencil runs on FP64 tensor cores: use m8n8k4.f64, m16n8k4.f64, m16n8k8.f64 "
                                 "or m16n8k16.f64; got {}",
                                 info.id));
}

GatherTile make_gather_tile(MmaShape shape, int radius, int warp_fragments) {
  GatherTile t = for_instruction<GatherTile>(shape);
  if (radius < 0) throw InputError(fmt::format("a gather tile needs radius >= 0; got {}", radius));
  if (warp_fragments < 1)
    throw InputError(fmt::format("a warp tile holds at least 1 C fragment; got {}", warp_fragments));
  t.radius = radius;
  t.warp_fragments = warp_fragments;
  t.tile_rows = t.m;
  t.tile_cols = t.n;
  t.window_rows = t.tile_rows + 2 * radius;
  t.window_cols = t.tile_cols + 2 * radius;
  t.x_rows = round_up(t.window_rows, t.k);
  t.x_cols = round_up(t.window_cols, std::lcm(t.n, t.k));
  return t;
}

std::string_view to_string(GatherKind k) {
  switch (k) {
  case GatherKind::Chain: return "U·X·V' chain";
  case GatherKind::Rows: return "U·X gather";
  case GatherKind::Columns: return "X·V gather";
  case GatherKind::CudaCores: return "CUDA-core scalar";
  }
  return "?";
}

TermGather term_gather(const RankOneTerm& term, int radius) {
  const int side = 2 * radius + 1;
  if (term.offset < 0 || term.size < 1 || term.offset + term.size > side || term.u.size() != term.v.size() ||
      static_cast<int>(term.u.size()) != term.size)
    throw InputError(fmt::format("a rank-1 term of side {} at offset {} does not fit a radius-{} window", term.size,
                                 term.offset, radius));
  // Half-width about the window's centre (index radius) of the non-zeros of a vector placed at the offset, and
  // the centred vector of that half-width; -1 when the vector is zero.
  const auto trim = [&](const std::vector<double>& part, std::vector<double>& centred) {
    int w = -1;
    for (int i = 0; i < term.size; ++i)
      if (part[static_cast<std::size_t>(i)] != 0.0) w = std::max(w, std::abs(term.offset + i - radius));
    if (w < 0) return w;
    centred.assign(static_cast<std::size_t>(2 * w + 1), 0.0);
    for (int i = 0; i < term.size; ++i) {
      const int at = term.offset + i - radius + w;
      if (at >= 0 && at <= 2 * w) centred[static_cast<std::size_t>(at)] = part[static_cast<std::size_t>(i)];
    }
    return w;
  };
  TermGather g;
  g.wu = trim(term.u, g.u);
  g.wv = trim(term.v, g.v);
  if (g.wu < 0 || g.wv < 0) { // a zero term: nothing to gather
    g = TermGather{GatherKind::CudaCores, 0, 0, {0.0}, {0.0}};
  } else if (g.wu == 0 && g.wv == 0) {
    g.v = {g.u[0] * g.v[0]};
    g.u = {1.0};
    g.kind = GatherKind::CudaCores;
  } else if (g.wu == 0) {
    for (double& x : g.v) x *= g.u[0];
    g.u = {1.0};
    g.kind = GatherKind::Columns;
  } else if (g.wv == 0) {
    for (double& x : g.u) x *= g.v[0];
    g.v = {1.0};
    g.kind = GatherKind::Rows;
  }
  return g;
}

TermSchedule term_schedule(const GatherTile& tile, const TermGather& g) {
  TermSchedule s;
  const int fragments = tile.warp_fragments;
  switch (g.kind) {
  case GatherKind::Chain: {
    // A fragment's T'·V' reads T's columns from its own first column on, n + 2wv of them, in whole k-chunks
    // that are whole n-wide T tiles; neighbouring fragments share all but their first tile.
    const int span = round_up(tile.n + 2 * g.wv, std::lcm(tile.n, tile.k));
    s.chunks = (tile.m + 2 * g.wu + tile.k - 1) / tile.k;
    s.t_tiles = fragments - 1 + span / tile.n;
    s.v_chunks = span / tile.k;
    s.mma = s.chunks * s.t_tiles + fragments * s.v_chunks;
    break;
  }
  case GatherKind::Rows:
    s.chunks = (tile.m + 2 * g.wu + tile.k - 1) / tile.k;
    s.mma = s.chunks * fragments;
    break;
  case GatherKind::Columns:
    s.chunks = (tile.n + 2 * g.wv + tile.k - 1) / tile.k;
    s.mma = s.chunks * fragments;
    break;
  case GatherKind::CudaCores: break;
  }
  return s;
}

ButterflySwap derive_butterfly_swap(MmaShape shape, int inner) {
  check_lorastencil_shape(shape);
  const MmaShapeInfo& info = mma_info(shape);
  if (inner <= 0 || inner % info.n != 0 || inner % info.k != 0)
    throw InputError(fmt::format("butterfly swap for {}: T's {} columns must be a positive multiple of n = {} and "
                                 "k = {}",
                                 info.id, inner, info.n, info.k));
  const FragmentLayout a = fragment_layout(shape, Operand::A);
  const FragmentLayout c = fragment_layout(shape, Operand::C);
  ButterflySwap s;
  s.shape = shape;
  s.inner = inner;
  s.a_regs = a.regs_per_lane;
  s.c_regs = c.regs_per_lane;
  s.permutation.assign(static_cast<std::size_t>(inner), -1);
  const int blocks = inner / info.k, sources = inner / info.n * c.regs_per_lane;
  std::vector<bool> used(static_cast<std::size_t>(sources), false);
  for (int b = 0; b < blocks; ++b)
    for (int i = 0; i < a.regs_per_lane; ++i) {
      bool found = false;
      for (int src = 0; src < sources && !found; ++src) {
        if (used[static_cast<std::size_t>(src)]) continue;
        const int tile = src / c.regs_per_lane, reg = src % c.regs_per_lane;
        // The C register must hold, in every lane, the row this A register holds there, and the columns must map
        // consistently: every lane holding A column kk must hold the same T column.
        std::vector<int> tentative = s.permutation;
        bool fits = true;
        for (int lane = 0; lane < kWarpSize && fits; ++lane) {
          const FragmentCoord ac = a.at(lane, i), cc = c.at(lane, reg);
          const int k_prime = b * info.k + ac.col, t_col = tile * info.n + cc.col;
          int& slot = tentative[static_cast<std::size_t>(k_prime)];
          fits = ac.row == cc.row && (slot == -1 || slot == t_col);
          slot = t_col;
        }
        if (!fits) continue;
        s.permutation = std::move(tentative);
        used[static_cast<std::size_t>(src)] = true;
        s.a_sources.push_back({tile, reg});
        found = true;
      }
      if (!found)
        throw InputError(fmt::format("{}: no accumulator register of T can serve as A register {} of block {} without "
                                     "a shuffle",
                                     info.id, i, b));
    }
  std::vector<int> sorted = s.permutation;
  std::sort(sorted.begin(), sorted.end());
  for (int kk = 0; kk < inner; ++kk)
    if (sorted[static_cast<std::size_t>(kk)] != kk)
      throw InputError(fmt::format("{}: the register reuse does not read every column of T exactly once", info.id));
  return s;
}

BandedPair make_banded_pair(const GatherTile& tile, const ButterflySwap& swap, const RankOneTerm& term) {
  if (term.offset < 0 || term.offset + term.size > 2 * tile.radius + 1)
    throw InputError(fmt::format("a rank-1 term of side {} at offset {} does not fit a radius-{} tile", term.size,
                                 term.offset, tile.radius));
  if (swap.inner != tile.x_cols || swap.shape != tile.shape)
    throw InputError("the butterfly swap was derived for a different tile");
  BandedPair b;
  b.u_band.assign(static_cast<std::size_t>(tile.tile_rows * tile.x_rows), 0.0);
  b.v_band.assign(static_cast<std::size_t>(tile.x_cols * tile.tile_cols), 0.0);
  b.v_swapped.assign(b.v_band.size(), 0.0);
  for (int p = 0; p < tile.tile_rows; ++p)
    for (int i = 0; i < term.size; ++i)
      b.u_band[at(p, p + term.offset + i, tile.x_rows)] = term.u[static_cast<std::size_t>(i)];
  for (int q = 0; q < tile.tile_cols; ++q)
    for (int j = 0; j < term.size; ++j)
      b.v_band[at(q + term.offset + j, q, tile.tile_cols)] = term.v[static_cast<std::size_t>(j)];
  for (int kp = 0; kp < tile.x_cols; ++kp)
    for (int q = 0; q < tile.tile_cols; ++q)
      b.v_swapped[at(kp, q, tile.tile_cols)] =
          b.v_band[at(swap.permutation[static_cast<std::size_t>(kp)], q, tile.tile_cols)];
  return b;
}

TermOperands term_operands(const GatherTile& tile, const TermGather& g) {
  TermOperands o;
  o.gather = g;
  o.schedule = term_schedule(tile, g);
  const TermSchedule& s = o.schedule;
  const auto band = [](const std::vector<double>& w, int offset) {
    return offset >= 0 && offset < static_cast<int>(w.size()) ? w[static_cast<std::size_t>(offset)] : 0.0;
  };
  if (g.kind == GatherKind::Chain || g.kind == GatherKind::Rows) {
    const int cols = s.chunks * tile.k;
    o.u_band.assign(static_cast<std::size_t>(tile.m * cols), 0.0);
    for (int p = 0; p < tile.m; ++p)
      for (int i = 0; i < cols; ++i) o.u_band[at(p, i, cols)] = band(g.u, i - p);
  }
  if (g.kind == GatherKind::Chain || g.kind == GatherKind::Columns) {
    const int rows = (g.kind == GatherKind::Chain ? s.v_chunks : s.chunks) * tile.k;
    o.v_band.assign(static_cast<std::size_t>(rows * tile.n), 0.0);
    for (int r = 0; r < rows; ++r)
      for (int q = 0; q < tile.n; ++q) o.v_band[at(r, q, tile.n)] = band(g.v, r - q);
    if (g.kind == GatherKind::Chain) {
      o.swap = derive_butterfly_swap(tile.shape, rows);
      o.v_swapped.assign(o.v_band.size(), 0.0);
      for (int kp = 0; kp < rows; ++kp)
        for (int q = 0; q < tile.n; ++q)
          o.v_swapped[at(kp, q, tile.n)] = o.v_band[at(o.swap.permutation[static_cast<std::size_t>(kp)], q, tile.n)];
    }
  }
  return o;
}

LineGather make_line_gather(MmaShape shape, const std::vector<double>& weights) {
  LineGather g = for_instruction<LineGather>(shape);
  if (weights.empty() || weights.size() % 2 == 0)
    throw InputError(fmt::format("a 1D gather needs 2h+1 weights; got {}", weights.size()));
  g.radius = static_cast<int>(weights.size() / 2);
  g.window = g.n + 2 * g.radius;
  g.inner = round_up(g.window, g.k);
  g.v_band.assign(static_cast<std::size_t>(g.inner * g.n), 0.0);
  for (int q = 0; q < g.n; ++q)
    for (std::size_t j = 0; j < weights.size(); ++j) g.v_band[at(q + static_cast<int>(j), q, g.n)] = weights[j];
  return g;
}

} // namespace se
