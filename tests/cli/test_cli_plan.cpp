// `stencil-bench plan`: one cost block per plan, in the text and in the JSON record, for every method of the list.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/files.hpp"
#include "tests/run_command.hpp"

namespace fs = std::filesystem;

namespace {

using se::testing::CommandResult;

CommandResult bench(const std::string& args) { return se::testing::run_command(std::string(SE_BENCH_EXE) + " " + args); }

// The method ids `list` prints, each once (a method with a CPU and a GPU variant appears twice there).
std::vector<std::string> method_ids() {
  const CommandResult r = bench("list");
  REQUIRE(r.exit_code == 0);
  std::istringstream in(r.output);
  std::vector<std::string> ids;
  bool in_methods = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("methods:", 0) == 0) { in_methods = true; continue; }
    if (!in_methods || line.size() < 3 || line[0] != ' ') continue;
    std::istringstream words(line);
    std::string id;
    words >> id;
    if (!id.empty() && std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  }
  return ids;
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

} // namespace

TEST_CASE("plan prints one cost block per method and writes it once") {
  const std::vector<std::string> ids = method_ids();
  REQUIRE(ids.size() >= 8);
  const fs::path dir = fs::temp_directory_path() / "se_test_cli_plan";
  fs::create_directories(dir);
  for (const std::string& id : ids) {
    for (const char* stencil : {"heat-2d", "box-2d49p"}) {
      INFO(id << " on " << stencil);
      const fs::path json = dir / (id + ".json");
      const CommandResult r = bench("plan --method " + id + " --stencil " + stencil + " --json " + json.string());
      INFO(r.output);
      REQUIRE(r.exit_code == 0);
      // One block titled as the plan's cost, once in the whole output. LoRAStencil, when it fuses steps, adds the
      // base stencil on its own (T = 1) for comparison: announced as such, with a heading of its own.
      CHECK(count(r.output, "per updated point and base step") == 1);
      CHECK(count(r.output, "cost of " + id + " per updated point") == 1);
      const std::size_t base_at = r.output.find("the base stencil on its own (T = 1)");
      const std::string main_part = r.output.substr(0, base_at);
      CHECK(count(main_part, "per updated point and base step") == 1);
      if (base_at != std::string::npos) {
        CHECK(main_part.substr(main_part.rfind('\n', main_part.size() - 1) + 1) == "for comparison, not what this plan runs: ");
        const std::string base_part = r.output.substr(base_at);
        CHECK(count(base_part, "cost without fusion (T = 1, comparison only)") == 1);
        CHECK(count(base_part, "cost of ") == 0);
      }
      const nlohmann::json record = nlohmann::json::parse(se::read_text_file(json.string(), "plan JSON"));
      REQUIRE(record.contains("cost"));
      CHECK_FALSE(record["plan"].contains("cost"));
      // The plan's block, once, at the top level, with the numbers the text printed.
      char bytes[64];
      std::snprintf(bytes, sizeof bytes, "global bytes         %.3f", record["cost"]["global_bytes_per_point"].get<double>());
      CHECK(count(main_part, bytes) == 1);
    }
  }
}
