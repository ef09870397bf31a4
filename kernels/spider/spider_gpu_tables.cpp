#include "kernels/spider/spider_gpu_tables.hpp"

#include <algorithm>
#include <array>
#include <set>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/fragment/fragment_layout.hpp"
#include "core/fragment/mma_emulation.hpp"
#include "core/half.hpp"

namespace se::spider_gpu {

int gpu_radius(const Stencil& s) { return std::max(1, s.radius); }

SpiderPlan gpu_plan(const Stencil& s, SpiderVariant variant, bool accumulate_fp16) {
  Stencil w = s;
  if (s.radius < 1) {
    w = make_stencil(s.dims, 1, s.name);
    for (const Tap& t : taps(s)) w.at(t.dx, t.dy, t.dz) = t.w;
  }
  SpiderOptions o;
  o.variant = variant;
  // The dense variant's band is unswapped with the pair order and in the lanes' K order with Lanes (core keeps it).
  const bool lanes = lane_order(s.dims, gpu_radius(s), variant == SpiderVariant::Sparse);
  o.parity = lanes ? SwapParity::Lanes : SwapParity::Pairs;
  o.accumulate_fp16 = accumulate_fp16;
  return make_spider_plan(w, o);
}

namespace {

std::uint32_t pack2(Half lo, Half hi) {
  return static_cast<std::uint32_t>(lo.bits) | (static_cast<std::uint32_t>(hi.bits) << 16);
}

// Shared wavefronts of one shift's B loads (boff per register, in halves; `vec` registers per load, adjacent words):
// a warp's 32-, 64- or 128-bit load is served in 1, 2 or 4 phases of 32 / vec lanes, and each phase takes as many
// wavefronts as the most distinct words one bank serves in it (lanes reading the same word share it).
int conflict_ways(const std::vector<std::int32_t>& boff, int regs, int vec) {
  int total = 0;
  for (int l = 0; l < regs; l += vec)
    for (int phase = 0; phase < vec; ++phase) {
      std::array<std::set<int>, 32> banks;
      for (int lane = phase * 32 / vec; lane < (phase + 1) * 32 / vec; ++lane)
        for (int w = 0; w < vec; ++w) {
          const int word = boff[static_cast<std::size_t>(l * 32 + lane)] / 2 + w;
          banks[static_cast<std::size_t>(word % 32)].insert(word);
        }
      int worst = 0;
      for (const auto& b : banks) worst = std::max(worst, static_cast<int>(b.size()));
      total += worst;
    }
  return total;
}

} // namespace

Tables make_tables(const SpiderPlan& plan, bool tma) {
  const SpiderGeometry& pg = plan.geometry;
  Tables t;
  t.g = geometry(pg.dims, pg.radius);
  const Geometry& g = t.g;
  if (pg.radius < 1 || pg.radius > 7)
    throw InputError(fmt::format("SPIDER's GPU kernels take radius 1 to 7; got {}", pg.radius));
  if (g.L != pg.L || g.px != pg.blocks_along_k || g.kc != pg.k_chunks || g.py != pg.parts_along_m ||
      g.tile_x != pg.tile_x || g.tile_y != pg.tile_y || g.shift0 != pg.shift_begin ||
      g.shift0 + g.nshift != pg.shift_end || g.band_offset != pg.band_offset || g.block_x != pg.block_x ||
      g.block_y != pg.block_y)
    throw InputError("internal: SPIDER's plan geometry differs from the one its GPU kernels are compiled for");
  t.sparse = plan.options.variant == SpiderVariant::Sparse;
  t.acc16 = plan.options.accumulate_fp16;
  t.aregs = t.sparse ? 2 : 4;
  t.tma = tma;
  t.split = t.tma && split_rows(g.dims, pg.radius);
  t.classes = row_classes(g.dims, pg.radius, t.tma);
  t.block = t.tma && block_store(g.dims, pg.radius);
  t.nmeta = t.sparse ? (g.nmma + 3) / 4 : 0;
  const int r = g.radius;

  // A and metadata for every (shift, chunk) in kernel order; the plan skips all-zero tiles, the kernel does not.
  t.a.assign(static_cast<std::size_t>(g.nmma * t.aregs * 32), 0u);
  t.meta.assign(static_cast<std::size_t>(t.nmeta * 32), 0u);
  const MmaShape shape = t.sparse ? MmaShape::SP_M16N8K16_F16_F32 : MmaShape::M16N8K16_F16_F32;
  for (int s = 0; s < g.nshift; ++s)
    for (int q = 0; q < g.kc; ++q) {
      const int idx = s * g.kc + q;
      std::vector<double> a(256, 0.0);
      for (const SpiderMma& m : plan.mmas)
        if (m.shift == g.shift0 + s && m.k_chunk == q) a = m.a;
      std::vector<Half> h;
      if (t.sparse) {
        const Compressed24 c = compress_2to4(a.data(), 16, 16, 16);
        for (const double v : c.values) h.push_back(Half(v));
        const SparseMetadata md = pack_metadata(c, idx % 4);
        for (int lane = 0; lane < 32; ++lane)
          t.meta[static_cast<std::size_t>((idx / 4) * 32 + lane)] |= md.per_lane[static_cast<std::size_t>(lane)];
      } else {
        for (const double v : a) h.push_back(Half(v));
      }
      const WarpFragment<Half> f = load_fragment(shape, Operand::A, h.data(), t.sparse ? 8 : 16);
      const int per_lane = f.layout.regs_per_lane;
      for (int lane = 0; lane < 32; ++lane)
        for (int reg = 0; reg < t.aregs; ++reg) {
          const std::size_t base = static_cast<std::size_t>(lane * per_lane + 2 * reg);
          t.a[static_cast<std::size_t>((idx * t.aregs + reg) * 32 + lane)] = pack2(f.regs[base], f.regs[base + 1]);
        }
    }

  // B: register h of chunk q holds rows k = 16q + 2t + 8h and k + 1 (column g). Their input x offsets are adjacent
  // (the pair swap moves pairs) and the first is even (the band offset at odd r), so from the tile's origin at
  // x = bx0 - 8 one aligned 32-bit load fetches both.
  const int dx_lo = -r - g.band_offset; // even: a band's first column
  std::vector<int> dx(static_cast<std::size_t>(16 * g.kc));
  for (int k = 0; k < 16 * g.kc; ++k) {
    const SpiderInputRow& in = plan.input_rows[static_cast<std::size_t>(k)];
    dx[static_cast<std::size_t>(k)] = in.block < 0 ? dx_lo + (k & 1) : in.dx;
  }
  for (int k = 0; k < 16 * g.kc; k += 2)
    if (dx[static_cast<std::size_t>(k + 1)] != dx[static_cast<std::size_t>(k)] + 1 ||
        (dx[static_cast<std::size_t>(k)] + kTileOrigin) % 2 != 0)
      throw InputError(fmt::format("internal: SPIDER's B rows {} and {} are not an aligned pair (dx {} and {})", k,
                                   k + 1, dx[static_cast<std::size_t>(k)], dx[static_cast<std::size_t>(k + 1)]));
  const int dx_min = *std::min_element(dx.begin(), dx.end()), dx_max = *std::max_element(dx.begin(), dx.end());
  if (dx_min < dx_lo || dx_min + kTileOrigin < 0 || dx_max > g.dx_max)
    throw InputError("internal: a SPIDER B row reads outside the shared tile");
  // Lane order: a shift's registers are adjacent words from the lane's first, which is aligned for the wide load
  // (from a 16-byte aligned warp tile corner: the tile's rows are whole 16-byte units, tile_x a multiple of 8).
  if (lane_order(g.dims, r, t.sparse)) {
    if (plan.options.parity != SwapParity::Lanes)
      throw InputError("internal: SPIDER's radius 3 and 7 kernels take the lane-ordered swap");
    t.bvec = b_load_words(g.dims, r, t.sparse);
    for (int k = 0; k < 16 * g.kc; k += 8)
      for (int ti = 0; ti < 4; ++ti) {
        const int h = k / 8, first = dx[static_cast<std::size_t>(2 * ti)];
        if (dx[static_cast<std::size_t>(k + 2 * ti)] != first + 2 * h || (first + kTileOrigin) % (2 * t.bvec) != 0)
          throw InputError(fmt::format("internal: SPIDER's lane-ordered B registers of lane t = {} are not one "
                                       "aligned {}-word run", ti, t.bvec));
      }
  }
  const auto fill_boff = [&](int col_stride) {
    std::vector<std::int32_t> b(static_cast<std::size_t>(g.kc * 2 * 32));
    for (int q = 0; q < g.kc; ++q)
      for (int h = 0; h < 2; ++h)
        for (int lane = 0; lane < 32; ++lane) {
          const int gi = lane >> 2, ti = lane & 3;
          const int k = 16 * q + 2 * ti + 8 * h;
          b[static_cast<std::size_t>((q * 2 + h) * 32 + lane)] =
              gi * col_stride + kTileOrigin + dx[static_cast<std::size_t>(k)];
        }
    return b;
  };
  t.sh = g.sh;
  if (g.dims == 1) {
    t.sw = t.tma ? (g.sw_min + 7) / 8 * 8 : g.sw_min; // a bulk copy moves whole 16-byte units
    t.boff = fill_boff(g.rpp);
    t.bank_conflict_ways = conflict_ways(t.boff, g.kc * 2, t.bvec);
  } else {
    int best = -1;
    // Wide loads need rows of whole 16-byte units, and their banks repeat every 64 halves of row stride.
    const int sw_end = t.bvec > 1 ? g.sw_min + 64 : g.sw_max;
    for (int sw = g.sw_min; sw < sw_end; sw += 2) {
      if ((t.tma || t.bvec > 1) && sw % 8 != 0) continue; // a TMA box's rows are whole 16-byte chunks
      auto b = fill_boff(t.classes > 1 ? sw : g.py * sw); // row classes: lane g's row is g rows into its region
      const int ways = conflict_ways(b, g.kc * 2, t.bvec);
      if (best < 0 || ways < best) {
        best = ways;
        t.sw = sw;
        t.boff = std::move(b);
      }
    }
    t.bank_conflict_ways = best;
  }
  return t;
}

} // namespace se::spider_gpu
