// The checked file helpers and the bounds on sizes: what every command and the GUI rely on to refuse hostile
// input and never report a write that did not happen.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <functional>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "core/checked_math.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/grid.hpp"
#include "tests/core/message_of.hpp"

using namespace se;
namespace fs = std::filesystem;

namespace {

fs::path scratch() {
  const fs::path d = fs::temp_directory_path() / "se_test_files";
  fs::create_directories(d);
  return d;
}

using se::testing::message_of;

} // namespace

TEST_CASE("read_text_file takes regular files only, whole, within its size", "[files][hostile]") {
  const fs::path file = scratch() / "small.txt";
  std::ofstream(file) << "hello\nworld";
  CHECK(read_text_file(file.string(), "test file") == "hello\nworld");
  CHECK_THAT(message_of([&] { read_text_file(scratch().string(), "test file"); }), Catch::Contains("is a directory"));
  CHECK_THAT(message_of([&] { read_text_file((scratch() / "missing").string(), "test file"); }),
             Catch::Contains("cannot open test file") && Catch::Contains("No such file"));
  CHECK_THAT(message_of([&] { read_text_file("/dev/zero", "test file"); }), Catch::Contains("not a regular file"));
  CHECK_THAT(message_of([&] { read_text_file(file.string(), "test file", 4); }), Catch::Contains("more than the 4"));
  CHECK_THAT(message_of([] { read_text_file("", "test file"); }), Catch::Contains("empty path"));
}

TEST_CASE("parse_json_text is strict: one value and nothing after it", "[files][hostile]") {
  CHECK(parse_json_text(" {\"a\": 1}\n ", "x")["a"] == 1);
  CHECK_THAT(message_of([] { parse_json_text("{\"a\": 1} {\"b\": 2}", "two objects"); }),
             Catch::Contains("two objects is not valid JSON"));
  CHECK_THAT(message_of([] { parse_json_text("[1, 2", "cut"); }), Catch::Contains("not valid JSON"));
  CHECK_THAT(message_of([] { parse_json_text("", "empty"); }), Catch::Contains("not valid JSON"));
}

TEST_CASE("write_file writes and flushes, or says which path failed and why", "[files][hostile]") {
  const fs::path out = scratch() / "out.json";
  write_file(out.string(), "{\"ok\": true}\n", "test output");
  CHECK(read_text_file(out.string(), "x") == "{\"ok\": true}\n");
  write_file(out.string(), "short", "test output"); // truncates
  CHECK(read_text_file(out.string(), "x") == "short");
  CHECK_THAT(message_of([] { write_file("/dev/full", "data", "test output"); }),
             Catch::Contains("'/dev/full'") && Catch::Contains("No space left on device"));
  CHECK_THAT(message_of([&] { write_file(scratch().string(), "data", "test output"); }), Catch::Contains("is a directory"));
  CHECK_THAT(message_of([&] { check_writable((scratch() / "no-such-folder" / "x").string(), "test output"); }),
             Catch::Contains("does not exist"));
  CHECK_THAT(message_of([&] { check_writable((out / "x").string(), "test output"); }), Catch::Contains("Not a directory"));
  CHECK_NOTHROW(check_writable((scratch() / "new.json").string(), "test output"));
  CHECK_NOTHROW(write_file("/dev/null", "anything", "test output")); // a device that takes everything
}

TEST_CASE("extents: products that overflow and sizes beyond any grid are refused", "[files][hostile]") {
  CHECK(checked_mul(3, 4) == 12);
  CHECK_FALSE(checked_mul(std::int64_t{1} << 40, std::int64_t{1} << 40).has_value());
  CHECK_FALSE(checked_mul(-1, 4).has_value());
  CHECK(clamped_int(1e300, 1, 100) == 100);
  CHECK(clamped_int(std::nan(""), 1, 100) == 1);
  CHECK(clamped_int(-1e300, 1, 100) == 1);
  CHECK(clamped_int(42.9, 1, 100) == 42);
  CHECK_THAT(message_of([] { parse_extent("4194304x4194304x1048576"); }), Catch::Contains("more than 2^50 points"));
  CHECK_THAT(message_of([] { parse_extent("9223372036854775807x2"); }), Catch::Contains("more than 2^50 points"));
  CHECK(parse_extent("1048576x1048576x1024").points() == std::int64_t{1} << 50);
  Extent bad{2, {1 << 20, 1 << 20, 1}};
  CHECK_NOTHROW(validate(bad));
  bad.n[2] = 5; // an axis beyond dims
  CHECK_THAT(message_of([&] { validate(bad); }), Catch::Contains("axis z"));
  Extent huge{3, {std::int64_t{1} << 40, std::int64_t{1} << 40, 2}};
  CHECK_THAT(message_of([&] { validate(huge); }), Catch::Contains("more than 2^50"));
  CHECK_THAT(message_of([&] { check_extent_fits_stencil(huge, preset("heat-3d")); }), Catch::Contains("more than 2^50"));
}
