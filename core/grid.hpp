// Grids of 1-3 dimensions in FP64, FP32 or FP16 storage, their boundaries and initial conditions.
// A grid of extent N updates all N points each step; neighbours outside read the boundary rule.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/half.hpp"
#include "core/stencil.hpp"

namespace se {

enum class Precision { FP64, FP32, FP16 };
std::string_view to_string(Precision p);
Precision parse_precision(std::string_view s); // "fp64"/"double", "fp32"/"float", "fp16"/"half"
std::size_t bytes_per_value(Precision p);

enum class BoundaryKind { Dirichlet, Periodic };
struct Boundary {
  BoundaryKind kind = BoundaryKind::Dirichlet;
  double value = 0.0; // the fixed value outside the grid for Dirichlet
};
std::string_view to_string(BoundaryKind b);
BoundaryKind parse_boundary(std::string_view s); // "dirichlet"/"fixed", "periodic"

// Image: a grayscale picture resampled onto the grid (core/image_field.hpp); it needs the picture, so
// initial_values() cannot make it and all_initial_conditions() leaves it out.
enum class InitialCondition { Random, HotSpot, HotSpots, Gaussian, Checkerboard, Zero, Image };
std::string_view to_string(InitialCondition c);
InitialCondition parse_initial_condition(std::string_view s);
const std::vector<InitialCondition>& all_initial_conditions();

struct Extent {
  int dims = 2;
  std::array<std::int64_t, 3> n{1, 1, 1}; // {x, y, z}; axes beyond dims are 1
  std::int64_t points() const { return n[0] * n[1] * n[2]; }
  std::string to_string() const; // "2048x2048", x first
  bool operator==(const Extent&) const = default;
};

// More points than any grid this tool makes (2^50, 9 PB in FP64): counts and byte sizes of valid grids never
// overflow 64 bits.
constexpr std::int64_t kMaxGridPoints = std::int64_t{1} << 50;

// Throws InputError when the extent is not a grid: dims outside 1-3, an axis below 1 (or not 1 beyond dims), or
// more than kMaxGridPoints points.
void validate(const Extent& e);
// Parses "N", "NxM" or "NxMxK" (x first). Throws InputError for zero, negative, malformed or too large sizes.
Extent parse_extent(std::string_view text);
// Throws InputError when a size is smaller than the stencil (2r+1 along an active axis) or dims differ.
void check_extent_fits_stencil(const Extent& e, const Stencil& s);
// Throws InputError before allocating when `bytes` exceeds what this machine can hold.
void check_host_memory(std::uint64_t bytes, std::string_view what);
std::uint64_t available_host_memory();

template <typename T> struct Grid {
  static_assert(std::is_same_v<T, double> || std::is_same_v<T, float> || std::is_same_v<T, Half>);
  Extent extent;
  std::vector<T> data; // x fastest, then y, then z

  Grid() = default;
  explicit Grid(const Extent& e) : extent(e) {
    check_host_memory(static_cast<std::uint64_t>(e.points()) * sizeof(T), "grid");
    data.assign(static_cast<std::size_t>(e.points()), T(0.0));
  }
  std::size_t index(std::int64_t x, std::int64_t y = 0, std::int64_t z = 0) const {
    return static_cast<std::size_t>((z * extent.n[1] + y) * extent.n[0] + x);
  }
  T& operator()(std::int64_t x, std::int64_t y = 0, std::int64_t z = 0) { return data[index(x, y, z)]; }
  const T& operator()(std::int64_t x, std::int64_t y = 0, std::int64_t z = 0) const { return data[index(x, y, z)]; }
  std::vector<double> to_double() const {
    std::vector<double> v(data.size());
    for (std::size_t i = 0; i < data.size(); ++i) v[i] = static_cast<double>(data[i]);
    return v;
  }
};

// Storage precision P as a C++ type.
template <Precision P> using storage_t =
    std::conditional_t<P == Precision::FP64, double, std::conditional_t<P == Precision::FP32, float, Half>>;

// Fill a grid with an initial condition. Random is uniform in [0, 1) from `seed`, hot-spots are five discs placed
// by `seed`, zero is an empty grid to paint on; the others are
// deterministic shapes in [0, 1] that show the stencil's effect clearly.
std::vector<double> initial_values(const Extent& e, InitialCondition c, std::uint64_t seed);
template <typename T> void fill(Grid<T>& g, InitialCondition c, std::uint64_t seed) {
  const auto v = initial_values(g.extent, c, seed);
  for (std::size_t i = 0; i < v.size(); ++i) g.data[i] = T(v[i]);
}

} // namespace se
