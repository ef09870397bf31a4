// Grid helpers: size parsing, fitting a stencil, memory refusal, initial conditions.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include "core/error.hpp"
#include "core/grid.hpp"

using namespace se;

TEST_CASE("sizes parse in x-first order and bad sizes are refused") {
  const Extent e = parse_extent("640x480");
  CHECK(e.dims == 2);
  CHECK(e.n[0] == 640);
  CHECK(e.n[1] == 480);
  CHECK(e.n[2] == 1);
  CHECK(e.to_string() == "640x480");
  CHECK(parse_extent("512x512x512").points() == 512LL * 512 * 512);
  CHECK(parse_extent("10240000").dims == 1);
  for (const char* bad : {"", "0x10", "-5x5", "10x", "x10", "abc", "1x2x3x4", "3.5x4"}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_extent(bad), InputError);
  }
  CHECK_THROWS_WITH(parse_extent("0x10"), Catch::Contains("positive"));
}

TEST_CASE("a grid must match the stencil's dims and be at least as large") {
  CHECK_NOTHROW(check_extent_fits_stencil(parse_extent("7x7"), preset("box-2d49p")));
  CHECK_THROWS_WITH(check_extent_fits_stencil(parse_extent("6x100"), preset("box-2d49p")), Catch::Contains("smaller than the stencil"));
  CHECK_THROWS_WITH(check_extent_fits_stencil(parse_extent("100"), preset("heat-2d")), Catch::Contains("2D grid"));
}

TEST_CASE("too-large grids are refused before allocating") {
  CHECK_THROWS_WITH(Grid<double>(parse_extent("1000000x1000000")), Catch::Contains("GiB"));
  CHECK_THROWS_AS(check_host_memory(std::uint64_t(1) << 60, "test"), InputError);
  CHECK(available_host_memory() > 0);
}

TEST_CASE("initial conditions are in [0,1], deterministic and distinct") {
  const Extent e = parse_extent("64x48");
  std::set<std::vector<double>> seen;
  for (auto c : all_initial_conditions()) {
    INFO(to_string(c));
    const auto v = initial_values(e, c, 7);
    CHECK(v == initial_values(e, c, 7));
    CHECK(*std::min_element(v.begin(), v.end()) >= 0.0);
    CHECK(*std::max_element(v.begin(), v.end()) <= 1.0);
    if (c == InitialCondition::Zero)
      CHECK(*std::max_element(v.begin(), v.end()) == 0.0);
    else
      CHECK(*std::max_element(v.begin(), v.end()) > *std::min_element(v.begin(), v.end()));
    CHECK(parse_initial_condition(to_string(c)) == c);
    seen.insert(v);
  }
  CHECK(seen.size() == all_initial_conditions().size());
  CHECK(initial_values(e, InitialCondition::Random, 1) != initial_values(e, InitialCondition::Random, 2));
  CHECK_THROWS_AS(parse_initial_condition("plaid"), InputError);
  CHECK_THROWS_WITH(parse_initial_condition("plaid"), Catch::Contains("hot-spots") && Catch::Contains("image"));
}

TEST_CASE("hot-spots are five separate discs placed by the seed, in 1D, 2D and 3D") {
  for (const char* size : {"4096", "256x256", "64x64x64"}) {
    INFO(size);
    const Extent e = parse_extent(size);
    const auto a = initial_values(e, InitialCondition::HotSpots, 3);
    CHECK(a != initial_values(e, InitialCondition::HotSpots, 4)); // another seed, other places
    const auto hot = std::count(a.begin(), a.end(), 1.0);
    CHECK(hot + std::count(a.begin(), a.end(), 0.0) == static_cast<std::ptrdiff_t>(a.size()));
    // At most five discs of radius 1/16 of the grid: a fraction of the grid, never nothing.
    const double disc = e.dims == 1 ? 2.0 / 16 : e.dims == 2 ? 3.1416 / 256 : 4.19 / 4096;
    CHECK(hot > 0);
    CHECK(static_cast<double>(hot) <= 5 * disc * static_cast<double>(a.size()) * 1.2);
  }
}

TEST_CASE("the image initial condition cannot be made without its picture") {
  CHECK(parse_initial_condition("image") == InitialCondition::Image);
  CHECK(std::count(all_initial_conditions().begin(), all_initial_conditions().end(), InitialCondition::Image) == 0);
  CHECK_THROWS_WITH(initial_values(parse_extent("8x8"), InitialCondition::Image, 1), Catch::Contains("picture"));
}

TEST_CASE("grids hold FP64, FP32 and FP16 values with the storage's rounding") {
  Grid<Half> h(parse_extent("8x8"));
  fill(h, InitialCondition::Random, 3);
  const auto exact = initial_values(h.extent, InitialCondition::Random, 3);
  const auto stored = h.to_double();
  for (std::size_t i = 0; i < exact.size(); ++i) {
    CHECK(stored[i] == round_to_half(exact[i]));
    CHECK(std::abs(stored[i] - exact[i]) <= 1.0 / 2048);
  }
  Grid<float> f(parse_extent("4x4x4"));
  f(1, 2, 3) = 0.5f;
  CHECK(f.data[f.index(1, 2, 3)] == 0.5f);
  CHECK(f.index(1, 2, 3) == static_cast<std::size_t>((3 * 4 + 2) * 4 + 1));
  CHECK(parse_precision("fp16") == Precision::FP16);
  CHECK(bytes_per_value(Precision::FP32) == 4);
  CHECK_THROWS_AS(parse_precision("fp8"), InputError);
  CHECK_THROWS_AS(parse_boundary("reflect"), InputError);
}
