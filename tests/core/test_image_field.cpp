// A picture as the initial condition (core/image_field.hpp): orientation, resampling, dims, refusals.
#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "core/image_field.hpp"

using namespace se;

namespace {

// 3 columns, 2 rows: top row dark to bright, bottom row all bright.
GrayImage tiny() { return GrayImage{3, 2, {0.0f, 0.5f, 1.0f, 1.0f, 1.0f, 1.0f}}; }

} // namespace

TEST_CASE("a picture lands on the grid upright, its corners on the grid's corners") {
  const Extent e = parse_extent("3x2");
  const auto v = image_values(e, tiny());
  // Grid row y = 1 (the top of the heat map) holds the picture's top row.
  CHECK(v[3] == 0.0);
  CHECK(v[4] == 0.5);
  CHECK(v[5] == 1.0);
  CHECK(v[0] == 1.0);
}

TEST_CASE("a picture is resampled bilinearly to any grid size") {
  const auto v = image_values(parse_extent("5x3"), tiny());
  // Top row of the grid (y = 2): 0, .25, .5, .75, 1; the middle row halfway between the picture's rows.
  CHECK(v[10] == 0.0);
  CHECK(v[11] == Approx(0.25));
  CHECK(v[14] == Approx(1.0));
  CHECK(v[5] == Approx(0.5));
  CHECK(v[6] == Approx(0.625));
  for (double x : v) {
    CHECK(x >= 0.0);
    CHECK(x <= 1.0);
  }
}

TEST_CASE("a 1D grid reads the picture's middle row; every plane of a 3D grid holds the picture") {
  const GrayImage img{2, 3, {0.0f, 0.2f, 0.4f, 0.6f, 0.8f, 1.0f}};
  const auto line = image_values(parse_extent("3"), img);
  CHECK(line[0] == Approx(0.4));
  CHECK(line[2] == Approx(0.6));
  const auto cube = image_values(parse_extent("2x3x4"), img);
  for (int z = 1; z < 4; ++z)
    for (int i = 0; i < 6; ++i) CHECK(cube[static_cast<std::size_t>(z * 6 + i)] == cube[static_cast<std::size_t>(i)]);
}

TEST_CASE("pictures that are empty, too large or out of range are refused") {
  CHECK_THROWS_WITH(image_values(parse_extent("4x4"), GrayImage{}), Catch::Contains("empty"));
  CHECK_THROWS_WITH(validate(GrayImage{kMaxImageSide + 1, 1, {}}), Catch::Contains("per side"));
  CHECK_THROWS_WITH(validate(GrayImage{2, 2, {0.0f}}), Catch::Contains("values"));
  CHECK_THROWS_WITH(validate(GrayImage{1, 1, {1.5f}}), Catch::Contains("[0, 1]"));
}
