// Pyramid (PMA) and SVD decompositions of a 2D weight matrix into rank-1 terms.
#include "core/lorastencil/weight_decomposition.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include <Eigen/SVD>
#include <fmt/format.h>

#include "core/error.hpp"

namespace se {
namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();
// A pyramid whose rank-1 terms grow beyond this multiple of the largest weight would cancel large numbers
// against each other; beyond it the SVD (orthogonal, no growth) is the safer split.
constexpr double kMaxPyramidGrowth = 100.0;

// Values this small relative to the weights are rounding left by a subtraction, not weights.
double zero_tolerance(double scale) { return 64.0 * kEps * scale; }

Eigen::MatrixXd to_eigen(const WeightMatrix& w) {
  Eigen::MatrixXd m(w.side, w.side);
  for (int i = 0; i < w.side; ++i)
    for (int j = 0; j < w.side; ++j) m(i, j) = w.at(i, j);
  return m;
}

WeightMatrix zeros(int side) { return {side, std::vector<double>(static_cast<std::size_t>(side * side), 0.0)}; }

// The ring of the sub-matrix [off, off+size)^2: its first and last rows and columns.
template <typename F> void for_each_ring_cell(int off, int size, F&& f) {
  const int last = off + size - 1;
  for (int j = off; j <= last; ++j) {
    f(off, j);
    if (last != off) f(last, j);
  }
  for (int i = off + 1; i < last; ++i) {
    f(i, off);
    f(i, last);
  }
}

std::string mirror_asymmetry(const WeightMatrix& w, double tol) {
  const int n = w.side;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const int dy = i - n / 2, dx = j - n / 2;
      if (std::abs(w.at(i, j) - w.at(n - 1 - i, j)) > tol)
        return fmt::format("W is not mirror-symmetric along y: w(dx={},dy={}) = {:.6g} but w(dx={},dy={}) = {:.6g}",
                           dx, dy, w.at(i, j), dx, -dy, w.at(n - 1 - i, j));
      if (std::abs(w.at(i, j) - w.at(i, n - 1 - j)) > tol)
        return fmt::format("W is not mirror-symmetric along x: w(dx={},dy={}) = {:.6g} but w(dx={},dy={}) = {:.6g}",
                           dx, dy, w.at(i, j), -dx, dy, w.at(i, n - 1 - j));
    }
  return {};
}

// Builds the pyramid, or says in `obstacle` why it cannot.
std::optional<WeightDecomposition> build_pyramid(const WeightMatrix& w, std::string& obstacle) {
  const double scale = w.max_abs();
  const double tol = zero_tolerance(scale);
  obstacle = mirror_asymmetry(w, tol);
  if (!obstacle.empty()) return std::nullopt;

  WeightDecomposition d;
  d.kind = DecompositionKind::Pyramid;
  d.weights = w;
  WeightMatrix residual = w;
  const int h = w.radius();
  for (int level = 0; level <= h; ++level) {
    const int off = level, size = w.side - 2 * level;
    RankOneTerm t;
    t.size = size;
    t.offset = off;
    if (size == 1) {
      const double apex = residual.at(h, h);
      if (std::abs(apex) <= tol) break;
      t.u = {1.0};
      t.v = {apex};
      t.on_cuda_cores = true;
      residual.at(h, h) = 0.0;
      t.residual = residual;
      d.terms.push_back(std::move(t));
      break;
    }
    double ring_max = 0.0;
    for_each_ring_cell(off, size, [&](int i, int j) { ring_max = std::max(ring_max, std::abs(residual.at(i, j))); });
    if (ring_max <= tol) {
      for_each_ring_cell(off, size, [&](int i, int j) { residual.at(i, j) = 0.0; });
      continue;
    }
    const double corner = residual.at(off, off);
    if (std::abs(corner) <= tol) {
      obstacle = fmt::format("ring {} of the pyramid (side {}) has a zero corner but non-zero weights (a star-shaped "
                             "ring, largest |w| = {:.6g}): no rank-1 matrix matches it",
                             level, size, ring_max);
      return std::nullopt;
    }
    t.u.resize(static_cast<std::size_t>(size));
    t.v.resize(static_cast<std::size_t>(size));
    // The paper's normalisation (Sec. III-C): u = first column / corner (so u starts with 1), v = first row.
    for (int i = 0; i < size; ++i) t.u[static_cast<std::size_t>(i)] = residual.at(off + i, off) / corner;
    for (int j = 0; j < size; ++j) t.v[static_cast<std::size_t>(j)] = residual.at(off, off + j);
    double term_max = 0.0;
    for (int i = 0; i < size; ++i)
      for (int j = 0; j < size; ++j) {
        const double c = t.u[static_cast<std::size_t>(i)] * t.v[static_cast<std::size_t>(j)];
        term_max = std::max(term_max, std::abs(c));
        residual.at(off + i, off + j) -= c;
      }
    if (term_max > kMaxPyramidGrowth * scale) {
      obstacle = fmt::format("ring {} (side {}) has a corner of {:.3g} against weights up to {:.3g}: its rank-1 term "
                             "reaches {:.3g}, {:.0f}x the largest weight, and the pyramid would amplify rounding",
                             level, size, corner, ring_max, term_max, term_max / scale);
      return std::nullopt;
    }
    // The ring is now zero up to rounding if W is mirror-symmetric; anything larger means it was not.
    double left = 0.0;
    for_each_ring_cell(off, size, [&](int i, int j) { left = std::max(left, std::abs(residual.at(i, j))); });
    if (left > zero_tolerance(std::max(scale, term_max))) {
      obstacle = fmt::format("ring {} (side {}) is not matched by its rank-1 term (|left over| = {:.3g})", level, size,
                             left);
      return std::nullopt;
    }
    for_each_ring_cell(off, size, [&](int i, int j) { residual.at(i, j) = 0.0; });
    t.residual = residual;
    d.terms.push_back(std::move(t));
  }
  d.singular_values = singular_values(w);
  d.rank = numerical_rank(d.singular_values, w.side);
  std::string sides;
  for (const auto& t : d.terms)
    if (!t.on_cuda_cores) sides += fmt::format("{}{}", sides.empty() ? "" : ", ", t.size);
  const bool apex = !d.terms.empty() && d.terms.back().on_cuda_cores;
  d.reason = fmt::format("W is mirror-symmetric along x and y: pyramid of {} rank-1 term(s) of side {} on tensor cores{} "
                         "(rank(W) = {}, at most h+1 = {})",
                         d.tensor_core_terms(), sides.empty() ? "-" : sides,
                         apex ? " and the 1x1 apex on CUDA cores" : "", d.rank, h + 1);
  return d;
}

} // namespace

double WeightMatrix::max_abs() const {
  double m = 0.0;
  for (double v : values) m = std::max(m, std::abs(v));
  return m;
}

int WeightMatrix::nonzero_count() const {
  return static_cast<int>(std::count_if(values.begin(), values.end(), [](double v) { return v != 0.0; }));
}

WeightMatrix weight_matrix(const Stencil& s, int dz) {
  validate(s);
  if (s.dims < 2)
    throw InputError(fmt::format("a weight matrix needs a 2D or 3D stencil; '{}' is {}D", s.name, s.dims));
  const int rz = s.dims == 3 ? s.radius : 0;
  if (dz < -rz || dz > rz)
    throw InputError(fmt::format("plane dz = {} lies outside '{}' (planes {}..{})", dz, s.name, -rz, rz));
  WeightMatrix w = zeros(s.side());
  for (int dy = -s.radius; dy <= s.radius; ++dy)
    for (int dx = -s.radius; dx <= s.radius; ++dx) w.at(dy + s.radius, dx + s.radius) = s.at(dx, dy, dz);
  return w;
}

WeightMatrix RankOneTerm::embedded(int side) const {
  WeightMatrix m = zeros(side);
  for (int i = 0; i < size; ++i)
    for (int j = 0; j < size; ++j)
      m.at(offset + i, offset + j) = u[static_cast<std::size_t>(i)] * v[static_cast<std::size_t>(j)];
  return m;
}

std::string_view to_string(DecompositionKind k) {
  switch (k) {
  case DecompositionKind::Pyramid: return "pyramid";
  case DecompositionKind::Svd: return "svd";
  case DecompositionKind::Cross: return "cross";
  }
  return "?";
}

int WeightDecomposition::tensor_core_terms() const {
  return static_cast<int>(std::count_if(terms.begin(), terms.end(), [](const RankOneTerm& t) { return !t.on_cuda_cores; }));
}

WeightMatrix WeightDecomposition::reconstruct() const {
  WeightMatrix m = zeros(weights.side);
  for (const auto& t : terms) {
    const WeightMatrix c = t.embedded(weights.side);
    for (std::size_t i = 0; i < m.values.size(); ++i) m.values[i] += c.values[i];
  }
  return m;
}

std::vector<double> singular_values(const WeightMatrix& w) {
  if (w.side <= 0) return {};
  const Eigen::JacobiSVD<Eigen::MatrixXd> svd(to_eigen(w));
  const Eigen::VectorXd s = svd.singularValues();
  return {s.data(), s.data() + s.size()};
}

int numerical_rank(const std::vector<double>& sv, int side) {
  if (sv.empty() || sv.front() == 0.0) return 0;
  const double threshold = 8.0 * side * kEps * sv.front();
  return static_cast<int>(std::count_if(sv.begin(), sv.end(), [&](double s) { return s > threshold; }));
}

std::string pyramid_obstacle(const WeightMatrix& w) {
  std::string obstacle;
  build_pyramid(w, obstacle);
  return obstacle;
}

WeightDecomposition pyramid_decomposition(const WeightMatrix& w) {
  std::string obstacle;
  auto d = build_pyramid(w, obstacle);
  if (!d) throw InputError("LoRAStencil's pyramid cannot take this weight matrix: " + obstacle);
  return std::move(*d);
}

WeightDecomposition svd_decomposition(const WeightMatrix& w) {
  WeightDecomposition d;
  d.kind = DecompositionKind::Svd;
  d.weights = w;
  const Eigen::JacobiSVD<Eigen::MatrixXd> svd(to_eigen(w), Eigen::ComputeFullU | Eigen::ComputeFullV);
  const Eigen::VectorXd s = svd.singularValues();
  d.singular_values.assign(s.data(), s.data() + s.size());
  d.rank = numerical_rank(d.singular_values, w.side);
  WeightMatrix residual = w;
  for (int k = 0; k < d.rank; ++k) {
    RankOneTerm t;
    t.size = w.side;
    t.offset = 0;
    Eigen::VectorXd u = s(k) * svd.matrixU().col(k), v = svd.matrixV().col(k);
    // Singular vectors are defined up to a joint sign; fix it so plans print the same on every machine.
    Eigen::Index at = 0;
    v.cwiseAbs().maxCoeff(&at);
    if (v(at) < 0) {
      u = -u;
      v = -v;
    }
    t.u.assign(u.data(), u.data() + u.size());
    t.v.assign(v.data(), v.data() + v.size());
    for (int i = 0; i < w.side; ++i)
      for (int j = 0; j < w.side; ++j) residual.at(i, j) -= u(i) * v(j);
    t.residual = residual;
    d.terms.push_back(std::move(t));
  }
  d.reason = fmt::format("general rank-{} split by SVD: {} full-size ({}x{}) rank-1 terms, all on tensor cores",
                         d.rank, d.rank, w.side, w.side);
  return d;
}

} // namespace se
