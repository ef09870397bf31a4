// Stencil model: shape helpers, validation, symmetry, presets and the JSON format.
// Presets use the papers' names; weights are chosen so heat kernels are stable and sum to 1.
#include "core/stencil.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <deque>
#include <map>
#include <numbers>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/files.hpp"

namespace se {

std::array<int, 3> Stencil::shape() const {
  const int s = side();
  return {s, dims >= 2 ? s : 1, dims >= 3 ? s : 1};
}

std::size_t Stencil::size() const {
  const auto sh = shape();
  return static_cast<std::size_t>(sh[0]) * sh[1] * sh[2];
}

static std::size_t weight_index(const Stencil& s, int dx, int dy, int dz) {
  const int r = s.radius;
  if (std::abs(dx) > r || (s.dims >= 2 ? std::abs(dy) > r : dy != 0) || (s.dims >= 3 ? std::abs(dz) > r : dz != 0))
    throw InputError(fmt::format("offset ({},{},{}) lies outside a {}D stencil of radius {}", dx, dy, dz, s.dims, r));
  const auto sh = s.shape();
  const int y = s.dims >= 2 ? dy + r : 0;
  const int z = s.dims >= 3 ? dz + r : 0;
  return (static_cast<std::size_t>(z) * sh[1] + y) * sh[0] + (dx + r);
}

double& Stencil::at(int dx, int dy, int dz) { return weights.at(weight_index(*this, dx, dy, dz)); }
double Stencil::at(int dx, int dy, int dz) const { return weights.at(weight_index(*this, dx, dy, dz)); }

int Stencil::nonzero_count() const {
  return static_cast<int>(std::count_if(weights.begin(), weights.end(), [](double w) { return w != 0.0; }));
}

double Stencil::sum() const {
  double s = 0;
  for (double w : weights) s += w;
  return s;
}

std::vector<Tap> taps(const Stencil& s, bool include_zeros) {
  std::vector<Tap> out;
  for_each_offset(s, [&](int dx, int dy, int dz) {
    const double w = s.at(dx, dy, dz);
    if (include_zeros || w != 0.0) out.push_back({dx, dy, dz, w});
  });
  return out;
}

Stencil fused_kernel(const Stencil& s, int steps) {
  validate(s);
  if (steps < 1) throw InputError(fmt::format("fusing needs at least 1 step; got {}", steps));
  if (steps * s.radius > kMaxRadius)
    throw InputError(fmt::format("fusing {} steps of '{}' (radius {}) gives radius {}, beyond the largest stencil "
                                 "radius {}; fuse at most {} steps",
                                 steps, s.name, s.radius, steps * s.radius, kMaxRadius,
                                 std::max(1, kMaxRadius / std::max(1, s.radius))));
  if (steps == 1) return s;
  const std::vector<Tap> base = taps(s);
  Stencil power = s;
  for (int t = 2; t <= steps; ++t) {
    Stencil next = make_stencil(s.dims, power.radius + s.radius, fmt::format("{}^{}", s.name, steps));
    // (W^t)(f) = sum over d + e = f of W^(t-1)(d) W(e): t steps of a correlation compose by convolving weights.
    for (const Tap& a : taps(power))
      for (const Tap& e : base) next.at(a.dx + e.dx, a.dy + e.dy, a.dz + e.dz) += a.w * e.w;
    power = std::move(next);
  }
  return power;
}

std::complex<double> fourier_symbol(const Stencil& s, const std::array<double, 3>& k) {
  std::complex<double> sum{0.0, 0.0};
  for (const Tap& t : taps(s)) sum += t.w * std::polar(1.0, k[0] * t.dx + k[1] * t.dy + k[2] * t.dz);
  return sum;
}

double fourier_symbol_peak(const Stencil& s) {
  const std::vector<Tap> nonzero = taps(s);
  const int m = s.dims == 1 ? 4096 : (s.dims == 2 ? 256 : 32);
  const int my = s.dims >= 2 ? m : 1, mz = s.dims == 3 ? m : 1;
  const double step = 2 * std::numbers::pi / m;
  double peak = 0;
  for (int kz = 0; kz < mz; ++kz)
    for (int ky = 0; ky < my; ++ky)
      for (int kx = 0; kx < m; ++kx) {
        double re = 0, im = 0;
        for (const Tap& t : nonzero) {
          const double phase = step * (kx * t.dx + ky * t.dy + kz * t.dz);
          re += t.w * std::cos(phase);
          im += t.w * std::sin(phase);
        }
        peak = std::max(peak, std::hypot(re, im));
      }
  return peak;
}

namespace {

// |K| and |dK/dtheta_a| at every frequency of the grid xs x ys x zs (an axis the stencil lacks takes the one
// frequency 0), summed axis by axis: every weight row along x once per x frequency, those sums along y once per
// (x, y) pair, then along z. Calls at(ix, iy, iz, |K|, {|dK/dx|, |dK/dy|, |dK/dz|}).
template <typename F>
void symbol_on_grid(const Stencil& s, const std::vector<double>& xs, const std::vector<double>& ys,
                    const std::vector<double>& zs, F&& at) {
  using C = std::complex<double>;
  const std::array<int, 3> side = s.shape();
  const int rx = side[0] / 2, ry = side[1] / 2, rz = side[2] / 2;
  const std::size_t nx = xs.size(), ny = ys.size(), nz = zs.size();
  // e^{i j theta}, j = -r..r, per frequency: powers of e^{i theta} (one sine and cosine per frequency).
  const auto phases = [](const std::vector<double>& thetas, int r) {
    std::vector<C> e(thetas.size() * static_cast<std::size_t>(2 * r + 1));
    for (std::size_t i = 0; i < thetas.size(); ++i) {
      C* at = &e[i * static_cast<std::size_t>(2 * r + 1) + static_cast<std::size_t>(r)]; // j = 0
      const C step = std::polar(1.0, thetas[i]);
      at[0] = 1.0;
      for (int j = 1; j <= r; ++j) {
        at[j] = at[j - 1] * step;
        at[-j] = std::conj(at[j]);
      }
    }
    return e;
  };
  const std::vector<C> ex = phases(xs, rx), ey = phases(ys, ry), ez = phases(zs, rz);
  const auto at3 = [](int a, std::size_t b, std::size_t nb, std::size_t c, std::size_t nc) {
    return (static_cast<std::size_t>(a) * nb + b) * nc + c;
  };
  // Along x: each weight row (jz, jy) at each x frequency, and with the factor jx of d/dx (the i is left out
  // throughout: it does not change a magnitude).
  std::vector<C> row(static_cast<std::size_t>(side[2] * side[1]) * nx), row_x(row.size());
  for (int jz = 0; jz < side[2]; ++jz)
    for (int jy = 0; jy < side[1]; ++jy) {
      const double* w = &s.weights[static_cast<std::size_t>((jz * side[1] + jy) * side[0])];
      for (std::size_t ix = 0; ix < nx; ++ix) {
        C k = 0, kx = 0;
        for (int jx = 0; jx < side[0]; ++jx) {
          if (w[jx] == 0.0) continue;
          const C e = ex[ix * static_cast<std::size_t>(side[0]) + static_cast<std::size_t>(jx)];
          k += w[jx] * e;
          kx += (w[jx] * (jx - rx)) * e;
        }
        row[at3(jz * side[1] + jy, 0, 1, ix, nx)] = k;
        row_x[at3(jz * side[1] + jy, 0, 1, ix, nx)] = kx;
      }
    }
  // Along y, per weight plane jz: d/dx carried, d/dy's factor jy.
  std::vector<C> plane(static_cast<std::size_t>(side[2]) * ny * nx), plane_x(plane.size()), plane_y(plane.size());
  for (int jz = 0; jz < side[2]; ++jz)
    for (std::size_t iy = 0; iy < ny; ++iy)
      for (std::size_t ix = 0; ix < nx; ++ix) {
        C k = 0, kx = 0, ky = 0;
        for (int jy = 0; jy < side[1]; ++jy) {
          const C e = ey[iy * static_cast<std::size_t>(side[1]) + static_cast<std::size_t>(jy)];
          const std::size_t i = at3(jz * side[1] + jy, 0, 1, ix, nx);
          k += e * row[i];
          kx += e * row_x[i];
          ky += static_cast<double>(jy - ry) * e * row[i];
        }
        const std::size_t o = at3(jz, iy, ny, ix, nx);
        plane[o] = k, plane_x[o] = kx, plane_y[o] = ky;
      }
  // Along z.
  for (std::size_t iz = 0; iz < nz; ++iz)
    for (std::size_t iy = 0; iy < ny; ++iy)
      for (std::size_t ix = 0; ix < nx; ++ix) {
        C k = 0, kx = 0, ky = 0, kz = 0;
        for (int jz = 0; jz < side[2]; ++jz) {
          const C e = ez[iz * static_cast<std::size_t>(side[2]) + static_cast<std::size_t>(jz)];
          const std::size_t i = at3(jz, iy, ny, ix, nx);
          k += e * plane[i];
          kx += e * plane_x[i];
          ky += e * plane_y[i];
          kz += static_cast<double>(jz - rz) * e * plane[i];
        }
        at(ix, iy, iz, std::abs(k), std::array<double, 3>{std::abs(kx), std::abs(ky), std::abs(kz)});
      }
}

} // namespace

double fourier_symbol_bound(const Stencil& s) {
  // |K|^2 is the symbol of the weights' autocorrelation c(m) = sum_j w(j) w(j + m) (radius 2r): a real trigonometric
  // polynomial whose gradient vanishes at every peak of |K|. K's own gradient does not where K is complex (its
  // phase turns), so bounding |K|^2 converges quadratically where bounding |K| would only converge linearly.
  Stencil auto_corr; // a coefficient array of radius up to 2 kMaxRadius, only summed here (never validated or run)
  auto_corr.dims = s.dims;
  auto_corr.radius = 2 * s.radius;
  auto_corr.weights.assign(auto_corr.size(), 0.0);
  const std::vector<Tap> nonzero = taps(s);
  for (const Tap& a : nonzero)
    for (const Tap& b : nonzero) auto_corr.at(b.dx - a.dx, b.dy - a.dy, b.dz - a.dz) += a.w * b.w;
  const std::vector<Tap> terms = taps(auto_corr);
  double abs_sum = 0;
  // The axes along which the symbol varies: those where some weight sits off the centre. It is constant along the
  // others, which take the one frequency 0 and are never split.
  std::array<bool, 3> varies{false, false, false};
  for (const Tap& t : terms) {
    abs_sum += std::abs(t.w);
    varies[0] = varies[0] || t.dx != 0;
    varies[1] = varies[1] || t.dy != 0;
    varies[2] = varies[2] || t.dz != 0;
  }
  // Cells: centres on a grid over x in [0, pi] (|K(-theta)| = |K(theta)| for real weights) and all of y and z,
  // spacing 2 pi / m, each covering half a spacing either side. Within a cell of half-widths h around a centre where
  // |K|^2 = p and |d|K|^2/dtheta_a| = g_a, Taylor's theorem bounds |K|^2 by p + sum_a g_a h_a + max |second
  // derivative| / 2, the last at most sum |c| (sum_a |m_a| h_a)^2 / 2 over the autocorrelation's terms. Cells whose
  // bound exceeds the largest |K|^2 seen by more than 2e-9 of it are split in two along every axis where the
  // symbol varies, until none is (or a budget of work runs out: the bound stays rigorous, only looser).
  // Finer in 3D as the radius grows (the second-order term grows with it), within a few milliseconds' work.
  const int m = s.dims == 1 ? 2048 : (s.dims == 2 ? 128 : std::min(48, 16 * (s.radius + 1)));
  const double spacing = 2 * std::numbers::pi / m;
  std::array<std::vector<double>, 3> axis{std::vector<double>{0.0}, std::vector<double>{0.0}, std::vector<double>{0.0}};
  std::array<double, 3> h{0.0, 0.0, 0.0};
  for (std::size_t a = 0; a < 3; ++a) {
    if (!varies[a]) continue;
    h[a] = spacing / 2;
    axis[a].clear();
    if (a == 0)
      for (int i = 0; i <= m / 2; ++i) axis[a].push_back(spacing * i); // 0 .. pi
    else
      for (int i = 0; i < m; ++i) axis[a].push_back(-std::numbers::pi + spacing * i);
  }
  // Half the largest second derivative in a cell of the initial half-widths; a level deeper halves every h_a.
  double curvature = 0;
  for (const Tap& t : terms) {
    const double reach = std::abs(t.dx) * h[0] + std::abs(t.dy) * h[1] + std::abs(t.dz) * h[2];
    curvature += std::abs(t.w) * reach * reach / 2;
  }
  struct Cell {
    std::array<double, 3> centre;
    int level;
    double upper;
  };
  const auto bound_of = [&](double p, const std::array<double, 3>& g, int level) {
    const double scale = std::ldexp(1.0, -level);
    return p + scale * (g[0] * h[0] + g[1] * h[1] + g[2] * h[2]) + scale * scale * curvature;
  };
  double best = 0, settled = 0;
  // First in, first out: where a ridge makes many cells worth splitting, the budget refines them evenly.
  std::deque<Cell> pending;
  symbol_on_grid(auto_corr, axis[0], axis[1], axis[2],
                 [&](std::size_t ix, std::size_t iy, std::size_t iz, double p, const std::array<double, 3>& g) {
                   best = std::max(best, p);
                   pending.push_back({{axis[0][ix], axis[1][iy], axis[2][iz]}, 0, bound_of(p, g, 0)});
                 });
  constexpr int kMaxLevel = 40;
  // The work splitting may spend, in complex multiply-adds (symbol_on_grid's three sums for 2 frequencies along
  // each axis that varies, plus ~100 for setting up each child): ~10 ms, reached only by 3D stencils of radius 2 and
  // more and by peaks along ridges (full 3D boxes of radius 3 stop ~1e-6 above the peak, radius 5 ~1e-2, radius 7
  // ~5e-2).
  double budget = 5e6;
  const std::array<int, 3> side = auto_corr.shape();
  const double n[3] = {varies[0] ? 2.0 : 1.0, varies[1] ? 2.0 : 1.0, varies[2] ? 2.0 : 1.0};
  const double per_split = 2.0 * side[2] * side[1] * n[0] * side[0] + 3.0 * side[2] * n[1] * n[0] * side[1] +
                           4.0 * n[2] * n[1] * n[0] * side[2] + 100.0 * n[0] * n[1] * n[2];
  while (!pending.empty()) {
    const Cell c = pending.front();
    pending.pop_front();
    if (c.upper <= best * (1 + 2e-9) || c.level >= kMaxLevel || budget <= 0) {
      settled = std::max(settled, c.upper);
      continue;
    }
    budget -= per_split;
    const double child = std::ldexp(1.0, -(c.level + 1)); // the children's half-widths, as a share of h
    std::array<std::vector<double>, 3> centres;
    for (std::size_t a = 0; a < 3; ++a)
      centres[a] = varies[a] ? std::vector<double>{c.centre[a] - child * h[a], c.centre[a] + child * h[a]}
                             : std::vector<double>{c.centre[a]};
    const int level = c.level + 1;
    symbol_on_grid(auto_corr, centres[0], centres[1], centres[2],
                   [&](std::size_t ix, std::size_t iy, std::size_t iz, double p, const std::array<double, 3>& g) {
                     best = std::max(best, p);
                     pending.push_back({{centres[0][ix], centres[1][iy], centres[2][iz]}, level, bound_of(p, g, level)});
                   });
  }
  // Rounding in the sums above stays far below 1e-13 sum |c|.
  return std::sqrt(std::max(best, settled) + 1e-13 * abs_sum);
}

bool Stencil::is_star() const {
  bool star = true;
  for_each_offset(*this, [&](int dx, int dy, int dz) {
    const int axes = (dx != 0) + (dy != 0) + (dz != 0);
    if (axes > 1 && at(dx, dy, dz) != 0.0) star = false;
  });
  return star;
}

bool Stencil::is_radially_symmetric(double tol) const {
  bool sym = true;
  for_each_offset(*this, [&](int dx, int dy, int dz) {
    const double w = at(dx, dy, dz);
    for (const auto& p : symmetric_positions(dims, dx, dy, dz))
      if (std::abs(at(p[0], p[1], p[2]) - w) > tol) sym = false;
  });
  return sym;
}

Stencil make_stencil(int dims, int radius, std::string name) {
  if (dims < 1 || dims > 3) throw InputError(fmt::format("a stencil has 1, 2 or 3 dimensions; got {}", dims));
  if (radius < 0 || radius > kMaxRadius)
    throw InputError(fmt::format("stencil radius must be between 0 and {}; got {}", kMaxRadius, radius));
  Stencil s;
  s.name = std::move(name);
  s.dims = dims;
  s.radius = radius;
  s.weights.assign(s.size(), 0.0);
  return s;
}

void validate(const Stencil& s) {
  if (s.dims < 1 || s.dims > 3) throw InputError(fmt::format("a stencil has 1, 2 or 3 dimensions; got {}", s.dims));
  if (s.radius < 0 || s.radius > kMaxRadius)
    throw InputError(fmt::format("stencil radius must be between 0 and {}; got {}", kMaxRadius, s.radius));
  if (s.weights.size() != s.size())
    throw InputError(fmt::format("a {}D stencil of radius {} needs {} weights; got {}", s.dims, s.radius, s.size(),
                                 s.weights.size()));
  for (std::size_t i = 0; i < s.weights.size(); ++i)
    if (!std::isfinite(s.weights[i]))
      throw InputError(fmt::format("weight {} of stencil '{}' is {}; weights must be finite numbers", i, s.name,
                                   s.weights[i]));
}

Stencil with_radius(const Stencil& s, int radius) {
  Stencil out = make_stencil(s.dims, radius, s.name);
  const int r = std::min(s.radius, radius);
  for (const Tap& t : taps(s))
    if (std::abs(t.dx) <= r && std::abs(t.dy) <= r && std::abs(t.dz) <= r) out.at(t.dx, t.dy, t.dz) = t.w;
  return out;
}

Stencil with_dims(const Stencil& s, int dims) {
  Stencil out = make_stencil(dims, s.radius, s.name);
  // Going down keeps the centre plane (dz = 0) or centre row (dy = 0); going up places the stencil there.
  for (const Tap& t : taps(s))
    if ((dims >= 3 || t.dz == 0) && (dims >= 2 || t.dy == 0)) out.at(t.dx, t.dy, t.dz) = t.w;
  return out;
}

Stencil normalized(const Stencil& s) {
  const double total = s.sum();
  if (total == 0.0 || !std::isfinite(total))
    throw InputError("cannot normalise: the weights sum to zero");
  Stencil out = s;
  for (double& w : out.weights) w /= total;
  return out;
}

std::vector<std::array<int, 3>> symmetric_positions(int dims, int dx, int dy, int dz) {
  std::array<int, 3> a{std::abs(dx), std::abs(dy), std::abs(dz)};
  std::set<std::array<int, 3>> out;
  std::array<int, 3> perm{0, 1, 2};
  do {
    bool ok = true;
    for (int i = dims; i < 3; ++i) ok = ok && perm[i] == i; // only permute active axes
    if (!ok) continue;
    const std::array<int, 3> p{a[perm[0]], a[perm[1]], a[perm[2]]};
    for (int sx : {-1, 1})
      for (int sy : {-1, 1})
        for (int sz : {-1, 1}) out.insert({sx * p[0], sy * p[1], sz * p[2]});
  } while (std::next_permutation(perm.begin(), perm.end()));
  return {out.begin(), out.end()};
}

// ---- presets -------------------------------------------------------------------------------------------

namespace {

struct PresetInfo {
  const char* name;
  const char* description;
};

const PresetInfo kPresets[] = {
    {"heat-1d", "1D heat equation, explicit Euler, alpha = 0.25 (3 points)"},
    {"1d5p", "1D heat with the 4th-order Laplacian, alpha = 0.25 (5 points)"},
    {"1d7p", "1D heat with the 6th-order Laplacian, alpha = 0.25 (7 points)"},
    {"heat-2d", "2D heat equation, 5-point star, alpha = 0.125"},
    {"box-2d9p", "2D heat with the isotropic 9-point Laplacian, alpha = 0.1"},
    {"star-2d13p", "2D heat with 6th-order Laplacians along each axis, alpha = 0.1 (13-point star)"},
    {"box-2d25p", "2D smoothing, weight 1/(1+d^2) over a 5x5 box, normalised"},
    {"box-2d49p", "2D smoothing, weight 1/(1+d^2) over a 7x7 box, normalised"},
    {"box-2d225p", "2D smoothing, weight 1/(1+d^2) over a 15x15 box, normalised (SPIDER's Box-2D7R)"},
    {"1d15p", "1D heat with the 14th-order Laplacian, alpha = 0.25 (15 points, SPIDER's radius-7 1D)"},
    {"heat-3d", "3D heat equation, 7-point star, alpha = 1/10"},
    {"box-3d27p", "3D smoothing, weight 1/(1+d^2) over a 3x3x3 box, normalised"},
};

// Central-difference Laplacian coefficients (offset 0..r) of order 2r.
std::vector<double> laplacian_1d(int r) {
  switch (r) {
  case 1: return {-2.0, 1.0};
  case 2: return {-30.0 / 12, 16.0 / 12, -1.0 / 12};
  case 3: return {-490.0 / 180, 270.0 / 180, -27.0 / 180, 2.0 / 180};
  default: {
    // c_k = 2 (-1)^(k+1) (r!)^2 / (k^2 (r-k)! (r+k)!), c_0 = -2 sum c_k.
    std::vector<double> c(static_cast<std::size_t>(r) + 1, 0.0);
    for (int k = 1; k <= r; ++k) {
      double ratio = 1.0; // (r!)^2 / ((r-k)! (r+k)!) = prod_{j=1..k} (r-k+j) / (r+j)
      for (int j = 1; j <= k; ++j) ratio *= static_cast<double>(r - k + j) / static_cast<double>(r + j);
      c[static_cast<std::size_t>(k)] = 2.0 * (k % 2 == 1 ? 1.0 : -1.0) * ratio / (k * k);
      c[0] -= 2.0 * c[static_cast<std::size_t>(k)];
    }
    return c;
  }
  }
}

Stencil heat_star(int dims, int r, double alpha, const char* name) {
  Stencil s = make_stencil(dims, r, name);
  const auto c = laplacian_1d(r);
  s.at(0, 0, 0) = 1.0 + dims * alpha * c[0];
  for (int k = 1; k <= r; ++k)
    for (int sign : {-1, 1}) {
      s.at(sign * k, 0, 0) = alpha * c[k];
      if (dims >= 2) s.at(0, sign * k, 0) = alpha * c[k];
      if (dims >= 3) s.at(0, 0, sign * k) = alpha * c[k];
    }
  return s;
}

Stencil inverse_distance_box(int dims, int r, const char* name) {
  Stencil s = make_stencil(dims, r, name);
  for_each_offset(s, [&](int dx, int dy, int dz) { s.at(dx, dy, dz) = 1.0 / (1.0 + dx * dx + dy * dy + dz * dz); });
  return normalized(s);
}

} // namespace

const std::vector<std::string>& preset_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& p : kPresets) v.emplace_back(p.name);
    return v;
  }();
  return names;
}

std::string preset_description(std::string_view name) {
  for (const auto& p : kPresets)
    if (name == p.name) return p.description;
  return {};
}

Stencil preset(std::string_view name) {
  if (name == "heat-1d") return heat_star(1, 1, 0.25, "heat-1d");
  if (name == "1d5p") return heat_star(1, 2, 0.25, "1d5p");
  if (name == "1d7p") return heat_star(1, 3, 0.25, "1d7p");
  if (name == "heat-2d") return heat_star(2, 1, 0.125, "heat-2d");
  if (name == "star-2d13p") return heat_star(2, 3, 0.1, "star-2d13p");
  if (name == "heat-3d") return heat_star(3, 1, 0.1, "heat-3d");
  if (name == "box-2d9p") {
    // Isotropic 9-point Laplacian (4 edges + corners - 20 centre) / 6, explicit Euler with alpha = 0.1.
    Stencil s = make_stencil(2, 1, "box-2d9p");
    const double a = 0.1;
    for_each_offset(s, [&](int dx, int dy, int) {
      const int d2 = dx * dx + dy * dy;
      s.at(dx, dy) = d2 == 0 ? 1.0 - 20.0 * a / 6 : (d2 == 1 ? 4.0 * a / 6 : a / 6);
    });
    return s;
  }
  if (name == "box-2d25p") return inverse_distance_box(2, 2, "box-2d25p");
  if (name == "box-2d49p") return inverse_distance_box(2, 3, "box-2d49p");
  if (name == "box-2d225p") return inverse_distance_box(2, 7, "box-2d225p");
  if (name == "1d15p") return heat_star(1, 7, 0.25, "1d15p");
  if (name == "box-3d27p") return inverse_distance_box(3, 1, "box-3d27p");
  std::string known;
  for (const auto& n : preset_names()) known += (known.empty() ? "" : ", ") + n;
  throw InputError(fmt::format("unknown stencil '{}' (presets: {}; or give a path to a .json file)", name, known));
}

// ---- JSON ----------------------------------------------------------------------------------------------

nlohmann::json to_json(const Stencil& s) {
  const auto sh = s.shape();
  nlohmann::json planes = nlohmann::json::array();
  for (int z = 0; z < sh[2]; ++z) {
    nlohmann::json rows = nlohmann::json::array();
    for (int y = 0; y < sh[1]; ++y) {
      nlohmann::json row = nlohmann::json::array();
      for (int x = 0; x < sh[0]; ++x) row.push_back(s.weights[(static_cast<std::size_t>(z) * sh[1] + y) * sh[0] + x]);
      rows.push_back(row);
    }
    planes.push_back(rows);
  }
  nlohmann::json w = s.dims == 1 ? planes[0][0] : (s.dims == 2 ? planes[0] : planes);
  return {{"name", s.name}, {"dims", s.dims}, {"radius", s.radius}, {"weights", w}};
}

namespace {

// Flattens nested arrays of the given depth, checking every level has `side` entries.
void flatten(const nlohmann::json& j, int depth, int side, std::vector<double>& out, const std::string& where) {
  if (!j.is_array())
    throw InputError(fmt::format("{}: expected an array of {} entries", where, side));
  if (static_cast<int>(j.size()) != side)
    throw InputError(fmt::format("{}: expected {} entries (2*radius+1), got {}", where, side, j.size()));
  for (std::size_t i = 0; i < j.size(); ++i) {
    const std::string at = fmt::format("{}[{}]", where, i);
    if (depth > 1) {
      flatten(j[i], depth - 1, side, out, at);
    } else {
      if (!j[i].is_number()) throw InputError(fmt::format("{}: weights must be numbers", at));
      out.push_back(j[i].get<double>());
    }
  }
}

// An integer field within [lo, hi], refused (never truncated) when it does not fit: "<rule>; got <the number as the
// file has it>".
int integer_field(const nlohmann::json& j, const char* key, int lo, int hi, const std::string& rule) {
  const nlohmann::json& v = j[key];
  if (!v.is_number_integer()) throw InputError(fmt::format("stencil JSON: '{}' must be an integer; got {}", key, v.dump()));
  const bool fits = v.is_number_unsigned() ? v.get<std::uint64_t>() <= static_cast<std::uint64_t>(hi)
                                           : v.get<std::int64_t>() >= lo && v.get<std::int64_t>() <= hi;
  if (!fits) throw InputError(fmt::format("{}; got {}", rule, v.dump()));
  return static_cast<int>(v.get<std::int64_t>());
}

} // namespace

Stencil stencil_from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw InputError("a stencil file holds one JSON object with dims, radius and weights");
  for (const char* key : {"dims", "weights"})
    if (!j.contains(key)) throw InputError(fmt::format("stencil JSON lacks the '{}' key", key));
  const int dims = integer_field(j, "dims", 1, 3, "a stencil has 1, 2 or 3 dimensions");
  // The radius follows from the weights when absent; when present it must agree.
  const nlohmann::json& w = j["weights"];
  if (!w.is_array() || w.empty()) throw InputError("stencil JSON: 'weights' must be a non-empty array");
  const int side = static_cast<int>(w.size());
  if (side % 2 == 0)
    throw InputError(fmt::format("stencil weights need an odd side (2*radius+1); got {}", side));
  int radius = (side - 1) / 2;
  if (j.contains("radius")) {
    radius = integer_field(j, "radius", 0, kMaxRadius, fmt::format("stencil radius must be between 0 and {}", kMaxRadius));
    if (2 * radius + 1 != side)
      throw InputError(fmt::format("radius {} needs {} entries per axis; the weights have {}", radius,
                                   2 * radius + 1, side));
  }
  if (radius > kMaxRadius)
    throw InputError(fmt::format("stencil radius must be between 0 and {}; got {}", kMaxRadius, radius));
  std::string name = "custom";
  if (j.contains("name")) {
    if (!j["name"].is_string()) throw InputError(fmt::format("stencil JSON: 'name' must be a string; got {}", j["name"].dump()));
    name = j["name"].get<std::string>();
    if (name.size() > kMaxStencilName)
      throw InputError(fmt::format("stencil JSON: the name has {} characters; at most {} are kept", name.size(),
                                   kMaxStencilName));
  }
  Stencil s = make_stencil(dims, radius, std::move(name));
  s.weights.clear();
  flatten(w, dims, side, s.weights, "weights");
  validate(s);
  return s;
}

Stencil load_stencil_file(const std::string& path) {
  // A stencil file is small: a 15^3 box of long numbers is far under a megabyte.
  const nlohmann::json j = parse_json_text(read_text_file(path, "stencil file", std::uint64_t{1} << 20), fmt::format("'{}'", path));
  try {
    return stencil_from_json(j);
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: {}", path, e.what()));
  } catch (const nlohmann::json::exception& e) {
    throw InputError(fmt::format("{}: {}", path, e.what()));
  }
}

std::string format_stencil_json(const Stencil& s) {
  // Rows of weights stay on one line each so a file reads like the stencil it holds.
  const nlohmann::json j = to_json(s);
  std::string text = fmt::format("{{\n  \"name\": {},\n  \"dims\": {},\n  \"radius\": {},\n  \"weights\": ",
                                 nlohmann::json(s.name).dump(), s.dims, s.radius);
  const auto& w = j["weights"];
  if (s.dims == 1) return text + w.dump() + "\n}\n";
  const std::string pad = s.dims == 2 ? "    " : "      ";
  auto rows = [&](const nlohmann::json& plane) {
    std::string out = "[\n";
    for (std::size_t y = 0; y < plane.size(); ++y)
      out += pad + plane[y].dump() + (y + 1 < plane.size() ? ",\n" : "\n");
    return out + pad.substr(2) + "]";
  };
  if (s.dims == 2) return text + rows(w) + "\n}\n";
  text += "[\n";
  for (std::size_t z = 0; z < w.size(); ++z) text += "    " + rows(w[z]) + (z + 1 < w.size() ? ",\n" : "\n");
  return text + "  ]\n}\n";
}

void save_stencil_file(const Stencil& s, const std::string& path) {
  validate(s);
  write_file(path, format_stencil_json(s), "stencil file");
}

Stencil resolve_stencil(const std::string& name_or_path) {
  const bool looks_like_file = name_or_path.find('/') != std::string::npos ||
                               (name_or_path.size() > 5 && name_or_path.ends_with(".json"));
  if (looks_like_file) return load_stencil_file(name_or_path);
  return preset(name_or_path);
}

} // namespace se
