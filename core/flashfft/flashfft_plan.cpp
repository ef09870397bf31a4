// FlashFFTStencil planning: tile choice, DFT matrices in real block form, the register feed that makes the
// swizzled order, the PFA/CRT maps and the kernel's spectrum raised to the fused step count.
#include "core/flashfft/flashfft_plan.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <numeric>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"

namespace se {
namespace {

constexpr int kFragment = 8; // m8n8k4: rows and columns of every transform are padded to this
// FP64 tensor-core FLOP/s over memory bandwidth of an H100 SXM (the paper's Table 2: 67 TFLOPS, 3350 GB/s).
// The automatic tile choice minimises max(flops / balance, bytes) per output: a roofline time estimate.
constexpr double kMachineBalance = 67e12 / 3350e9;
constexpr int kMaxAxis = 512;

int round_up(int v, int m) { return (v + m - 1) / m * m; }

// exp(-2 pi i m / n), exact where the angle is a multiple of a quarter turn so that those entries are
// exact zeros and ones in the fragments (as a kernel generating them with integer phase arithmetic gets).
// Computed in long double: the GPU runs thousands of passes with the same matrices and k_f^T, so their
// rounding is a systematic error that adds up pass after pass; rounding each entry once keeps it at half an ulp.
std::complex<long double> unit_root_ld(std::int64_t m, std::int64_t n) {
  m = ((m % n) + n) % n;
  if ((4 * m) % n == 0) {
    switch ((4 * m) / n) {
    case 0: return {1.0L, 0.0L};
    case 1: return {0.0L, -1.0L};
    case 2: return {-1.0L, 0.0L};
    default: return {0.0L, 1.0L};
    }
  }
  const long double a = 2.0L * std::numbers::pi_v<long double> * static_cast<long double>(m) / static_cast<long double>(n);
  return {std::cos(a), -std::sin(a)};
}
std::complex<double> unit_root(std::int64_t m, std::int64_t n) {
  const std::complex<long double> w = unit_root_ld(m, n);
  return {static_cast<double>(w.real()), static_cast<double>(w.imag())};
}

FftMatrix zero_matrix(int rows, int cols) {
  return {rows, cols, std::vector<double>(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols), 0.0)};
}
double& cell(FftMatrix& m, int r, int c) {
  return m.values[static_cast<std::size_t>(r) * static_cast<std::size_t>(m.cols) + static_cast<std::size_t>(c)];
}

// [[Fr, s Fi], [-s Fi, Fr]]: s = -1 gives the left-multiplying form of F (step 1), s = +1 the right-multiplying
// form of F (step 2); a complex matrix acting on [re; im] stacks or [re | im] rows, respectively.
FftMatrix real_block(const DftAxis& a, double s) {
  const int p = a.padded;
  FftMatrix m = zero_matrix(2 * p, 2 * p);
  for (int r = 0; r < p; ++r)
    for (int c = 0; c < p; ++c) {
      cell(m, r, c) = a.re.at(r, c);
      cell(m, r + p, c + p) = a.re.at(r, c);
      cell(m, r, c + p) = s * a.im.at(r, c);
      cell(m, r + p, c) = -s * a.im.at(r, c);
    }
  return m;
}

// Reorder rows (or columns) inside each block of order.size(): new index b*B + i takes old index b*B + order[i].
FftMatrix swizzle_rows(const FftMatrix& m, const std::vector<int>& order) {
  FftMatrix out = zero_matrix(m.rows, m.cols);
  const int block = static_cast<int>(order.size());
  for (int r = 0; r < m.rows; ++r)
    for (int c = 0; c < m.cols; ++c) cell(out, r, c) = m.at(r / block * block + order[static_cast<std::size_t>(r % block)], c);
  return out;
}
FftMatrix swizzle_cols(const FftMatrix& m, const std::vector<int>& order) {
  FftMatrix out = zero_matrix(m.rows, m.cols);
  const int block = static_cast<int>(order.size());
  for (int r = 0; r < m.rows; ++r)
    for (int c = 0; c < m.cols; ++c) cell(out, r, c) = m.at(r, c / block * block + order[static_cast<std::size_t>(c % block)]);
  return out;
}

struct Geometry {
  int rows = 0, cols = 0, depth = 1;
};

// The tiling of the plan for a geometry, without matrices: what the cost estimate needs.
void set_geometry(FlashFftPlan& p, const Geometry& g) {
  p.rows.length = g.rows;
  p.rows.padded = round_up(g.rows, kFragment);
  p.cols.length = g.cols;
  p.cols.padded = round_up(g.cols, kFragment);
  p.depth.length = g.depth;
  p.depth.padded = g.depth;
  const int shrink = p.whole_period ? 0 : 2 * p.halo;
  p.tile = {1, 1, 1};
  p.stitched = {1, 1, 1};
  if (p.dims == 1) {
    p.tile[0] = g.rows * g.cols;
  } else {
    p.tile[0] = g.cols;
    p.tile[1] = g.rows;
    if (p.dims == 3) p.tile[2] = g.depth;
  }
  for (int d = 0; d < p.dims; ++d) p.stitched[d] = p.tile[d] - shrink;
}

double roofline_time(const FlashFftPlan& p) {
  const FlashFftPassWork w = flashfft_pass_work(p);
  const double flops = w.mma * 512.0 + w.cuda_core_flops;
  const double bytes = 8.0 * (w.inputs + w.outputs);
  return std::max(flops / kMachineBalance, bytes) / w.outputs;
}

int working_set(const FlashFftPlan& p) { return p.rows.padded * p.cols.padded * p.depth.length; }

std::vector<Geometry> candidates(int dims, int halo) {
  std::vector<Geometry> out;
  const int need = 2 * halo + 1;
  if (dims == 1) {
    for (int l1 = 8; l1 <= kMaxAxis; l1 += 8)
      for (int l2 = 7; l2 <= 63; l2 += 8)
        if (std::gcd(l1, l2) == 1 && l1 * l2 >= need && l1 * round_up(l2, kFragment) <= kFlashFftMaxTilePoints)
          out.push_back({l1, l2, 1});
  } else if (dims == 2) {
    for (int a = kFragment; a * a <= kFlashFftMaxTilePoints; a += kFragment)
      if (a >= need) out.push_back({a, a, 1});
  } else {
    for (int a = kFragment; a * a * need <= kFlashFftMaxTilePoints; a += kFragment)
      if (a >= need)
        for (int z = need; z <= need + 15 && a * a * z <= kFlashFftMaxTilePoints; ++z) out.push_back({a, a, z});
  }
  return out;
}

// Picks the candidate with the least roofline time per output; ties go to the smaller working set.
bool choose_geometry(FlashFftPlan& p, Geometry& chosen) {
  double best = std::numeric_limits<double>::infinity();
  int best_size = 0;
  for (const Geometry& g : candidates(p.dims, p.halo)) {
    set_geometry(p, g);
    const double t = roofline_time(p);
    if (t < best * (1 - 1e-12) || (t <= best * (1 + 1e-12) && working_set(p) < best_size)) {
      best = t;
      best_size = working_set(p);
      chosen = g;
    }
  }
  return std::isfinite(best);
}

int largest_fusable_steps(int dims, int radius) {
  if (radius == 0) return std::numeric_limits<int>::max();
  int t = 1;
  while (!candidates(dims, (t + 1) * radius).empty()) ++t;
  return t;
}

void check_geometry(const FlashFftPlan& p, const Geometry& g) {
  const int r = p.stencil.radius, T = p.fused_steps;
  for (const auto& [name, v] : {std::pair{"rows", g.rows}, std::pair{"cols", g.cols}, std::pair{"depth", g.depth}})
    if (v < 1 || v > kMaxAxis)
      throw InputError(fmt::format("FlashFFTStencil's transform {} must be between 1 and {}; got {}", name, kMaxAxis, v));
  if (p.dims == 1 && std::gcd(g.rows, g.cols) != 1)
    throw InputError(fmt::format("FlashFFTStencil's prime-factor FFT needs coprime segment factors L1 and L2; got {} "
                                 "and {} (both divisible by {}): choose e.g. L2 = 7, 15 or 31 with an even L1",
                                 g.rows, g.cols, std::gcd(g.rows, g.cols)));
  if (working_set(p) > kFlashFftMaxTilePoints)
    throw InputError(fmt::format("a FlashFFTStencil tile of {} padded complex points exceeds the {} that fit in "
                                 "shared memory; use smaller transform sizes", working_set(p), kFlashFftMaxTilePoints));
  if (p.whole_period) return;
  for (int d = 0; d < p.dims; ++d)
    if (p.stitched[d] < 1)
      throw InputError(fmt::format(
          "a FlashFFTStencil segment of {} points along {} leaves no output for T = {} fused steps of radius {}: the "
          "fused kernel spans M = {} points and S = L - (M - 1) must be at least 1; use a longer segment or fuse "
          "fewer steps",
          p.tile[d], "xyz"[d], T, r, p.fused_kernel_length));
}

void build_maps(FlashFftPlan& p) {
  const int P1 = p.rows.padded, P2 = p.cols.padded, L1 = p.rows.length, L2 = p.cols.length;
  p.input_map.assign(static_cast<std::size_t>(P1 * P2), -1);
  p.frequency_map.assign(static_cast<std::size_t>(P1 * P2), -1);
  p.diagonal_order.clear();
  if (p.prime_factor) {
    const int L = L1 * L2;
    // Diagonal indexing: position l goes to (l mod L1, l mod L2); by the CRT every cell is hit exactly once.
    for (int l = 0; l < L; ++l) {
      const int c = (l % L1) * P2 + l % L2;
      p.input_map[static_cast<std::size_t>(c)] = l;
      p.diagonal_order.push_back(c);
    }
    for (int k1 = 0; k1 < L1; ++k1)
      for (int k2 = 0; k2 < L2; ++k2) p.frequency_map[static_cast<std::size_t>(k1 * P2 + k2)] = (k1 * L2 + k2 * L1) % L;
  } else {
    for (int y = 0; y < L1; ++y)
      for (int x = 0; x < L2; ++x) {
        p.input_map[static_cast<std::size_t>(y * P2 + x)] = y * L2 + x;
        p.frequency_map[static_cast<std::size_t>(y * P2 + x)] = y * L2 + x;
      }
  }
}

void build_spectrum(FlashFftPlan& p) {
  const Stencil& s = p.stencil;
  const int P1 = p.rows.padded, P2 = p.cols.padded, Lz = p.depth.length;
  const std::vector<Tap> weights = taps(s);
  p.kernel_spectrum.assign(static_cast<std::size_t>(Lz * P1 * P2), {0.0, 0.0});
  p.fused_spectrum = p.kernel_spectrum;
  for (int kz = 0; kz < Lz; ++kz)
    for (int k1 = 0; k1 < p.rows.length; ++k1)
      for (int k2 = 0; k2 < p.cols.length; ++k2) {
        std::complex<long double> acc{0.0L, 0.0L};
        for (const Tap& t : weights) {
          std::complex<long double> phase;
          if (p.prime_factor) {
            const int k = p.frequency_map[static_cast<std::size_t>(k1 * P2 + k2)];
            phase = unit_root_ld(-static_cast<std::int64_t>(k) * t.dx, p.tile[0]);
          } else {
            phase = unit_root_ld(-static_cast<std::int64_t>(k1) * t.dy, p.rows.length) *
                    unit_root_ld(-static_cast<std::int64_t>(k2) * t.dx, p.cols.length) *
                    unit_root_ld(-static_cast<std::int64_t>(kz) * t.dz, Lz);
          }
          acc += static_cast<long double>(t.w) * phase;
        }
        const std::size_t i = static_cast<std::size_t>((kz * P1 + k1) * P2 + k2);
        p.kernel_spectrum[i] = {static_cast<double>(acc.real()), static_cast<double>(acc.imag())};
        // Eq. 10: T element-wise products (in long double, rounded once: T roundings in FP64 would bias every
        // pass the same way, and thousands of passes add that bias up).
        std::complex<long double> power = acc;
        for (int t = 1; t < p.fused_steps; ++t) power *= acc;
        p.fused_spectrum[i] = {static_cast<double>(power.real()), static_cast<double>(power.imag())};
      }
  p.inverse_scale = 1.0 / (static_cast<double>(p.rows.length) * p.cols.length * Lz);
}

std::string value_text(double v) {
  if (v == 0.0) return "0";
  if (v == std::round(v) && std::abs(v) < 1e6) return fmt::format("{}", static_cast<long long>(v));
  return fmt::format("{:.4f}", v);
}

// A matrix with right-aligned columns; large ones show their leading block.
std::string matrix_text(const FftMatrix& m, int max_rows = 16, int max_cols = 16) {
  const int R = std::min(m.rows, max_rows), C = std::min(m.cols, max_cols);
  std::size_t width = 1;
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) width = std::max(width, value_text(m.at(r, c)).size());
  std::string out;
  if (R < m.rows || C < m.cols) out += fmt::format("    (leading {} x {} of {} x {})\n", R, C, m.rows, m.cols);
  for (int r = 0; r < R; ++r) {
    out += "   ";
    for (int c = 0; c < C; ++c) out += fmt::format(" {:>{}}", value_text(m.at(r, c)), width);
    out += '\n';
  }
  return out;
}

std::string map_text(const std::vector<int>& map, int rows, int cols, int max_cols = 32) {
  std::size_t width = 1;
  for (int v : map) width = std::max(width, fmt::format("{}", v).size());
  std::string out;
  const int C = std::min(cols, max_cols);
  for (int r = 0; r < std::min(rows, 32); ++r) {
    out += "   ";
    for (int c = 0; c < C; ++c) {
      const int v = map[static_cast<std::size_t>(r * cols + c)];
      out += fmt::format(" {:>{}}", v < 0 ? "." : fmt::format("{}", v), width);
    }
    out += '\n';
  }
  if (rows > 32 || cols > max_cols) out += "    (leading block shown)\n";
  return out;
}

nlohmann::json matrix_json(const FftMatrix& m) { return {{"rows", m.rows}, {"cols", m.cols}, {"values", m.values}}; }

nlohmann::json complex_json(const std::vector<std::complex<double>>& v) {
  nlohmann::json re = nlohmann::json::array(), im = nlohmann::json::array();
  for (const auto& c : v) {
    re.push_back(c.real());
    im.push_back(c.imag());
  }
  return {{"re", re}, {"im", im}};
}

nlohmann::json feed_json(const RegisterFeed& f) {
  nlohmann::json entries = nlohmann::json::array();
  for (const auto& e : f.entries)
    entries.push_back({{"k_step", e.k_step}, {"lane", e.lane}, {"target_reg", e.target_reg},
                       {"target", {e.target.row, e.target.col}}, {"c_reg", e.c_reg}, {"c", {e.c.row, e.c.col}}});
  return {{"shape", std::string(to_string(f.shape))}, {"target", std::string(to_string(f.target))},
          {"k_order", f.k_order}, {"shuffle_free", f.shuffle_free}, {"problem", f.problem}, {"entries", entries}};
}

} // namespace

RegisterFeed make_register_feed(MmaShape shape, Operand target) {
  if (target == Operand::C) throw InputError("a register feed forms an A or B operand, not C");
  const MmaShapeInfo& info = mma_info(shape);
  const FragmentLayout c = fragment_layout(shape, Operand::C), t = fragment_layout(shape, target);
  RegisterFeed feed;
  feed.shape = shape;
  feed.target = target;
  const int K = info.sparse ? info.k / 2 : info.k;
  const int steps = c.cols / K;
  feed.k_order.assign(static_cast<std::size_t>(c.cols), -1);
  const auto fail = [&](std::string why) {
    if (feed.problem.empty()) feed.problem = std::move(why);
  };
  if (info.operands != Precision::FP64 || steps * K != c.cols) fail("the accumulator width is not a whole number of k-steps");
  struct Slot { int j, reg; FragmentCoord rc; };
  for (int lane = 0; lane < kWarpSize && feed.problem.empty(); ++lane) {
    // For each free index (A: row, B: column), the target slots of every k-step in (k-step, k) order meet
    // the lane's C registers of that row in column order.
    std::vector<int> c_used(static_cast<std::size_t>(c.regs_per_lane), 0);
    std::vector<Slot> slots;
    for (int j = 0; j < steps; ++j)
      for (int reg = 0; reg < t.regs_per_lane; ++reg) slots.push_back({j, reg, t.at(lane, reg)});
    const auto free_of = [&](const FragmentCoord& rc) { return target == Operand::A ? rc.row : rc.col; };
    const auto k_of = [&](const FragmentCoord& rc) { return target == Operand::A ? rc.col : rc.row; };
    std::stable_sort(slots.begin(), slots.end(), [&](const Slot& a, const Slot& b) {
      if (free_of(a.rc) != free_of(b.rc)) return free_of(a.rc) < free_of(b.rc);
      if (a.j != b.j) return a.j < b.j;
      return k_of(a.rc) < k_of(b.rc);
    });
    std::vector<int> c_regs(static_cast<std::size_t>(c.regs_per_lane));
    std::iota(c_regs.begin(), c_regs.end(), 0);
    std::stable_sort(c_regs.begin(), c_regs.end(), [&](int a, int b) {
      const FragmentCoord x = c.at(lane, a), y = c.at(lane, b);
      return x.row != y.row ? x.row < y.row : x.col < y.col;
    });
    std::size_t next = 0;
    for (const Slot& s : slots) {
      while (next < c_regs.size() && c.at(lane, c_regs[next]).row < free_of(s.rc)) ++next;
      if (next >= c_regs.size() || c.at(lane, c_regs[next]).row != free_of(s.rc)) {
        fail(fmt::format("lane {} needs C row {} for its {} register {}, which another lane holds: a shuffle", lane,
                         free_of(s.rc), to_string(target), s.reg));
        break;
      }
      const int creg = c_regs[next++];
      ++c_used[static_cast<std::size_t>(creg)];
      const FragmentCoord cc = c.at(lane, creg);
      int& order = feed.k_order[static_cast<std::size_t>(s.j * K + k_of(s.rc))];
      if (order == -1) order = cc.col;
      if (order != cc.col) {
        fail(fmt::format("lane {} would read C column {} as k index {} of k-step {}, another lane column {}: no "
                         "single row order of the next matrix fits every lane",
                         lane, cc.col, k_of(s.rc), s.j, order));
        break;
      }
      feed.entries.push_back({s.j, lane, s.reg, s.rc, creg, cc});
    }
    for (int creg = 0; creg < c.regs_per_lane && feed.problem.empty(); ++creg)
      if (c_used[static_cast<std::size_t>(creg)] != 1)
        fail(fmt::format("lane {} C register {} is used {} times; a feed uses each exactly once", lane, creg,
                         c_used[static_cast<std::size_t>(creg)]));
  }
  feed.shuffle_free = feed.problem.empty();
  std::sort(feed.entries.begin(), feed.entries.end(), [](const RegisterFeedEntry& a, const RegisterFeedEntry& b) {
    return std::tie(a.k_step, a.lane, a.target_reg) < std::tie(b.k_step, b.lane, b.target_reg);
  });
  return feed;
}

DftAxis make_dft_axis(std::string role, int length, int padded) {
  if (length < 1 || padded < length)
    throw InputError(fmt::format("a DFT axis needs 1 <= length <= padded; got length {} padded {}", length, padded));
  DftAxis a;
  a.role = std::move(role);
  a.length = length;
  a.padded = padded;
  a.re = zero_matrix(padded, padded);
  a.im = zero_matrix(padded, padded);
  for (int k = 0; k < length; ++k)
    for (int n = 0; n < length; ++n) {
      const auto w = unit_root(static_cast<std::int64_t>(k) * n, length);
      cell(a.re, k, n) = w.real();
      cell(a.im, k, n) = w.imag();
    }
  return a;
}

FlashFftPassWork flashfft_pass_work(const FlashFftPlan& p) {
  const double P1 = p.rows.padded, P2 = p.cols.padded, Lz = p.depth.length;
  const double Sz = p.dims == 3 ? p.stitched[2] : 1;
  FlashFftPassWork w;
  // Per slice and direction: step 1 (2 P1 / 8 x P2 / 8 tiles, 2 P1 / 4 k-steps) plus step 2 (P1 / 8 x 2 P2 / 8,
  // 2 P2 / 4), i.e. P1 P2 (P1 + P2) / 64; the forward half runs on every slice, the inverse on output slices only.
  w.mma = (Lz + Sz) * P1 * P2 * (P1 + P2) / 64.0;
  const double cells = P1 * P2;
  w.cuda_core_flops = p.depth.length == 1 ? 6.0 * cells : cells * (8.0 * Lz * Lz + 6.0 * Lz + 8.0 * Sz * Lz);
  double in = 1, out = 1;
  for (int d = 0; d < p.dims; ++d) {
    in *= p.tile[d];
    out *= p.stitched[d];
  }
  w.inputs = 2 * in;
  w.outputs = 2 * out;
  return w;
}

FlashFftPlan make_flashfft_plan(const Stencil& s, const FlashFftOptions& options) {
  validate(s);
  if (options.fused_steps < 1)
    throw InputError(fmt::format("FlashFFTStencil fuses T >= 1 steps per pass; got T = {}", options.fused_steps));
  if (options.rows < 0 || options.cols < 0 || options.depth < 0)
    throw InputError("FlashFFTStencil's transform sizes must be positive (or 0 to let the cost model choose)");
  FlashFftPlan p;
  p.stencil = s;
  p.dims = s.dims;
  p.fused_steps = options.fused_steps;
  p.whole_period = options.whole_period;
  p.prime_factor = s.dims == 1;
  p.halo = p.whole_period ? 0 : options.fused_steps * s.radius;
  p.fused_kernel_length = 2 * options.fused_steps * s.radius + 1;

  const bool automatic = options.rows == 0 || options.cols == 0 || (s.dims == 3 && options.depth == 0);
  Geometry g{options.rows, options.cols, s.dims == 3 ? options.depth : 1};
  if (automatic) {
    // Whole-period grids take the tile a single fused step would get: the halo does not shape them.
    FlashFftPlan probe = p;
    if (p.whole_period) probe.halo = s.radius;
    probe.whole_period = false;
    Geometry chosen;
    if (!choose_geometry(probe, chosen)) {
      const int most = largest_fusable_steps(s.dims, s.radius);
      throw InputError(fmt::format(
          "FlashFFTStencil cannot fuse T = {} steps of a radius-{} {}D stencil: the halo of {} points per side needs a "
          "tile larger than the {} complex points that fit in shared memory; fuse at most T = {} steps",
          options.fused_steps, s.radius, s.dims, p.fused_steps * s.radius, kFlashFftMaxTilePoints, most));
    }
    if (options.rows > 0) chosen.rows = options.rows;
    if (options.cols > 0) chosen.cols = options.cols;
    if (s.dims == 3 && options.depth > 0) chosen.depth = options.depth;
    g = chosen;
  }
  set_geometry(p, g);
  check_geometry(p, g);
  p.tile_choice = automatic ? fmt::format("chosen by the cost model: least max(FLOPs / {:.1f}, bytes) per output "
                                          "(the FP64 tensor-core roofline balance of an H100 SXM, paper Table 2)",
                                          kMachineBalance)
                            : std::string("given in the options");

  if (p.prime_factor) {
    p.rows = make_dft_axis(fmt::format("L1 = {} (n1, k1)", g.rows), g.rows, round_up(g.rows, kFragment));
    p.cols = make_dft_axis(fmt::format("L2 = {} (n2, k2)", g.cols), g.cols, round_up(g.cols, kFragment));
  } else {
    p.rows = make_dft_axis("y", g.rows, round_up(g.rows, kFragment));
    p.cols = make_dft_axis("x", g.cols, round_up(g.cols, kFragment));
  }
  p.depth = make_dft_axis(s.dims == 3 ? "z (CUDA cores)" : "none", g.depth, g.depth);

  p.feed_to_a = make_register_feed(p.shape, Operand::A);
  p.feed_to_b = make_register_feed(p.shape, Operand::B);
  if (!p.feed_to_a.shuffle_free || !p.feed_to_b.shuffle_free)
    throw InputError(fmt::format("FlashFFTStencil's register feed does not fit {}: {}{}", to_string(p.shape),
                                 p.feed_to_a.problem, p.feed_to_b.problem));
  p.forward_rows = real_block(p.rows, -1.0);
  const FftMatrix g_cols = real_block(p.cols, +1.0);
  p.forward_cols_swizzled = swizzle_rows(g_cols, p.feed_to_a.k_order);
  p.inverse_cols_swizzled = swizzle_cols(g_cols, p.feed_to_b.k_order);
  p.inverse_rows_swizzled = swizzle_rows(p.forward_rows, p.feed_to_a.k_order);
  build_maps(p);
  build_spectrum(p);
  return p;
}

std::vector<std::complex<double>> spectrum_by_frequency(const FlashFftPlan& p,
                                                        const std::vector<std::complex<double>>& layout) {
  if (!p.prime_factor) throw InputError("spectrum_by_frequency reads a 1D prime-factor layout; this plan is not 1D");
  if (layout.size() < p.frequency_map.size()) throw InputError("spectrum_by_frequency: layout smaller than the plan's");
  std::vector<std::complex<double>> out(static_cast<std::size_t>(p.tile[0]));
  for (std::size_t c = 0; c < p.frequency_map.size(); ++c)
    if (p.frequency_map[c] >= 0) out[static_cast<std::size_t>(p.frequency_map[c])] = layout[c];
  return out;
}

std::vector<std::complex<double>> pfa_forward(const FlashFftPlan& p, const std::vector<std::complex<double>>& segment) {
  if (!p.prime_factor) throw InputError("pfa_forward transforms a 1D segment; this plan is not 1D");
  if (segment.size() != static_cast<std::size_t>(p.tile[0]))
    throw InputError(fmt::format("pfa_forward: the segment has {} values; the plan's L is {}", segment.size(), p.tile[0]));
  const int P1 = p.rows.padded, P2 = p.cols.padded;
  std::vector<std::complex<double>> x(static_cast<std::size_t>(P1 * P2)), u(x.size()), v(x.size());
  for (std::size_t c = 0; c < x.size(); ++c)
    if (p.input_map[c] >= 0) x[c] = segment[static_cast<std::size_t>(p.input_map[c])];
  const auto F1 = [&](int k, int n) { return std::complex<double>(p.rows.re.at(k, n), p.rows.im.at(k, n)); };
  const auto F2 = [&](int n, int k) { return std::complex<double>(p.cols.re.at(n, k), p.cols.im.at(n, k)); };
  for (int k1 = 0; k1 < P1; ++k1)
    for (int n2 = 0; n2 < P2; ++n2)
      for (int n1 = 0; n1 < P1; ++n1) u[static_cast<std::size_t>(k1 * P2 + n2)] += F1(k1, n1) * x[static_cast<std::size_t>(n1 * P2 + n2)];
  for (int k1 = 0; k1 < P1; ++k1)
    for (int k2 = 0; k2 < P2; ++k2)
      for (int n2 = 0; n2 < P2; ++n2) v[static_cast<std::size_t>(k1 * P2 + k2)] += u[static_cast<std::size_t>(k1 * P2 + n2)] * F2(n2, k2);
  return spectrum_by_frequency(p, v);
}

DoubleLayerSpectra separate_double_layer(const std::vector<std::complex<double>>& z) {
  const std::size_t L = z.size();
  DoubleLayerSpectra out;
  out.first.resize(L);
  out.second.resize(L);
  for (std::size_t k = 0; k < L; ++k) {
    const std::complex<double> mirror = std::conj(z[(L - k) % L]);
    out.first[k] = (z[k] + mirror) / 2.0;
    out.second[k] = (z[k] - mirror) / std::complex<double>(0.0, 2.0);
  }
  return out;
}

nlohmann::json to_json(const FlashFftPlan& p) {
  const auto axis = [](const DftAxis& a) {
    return nlohmann::json{{"role", a.role}, {"length", a.length}, {"padded", a.padded}, {"re", matrix_json(a.re)},
                          {"im", matrix_json(a.im)}};
  };
  return {{"method", "flashfft"},
          {"stencil", p.stencil.name},
          {"dims", p.dims},
          {"fused_steps", p.fused_steps},
          {"halo", p.halo},
          {"fused_kernel_length", p.fused_kernel_length},
          {"whole_period", p.whole_period},
          {"tile", p.tile},
          {"stitched", p.stitched},
          {"prime_factor", p.prime_factor},
          {"rows", axis(p.rows)},
          {"cols", axis(p.cols)},
          {"depth", axis(p.depth)},
          {"input_map", p.input_map},
          {"frequency_map", p.frequency_map},
          {"diagonal_order", p.diagonal_order},
          {"forward_rows", matrix_json(p.forward_rows)},
          {"forward_cols_swizzled", matrix_json(p.forward_cols_swizzled)},
          {"inverse_cols_swizzled", matrix_json(p.inverse_cols_swizzled)},
          {"inverse_rows_swizzled", matrix_json(p.inverse_rows_swizzled)},
          {"feed_to_a", feed_json(p.feed_to_a)},
          {"feed_to_b", feed_json(p.feed_to_b)},
          {"kernel_spectrum", complex_json(p.kernel_spectrum)},
          {"fused_spectrum", complex_json(p.fused_spectrum)},
          {"inverse_scale", p.inverse_scale},
          {"mma_shape", std::string(to_string(p.shape))},
          {"tile_choice", p.tile_choice}};
}

std::string to_string(const FlashFftPlan& p) {
  std::string o = fmt::format("FlashFFTStencil plan for '{}' ({}D, radius {}), {} fused step{} per pass via k_f^T\n",
                              p.stencil.name, p.dims, p.stencil.radius, p.fused_steps, p.fused_steps == 1 ? "" : "s");
  o += fmt::format("kernel tailoring: fused kernel M = {} points per axis, halo R = {}{}\n", p.fused_kernel_length,
                   p.halo, p.whole_period ? " (whole-period grid: the circular convolution is the answer)" : "");
  for (int d = 0; d < p.dims; ++d)
    o += fmt::format("  axis {}: split segments of L = {} every S = {} points, stitch outputs [R, R + S) = [{}, {})\n",
                     "xyz"[d], p.tile[d], p.stitched[d], p.halo, p.halo + p.stitched[d]);
  o += fmt::format("  tile {}\n", p.tile_choice);
  o += fmt::format("double-layer filling: segments are paired in raster order as re + i im of one complex segment; "
                   "the real kernel keeps them apart (Re y, Im y)\n");
  if (p.prime_factor) {
    o += fmt::format("prime-factor FFT: L = {} = L1 x L2 = {} x {} (coprime), padded to {} x {} for m8n8k4\n",
                     p.tile[0], p.rows.length, p.cols.length, p.rows.padded, p.cols.padded);
    o += "input map (cell (n1, n2) holds segment position l; diagonal walk l -> (l mod L1, l mod L2)):\n";
    o += map_text(p.input_map, p.rows.padded, p.cols.padded);
    o += "frequency map (cell (k1, k2) holds k = (k1 L2 + k2 L1) mod L, Eq. 8):\n";
    o += map_text(p.frequency_map, p.rows.padded, p.cols.padded);
  } else {
    o += fmt::format("{}D: each slice is a {} x {} (y x x) complex matrix, padded to {} x {}{}\n", p.dims,
                     p.rows.length, p.cols.length, p.rows.padded, p.cols.padded,
                     p.dims == 3 ? fmt::format("; {} slices along z, their DFT on CUDA cores in registers",
                                               p.depth.length)
                                 : "");
  }
  o += fmt::format("DFT of the rows axis {}: real part\n", p.rows.role) + matrix_text(p.rows.re);
  o += "  imaginary part\n" + matrix_text(p.rows.im);
  o += fmt::format("DFT of the cols axis {}: real part\n", p.cols.role) + matrix_text(p.cols.re);
  o += "  imaginary part\n" + matrix_text(p.cols.im);
  o += "step 1 A, forward_rows = [[Fr, -Fi], [Fi, Fr]]:\n" + matrix_text(p.forward_rows);
  o += "step 2 B, [[Fr, Fi], [-Fi, Fr]] of cols, rows swizzled:\n" + matrix_text(p.forward_cols_swizzled);
  o += "step 4 A, the same, columns swizzled:\n" + matrix_text(p.inverse_cols_swizzled);
  o += "step 5 B, forward_rows, rows swizzled:\n" + matrix_text(p.inverse_rows_swizzled);
  for (const RegisterFeed* f : {&p.feed_to_a, &p.feed_to_b}) {
    std::string order;
    for (int k : f->k_order) order += fmt::format("{} ", k);
    o += fmt::format("C -> {} register feed on {} ({}): k-step j reads C columns [{}] (4 per k-step)\n",
                     to_string(f->target), to_string(f->shape), f->shuffle_free ? "no shuffle" : f->problem, order);
    o += "  lane (g, t) | its C registers become, in the same lane:\n";
    for (int lane = 0; lane < kWarpSize; ++lane) {
      std::string line;
      for (const auto& e : f->entries)
        if (e.lane == lane)
          line += fmt::format("  c{} = C[{}][{}] -> k-step {} {}[{}][{}]", e.c_reg, e.c.row, e.c.col, e.k_step,
                              to_string(f->target), e.target.row, e.target.col);
      o += fmt::format("  {:>4} ({}, {}) |{}\n", lane, lane::group(lane), lane::thread_in_group(lane), line);
    }
  }
  o += fmt::format("kernel spectrum k_f and k_f^{} (first cells of the frequency layout; scale 1/N = {:.6g}):\n",
                   p.fused_steps, p.inverse_scale);
  for (std::size_t i = 0; i < std::min<std::size_t>(8, p.kernel_spectrum.size()); ++i)
    o += fmt::format("    cell {:>3}: k_f = {:>9.5f} {:+.5f}i   k_f^T = {:>9.5f} {:+.5f}i\n", i,
                     p.kernel_spectrum[i].real(), p.kernel_spectrum[i].imag(), p.fused_spectrum[i].real(),
                     p.fused_spectrum[i].imag());
  return o;
}

} // namespace se
