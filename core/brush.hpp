// Painting on a grid: a brush of a radius (in grid points) adds heat or cold, or sets a value, with a smooth
// falloff, at dabs placed along the mouse's path. The arithmetic is written once, here, for the host (the CPU
// runs and the tests) and the device (the GPU runs paint their device grid with these functions, no host copy).
#pragma once
#include <cmath>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "core/grid.hpp"

#if defined(__CUDACC__)
#define SE_BRUSH_FN __host__ __device__ inline
#else
#define SE_BRUSH_FN inline
#endif

namespace se {

enum class BrushMode {
  Add, // each dab adds its amount (negative: cold), weighted by the falloff
  Set, // each dab pulls the values towards its amount, fully at the centre
};
std::string_view to_string(BrushMode m);
BrushMode parse_brush_mode(std::string_view s); // "add", "set"; throws InputError

struct Brush {
  double radius = 8;  // grid points; the falloff reaches 0 here
  double value = 0.5; // Add: heat added at the centre of a dab; Set: the value set
  BrushMode mode = BrushMode::Add;
};
constexpr double kMinBrushRadius = 0.5, kMaxBrushRadius = 1 << 20;
constexpr double kMaxBrushValue = 1e6; // |value| at most this: the brush paints, it does not blow a grid up

// One touch of the brush, in grid coordinates (point i's centre is at i; continuous between points).
struct BrushDab {
  double x = 0, y = 0, z = 0;
  double amount = 0; // Add: added at the centre; Set: the value the brush pulls towards
};

// Dabs applied together: plain data (a kernel takes it by value), the dabs in the order they are applied.
constexpr int kMaxDabsPerBatch = 32;
struct DabBatch {
  int dims = 2;
  std::int64_t n[3] = {1, 1, 1};
  bool periodic = false; // distances wrap around the grid, as the stencil does
  double radius = 8;
  BrushMode mode = BrushMode::Add;
  int count = 0;
  BrushDab dabs[kMaxDabsPerBatch];
};

// The points a batch touches: [lo, hi] per axis, inclusive, in unwrapped coordinates (on a periodic axis they may
// run past the grid's ends and wrap; on a fixed one they are clipped to it). points == 0: nothing to do.
struct BrushBox {
  std::int64_t lo[3] = {0, 0, 0}, hi[3] = {-1, -1, -1};
  std::int64_t points = 0;
};
BrushBox brush_box(const DabBatch& batch);

// 1 at the centre, 0 from the radius on, smooth in between: (1 - d^2/r^2)^2.
SE_BRUSH_FN double brush_falloff(double d2, double r2) {
  if (!(d2 < r2)) return 0.0;
  const double t = 1.0 - d2 / r2;
  return t * t;
}

// Offset of point coordinate p from a dab's centre c along an axis of n points; the nearest image when periodic.
SE_BRUSH_FN double brush_axis_offset(double p, double c, std::int64_t n, bool periodic) {
  double d = p - c;
  if (periodic) d -= static_cast<double>(n) * floor(d / static_cast<double>(n) + 0.5);
  return d;
}

// The grid coordinate of unwrapped box coordinate u along an axis: wrapped when periodic; -1 outside a fixed axis.
SE_BRUSH_FN std::int64_t brush_wrap(std::int64_t u, std::int64_t n, bool periodic) {
  if (periodic) return ((u % n) + n) % n;
  return u >= 0 && u < n ? u : -1;
}

// Point (x, y, z)'s value `v` after the batch's dabs, applied in order.
SE_BRUSH_FN double brushed_value(double v, const DabBatch& b, std::int64_t x, std::int64_t y, std::int64_t z) {
  const double r2 = b.radius * b.radius;
  const double p[3] = {static_cast<double>(x), static_cast<double>(y), static_cast<double>(z)};
  for (int i = 0; i < b.count; ++i) {
    const BrushDab& dab = b.dabs[i];
    const double c[3] = {dab.x, dab.y, dab.z};
    double d2 = 0;
    for (int d = 0; d < b.dims; ++d) {
      const double o = brush_axis_offset(p[d], c[d], b.n[d], b.periodic);
      d2 += o * o;
    }
    const double w = brush_falloff(d2, r2);
    if (w > 0) v = b.mode == BrushMode::Add ? v + w * dab.amount : v + w * (dab.amount - v);
  }
  return v;
}

// Dabs from `from` to `to` (both in grid coordinates) spaced a third of the radius apart, `from` itself left out
// (it was painted when the mouse was there), `to` included: a fast drag leaves a line, not a row of dots.
std::vector<BrushDab> dabs_along(const BrushDab& from, const BrushDab& to, double radius);

// The share of a brush's value each dab of a drag adds so that a straight stroke's middle gains the value once: the
// falloff integrates to 16r/15 across a line through a dab's centre, so dabs `spacing` apart add 15 spacing / 16r
// each (at most 1: a single press adds the whole value).
double stroke_dab_weight(double spacing, double radius);

// Dabs checked (finite coordinates, amounts within ±kMaxBrushValue, a radius in [kMinBrushRadius, kMaxBrushRadius]) and grouped in
// order into batches whose box stays small (a long diagonal stroke becomes several batches, not one box over the
// whole grid). Throws InputError for bad input.
std::vector<DabBatch> batch_dabs(const Extent& e, BoundaryKind boundary, const Brush& brush, std::span<const BrushDab> dabs);

// An edit of a running grid: brush batches, or every point set to one value (Clear).
struct GridEdit {
  enum class Kind { Brush, Fill } kind = Kind::Brush;
  std::vector<DabBatch> batches;
  double fill_value = 0;
};
GridEdit brush_edit(const Extent& e, BoundaryKind boundary, const Brush& brush, std::span<const BrushDab> dabs);
GridEdit fill_edit(double value); // throws InputError when not finite

// Applies `edit` to host values of extent `e` (x fastest), rounding what it wrote to `storage`.
void apply_edit(std::span<double> values, const Extent& e, const GridEdit& edit, Precision storage = Precision::FP64);

} // namespace se
