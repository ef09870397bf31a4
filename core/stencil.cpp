// Stencil model: shape helpers, validation, symmetry, presets and the JSON format.
// Presets use the papers' names; weights are chosen so heat kernels are stable and sum to 1.
#include "core/stencil.hpp"

#include <algorithm>
#include <cmath>
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
