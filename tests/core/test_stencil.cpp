// Stencil model: presets, symmetry, JSON round-trips, and rejection of every bad input.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/stencil.hpp"

using namespace se;
namespace fs = std::filesystem;

TEST_CASE("every preset is valid, sums to 1 and has the papers' point count") {
  const std::map<std::string, int> points = {{"heat-1d", 3},    {"1d5p", 5},       {"1d7p", 7},
                                             {"heat-2d", 5},    {"box-2d9p", 9},   {"star-2d13p", 13},
                                             {"box-2d25p", 25}, {"box-2d49p", 49}, {"heat-3d", 7},
                                             {"box-3d27p", 27}, {"box-2d225p", 225}, {"1d15p", 15}};
  REQUIRE(preset_names().size() == points.size());
  for (const auto& name : preset_names()) {
    INFO(name);
    const Stencil s = preset(name);
    REQUIRE_NOTHROW(validate(s));
    CHECK(s.name == name);
    CHECK(s.nonzero_count() == points.at(name));
    CHECK(s.sum() == Approx(1.0).epsilon(1e-12));
    CHECK(s.is_radially_symmetric(1e-15));
    CHECK(s.is_star() == (name.find("box") == std::string::npos));
    CHECK_FALSE(preset_description(name).empty());
  }
}

TEST_CASE("heat presets are stable: the Fourier symbol stays within [-1, 1]") {
  for (const auto& name : preset_names()) {
    const Stencil s = preset(name);
    const int n = 16;
    for (int kx = 0; kx < n; ++kx)
      for (int ky = 0; ky < (s.dims >= 2 ? n : 1); ++ky)
        for (int kz = 0; kz < (s.dims >= 3 ? n : 1); ++kz) {
          const double step = 2 * M_PI / n;
          const std::complex<double> sym = fourier_symbol(s, {step * kx, step * ky, step * kz});
          INFO(name << " k=" << kx << "," << ky << "," << kz);
          REQUIRE(std::abs(sym.imag()) < 1e-15); // radially symmetric: a real symbol
          REQUIRE(std::abs(sym.real()) <= 1.0 + 1e-12);
        }
    CHECK(fourier_symbol_peak(s) == Approx(1.0)); // sums to 1: the peak is the mean, at k = 0
  }
}

TEST_CASE("taps, the power of a stencil, and its symbol") {
  const Stencil heat = preset("heat-2d");
  const std::vector<Tap> t = taps(heat);
  REQUIRE(t.size() == 5);
  CHECK(t.front() == Tap{0, -1, 0, heat.at(0, -1)}); // weight-array order: x fastest, rows from dy = -r
  CHECK(taps(heat, true).size() == 9);
  const Stencil two = fused_kernel(heat, 2);
  CHECK(two.radius == 2);
  CHECK(two.sum() == Approx(1.0));
  CHECK(two.at(2, 0) == Approx(heat.at(1, 0) * heat.at(1, 0)));
  // The symbol of W^2 is the square of W's.
  const std::array<double, 3> k{0.7, -1.3, 0.0};
  CHECK(std::abs(fourier_symbol(two, k) - fourier_symbol(heat, k) * fourier_symbol(heat, k)) < 1e-15);
  CHECK_THROWS_WITH(fused_kernel(preset("box-2d49p"), 3), Catch::Contains("fuse at most 2 steps"));
}

TEST_CASE("symmetric positions cover sign flips and axis permutations") {
  CHECK(symmetric_positions(1, 2, 0, 0).size() == 2);
  CHECK(symmetric_positions(2, 1, 2, 0).size() == 8);
  CHECK(symmetric_positions(2, 1, 1, 0).size() == 4);
  CHECK(symmetric_positions(2, 0, 0, 0).size() == 1);
  CHECK(symmetric_positions(3, 1, 2, 3).size() == 48);
  Stencil s = preset("box-2d9p");
  CHECK(s.is_radially_symmetric());
  s.at(1, 0) += 0.01;
  CHECK_FALSE(s.is_radially_symmetric());
}

TEST_CASE("radius and dims changes keep the centred weights") {
  const Stencil s = preset("box-2d9p");
  const Stencil big = with_radius(s, 3);
  CHECK(big.radius == 3);
  CHECK(big.at(1, -1) == s.at(1, -1));
  CHECK(big.at(3, 3) == 0.0);
  CHECK(with_radius(big, 1) == s);
  const Stencil s3 = with_dims(s, 3);
  CHECK(s3.at(1, 1, 0) == s.at(1, 1));
  CHECK(s3.at(1, 1, 1) == 0.0);
  CHECK(with_dims(s3, 2) == s);
  CHECK(normalized(with_dims(s, 1)).sum() == Approx(1.0));
  CHECK_THROWS_AS(normalized(make_stencil(2, 1)), InputError);
}

TEST_CASE("JSON round-trip for every preset, in memory and on disk") {
  const fs::path dir = fs::temp_directory_path() / "se_test_stencil_json";
  fs::create_directories(dir);
  for (const auto& name : preset_names()) {
    const Stencil s = preset(name);
    CHECK(stencil_from_json(to_json(s)) == s);
    const std::string path = (dir / (name + ".json")).string();
    save_stencil_file(s, path);
    CHECK(load_stencil_file(path) == s);
    CHECK(resolve_stencil(path) == s);
  }
  fs::remove_all(dir);
}

TEST_CASE("assets/stencils holds every preset exactly") {
  for (const auto& name : preset_names()) {
    INFO(name);
    const std::string path = std::string(SE_SOURCE_DIR) + "/assets/stencils/" + name + ".json";
    REQUIRE(fs::exists(path));
    const Stencil s = load_stencil_file(path);
    CHECK(s.name == name);
    for (std::size_t i = 0; i < s.weights.size(); ++i) CHECK(s.weights[i] == Approx(preset(name).weights[i]).margin(1e-15));
  }
}

namespace {
std::string message_of(const nlohmann::json& j) {
  try {
    stencil_from_json(j);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
} // namespace

TEST_CASE("bad stencil JSON is rejected with a message naming the problem") {
  using nlohmann::json;
  CHECK_THAT(message_of(json::array()), Catch::Contains("one JSON object"));
  CHECK_THAT(message_of({{"weights", {1, 2, 3}}}), Catch::Contains("'dims'"));
  CHECK_THAT(message_of({{"dims", 1}}), Catch::Contains("'weights'"));
  CHECK_THAT(message_of({{"dims", 4}, {"weights", {1}}}), Catch::Contains("1, 2 or 3"));
  CHECK_THAT(message_of({{"dims", 1}, {"weights", {1, 2}}}), Catch::Contains("odd"));
  CHECK_THAT(message_of({{"dims", 2}, {"weights", {{1, 2, 3}, {1, 2}, {1, 2, 3}}}}), Catch::Contains("weights[1]"));
  CHECK_THAT(message_of({{"dims", 1}, {"radius", 2}, {"weights", {1, 2, 3}}}), Catch::Contains("radius 2"));
  CHECK_THAT(message_of({{"dims", 1}, {"weights", {1, "x", 3}}}), Catch::Contains("numbers"));
  std::vector<double> w17(17, 0.0);
  CHECK_THAT(message_of({{"dims", 1}, {"weights", w17}}), Catch::Contains("between 0 and 7"));
  CHECK_THAT(message_of({{"dims", 1}, {"radius", 8}, {"weights", w17}}), Catch::Contains("between 0 and 7"));
  // NaN and Inf cannot be written in JSON text, but can reach us through the API.
  Stencil s = preset("heat-2d");
  s.at(0, 0) = NAN;
  CHECK_THROWS_WITH(validate(s), Catch::Contains("finite"));
  s.at(0, 0) = INFINITY;
  CHECK_THROWS_AS(validate(s), InputError);
  s = preset("heat-2d");
  s.weights.pop_back();
  CHECK_THROWS_WITH(validate(s), Catch::Contains("needs 9 weights"));
  CHECK_THROWS_WITH(preset("no-such"), Catch::Contains("unknown stencil 'no-such'"));
  CHECK_THROWS_AS(make_stencil(2, 8), InputError);
}

TEST_CASE("stencil files: missing, malformed and wrong-shaped files are rejected") {
  const fs::path dir = fs::temp_directory_path() / "se_test_bad_json";
  fs::create_directories(dir);
  CHECK_THROWS_WITH(load_stencil_file((dir / "missing.json").string()), Catch::Contains("cannot open"));
  const auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  };
  CHECK_THROWS_WITH(load_stencil_file(write("broken.json", "{\"dims\": 2, \"weights\": [[1,2")), Catch::Contains("not valid JSON"));
  CHECK_THROWS_WITH(load_stencil_file(write("nan.json", "{\"dims\": 1, \"weights\": [1, NaN, 1]}")), Catch::Contains("not valid JSON"));
  CHECK_THROWS_WITH(load_stencil_file(write("even.json", "{\"dims\": 2, \"weights\": [[1,2],[3,4]]}")), Catch::Contains("odd"));
  fs::remove_all(dir);
}
