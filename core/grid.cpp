// Grid helpers: parsing sizes and names, memory checks, initial conditions.
#include "core/grid.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <random>

#include <unistd.h>

#include <fmt/format.h>

#include "core/checked_math.hpp"
#include "core/error.hpp"

namespace se {

std::string_view to_string(Precision p) {
  switch (p) {
  case Precision::FP64: return "fp64";
  case Precision::FP32: return "fp32";
  case Precision::FP16: return "fp16";
  }
  return "?";
}

Precision parse_precision(std::string_view s) {
  if (s == "fp64" || s == "double" || s == "f64") return Precision::FP64;
  if (s == "fp32" || s == "float" || s == "f32") return Precision::FP32;
  if (s == "fp16" || s == "half" || s == "f16") return Precision::FP16;
  throw InputError(fmt::format("unknown precision '{}' (fp64, fp32 or fp16)", s));
}

std::size_t bytes_per_value(Precision p) { return p == Precision::FP64 ? 8 : (p == Precision::FP32 ? 4 : 2); }

std::string_view to_string(BoundaryKind b) { return b == BoundaryKind::Periodic ? "periodic" : "dirichlet"; }

BoundaryKind parse_boundary(std::string_view s) {
  if (s == "dirichlet" || s == "fixed") return BoundaryKind::Dirichlet;
  if (s == "periodic") return BoundaryKind::Periodic;
  throw InputError(fmt::format("unknown boundary '{}' (dirichlet or periodic)", s));
}

std::string_view to_string(InitialCondition c) {
  switch (c) {
  case InitialCondition::Random: return "random";
  case InitialCondition::HotSpot: return "hot-spot";
  case InitialCondition::HotSpots: return "hot-spots";
  case InitialCondition::Gaussian: return "gaussian";
  case InitialCondition::Checkerboard: return "checkerboard";
  case InitialCondition::Zero: return "zero";
  case InitialCondition::Image: return "image";
  }
  return "?";
}

const std::vector<InitialCondition>& all_initial_conditions() {
  static const std::vector<InitialCondition> all{InitialCondition::Random,   InitialCondition::HotSpot,
                                                 InitialCondition::HotSpots, InitialCondition::Gaussian,
                                                 InitialCondition::Checkerboard, InitialCondition::Zero};
  return all;
}

InitialCondition parse_initial_condition(std::string_view s) {
  if (s == to_string(InitialCondition::Image)) return InitialCondition::Image;
  std::string names;
  for (auto c : all_initial_conditions()) {
    if (s == to_string(c)) return c;
    names += fmt::format("{}, ", to_string(c));
  }
  throw InputError(fmt::format("unknown initial condition '{}' ({}image)", s, names));
}

std::string Extent::to_string() const {
  std::string s = std::to_string(n[0]);
  for (int d = 1; d < dims; ++d) s += "x" + std::to_string(n[d]);
  return s;
}

void validate(const Extent& e) {
  if (e.dims < 1 || e.dims > 3) throw InputError(fmt::format("a grid has 1, 2 or 3 dimensions; got {}", e.dims));
  std::int64_t points = 1;
  for (int d = 0; d < 3; ++d) {
    const std::int64_t n = e.n[static_cast<std::size_t>(d)];
    if (d >= e.dims ? n != 1 : n < 1)
      throw InputError(fmt::format("a {}D grid has {} points along axis {}", e.dims, n, "xyz"[d]));
    const auto product = checked_mul(points, n);
    if (!product || *product > kMaxGridPoints)
      throw InputError(fmt::format("grid {} has more than 2^50 points; no machine holds it", e.to_string()));
    points = *product;
  }
}

Extent parse_extent(std::string_view text) {
  Extent e;
  e.dims = 0;
  std::int64_t points = 1;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t end = std::min(text.find('x', pos), text.size());
    const std::string_view part = text.substr(pos, end - pos);
    if (e.dims == 3) throw InputError(fmt::format("size '{}' has more than 3 dimensions", text));
    long long v = 0;
    const auto res = std::from_chars(part.data(), part.data() + part.size(), v);
    if (part.empty() || res.ec != std::errc() || res.ptr != part.data() + part.size())
      throw InputError(fmt::format("size '{}' is not of the form N, NxM or NxMxK", text));
    if (v <= 0) throw InputError(fmt::format("size '{}': every extent must be positive; got {}", text, part));
    const auto product = checked_mul(points, v);
    if (!product || *product > kMaxGridPoints)
      throw InputError(fmt::format("size '{}' has more than 2^50 points; no machine holds such a grid", text));
    points = *product;
    e.n[e.dims++] = v;
    pos = end + 1;
  }
  return e;
}

void check_extent_fits_stencil(const Extent& e, const Stencil& s) {
  validate(e);
  if (e.dims != s.dims)
    throw InputError(fmt::format("a {}D stencil needs a {}D grid; got the {}D grid {}", s.dims, s.dims, e.dims, e.to_string()));
  for (int d = 0; d < e.dims; ++d)
    if (e.n[d] < s.side())
      throw InputError(fmt::format("grid {} is smaller than the stencil ({} points per axis) along axis {}",
                                   e.to_string(), s.side(), "xyz"[d]));
}

std::uint64_t available_host_memory() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  std::uint64_t kb = 0;
  std::string unit;
  while (in >> key >> kb >> unit)
    if (key == "MemAvailable:") return kb * 1024;
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * page : 0;
}

void check_host_memory(std::uint64_t bytes, std::string_view what) {
  const std::uint64_t avail = available_host_memory();
  if (avail != 0 && bytes > avail)
    throw InputError(fmt::format("{} needs {:.1f} GiB but this machine has {:.1f} GiB available", what,
                                 bytes / 1073741824.0, avail / 1073741824.0));
}

std::vector<double> initial_values(const Extent& e, InitialCondition c, std::uint64_t seed) {
  check_host_memory(static_cast<std::uint64_t>(e.points()) * sizeof(double), "initial condition");
  std::vector<double> v(static_cast<std::size_t>(e.points()));
  const auto nx = e.n[0], ny = e.n[1], nz = e.n[2];
  auto coord = [&](std::int64_t i, int d) { // centred coordinate in [-0.5, 0.5)
    return (static_cast<double>(i) + 0.5) / static_cast<double>(e.n[d]) - 0.5;
  };
  switch (c) {
  case InitialCondition::Image:
    throw InputError("the image initial condition needs a picture: load one (image_values in core/image_field.hpp)");
  case InitialCondition::Zero: break;
  case InitialCondition::Random: {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> dist(0.0, 1.0);
    for (auto& x : v) x = dist(rng);
    break;
  }
  case InitialCondition::HotSpots: {
    // Five discs of value 1 at places drawn from `seed` (the same seed, the same places), radius 1/16 of the grid.
    constexpr int kSpots = 5;
    constexpr double kRadius = 1.0 / 16.0;
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> place(-0.5 + kRadius, 0.5 - kRadius);
    std::array<std::array<double, 3>, kSpots> centres{};
    for (auto& c3 : centres)
      for (int d = 0; d < 3; ++d) c3[d] = d < e.dims ? place(rng) : 0.0;
    for (std::int64_t z = 0; z < nz; ++z)
      for (std::int64_t y = 0; y < ny; ++y)
        for (std::int64_t x = 0; x < nx; ++x) {
          const double p[3] = {coord(x, 0), e.dims >= 2 ? coord(y, 1) : 0.0, e.dims >= 3 ? coord(z, 2) : 0.0};
          for (const auto& c3 : centres) {
            const double r2 = (p[0] - c3[0]) * (p[0] - c3[0]) + (p[1] - c3[1]) * (p[1] - c3[1]) + (p[2] - c3[2]) * (p[2] - c3[2]);
            if (r2 < kRadius * kRadius) v[static_cast<std::size_t>((z * ny + y) * nx + x)] = 1.0;
          }
        }
    break;
  }
  case InitialCondition::HotSpot:
  case InitialCondition::Gaussian:
  case InitialCondition::Checkerboard:
    for (std::int64_t z = 0; z < nz; ++z)
      for (std::int64_t y = 0; y < ny; ++y)
        for (std::int64_t x = 0; x < nx; ++x) {
          const double cx = coord(x, 0), cy = e.dims >= 2 ? coord(y, 1) : 0.0, cz = e.dims >= 3 ? coord(z, 2) : 0.0;
          const double r2 = cx * cx + cy * cy + cz * cz;
          double val = 0;
          if (c == InitialCondition::HotSpot) {
            val = r2 < 0.125 * 0.125 ? 1.0 : 0.0;
          } else if (c == InitialCondition::Gaussian) {
            val = std::exp(-r2 / (2 * 0.1 * 0.1));
          } else {
            auto cell = [&](std::int64_t i, int d) { return i * 8 / std::max<std::int64_t>(e.n[d], 1); };
            val = static_cast<double>((cell(x, 0) + (e.dims >= 2 ? cell(y, 1) : 0) + (e.dims >= 3 ? cell(z, 2) : 0)) % 2);
          }
          v[static_cast<std::size_t>((z * ny + y) * nx + x)] = val;
        }
    break;
  }
  return v;
}

} // namespace se
