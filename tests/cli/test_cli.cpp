// stencil-bench as a user runs it: exit codes (0 ok, 2 bad input), printed results and the JSON record.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/run_command.hpp"

namespace fs = std::filesystem;

namespace {

using se::testing::CommandResult;

CommandResult bench(const std::string& args) { return se::testing::run_command(std::string(SE_BENCH_EXE) + " " + args); }

fs::path temp_dir() {
  const fs::path d = fs::temp_directory_path() / "se_test_cli";
  fs::create_directories(d);
  return d;
}

} // namespace

TEST_CASE("list shows the stencils, the methods and the device") {
  const CommandResult r = bench("list");
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("box-2d49p"));
  CHECK_THAT(r.output, Catch::Contains("cpu-reference"));
  CHECK_THAT(r.output, Catch::Contains("device:"));
}

TEST_CASE("run writes a JSON record with the documented keys") {
  const fs::path json = temp_dir() / "run.json";
  const CommandResult r = bench("run --method cpu-reference --stencil box-2d9p --size 96x80 --steps 3 --seed 1 --json " + json.string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("GStencil/s"));
  std::ifstream in(json);
  const auto j = nlohmann::json::parse(in);
  for (const char* key : {"method", "stencil", "precision", "backend", "size", "steps", "seconds", "gstencils",
                          "rel_l2_error", "max_abs_error"})
    CHECK(j.contains(key));
  CHECK(j["method"] == "cpu-reference");
  CHECK(j["size"] == nlohmann::json({96, 80}));
  CHECK(j["steps"] == 3);
  CHECK(j["rel_l2_error"] == 0.0);
  CHECK(j["seconds"].get<double>() > 0.0);
  CHECK(j["gstencils"].get<double>() == Approx(96.0 * 80 * 3 / j["seconds"].get<double>() / 1e9));
}

TEST_CASE("run takes a stencil JSON file; show writes one") {
  const fs::path json = temp_dir() / "star.json";
  REQUIRE(bench("show --stencil star-2d13p --json " + json.string()).exit_code == 0);
  const CommandResult r = bench("run --stencil " + json.string() + " --size 40x40 --steps 2");
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("star-2d13p"));
}

TEST_CASE("run --fused-steps asks a fusing method for its depth") {
  const CommandResult own = bench("run -m lorastencil -b emulate -s heat-2d --size 64x64 --steps 6 --seed 2");
  INFO(own.output);
  REQUIRE(own.exit_code == 0);
  CHECK_THAT(own.output, Catch::Contains("3 base steps per launch"));
  const CommandResult asked = bench("run -m lorastencil -b emulate -s heat-2d --size 64x64 --steps 6 --seed 2 -T 2");
  INFO(asked.output);
  REQUIRE(asked.exit_code == 0);
  CHECK_THAT(asked.output, Catch::Contains("2 base steps per launch"));
  CHECK_THAT(asked.output, Catch::Contains(" ok"));
}

TEST_CASE("bad input exits with code 2 and a one-line message") {
  const fs::path dir = temp_dir();
  std::ofstream(dir / "broken.json") << "{\"dims\": 2, \"weights\": [[1, 2";
  std::ofstream(dir / "even.json") << "{\"dims\": 2, \"weights\": [[1, 2], [3, 4]]}";
  const std::pair<std::string, std::string> cases[] = {
      {"run --stencil no-such-preset --size 64x64", "unknown stencil"},
      {"run --method warp-drive --size 64x64", "unknown method"},
      {"run --size 0x64", "positive"},
      {"run --size -5x64", "positive"},
      {"run --size 64", "2D grid"},
      {"run --stencil box-2d49p --size 5x64", "smaller than the stencil"},
      {"run --size 4000000x4000000", "GiB"},
      {"run --steps 0 --size 64x64", "--steps"},
      {"run --fused-steps -1 --size 64x64", "--fused-steps"},
      {"run --stencil " + (dir / "broken.json").string(), "not valid JSON"},
      {"run --stencil " + (dir / "even.json").string(), "odd"},
      {"run --stencil " + (dir / "missing.json").string(), "cannot open"},
      {"run --size 64x64 --boundary reflect", "unknown boundary"},
      {"run --backend quantum", "unknown backend"},
      // One rule for every comma-separated option (core/common/comma_list.hpp): a stray comma is refused.
      {"suite --quick --methods cuda-core,,lorastencil", "--methods: an empty item in 'cuda-core,,lorastencil'"},
      {"suite --quick --stencils heat-2d,", "--stencils: an empty item in 'heat-2d,'"},
      {"dag -f " + std::string(SE_SOURCE_DIR) + "/assets/dags/hdiff.dag --print buckets,", "--print: an empty item"},
      {"dag -f " + std::string(SE_SOURCE_DIR) + "/assets/dags/hdiff.dag --backend cpu --strategy ''",
       "--strategy needs a strategy"},
      {"dag-label --features-only -o " + (dir / "l.jsonl").string() + " --sizes ,128", "--sizes: an empty item in ',128'"},
      {"frobnicate", ""},
      {"", ""},
  };
  for (const auto& [args, msg] : cases) {
    INFO(args);
    const CommandResult r = bench(args);
    INFO(r.output);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Catch::Contains("error"));
    CHECK_THAT(r.output, Catch::Contains(msg));
  }
}

TEST_CASE("the version flag names the version, the git revision and what the machine offers") {
  const CommandResult r = bench("--version");
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::StartsWith("stencil-bench 0.") && Catch::Contains("(git "));
  for (const char* what : {"CUDA device:", "cuDNN:", "cuFFT:", "NVRTC:"}) CHECK_THAT(r.output, Catch::Contains(what));
  // Without a driver the line says so in a person's words, not as CUDA's "driver version is insufficient".
  CHECK_THAT(r.output, !Catch::Contains("insufficient"));
}
