#include "core/brush.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/half.hpp"

namespace se {

std::string_view to_string(BrushMode m) { return m == BrushMode::Add ? "add" : "set"; }

BrushMode parse_brush_mode(std::string_view s) {
  if (s == "add") return BrushMode::Add;
  if (s == "set") return BrushMode::Set;
  throw InputError(fmt::format("unknown brush mode '{}' (add, set)", s));
}

namespace {

BrushBox dab_box(const DabBatch& b, const BrushDab& dab) {
  BrushBox box;
  const double c[3] = {dab.x, dab.y, dab.z};
  box.points = 1;
  for (int d = 0; d < 3; ++d) {
    if (d >= b.dims) {
      box.lo[d] = box.hi[d] = 0;
      continue;
    }
    box.lo[d] = static_cast<std::int64_t>(std::ceil(c[d] - b.radius));
    box.hi[d] = static_cast<std::int64_t>(std::floor(c[d] + b.radius));
    if (b.periodic && box.hi[d] - box.lo[d] + 1 >= b.n[d]) { // the brush covers the whole axis: every point once
      box.lo[d] = 0;
      box.hi[d] = b.n[d] - 1;
    } else if (!b.periodic) {
      box.lo[d] = std::max<std::int64_t>(box.lo[d], 0);
      box.hi[d] = std::min<std::int64_t>(box.hi[d], b.n[d] - 1);
    }
    box.points = box.hi[d] < box.lo[d] ? 0 : box.points * (box.hi[d] - box.lo[d] + 1);
  }
  return box;
}

BrushBox unite(const DabBatch& b, const BrushBox& a, const BrushBox& c) {
  if (a.points == 0) return c;
  if (c.points == 0) return a;
  BrushBox u;
  u.points = 1;
  for (int d = 0; d < 3; ++d) {
    u.lo[d] = std::min(a.lo[d], c.lo[d]);
    u.hi[d] = std::max(a.hi[d], c.hi[d]);
    if (b.periodic && d < b.dims && u.hi[d] - u.lo[d] + 1 >= b.n[d]) u.lo[d] = 0, u.hi[d] = b.n[d] - 1;
    u.points *= u.hi[d] - u.lo[d] + 1;
  }
  return u;
}

bool finite_dab(const BrushDab& d) {
  return std::isfinite(d.x) && std::isfinite(d.y) && std::isfinite(d.z) && std::abs(d.amount) <= kMaxBrushValue;
}

} // namespace

BrushBox brush_box(const DabBatch& batch) {
  BrushBox box;
  for (int i = 0; i < batch.count; ++i) box = unite(batch, box, dab_box(batch, batch.dabs[i]));
  return box;
}

std::vector<BrushDab> dabs_along(const BrushDab& from, const BrushDab& to, double radius) {
  const double dx = to.x - from.x, dy = to.y - from.y, dz = to.z - from.z;
  const double length = std::sqrt(dx * dx + dy * dy + dz * dz);
  const double spacing = std::max(radius / 3.0, 0.5);
  // A drag across a huge grid with a tiny brush is capped: the dabs then lie further apart than a third.
  const int steps = static_cast<int>(std::clamp(std::ceil(length / spacing), 1.0, 4096.0));
  std::vector<BrushDab> out;
  out.reserve(static_cast<std::size_t>(steps));
  for (int i = 1; i <= steps; ++i) {
    const double t = static_cast<double>(i) / steps;
    out.push_back({from.x + t * dx, from.y + t * dy, from.z + t * dz, to.amount});
  }
  return out;
}

double stroke_dab_weight(double spacing, double radius) {
  if (!(radius > 0) || !(spacing >= 0)) return 1.0;
  return std::min(1.0, 15.0 * spacing / (16.0 * radius));
}

std::vector<DabBatch> batch_dabs(const Extent& e, BoundaryKind boundary, const Brush& brush,
                                 std::span<const BrushDab> dabs) {
  validate(e);
  if (!(brush.radius >= kMinBrushRadius && brush.radius <= kMaxBrushRadius))
    throw InputError(fmt::format("a brush radius is from {} to {} grid points; got {}", kMinBrushRadius, kMaxBrushRadius,
                                 brush.radius));
  DabBatch proto;
  proto.dims = e.dims;
  for (int d = 0; d < 3; ++d) proto.n[d] = e.n[d];
  proto.periodic = boundary == BoundaryKind::Periodic;
  proto.radius = brush.radius;
  proto.mode = brush.mode;
  std::vector<DabBatch> out;
  BrushBox box;
  std::int64_t separate_points = 0;
  for (const BrushDab& dab : dabs) {
    if (!finite_dab(dab)) throw InputError(fmt::format("a brush dab needs finite coordinates and an amount within ±{}", kMaxBrushValue));
    const BrushBox own = dab_box(proto, dab);
    if (own.points == 0) continue; // entirely off a fixed-boundary grid
    if (!out.empty() && out.back().count < kMaxDabsPerBatch) {
      // Grouped while the united box costs at most twice the dabs' own boxes.
      const BrushBox united = unite(proto, box, own);
      if (united.points <= 2 * (separate_points + own.points)) {
        DabBatch& b = out.back();
        b.dabs[b.count++] = dab;
        box = united;
        separate_points += own.points;
        continue;
      }
    }
    out.push_back(proto);
    out.back().dabs[out.back().count++] = dab;
    box = own;
    separate_points = own.points;
  }
  return out;
}

GridEdit brush_edit(const Extent& e, BoundaryKind boundary, const Brush& brush, std::span<const BrushDab> dabs) {
  GridEdit edit;
  edit.kind = GridEdit::Kind::Brush;
  edit.batches = batch_dabs(e, boundary, brush, dabs);
  return edit;
}

GridEdit fill_edit(double value) {
  if (!std::isfinite(value)) throw InputError("a grid can only be cleared to a finite value");
  GridEdit edit;
  edit.kind = GridEdit::Kind::Fill;
  edit.fill_value = value;
  return edit;
}

namespace {

double round_to(double v, Precision p) {
  if (p == Precision::FP32) return static_cast<double>(static_cast<float>(v));
  if (p == Precision::FP16) return round_to_half(v);
  return v;
}

} // namespace

void apply_edit(std::span<double> values, const Extent& e, const GridEdit& edit, Precision storage) {
  if (values.size() != static_cast<std::size_t>(e.points()))
    throw InputError(fmt::format("an edit of a {} grid got {} values", e.to_string(), values.size()));
  if (edit.kind == GridEdit::Kind::Fill) {
    std::fill(values.begin(), values.end(), round_to(edit.fill_value, storage));
    return;
  }
  for (const DabBatch& b : edit.batches) {
    if (b.dims != e.dims || b.n[0] != e.n[0] || b.n[1] != e.n[1] || b.n[2] != e.n[2])
      throw InputError(fmt::format("a brush stroke made for another grid than {}", e.to_string()));
    const BrushBox box = brush_box(b);
    for (std::int64_t uz = box.lo[2]; uz <= box.hi[2] && box.points > 0; ++uz) {
      const std::int64_t z = brush_wrap(uz, e.n[2], b.periodic);
      if (z < 0) continue;
      for (std::int64_t uy = box.lo[1]; uy <= box.hi[1]; ++uy) {
        const std::int64_t y = brush_wrap(uy, e.n[1], b.periodic);
        if (y < 0) continue;
        for (std::int64_t ux = box.lo[0]; ux <= box.hi[0]; ++ux) {
          const std::int64_t x = brush_wrap(ux, e.n[0], b.periodic);
          if (x < 0) continue;
          double& v = values[static_cast<std::size_t>((z * e.n[1] + y) * e.n[0] + x)];
          v = round_to(brushed_value(v, b, x, y, z), storage);
        }
      }
    }
  }
}

} // namespace se
