// The fragment-level FlashFFTStencil emulation. Constant matrices become fragments once per plan (a kernel
// keeps them in shared memory); the data operand of steps 2, 4 and 5 is formed from the previous accumulator
// inside each lane through the plan's register feed, which is what lets the kernel skip the C -> A round trip.
#include "core/flashfft/flashfft_emulation.hpp"

#include <algorithm>
#include <atomic>
#include <random>
#include <thread>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/fragment/mma_emulation.hpp"

namespace se {

void FlashFftCounters::add(const FlashFftCounters& o) {
  passes += o.passes;
  tile_pairs += o.tile_pairs;
  mma += o.mma;
  operand_values += o.operand_values;
  operand_zeros += o.operand_zeros;
  cuda_core_flops += o.cuda_core_flops;
  points_written += o.points_written;
}

namespace {

constexpr MmaShape kShape = MmaShape::M8N8K4_F64;
constexpr int kTile = 8; // m = n of m8n8k4
constexpr int kStep = 4; // k of m8n8k4
using Fragment = WarpFragment<double>;
using cplx = std::complex<double>;

// The fragments of one constant matrix, tile by tile.
struct FragmentBank {
  int tile_cols = 0;
  std::vector<Fragment> tiles;
  const Fragment& at(int i, int j) const { return tiles[static_cast<std::size_t>(i * tile_cols + j)]; }
};

FragmentBank make_bank(const FftMatrix& m, Operand op) {
  const int tr = op == Operand::A ? kTile : kStep, tc = op == Operand::A ? kStep : kTile;
  FragmentBank b;
  b.tile_cols = m.cols / tc;
  for (int i = 0; i < m.rows / tr; ++i)
    for (int j = 0; j < b.tile_cols; ++j)
      b.tiles.push_back(load_fragment(kShape, op, m.values.data() + static_cast<std::size_t>(i * tr) * m.cols + j * tc, m.cols));
  return b;
}

Fragment blank(Operand op) {
  Fragment f{fragment_layout(kShape, op), {}};
  f.regs.assign(f.layout.coords.size(), 0.0);
  return f;
}

// load_fragment into an existing fragment: the same layout walk without reallocating per tile.
void gather(Fragment& f, const double* src, int ld) {
  for (std::size_t s = 0; s < f.regs.size(); ++s) {
    const FragmentCoord rc = f.layout.coords[s];
    f.regs[s] = src[static_cast<std::size_t>(rc.row) * static_cast<std::size_t>(ld) + static_cast<std::size_t>(rc.col)];
  }
}

// Per plan, read-only, shared by the worker threads.
struct ChainConstants {
  const FlashFftPlan& plan;
  int P1, P2, Lz, Sz, z_halo;
  FragmentBank forward_rows, forward_cols, inverse_cols, inverse_rows;
  std::vector<int> feed_a, feed_b; // [k_step][slot of A/B] -> C register index lane * regs + reg
  int feed_steps;
  std::vector<FragmentCoord> c_coords; // C layout
  std::vector<cplx> spectrum;          // k_f^T / N in the frequency layout
  std::vector<cplx> z_forward;         // Lz x Lz
  std::vector<cplx> z_inverse;         // Sz x Lz: rows of conj(Fz) for the output slices

  explicit ChainConstants(const FlashFftPlan& p)
      : plan(p), P1(p.rows.padded), P2(p.cols.padded), Lz(p.depth.length),
        Sz(p.dims == 3 ? p.stitched[2] : 1), z_halo(p.dims == 3 ? (p.tile[2] - p.stitched[2]) / 2 : 0),
        forward_rows(make_bank(p.forward_rows, Operand::A)), forward_cols(make_bank(p.forward_cols_swizzled, Operand::B)),
        inverse_cols(make_bank(p.inverse_cols_swizzled, Operand::A)),
        inverse_rows(make_bank(p.inverse_rows_swizzled, Operand::B)) {
    if (P1 % kTile != 0 || P2 % kTile != 0) throw InputError("FlashFFTStencil plan: axes must be padded to 8");
    const FragmentLayout c = fragment_layout(kShape, Operand::C);
    c_coords = c.coords;
    feed_steps = c.cols / kStep;
    const auto table = [&](const RegisterFeed& f) {
      std::vector<int> t(f.entries.size());
      const int regs = fragment_layout(kShape, f.target).regs_per_lane;
      for (std::size_t i = 0; i < f.entries.size(); ++i) {
        const RegisterFeedEntry& e = f.entries[i];
        if (static_cast<int>(i) != (e.k_step * kWarpSize + e.lane) * regs + e.target_reg)
          throw InputError("FlashFFTStencil plan: register feed entries are not in (k-step, lane, register) order");
        t[i] = e.lane * c.regs_per_lane + e.c_reg;
      }
      return t;
    };
    feed_a = table(p.feed_to_a);
    feed_b = table(p.feed_to_b);
    spectrum.resize(p.fused_spectrum.size());
    for (std::size_t i = 0; i < spectrum.size(); ++i) spectrum[i] = p.fused_spectrum[i] * p.inverse_scale;
    z_forward.resize(static_cast<std::size_t>(Lz * Lz));
    z_inverse.resize(static_cast<std::size_t>(Sz * Lz));
    for (int k = 0; k < Lz; ++k)
      for (int n = 0; n < Lz; ++n) z_forward[static_cast<std::size_t>(k * Lz + n)] = {p.depth.re.at(k, n), p.depth.im.at(k, n)};
    for (int o = 0; o < Sz; ++o)
      for (int k = 0; k < Lz; ++k)
        z_inverse[static_cast<std::size_t>(o * Lz + k)] = std::conj(z_forward[static_cast<std::size_t>(k * Lz + o + z_halo)]);
  }
};

// One warp's registers for a tile pair: the accumulators of each step, and the chain that fills them.
class TilePairChain {
public:
  explicit TilePairChain(const ChainConstants& k) : k_(k) {
    const auto tiles = [](int rows, int cols) { return std::vector<Fragment>(static_cast<std::size_t>(rows * cols), blank(Operand::C)); };
    x_ = std::vector<Fragment>(static_cast<std::size_t>((2 * k.P1 / kStep) * (k.P2 / kTile)), blank(Operand::B));
    p_ = tiles(2 * k.P1 / kTile, k.P2 / kTile);
    for (int s = 0; s < k.Lz; ++s) q_.push_back(tiles(k.P1 / kTile, 2 * k.P2 / kTile));
    for (int o = 0; o < k.Sz; ++o) qo_.push_back(tiles(k.P1 / kTile, 2 * k.P2 / kTile));
    rt_ = tiles(2 * k.P2 / kTile, k.P1 / kTile);
    y_ = tiles(k.P2 / kTile, 2 * k.P1 / kTile);
    a_ = blank(Operand::A);
    b_ = blank(Operand::B);
  }

  // in: Lz slices of 2 P1 x P2 (rows 0..P1-1 the first segment, P1.. the second; cell order n1, n2).
  // out: Sz slices of 2 P1 P2 values (the first segment's cells, then the second's).
  void run(const std::vector<double>& in, std::vector<double>& out, FlashFftCounters& n) {
    const int P1 = k_.P1, P2 = k_.P2, T1 = P1 / kTile, T2 = P2 / kTile;
    const std::size_t slice_in = static_cast<std::size_t>(2 * P1 * P2);
    for (int s = 0; s < k_.Lz; ++s) {
      const double* X = in.data() + s * slice_in;
      // Step 1: [Pr; Pi] = forward_rows x [xr; xi]; the data is the B operand, read from shared memory.
      for (int kk = 0; kk < 2 * P1 / kStep; ++kk)
        for (int nj = 0; nj < T2; ++nj) gather(x_[static_cast<std::size_t>(kk * T2 + nj)], X + static_cast<std::size_t>(kk * kStep * P2 + nj * kTile), P2);
      for (int mi = 0; mi < 2 * T1; ++mi)
        for (int nj = 0; nj < T2; ++nj) {
          Fragment& c = p_[static_cast<std::size_t>(mi * T2 + nj)];
          std::fill(c.regs.begin(), c.regs.end(), 0.0);
          for (int kk = 0; kk < 2 * P1 / kStep; ++kk) mma(k_.forward_rows.at(mi, kk), x_[static_cast<std::size_t>(kk * T2 + nj)], c, n);
        }
      // Step 2: [Qr | Qi] = [Pr | Pi] x G; each C tile of P feeds two k-steps as A, in registers.
      auto& q = q_[static_cast<std::size_t>(s)];
      for (int mi = 0; mi < T1; ++mi)
        for (int oc = 0; oc < 2 * T2; ++oc)
          multiply_fed_a(p_, T2, mi, mi + T1, k_.forward_cols, oc, q[static_cast<std::size_t>(mi * 2 * T2 + oc)], n);
    }
    multiply_spectrum(n);
    for (int o = 0; o < k_.Sz; ++o) {
      const auto& q = qo_[static_cast<std::size_t>(o)];
      // Step 4: [Rr'; Ri'] = G' x [Qr | Qi]'; the C tiles of Q feed the B operand transposed, in registers.
      for (int mo = 0; mo < 2 * T2; ++mo)
        for (int nb = 0; nb < T1; ++nb) {
          Fragment& c = rt_[static_cast<std::size_t>(mo * T1 + nb)];
          std::fill(c.regs.begin(), c.regs.end(), 0.0);
          for (int kc = 0; kc < 2 * T2; ++kc)
            for (int j = 0; j < k_.feed_steps; ++j) {
              feed(q[static_cast<std::size_t>(nb * 2 * T2 + kc)], j, k_.feed_b, b_);
              mma(k_.inverse_cols.at(mo, kc * k_.feed_steps + j), b_, c, n);
            }
        }
      // Step 5: [yr' | yi'] = [Rr' | Ri'] x forward_rows (conj F from the right), A fed from registers again.
      for (int mo = 0; mo < T2; ++mo)
        for (int oc = 0; oc < 2 * T1; ++oc)
          multiply_fed_a(rt_, T1, mo, mo + T2, k_.inverse_rows, oc, y_[static_cast<std::size_t>(mo * 2 * T1 + oc)], n);
      // y' tiles: row n2, column n1; the left half is the first segment (real part), the right the second.
      double* Y = out.data() + static_cast<std::size_t>(o) * slice_in;
      for (int mo = 0; mo < T2; ++mo)
        for (int oc = 0; oc < 2 * T1; ++oc) {
          const Fragment& c = y_[static_cast<std::size_t>(mo * 2 * T1 + oc)];
          const int layer = oc < T1 ? 0 : 1, col0 = (oc % T1) * kTile;
          for (std::size_t s = 0; s < c.regs.size(); ++s) {
            const FragmentCoord rc = k_.c_coords[s];
            const int n2 = mo * kTile + rc.row, n1 = col0 + rc.col;
            Y[static_cast<std::size_t>(layer * P1 * P2 + n1 * P2 + n2)] = c.regs[s];
          }
        }
    }
    ++n.tile_pairs;
  }

private:
  void mma(const Fragment& a, const Fragment& b, Fragment& c, FlashFftCounters& n) {
    mma_f64(kShape, a, b, c);
    ++n.mma;
    n.operand_values += static_cast<std::int64_t>(a.regs.size() + b.regs.size());
    n.operand_zeros += std::count(a.regs.begin(), a.regs.end(), 0.0) + std::count(b.regs.begin(), b.regs.end(), 0.0);
  }

  // One output tile c = [Ur | Ui] x B (steps 2 and 5): k runs over the C tiles of U's real row block, then its
  // imaginary one, each feeding feed_steps k-steps of A straight from its registers.
  void multiply_fed_a(const std::vector<Fragment>& u, int u_cols, int re_row, int im_row, const FragmentBank& b, int oc,
                      Fragment& c, FlashFftCounters& n) {
    std::fill(c.regs.begin(), c.regs.end(), 0.0);
    for (int kc = 0; kc < 2 * u_cols; ++kc) {
      const int row = kc < u_cols ? re_row : im_row;
      const Fragment& src = u[static_cast<std::size_t>(row * u_cols + kc % u_cols)];
      for (int j = 0; j < k_.feed_steps; ++j) {
        feed(src, j, k_.feed_a, a_);
        mma(a_, b.at(kc * k_.feed_steps + j, oc), c, n);
      }
    }
  }

  // The swizzle at work: every register of the new operand comes from the same lane's accumulator.
  static void feed(const Fragment& c, int k_step, const std::vector<int>& table, Fragment& target) {
    const std::size_t base = static_cast<std::size_t>(k_step) * target.regs.size();
    for (std::size_t s = 0; s < target.regs.size(); ++s) target.regs[s] = c.regs[static_cast<std::size_t>(table[base + s])];
  }

  // Step 3 in the C registers ("squeezing registers": k_f^T is loaded in the accumulator layout). Re and Im of a
  // cell sit in the same lane and register of the tiles oc and oc + P2/8, so the complex product is lane-local;
  // in 3D the z DFT, product and inverse z DFT combine the same register across the slices.
  void multiply_spectrum(FlashFftCounters& n) {
    const int P1 = k_.P1, P2 = k_.P2, T1 = P1 / kTile, T2 = P2 / kTile, Lz = k_.Lz, Sz = k_.Sz;
    std::vector<cplx> qs(static_cast<std::size_t>(Lz)), qz(static_cast<std::size_t>(Lz));
    for (int mi = 0; mi < T1; ++mi)
      for (int c2 = 0; c2 < T2; ++c2) {
        const std::size_t re_tile = static_cast<std::size_t>(mi * 2 * T2 + c2), im_tile = re_tile + static_cast<std::size_t>(T2);
        for (std::size_t s = 0; s < k_.c_coords.size(); ++s) {
          const FragmentCoord rc = k_.c_coords[s];
          const std::size_t cell = static_cast<std::size_t>((mi * kTile + rc.row) * P2 + c2 * kTile + rc.col);
          for (int z = 0; z < Lz; ++z)
            qs[static_cast<std::size_t>(z)] = {q_[static_cast<std::size_t>(z)][re_tile].regs[s], q_[static_cast<std::size_t>(z)][im_tile].regs[s]};
          if (Lz == 1) {
            qz[0] = qs[0] * k_.spectrum[cell];
          } else {
            for (int kz = 0; kz < Lz; ++kz) {
              cplx acc{0.0, 0.0};
              for (int z = 0; z < Lz; ++z) acc += k_.z_forward[static_cast<std::size_t>(kz * Lz + z)] * qs[static_cast<std::size_t>(z)];
              qz[static_cast<std::size_t>(kz)] = acc * k_.spectrum[static_cast<std::size_t>(kz * P1 * P2) + cell];
            }
          }
          for (int o = 0; o < Sz; ++o) {
            cplx v = qz[0];
            if (Lz > 1) {
              v = {0.0, 0.0};
              for (int kz = 0; kz < Lz; ++kz) v += k_.z_inverse[static_cast<std::size_t>(o * Lz + kz)] * qz[static_cast<std::size_t>(kz)];
            }
            qo_[static_cast<std::size_t>(o)][re_tile].regs[s] = v.real();
            qo_[static_cast<std::size_t>(o)][im_tile].regs[s] = v.imag();
          }
        }
      }
    const double cells = static_cast<double>(P1) * P2;
    n.cuda_core_flops += static_cast<std::int64_t>(Lz == 1 ? 6.0 * cells : cells * (8.0 * Lz * Lz + 6.0 * Lz + 8.0 * Sz * Lz));
  }

  const ChainConstants& k_;
  std::vector<Fragment> x_, p_, rt_, y_;
  std::vector<std::vector<Fragment>> q_, qo_;
  Fragment a_, b_;
};

struct AxisSplit {
  std::int64_t n = 1, tile = 1, stitched = 1, halo = 0, count = 1, padded = 1;
};

int resolve_threads(int threads, std::int64_t work_items) {
  const int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int t = threads > 0 ? threads : hw;
  return static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(t, work_items)));
}

} // namespace

void flashfft_pass(const FlashFftPlan& plan, const Extent& extent, std::vector<double>& values, const Boundary& boundary,
                   int threads, FlashFftCounters* counters) {
  if (extent.dims != plan.dims)
    throw InputError(fmt::format("a {}D FlashFFTStencil plan cannot run a {}D grid", plan.dims, extent.dims));
  if (values.size() != static_cast<std::size_t>(extent.points())) throw InputError("flashfft_pass: grid size mismatch");
  const bool periodic = boundary.kind == BoundaryKind::Periodic;
  std::array<AxisSplit, 3> ax;
  for (int d = 0; d < plan.dims; ++d) {
    AxisSplit& a = ax[static_cast<std::size_t>(d)];
    a.n = extent.n[static_cast<std::size_t>(d)];
    a.tile = plan.tile[static_cast<std::size_t>(d)];
    a.stitched = plan.stitched[static_cast<std::size_t>(d)];
    a.halo = (a.tile - a.stitched) / 2;
    if (plan.whole_period && (!periodic || a.n != a.tile))
      throw InputError(fmt::format("this FlashFFTStencil plan treats the grid as one whole period: it needs a periodic "
                                   "boundary and {} points along {}; got {} with {} points",
                                   a.tile, "xyz"[d], to_string(boundary.kind), a.n));
    a.count = (a.n + a.stitched - 1) / a.stitched;
    a.padded = a.count * a.stitched + 2 * a.halo;
  }
  const std::uint64_t padded_points = static_cast<std::uint64_t>(ax[0].padded * ax[1].padded * ax[2].padded);
  check_host_memory(padded_points * sizeof(double), "FlashFFTStencil's halo-padded copy of the grid");

  // The halo-padded input, as the reference builds it: Dirichlet value outside, or periodic wrap.
  std::array<std::vector<std::int64_t>, 3> source;
  for (int d = 0; d < 3; ++d) {
    const AxisSplit& a = ax[static_cast<std::size_t>(d)];
    for (std::int64_t p = 0; p < a.padded; ++p) {
      const std::int64_t c = p - a.halo;
      source[static_cast<std::size_t>(d)].push_back(c >= 0 && c < a.n ? c : (periodic ? ((c % a.n) + a.n) % a.n : -1));
    }
  }
  std::vector<double> padded(padded_points);
  for (std::int64_t z = 0; z < ax[2].padded; ++z)
    for (std::int64_t y = 0; y < ax[1].padded; ++y)
      for (std::int64_t x = 0; x < ax[0].padded; ++x) {
        const std::int64_t sx = source[0][static_cast<std::size_t>(x)], sy = source[1][static_cast<std::size_t>(y)],
                           sz = source[2][static_cast<std::size_t>(z)];
        padded[static_cast<std::size_t>((z * ax[1].padded + y) * ax[0].padded + x)] =
            (sx < 0 || sy < 0 || sz < 0) ? boundary.value : values[static_cast<std::size_t>((sz * ax[1].n + sy) * ax[0].n + sx)];
      }

  const ChainConstants k(plan);
  const int P1 = k.P1, P2 = k.P2;
  const std::size_t cells = static_cast<std::size_t>(P1 * P2);
  // Per cell: its offset in the padded grid from the tile origin, and its position relative to the stitched window.
  std::vector<std::int64_t> cell_offset(cells, -1);
  std::vector<std::array<std::int64_t, 2>> cell_out(cells, {-1, -1}); // (x, y) inside the window, -1 outside
  for (std::size_t c = 0; c < cells; ++c) {
    const int pos = plan.input_map[c];
    if (pos < 0) continue;
    const std::int64_t x = plan.dims == 1 ? pos : pos % plan.cols.length, y = plan.dims == 1 ? 0 : pos / plan.cols.length;
    cell_offset[c] = y * ax[0].padded + x;
    const std::int64_t ox = x - ax[0].halo, oy = y - ax[1].halo;
    if (ox >= 0 && ox < ax[0].stitched && oy >= 0 && oy < ax[1].stitched) cell_out[c] = {ox, oy};
  }

  const std::int64_t tiles = ax[0].count * ax[1].count * ax[2].count, pairs = (tiles + 1) / 2;
  const int nthreads = resolve_threads(threads, pairs);
  std::vector<FlashFftCounters> per_thread(static_cast<std::size_t>(nthreads));
  std::atomic<std::int64_t> next_pair{0};
  const auto worker = [&](int t) {
    TilePairChain chain(k);
    FlashFftCounters& n = per_thread[static_cast<std::size_t>(t)];
    std::vector<double> in(static_cast<std::size_t>(k.Lz) * 2 * cells), out(static_cast<std::size_t>(k.Sz) * 2 * cells);
    for (std::int64_t pair = next_pair++; pair < pairs; pair = next_pair++) {
      std::fill(in.begin(), in.end(), 0.0);
      std::array<std::array<std::int64_t, 3>, 2> origin{};
      const int layers = 2 * pair + 1 < tiles ? 2 : 1; // a lone last tile leaves the imaginary layer zero
      for (int layer = 0; layer < layers; ++layer) {
        const std::int64_t t_index = 2 * pair + layer;
        origin[static_cast<std::size_t>(layer)] = {t_index % ax[0].count, (t_index / ax[0].count) % ax[1].count,
                                                   t_index / (ax[0].count * ax[1].count)};
        const auto& o = origin[static_cast<std::size_t>(layer)];
        for (int s = 0; s < k.Lz; ++s) {
          const std::int64_t base = ((o[2] * ax[2].stitched + s) * ax[1].padded + o[1] * ax[1].stitched) * ax[0].padded +
                                    o[0] * ax[0].stitched;
          double* X = in.data() + static_cast<std::size_t>(s) * 2 * cells + static_cast<std::size_t>(layer) * cells;
          for (std::size_t c = 0; c < cells; ++c)
            if (cell_offset[c] >= 0) X[c] = padded[static_cast<std::size_t>(base + cell_offset[c])];
        }
      }
      chain.run(in, out, n);
      for (int layer = 0; layer < layers; ++layer) {
        const auto& o = origin[static_cast<std::size_t>(layer)];
        for (int s = 0; s < k.Sz; ++s) {
          const std::int64_t gz = o[2] * ax[2].stitched + s;
          if (gz >= ax[2].n) continue;
          const double* Y = out.data() + static_cast<std::size_t>(s) * 2 * cells + static_cast<std::size_t>(layer) * cells;
          for (std::size_t c = 0; c < cells; ++c) {
            if (cell_out[c][0] < 0) continue;
            const std::int64_t gx = o[0] * ax[0].stitched + cell_out[c][0], gy = o[1] * ax[1].stitched + cell_out[c][1];
            if (gx >= ax[0].n || gy >= ax[1].n) continue;
            values[static_cast<std::size_t>((gz * ax[1].n + gy) * ax[0].n + gx)] = Y[c];
            ++n.points_written;
          }
        }
      }
    }
  };
  if (nthreads == 1) {
    worker(0);
  } else {
    std::vector<std::thread> pool;
    for (int t = 0; t < nthreads; ++t) pool.emplace_back(worker, t);
    for (auto& th : pool) th.join();
  }
  if (counters) {
    for (const auto& n : per_thread) counters->add(n);
    ++counters->passes;
  }
}

int flashfft_advance(const Stencil& s, const Extent& extent, std::vector<double>& values, int steps,
                     const Boundary& boundary, const FlashFftRunOptions& options, FlashFftCounters* counters) {
  validate(s);
  return flashfft_advance(make_flashfft_plan(s, options.plan), extent, values, steps, boundary, options, counters);
}

int flashfft_advance(const FlashFftPlan& full, const Extent& extent, std::vector<double>& values, int steps,
                     const Boundary& boundary, const FlashFftRunOptions& options, FlashFftCounters* counters) {
  const Stencil& s = full.stencil;
  check_extent_fits_stencil(extent, s);
  if (steps < 0) throw InputError("the number of steps cannot be negative");
  if (values.size() != static_cast<std::size_t>(extent.points())) throw InputError("flashfft_advance: grid size mismatch");
  const int T = full.fused_steps, rest = steps % T;
  FlashFftPlan remainder;
  if (rest > 0) { // the last, shallower pass: its own plan (a smaller halo), tile chosen by the cost model
    FlashFftOptions o;
    o.fused_steps = rest;
    o.whole_period = full.whole_period;
    remainder = make_flashfft_plan(s, o);
  }
  int done = 0;
  std::vector<double> initial;
  while (done < steps) {
    const FlashFftPlan& plan = steps - done >= T ? full : remainder;
    const bool fix_band = boundary.kind == BoundaryKind::Dirichlet && plan.fused_steps > 1;
    if (fix_band) initial = values;
    flashfft_pass(plan, extent, values, boundary, options.threads, counters);
    if (fix_band) fix_fused_boundary_band(s, extent, initial, values, plan.fused_steps, boundary);
    done += plan.fused_steps;
    if (options.progress && !options.progress(done, steps)) break;
  }
  return done;
}

FlashFftCounters flashfft_tile_pair_counters(const FlashFftPlan& plan, std::uint64_t seed) {
  const ChainConstants k(plan);
  TilePairChain chain(k);
  const std::size_t cells = static_cast<std::size_t>(k.P1 * k.P2);
  std::vector<double> in(static_cast<std::size_t>(k.Lz) * 2 * cells, 0.0), out(static_cast<std::size_t>(k.Sz) * 2 * cells);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(0.5, 1.5); // never zero: only structural zeros are counted
  for (int s = 0; s < k.Lz; ++s)
    for (int layer = 0; layer < 2; ++layer)
      for (std::size_t c = 0; c < cells; ++c)
        if (plan.input_map[c] >= 0) in[static_cast<std::size_t>(s) * 2 * cells + static_cast<std::size_t>(layer) * cells + c] = dist(rng);
  FlashFftCounters n;
  chain.run(in, out, n);
  n.passes = 1;
  return n;
}

namespace {
// One periodic grid that is exactly one tile of the given transform sizes, a random start on it, and the options
// of the FP64 reference on it: what the fusion-error measurements share.
struct FusionProbe {
  FlashFftOptions options;
  Extent extent;
  std::vector<double> initial;
  Boundary periodic;
  ReferenceOptions reference;
};

FusionProbe fusion_probe(const Stencil& s, std::uint64_t seed, const FlashFftOptions& tile) {
  FusionProbe p;
  p.options = tile;
  p.options.fused_steps = 1;
  p.options.whole_period = true;
  const FlashFftPlan first = make_flashfft_plan(s, p.options);
  p.options.rows = first.rows.length;
  p.options.cols = first.cols.length;
  p.options.depth = first.depth.length;
  p.extent.dims = s.dims;
  for (int d = 0; d < s.dims; ++d) p.extent.n[static_cast<std::size_t>(d)] = first.tile[static_cast<std::size_t>(d)];
  p.initial = initial_values(p.extent, InitialCondition::Random, seed);
  p.periodic.kind = BoundaryKind::Periodic;
  p.reference.boundary = p.periodic;
  p.reference.threads = 1;
  return p;
}

// One pass with k_f^T on the probe's grid, against `reference` (the FP64 reference after T steps).
FusionErrorSample fused_pass_error(const Stencil& s, const FusionProbe& probe, int T, const std::vector<double>& reference) {
  FlashFftOptions o = probe.options;
  o.fused_steps = T;
  std::vector<double> v = probe.initial;
  flashfft_pass(make_flashfft_plan(s, o), probe.extent, v, probe.periodic, 1);
  const ErrorMetrics m = compare(v, reference);
  return {T, m.rel_l2, m.max_abs, m.finite};
}

void check_fusion_depth(int T) {
  if (T < 1 || T > 4096)
    throw InputError(fmt::format("the fusion error curve runs T = 1..max with max between 1 and 4096; got {}", T));
}
} // namespace

std::vector<FusionErrorSample> measure_fusion_error_growth(const Stencil& s, int max_fused_steps, std::uint64_t seed,
                                                           const FlashFftOptions& tile) {
  validate(s);
  check_fusion_depth(max_fused_steps);
  const FusionProbe probe = fusion_probe(s, seed, tile);
  std::vector<FusionErrorSample> curve;
  std::vector<double> reference = probe.initial;
  for (int T = 1; T <= max_fused_steps; ++T) {
    reference_advance(s, probe.extent, reference, 1, Precision::FP64, probe.reference); // the reference after T steps
    curve.push_back(fused_pass_error(s, probe, T, reference));
  }
  return curve;
}

FusionErrorSample measure_plan_fusion_error(const FlashFftPlan& plan, std::uint64_t seed) {
  validate(plan.stencil);
  check_fusion_depth(plan.fused_steps);
  FlashFftOptions tile;
  tile.rows = plan.rows.length;
  tile.cols = plan.cols.length;
  tile.depth = plan.dims == 3 ? plan.depth.length : 0;
  const FusionProbe probe = fusion_probe(plan.stencil, seed, tile);
  std::vector<double> reference = probe.initial;
  reference_advance(plan.stencil, probe.extent, reference, plan.fused_steps, Precision::FP64, probe.reference);
  return fused_pass_error(plan.stencil, probe, plan.fused_steps, reference);
}

} // namespace se
