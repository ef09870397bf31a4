// stencil-bench's GPU-facing commands as a user runs them, on any machine: `suite --quick` (CPU methods on
// a machine without a GPU) writes consistent JSON and CSV; GPU methods without a device exit 2 saying "no
// CUDA device". CUDA_VISIBLE_DEVICES=-1 hides any GPU, so these hold on a GPU machine too.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "tests/run_command.hpp"

namespace fs = std::filesystem;

namespace {

using se::testing::CommandResult;

CommandResult bench(const std::string& args, bool hide_gpu = true) {
  return se::testing::run_command(std::string(hide_gpu ? "CUDA_VISIBLE_DEVICES=-1 " : "") + SE_BENCH_EXE + " " + args);
}

fs::path temp_dir() {
  const fs::path d = fs::temp_directory_path() / "se_test_bench_cli";
  fs::create_directories(d);
  return d;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

} // namespace

TEST_CASE("suite --quick writes one JSON object and a CSV with the same results") {
  const fs::path json = temp_dir() / "suite.json", csv = temp_dir() / "suite.csv";
  fs::remove(json);
  fs::remove(csv);
  const CommandResult r = bench("suite --quick --seed 9 --json " + json.string() + " --csv " + csv.string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("GStencil/s") && Catch::Contains("cpu-reference"));
  const auto j = nlohmann::json::parse(read_file(json));
  CHECK(j["gpu"].is_null());
  CHECK(j["copy_gbs"].is_null());
  CHECK(j["quick"] == true);
  const auto& results = j["results"];
  REQUIRE(results.is_array());
  // Every preset once ("papers") plus three sweep sizes, for each CPU method.
  CHECK(results.size() >= 13);
  int papers = 0, sweep = 0;
  for (const auto& x : results) {
    for (const char* key : {"method", "stencil", "precision", "backend", "size", "steps", "fused_steps", "seconds",
                            "gstencils", "gbs", "flops", "rel_l2_error", "max_abs_error", "error_bound", "passed",
                            "checked_steps", "timed_rel_l2_error", "timed_max_abs_error", "timed_error_bound"})
      CHECK(x.contains(key));
    CHECK(x["passed"] == true);
    CHECK(x["steps"] == 4);
    // Four steps: every bound resolves its precision's limit, so the check rests on the timed run itself.
    CHECK(x["checked_steps"] == 4);
    CHECK(x["timed_rel_l2_error"] == x["rel_l2_error"]);
    CHECK(x["timed_error_bound"] == x["error_bound"]);
    CHECK(x["rel_l2_error"].get<double>() <= x["error_bound"].get<double>());
    CHECK(x["seconds"].get<double>() > 0);
    const auto& size = x["size"];
    double points = 1;
    for (const auto& n : size) points *= n.get<double>();
    CHECK(x["gstencils"].get<double>() == Approx(points * 4 / x["seconds"].get<double>() / 1e9));
    if (x["method"] == "cpu-reference") CHECK(x["rel_l2_error"] == 0.0);
    papers += x["experiment"] == "papers";
    sweep += x["experiment"] == "sweep";
  }
  CHECK(papers >= 10);
  CHECK(sweep >= 3);
  // The GPU methods are listed as skipped, with the reason.
  bool gpu_skipped = false;
  for (const auto& s : j["skipped"])
    if (s["method"] == "cuda-core") gpu_skipped = s["reason"].get<std::string>().find("no CUDA device") != std::string::npos;
  CHECK(gpu_skipped);
  const std::string text = read_file(csv);
  CHECK(text.rfind("experiment,method,stencil", 0) == 0);
  CHECK(text.find(",passed,checked_steps,timed_rel_l2_error,timed_max_abs_error,timed_error_bound\n") != std::string::npos);
  CHECK(static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) == results.size() + 1);
}

TEST_CASE("suite --methods takes a subset and rejects unknown ids") {
  const fs::path json = temp_dir() / "subset.json";
  const CommandResult ok = bench("suite --quick --no-sweep --methods cpu-reference --stencils heat-1d,heat-3d --json " +
                          json.string());
  INFO(ok.output);
  REQUIRE(ok.exit_code == 0);
  const auto j = nlohmann::json::parse(read_file(json));
  CHECK(j["results"].size() == 2);
  const CommandResult bad = bench("suite --quick --methods cpu-reference,warp-drive");
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.output, Catch::Contains("unknown method 'warp-drive'"));
  CHECK(bench("suite --quick --seconds 0").exit_code == 2);
}

TEST_CASE("suite --fused-steps asks every method for that depth, and skips a method that cannot fuse, saying why") {
  const fs::path json = temp_dir() / "fused.json";
  const CommandResult r = bench("suite --quick --no-sweep --fused-steps 2 --methods lorastencil:emulate,cpu-reference "
                                "--stencils heat-2d --json " + json.string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(read_file(json));
  CHECK(j["fused_steps_asked"] == 2);
  REQUIRE(j["results"].size() == 1);
  CHECK(j["results"][0]["method"] == "lorastencil");
  CHECK(j["results"][0]["fused_steps"] == 2);
  CHECK(j["results"][0]["passed"] == true);
  REQUIRE(j["skipped"].size() == 1);
  CHECK(j["skipped"][0]["method"] == "cpu-reference");
  CHECK_FALSE(j["skipped"][0]["reason"].get<std::string>().empty());
  const CommandResult bad = bench("suite --quick --fused-steps -1 --methods cpu-reference");
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.output, Catch::Contains("--fused-steps must be at least 1; got -1"));
}

TEST_CASE("GPU methods without a device: listed as unavailable, and running one exits 2 saying why") {
  const CommandResult list = bench("list");
  CHECK(list.exit_code == 0);
  for (const char* id : {"cuda-core", "cuda-core-fp32", "cuda-core-fp16", "cuda-core-tb", "cudnn", "cudnn-fp32", "cufft"})
    CHECK_THAT(list.output, Catch::Contains(id));
  CHECK_THAT(list.output, Catch::Contains("no CUDA device"));
  for (const char* method : {"cuda-core", "cuda-core-tb", "cudnn", "cufft"}) {
    const CommandResult r = bench(std::string("run --method ") + method + " --size 64x64 --steps 2");
    INFO(method << ": " << r.output);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Catch::Contains("error") && Catch::Contains("no CUDA device"));
  }
  // `device` refuses with exit 2 and says why: no device, or (checked first, on any machine) a bad option.
  const std::pair<const char*, const char*> refusals[] = {
      {"device", "no CUDA device"},
      {"device --sustain 2", "no CUDA device"},
      {"device --sustain 700", "--sustain takes 0 (off) to 600 seconds; got 700"},
      {"device --sustain 1 --sustain-shapes m16n8k8,m16n8k32",
       "--sustain-shapes takes m16n8k4, m16n8k8 and m16n8k16 (FP64); got 'm16n8k32'"},
      {"device --sustain 1 --sustain-shapes m16n8k8,", "--sustain-shapes: an empty item"},
      {"device --sustain 1 --sustain-shapes m16n8k4,mma.m16n8k16.f64", "no CUDA device"},
  };
  for (const auto& [args, says] : refusals) {
    const CommandResult r = bench(args);
    INFO(args << ": " << r.output);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Catch::Contains(says));
  }
}
