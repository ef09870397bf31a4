// The cross split of star-shaped planes and the multinomial expansion of fused stars into rank-1 terms.
#include "core/lorastencil/cross_decomposition.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/lorastencil/lorastencil_plan.hpp"

namespace se {
namespace {

// Beyond this multiple of the plane's largest weight, terms would cancel large numbers against each other (arms
// of mixed sign); the SVD, orthogonal, has no such growth. The same limit as the pyramid's.
constexpr double kMaxTermGrowth = 100.0;

// A centred 1D kernel of half-width (size - 1) / 2.
using Centred = std::vector<double>;

int half_width(const Centred& k) { return static_cast<int>(k.size() / 2); }

Centred convolve(const Centred& a, const Centred& b) {
  Centred c(a.size() + b.size() - 1, 0.0);
  for (std::size_t i = 0; i < a.size(); ++i)
    for (std::size_t j = 0; j < b.size(); ++j) c[i + j] += a[i] * b[j];
  return c;
}

// powers[p] = k^p under convolution, powers[0] = δ.
std::vector<Centred> powers(const Centred& k, int steps) {
  std::vector<Centred> p{Centred{1.0}};
  for (int i = 1; i <= steps; ++i) p.push_back(convolve(p.back(), k));
  return p;
}

double value_at(const Centred& k, int offset) {
  const int w = half_width(k);
  return std::abs(offset) > w ? 0.0 : k[static_cast<std::size_t>(offset + w)];
}

// a * k added into the full-side vector `into` (centre at `radius`).
void add_centred(std::vector<double>& into, const Centred& k, double a, int radius) {
  const int w = half_width(k);
  for (int i = -w; i <= w; ++i) into[static_cast<std::size_t>(radius + i)] += a * k[static_cast<std::size_t>(i + w)];
}

bool is_zero(const std::vector<double>& v) {
  return std::all_of(v.begin(), v.end(), [](double x) { return x == 0.0; });
}

double factorial(int n) {
  double f = 1;
  for (int i = 2; i <= n; ++i) f *= i;
  return f;
}

// The arms of a star without its centre: centred kernels of half-width radius (zero where the stencil has no axis).
struct StarArms {
  double centre = 0;
  Centred x, y, z;
};

StarArms arms_of(const Stencil& s) {
  const int r = s.radius, side = s.side();
  StarArms a;
  a.centre = s.at(0, 0, 0);
  a.x.assign(static_cast<std::size_t>(side), 0.0);
  a.y = a.x;
  a.z = a.x;
  for (int d = -r; d <= r; ++d) {
    if (d == 0) continue;
    const auto i = static_cast<std::size_t>(d + r);
    a.x[i] = s.at(d, 0, 0);
    if (s.dims >= 2) a.y[i] = s.at(0, d, 0);
    if (s.dims >= 3) a.z[i] = s.at(0, 0, d);
  }
  return a;
}

std::string off_axis_weight(const Stencil& s) {
  for (const Tap& t : taps(s))
    if ((t.dx != 0) + (t.dy != 0) + (t.dz != 0) > 1)
      return fmt::format("'{}' is not a star: w(dx={},dy={},dz={}) = {:.6g} lies off the axes", s.name, t.dx, t.dy,
                         t.dz, t.w);
  return {};
}

// Builds the terms of plane dz of star^steps, or says in `obstacle` why it cannot.
std::optional<WeightDecomposition> build_star_power(const Stencil& star, int steps, int dz, std::string& obstacle) {
  validate(star);
  if (star.dims < 2) {
    obstacle = fmt::format("'{}' is 1D: it has no planes to split", star.name);
    return std::nullopt;
  }
  obstacle = off_axis_weight(star);
  if (!obstacle.empty()) return std::nullopt;
  const Stencil power = fused_kernel(star, steps); // throws when steps * radius exceeds kMaxRadius
  const int R = power.radius, rz = star.dims == 3 ? R : 0;
  if (dz < -rz || dz > rz) {
    obstacle = fmt::format("plane dz = {} lies outside {} (planes {}..{})", dz, power.name, -rz, rz);
    return std::nullopt;
  }
  const StarArms arms = arms_of(star);
  const std::vector<Centred> xp = powers(arms.x, steps), yp = powers(arms.y, steps), zp = powers(arms.z, steps);
  // a[j][l]: the coefficient of X^j ⊗ Y^l in this plane, summed over the centre's power i and Z's power m.
  std::vector<std::vector<double>> a(static_cast<std::size_t>(steps + 1), std::vector<double>(static_cast<std::size_t>(steps + 1), 0.0));
  for (int j = 0; j <= steps; ++j)
    for (int l = 0; j + l <= steps; ++l)
      for (int m = 0; j + l + m <= steps; ++m) {
        const int i = steps - j - l - m;
        const double z = value_at(zp[static_cast<std::size_t>(m)], dz);
        if (z == 0.0) continue;
        a[static_cast<std::size_t>(j)][static_cast<std::size_t>(l)] +=
            factorial(steps) / (factorial(i) * factorial(j) * factorial(l) * factorial(m)) * std::pow(arms.centre, i) * z;
      }

  const int side = 2 * R + 1;
  const auto zeros = [&] { return std::vector<double>(static_cast<std::size_t>(side), 0.0); };
  std::vector<double> delta = zeros();
  delta[static_cast<std::size_t>(R)] = 1.0;
  std::vector<double> pure_x = zeros(), pure_y = zeros();
  for (int j = 1; j <= steps; ++j) add_centred(pure_x, xp[static_cast<std::size_t>(j)], a[static_cast<std::size_t>(j)][0], R);
  for (int l = 1; l <= steps; ++l) add_centred(pure_y, yp[static_cast<std::size_t>(l)], a[0][static_cast<std::size_t>(l)], R);
  const double constant = a[0][0];

  WeightDecomposition d;
  d.kind = DecompositionKind::Cross;
  d.weights = weight_matrix(power, dz);
  WeightMatrix residual = d.weights;
  double term_max = 0.0;
  const auto add_term = [&](std::vector<double> u, std::vector<double> v) {
    RankOneTerm t;
    t.size = side;
    t.offset = 0;
    for (int i = 0; i < side; ++i)
      for (int k = 0; k < side; ++k) {
        const double c = u[static_cast<std::size_t>(i)] * v[static_cast<std::size_t>(k)];
        term_max = std::max(term_max, std::abs(c));
        residual.at(i, k) -= c;
      }
    t.u = std::move(u);
    t.v = std::move(v);
    t.residual = residual;
    d.terms.push_back(std::move(t));
  };
  // The constant rides with the pure-x row (an X·V gather is the cheaper single gather), else with the column;
  // alone it is the centre point times a scalar on CUDA cores.
  bool constant_placed = constant == 0.0;
  if (!is_zero(pure_x)) {
    pure_x[static_cast<std::size_t>(R)] += constant;
    constant_placed = true;
    add_term(delta, pure_x);
  }
  if (!is_zero(pure_y)) {
    if (!constant_placed) pure_y[static_cast<std::size_t>(R)] += constant;
    constant_placed = true;
    add_term(pure_y, delta);
  }
  int chains = 0;
  for (int j = 1; j < steps; ++j) {
    std::vector<double> u = zeros(), v = zeros();
    for (int l = 1; j + l <= steps; ++l) add_centred(u, yp[static_cast<std::size_t>(l)], a[static_cast<std::size_t>(j)][static_cast<std::size_t>(l)], R);
    add_centred(v, xp[static_cast<std::size_t>(j)], 1.0, R);
    if (is_zero(u) || is_zero(v)) continue;
    add_term(std::move(u), std::move(v));
    ++chains;
  }
  if (!constant_placed) {
    RankOneTerm apex;
    apex.size = 1;
    apex.offset = R;
    apex.u = {1.0};
    apex.v = {constant};
    apex.on_cuda_cores = true;
    residual.at(R, R) -= constant;
    apex.residual = residual;
    d.terms.push_back(std::move(apex));
  }
  const double scale = d.weights.max_abs();
  if (term_max > kMaxTermGrowth * scale) {
    obstacle = fmt::format("the expansion of {} has terms up to {:.3g} against weights up to {:.3g} ({:.0f}x): arms of "
                           "mixed sign would cancel and amplify rounding",
                           power.name, term_max, scale, term_max / scale);
    return std::nullopt;
  }
  d.singular_values = singular_values(d.weights);
  d.rank = numerical_rank(d.singular_values, side);
  const int gathers = static_cast<int>(d.terms.size()) - chains - (constant_placed ? 0 : 1);
  if (steps == 1)
    d.reason = fmt::format("W's non-zeros lie on its centre row and column (a cross): {} single gather(s), the row "
                           "(with the centre) as X·V and the column without its centre as U·X; no U·X·V chain",
                           gathers);
  else
    d.reason = fmt::format("plane dz = {} of the {}-fold power of the star '{}' (c + X + Y{}, arms commute): "
                           "multinomial expansion into {} single gather(s) (pure x as X·V, pure y as U·X) and {} "
                           "chain(s) X^j ⊗ (sum_l a_jl Y^l), j = 1..{}, of 1D kernels of different lengths",
                           dz, steps, star.name, star.dims == 3 ? " + Z" : "", gathers, chains, steps - 1);
  if (!constant_placed) d.reason += "; the centre alone on CUDA cores";
  return d;
}

Stencil plane_as_stencil(const WeightMatrix& w) {
  if (w.side < 1 || w.side % 2 == 0 || static_cast<int>(w.values.size()) != w.side * w.side)
    throw InputError(fmt::format("a weight matrix needs an odd side and side^2 values; got side {} with {} values",
                                 w.side, w.values.size()));
  Stencil s = make_stencil(2, w.radius(), "W");
  for (int i = 0; i < w.side; ++i)
    for (int j = 0; j < w.side; ++j) s.at(j - w.radius(), i - w.radius()) = w.at(i, j);
  return s;
}

} // namespace

std::string cross_obstacle(const WeightMatrix& w) {
  const int h = w.radius();
  for (int i = 0; i < w.side; ++i)
    for (int j = 0; j < w.side; ++j)
      if (w.at(i, j) != 0.0 && i != h && j != h)
        return fmt::format("W is not a cross: w(dx={},dy={}) = {:.6g} lies off its centre row and column", j - h,
                           i - h, w.at(i, j));
  return {};
}

WeightDecomposition cross_decomposition(const WeightMatrix& w) {
  std::string obstacle = cross_obstacle(w);
  if (obstacle.empty()) {
    auto d = build_star_power(plane_as_stencil(w), 1, 0, obstacle);
    if (d) return std::move(*d);
  }
  throw InputError("LoRAStencil's cross split cannot take this weight matrix: " + obstacle);
}

std::string star_power_obstacle(const Stencil& star, int steps, int dz) {
  std::string obstacle;
  build_star_power(star, steps, dz, obstacle);
  return obstacle;
}

WeightDecomposition star_power_decomposition(const Stencil& star, int steps, int dz) {
  std::string obstacle;
  auto d = build_star_power(star, steps, dz, obstacle);
  if (!d) throw InputError("LoRAStencil's star expansion cannot take this plane: " + obstacle);
  return std::move(*d);
}

} // namespace se
