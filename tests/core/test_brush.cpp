// The brush (core/brush.hpp): falloff, boxes and wrap-around, batching that changes nothing, fills, rounding to the
// storage, and refusals. The GPU paints with the same functions (tests/gui/test_live_gpu.cpp compares the two).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/brush.hpp"
#include "core/error.hpp"
#include "core/half.hpp"

using namespace se;

namespace {

double at(const std::vector<double>& v, const Extent& e, std::int64_t x, std::int64_t y = 0, std::int64_t z = 0) {
  return v[static_cast<std::size_t>((z * e.n[1] + y) * e.n[0] + x)];
}

std::vector<double> painted(const Extent& e, BoundaryKind b, const Brush& brush, std::vector<BrushDab> dabs,
                            double start = 0.0) {
  std::vector<double> v(static_cast<std::size_t>(e.points()), start);
  apply_edit(v, e, brush_edit(e, b, brush, dabs));
  return v;
}

} // namespace

TEST_CASE("a dab adds its amount at the centre, less further out, nothing from the radius on") {
  const Extent e = parse_extent("41x41");
  const auto v = painted(e, BoundaryKind::Dirichlet, Brush{5, 2, BrushMode::Add}, {{20, 20, 0, 2}});
  CHECK(at(v, e, 20, 20) == 2.0);
  CHECK(at(v, e, 22, 20) == Approx(2 * std::pow(1 - 4.0 / 25, 2)));
  CHECK(at(v, e, 20, 23) < at(v, e, 20, 22));
  CHECK(at(v, e, 25, 20) == 0.0); // at the radius
  CHECK(at(v, e, 24, 24) == 0.0); // beyond it diagonally
  // Symmetric about the centre.
  for (int d = 1; d < 5; ++d) {
    CHECK(at(v, e, 20 + d, 20) == at(v, e, 20 - d, 20));
    CHECK(at(v, e, 20, 20 + d) == at(v, e, 20, 20 - d));
  }
  // Cold is the same with the sign turned.
  const auto c = painted(e, BoundaryKind::Dirichlet, Brush{5, 2, BrushMode::Add}, {{20, 20, 0, -2}}, 1.0);
  CHECK(at(c, e, 20, 20) == -1.0);
  CHECK(at(c, e, 22, 20) == Approx(1 - 2 * std::pow(1 - 4.0 / 25, 2)));
}

TEST_CASE("set mode pulls values towards the dab's value, fully at the centre") {
  const Extent e = parse_extent("33x33");
  const auto v = painted(e, BoundaryKind::Dirichlet, Brush{4, 0.25, BrushMode::Set}, {{16, 16, 0, 0.25}}, 1.0);
  CHECK(at(v, e, 16, 16) == 0.25);
  CHECK(at(v, e, 18, 16) > 0.25);
  CHECK(at(v, e, 18, 16) < 1.0);
  CHECK(at(v, e, 20, 16) == 1.0);
}

TEST_CASE("near an edge the brush is clipped on a fixed boundary and wraps around a periodic one") {
  const Extent e = parse_extent("32x16");
  const Brush b{4, 1, BrushMode::Add};
  const auto fixed = painted(e, BoundaryKind::Dirichlet, b, {{0.5, 8, 0, 1}});
  const auto wrap = painted(e, BoundaryKind::Periodic, b, {{0.5, 8, 0, 1}});
  CHECK(at(fixed, e, 31, 8) == 0.0);
  CHECK(at(wrap, e, 31, 8) == Approx(at(wrap, e, 2, 8))); // both 1.5 points from the centre
  CHECK(at(wrap, e, 31, 8) > 0.0);
  for (std::int64_t x = 0; x < 4; ++x) CHECK(at(fixed, e, x, 8) == at(wrap, e, x, 8));
  // A dab entirely off a fixed grid paints nothing; off a periodic grid it lands on the other side.
  CHECK(painted(e, BoundaryKind::Dirichlet, b, {{-10, 8, 0, 1}}) == std::vector<double>(e.points(), 0.0));
  CHECK(at(painted(e, BoundaryKind::Periodic, b, {{-10, 8, 0, 1}}), e, 22, 8) == 1.0);
  // A brush wider than a periodic axis touches every point once per dab.
  const auto wide = painted(parse_extent("6x6"), BoundaryKind::Periodic, Brush{20, 1, BrushMode::Add}, {{2, 2, 0, 1}});
  CHECK(*std::max_element(wide.begin(), wide.end()) == 1.0);
}

TEST_CASE("1D and 3D grids paint a segment and a ball") {
  const Extent line = parse_extent("100");
  const auto v1 = painted(line, BoundaryKind::Dirichlet, Brush{3, 1, BrushMode::Add}, {{50, 99, 7, 1}});
  CHECK(at(v1, line, 50) == 1.0); // y and z are ignored on a 1D grid
  CHECK(std::count_if(v1.begin(), v1.end(), [](double x) { return x > 0; }) == 5);
  const Extent cube = parse_extent("16x16x16");
  const auto v3 = painted(cube, BoundaryKind::Dirichlet, Brush{3, 1, BrushMode::Add}, {{8, 8, 8, 1}});
  CHECK(at(v3, cube, 8, 8, 8) == 1.0);
  CHECK(at(v3, cube, 8, 8, 10) == at(v3, cube, 10, 8, 8));
  CHECK(at(v3, cube, 8, 8, 10) > 0.0);
  CHECK(at(v3, cube, 8, 8, 11) == 0.0);
}

TEST_CASE("grouping dabs into batches gives the same values as painting them one at a time") {
  const Extent e = parse_extent("300x200");
  const Brush b{6, 0.3, BrushMode::Set};
  // A long diagonal stroke, back and forth, so later dabs paint over earlier ones.
  std::vector<BrushDab> dabs = dabs_along({10, 10, 0, 0.3}, {290, 190, 0, 0.3}, b.radius);
  const auto back = dabs_along({290, 190, 0, 0.9}, {10, 150, 0, 0.9}, b.radius);
  dabs.insert(dabs.end(), back.begin(), back.end());
  const GridEdit together = brush_edit(e, BoundaryKind::Dirichlet, b, dabs);
  CHECK(together.batches.size() > 2); // a long stroke is not one box over the whole grid
  std::int64_t boxed = 0;
  for (const DabBatch& batch : together.batches) {
    CHECK(batch.count <= kMaxDabsPerBatch);
    boxed += brush_box(batch).points;
  }
  CHECK(boxed < e.points() / 2);
  std::vector<double> a(static_cast<std::size_t>(e.points()), 1.0), one_by_one = a;
  apply_edit(a, e, together);
  for (const BrushDab& d : dabs) apply_edit(one_by_one, e, brush_edit(e, BoundaryKind::Dirichlet, b, {&d, 1}));
  CHECK(a == one_by_one);
}

TEST_CASE("dabs along a drag are spaced a third of the radius, the start left out") {
  const auto d = dabs_along({0, 0, 0, 1}, {30, 40, 0, 2}, 6); // 50 long, spacing 2
  REQUIRE(d.size() == 25);
  CHECK(d.back().x == 30.0);
  CHECK(d.back().y == 40.0);
  CHECK(d.front().x == Approx(1.2));
  for (const auto& x : d) CHECK(x.amount == 2.0);
  CHECK(dabs_along({5, 5, 0, 1}, {5, 5, 0, 1}, 6).size() == 1);
}

TEST_CASE("the dabs of a straight stroke, weighted, add the brush's value once along its middle") {
  const Extent e = parse_extent("200x60");
  const double r = 6;
  auto dabs = dabs_along({20, 30, 0, 1}, {180, 30, 0, 1}, r);
  const double spacing = 160.0 / static_cast<double>(dabs.size());
  for (auto& d : dabs) d.amount *= stroke_dab_weight(spacing, r);
  const auto v = painted(e, BoundaryKind::Dirichlet, Brush{r, 1, BrushMode::Add}, dabs);
  for (int x = 60; x <= 140; x += 10) CHECK(at(v, e, x, 30) == Approx(1.0).epsilon(0.02));
  CHECK(stroke_dab_weight(100, 6) == 1.0); // dabs far apart: each adds the whole value
}

TEST_CASE("painted values are rounded to the grid's storage; a fill sets every point") {
  const Extent e = parse_extent("16x16");
  std::vector<double> v(static_cast<std::size_t>(e.points()), 0.0);
  apply_edit(v, e, brush_edit(e, BoundaryKind::Dirichlet, Brush{5, 0.1, BrushMode::Add}, std::vector<BrushDab>{{8, 8, 0, 0.1}}),
             Precision::FP16);
  for (double x : v) CHECK(x == round_to_half(x));
  CHECK(at(v, e, 8, 8) == round_to_half(0.1));
  apply_edit(v, e, fill_edit(0.3), Precision::FP32);
  CHECK(std::all_of(v.begin(), v.end(), [](double x) { return x == static_cast<double>(0.3f); }));
}

TEST_CASE("bad brushes and edits are refused with a reason") {
  const Extent e = parse_extent("16x16");
  const std::vector<BrushDab> ok{{8, 8, 0, 1}};
  CHECK_THROWS_WITH(brush_edit(e, BoundaryKind::Dirichlet, Brush{0.1, 1, BrushMode::Add}, ok), Catch::Contains("radius"));
  CHECK_THROWS_WITH(brush_edit(e, BoundaryKind::Dirichlet, Brush{NAN, 1, BrushMode::Add}, ok), Catch::Contains("radius"));
  const std::vector<BrushDab> nan_dab{{NAN, 8, 0, 1}}, huge{{8, 8, 0, 1e300}};
  CHECK_THROWS_WITH(brush_edit(e, BoundaryKind::Dirichlet, Brush{}, nan_dab), Catch::Contains("finite"));
  CHECK_THROWS_WITH(brush_edit(e, BoundaryKind::Dirichlet, Brush{}, huge), Catch::Contains("amount"));
  CHECK_THROWS_AS(fill_edit(INFINITY), InputError);
  std::vector<double> small(10);
  CHECK_THROWS_WITH(apply_edit(small, e, fill_edit(0)), Catch::Contains("values"));
  const GridEdit other = brush_edit(parse_extent("8x8"), BoundaryKind::Dirichlet, Brush{}, ok);
  std::vector<double> v(static_cast<std::size_t>(e.points()));
  CHECK_THROWS_WITH(apply_edit(v, e, other), Catch::Contains("another grid"));
  CHECK(parse_brush_mode("set") == BrushMode::Set);
  CHECK_THROWS_AS(parse_brush_mode("smudge"), InputError);
}
