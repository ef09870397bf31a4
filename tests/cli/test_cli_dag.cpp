// `stencil-bench dag`: bad programs end with exit 2 and file:line:column; the CPU strategies run and match the
// interpreter; --print and --json write what they promise.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "core/dag/dag.hpp"
#include "kernels/dag/dag_gpu.hpp"
#include "tests/run_command.hpp"

namespace fs = std::filesystem;

namespace {
se::testing::CommandResult bench(const std::string& args) {
  return se::testing::run_command(std::string(SE_BENCH_EXE) + " " + args);
}
std::string dags() { return std::string(SE_SOURCE_DIR) + "/assets/dags/"; }
} // namespace

TEST_CASE("dag: a refused program exits 2 with file, line and column", "[dag]") {
  const fs::path f = fs::temp_directory_path() / "se_test_cli_dag_bad.dag";
  std::ofstream(f) << "input a f64\nb = a[0,0,7]\nc = b + zz\n";
  const auto r = bench("dag --backend cpu -f " + f.string());
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains(f.string() + ":2:11: offset 7 is beyond radius 3"));
  CHECK_THAT(r.output, Catch::Contains(":3:5: 'b' is defined on line 2, which has an error"));
  CHECK_THAT(r.output, Catch::Contains(":3:9: unknown grid 'zz'"));
  fs::remove(f);
  CHECK(bench("dag -f /nonexistent/x.dag").exit_code == 2);
  CHECK(bench("dag -f " + dags() + "hdiff.dag --strategy fastest").exit_code == 2);
  CHECK(bench("dag -f " + dags() + "hdiff.dag --size 0").exit_code == 2);
  CHECK(bench("dag -f " + dags() + "hdiff.dag --print everything").exit_code == 2);
  CHECK(bench("dag -f " + dags() + "hdiff.dag --backend cpu --strategy graph").exit_code == 2);
  CHECK(bench("dag -f " + dags() + "hdiff.dag --backend cpu --strategy hybrid,graph").exit_code == 2);
  CHECK(bench("dag -f " + dags() + "hdiff.dag --backend cpu --strategy sequential,,hybrid").exit_code == 2);
  const auto listed_all = bench("dag -f " + dags() + "hdiff.dag --backend cpu --strategy hybrid,all");
  CHECK(listed_all.exit_code == 2);
  CHECK_THAT(listed_all.output, Catch::Contains("'all' stands alone, not in a list"));
  const auto limit = bench("dag -f " + dags() + "hdiff.dag --backend cpu --recompute-limit -1");
  CHECK(limit.exit_code == 2);
  CHECK_THAT(limit.output, Catch::Contains("--recompute-limit takes a whole number from 0 to 1000000, 'none' or 'auto'"));
  CHECK(bench("dag -f " + dags() + "hdiff.dag --backend cpu --recompute-limit lots").exit_code == 2);
}

TEST_CASE("dag: --recompute-limit changes producer-consumer's plan, and every plan matches the interpreter", "[dag]") {
  const fs::path j = fs::temp_directory_path() / "se_test_cli_dag_limit.json";
  for (const char* limit : {"0", "2", "none"}) {
    INFO(limit);
    const auto r = bench(std::string("dag --backend cpu -f ") + dags() + "cs14_k12_i6_e33.dag --size 12x10x9 " +
                         "--strategy producer-consumer --recompute-limit " + limit + " --json " + j.string());
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.output, Catch::Contains(std::string("recomputation limit ") + limit));
    std::ifstream in(j);
    const nlohmann::json doc = nlohmann::json::parse(in);
    CHECK(doc["results"][0]["passed"] == true);
    // Launches: 0 keeps every node a kernel (cs14: 12), none one per output.
    if (std::string(limit) == "0") CHECK(doc["results"][0]["launches"] == 12);
    if (std::string(limit) == "none") CHECK(doc["recompute_limit"] == "none");
    else CHECK(doc["recompute_limit"] == std::stoi(limit));
  }
  // auto: every distinct plan of limits 1-32 runs and is checked; the fastest is the row, the others are listed.
  const auto r = bench("dag --backend cpu -f " + dags() + "cs14_k12_i6_e33.dag --size 12x10x9 --strategy producer-consumer "
                       "--recompute-limit auto --json " + j.string());
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("the fastest of limits 1, 4, 8, 16, 32") && Catch::Contains(" kept of limit 1: "));
  std::ifstream in(j);
  const nlohmann::json doc = nlohmann::json::parse(in);
  CHECK(doc["recompute_limit"] == "auto");
  const auto& row = doc["results"][0];
  CHECK(row["passed"] == true);
  CHECK(row["recompute_limit"].is_number_integer());
  CHECK_THAT(row["schedule"].get<std::string>(), Catch::Contains("limit 32: "));
  fs::remove(j);
}

TEST_CASE("dag: the CPU strategies run, match the interpreter and write JSON", "[dag]") {
  const fs::path j = fs::temp_directory_path() / "se_test_cli_dag.json";
  const auto r = bench("dag --backend cpu -f " + dags() + "hdiff.dag --size 16x12x8 --strategy all --json " + j.string());
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("producer-consumer") && Catch::Contains("fastest:"));
  std::ifstream in(j);
  const nlohmann::json doc = nlohmann::json::parse(in);
  CHECK(doc["program"] == "hdiff");
  CHECK(doc["domain"] == nlohmann::json::array({16, 12, 8}));
  CHECK(doc["buckets"].size() == 4);
  REQUIRE(doc["results"].size() == 5); // no graph on the CPU
  CHECK(doc["results"][3]["strategy"] == "horizontal");
  CHECK(doc["results"][4]["strategy"] == "hybrid");
  for (const auto& x : doc["results"]) {
    CHECK(x["passed"] == true);
    CHECK(x["rel_l2_error"].get<double>() < 1e-12);
  }
  fs::remove(j);
}

TEST_CASE("dag: --strategy takes several, comma-separated, each run once in the order given", "[dag]") {
  const fs::path j = fs::temp_directory_path() / "se_test_cli_dag_list.json";
  const auto r = bench("dag --backend cpu -f " + dags() + "hdiff.dag --size 16x12x8 --strategy hybrid,sequential,hybrid --json " +
                       j.string());
  REQUIRE(r.exit_code == 0);
  std::ifstream in(j);
  const nlohmann::json doc = nlohmann::json::parse(in);
  REQUIRE(doc["results"].size() == 2);
  CHECK(doc["results"][0]["strategy"] == "hybrid");
  CHECK(doc["results"][1]["strategy"] == "sequential");
  for (const auto& x : doc["results"]) CHECK(x["passed"] == true);
  fs::remove(j);
}

TEST_CASE("dag: --print shows buckets, tensors, fusion, costs and source without running", "[dag]") {
  const auto r = bench("dag -f " + dags() + "p_grad_c.dag --print buckets,tensors,fusion,costs,source --strategy parallel "
                       "--backend cpu --size 8");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("bucket 0: wk") && Catch::Contains("bucket 1: uout vout"));
  CHECK_THAT(r.output, Catch::Contains("adjacency matrix") && Catch::Contains("uout = concat[5 grids]"));
  CHECK_THAT(r.output, Catch::Contains("__global__") && Catch::Contains("bucket_1"));
  CHECK_THAT(r.output, Catch::Contains("producer-consumer plans by recomputation limit") &&
                           Catch::Contains("  limit 0 ") && Catch::Contains("  limit none"));
  CHECK_THAT(r.output, Catch::Contains("hybrid fusion (the plan at limit 1, its kernels fused by level): "));
  const auto only = bench("dag -f " + dags() + "p_grad_c.dag --print buckets");
  CHECK(only.exit_code == 0);
  CHECK_THAT(only.output, !Catch::Contains("strategy "));
}

TEST_CASE("dag: every strategy's generated CUDA compiles with NVRTC, no device needed", "[dag]") {
  if (const std::string why = se::dag::nvrtc_unavailable_reason_for_dag(); !why.empty()) {
    WARN("NVRTC unavailable, generated sources not compiled: " << why);
    return;
  }
  using namespace se::dag;
  for (const auto& e : fs::directory_iterator(dags())) {
    if (e.path().extension() != ".dag") continue;
    const Program p = load_program(e.path().string());
    for (Strategy s : {Strategy::Sequential, Strategy::ProducerConsumer, Strategy::Parallel}) {
      INFO(e.path().filename().string() << " " << to_string(s));
      // Producer-consumer on a small domain for sm_80: summed offsets reach past it and take the general wrap.
      if (s == Strategy::ProducerConsumer)
        CHECK(compile_only(generate_cuda(p, s, {7, 5, 3}), 8, 0) > 0);
      else
        CHECK(compile_only(generate_cuda(p, s, {128, 128, 128}), 9, 0) > 0);
    }
  }
}

TEST_CASE("dag: ptxas's kernel resources, parsed and recorded by dag-label --features-only --ptxas", "[dag]") {
  const std::string log = "ptxas info    : 0 bytes gmem\n"
                          "ptxas info    : Function properties for helper\n"
                          "ptxas         .     8 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
                          "ptxas info    : Compiling entry function 'pc_k0' for 'sm_90'\n"
                          "ptxas info    : Function properties for pc_k0\n"
                          "ptxas         .     40 bytes stack frame, 36 bytes spill stores, 52 bytes spill loads\n"
                          "ptxas info    : Used 255 registers, used 0 barriers, 40 bytes cumulative stack size\n"
                          "ptxas info    : Compiling entry function 'par_b1' for 'sm_90'\n"
                          "ptxas info    : Function properties for par_b1\n"
                          "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
                          "ptxas info    : Used 30 registers, used 0 barriers\n";
  const auto r = se::dag::parse_ptxas_log(log);
  REQUIRE(r.size() == 2);
  CHECK(r[0].name == "pc_k0");
  CHECK((r[0].registers == 255 && r[0].spill_store_bytes == 36 && r[0].spill_load_bytes == 52 && r[0].stack_bytes == 40));
  CHECK(r[1].name == "par_b1");
  CHECK((r[1].registers == 30 && r[1].spill_store_bytes == 0 && r[1].stack_bytes == 0));
  CHECK(se::dag::parse_ptxas_log("").empty());

  if (const std::string why = se::dag::nvrtc_unavailable_reason_for_dag(); !why.empty()) {
    WARN("NVRTC unavailable, dag-label --ptxas not run: " << why);
    return;
  }
  const fs::path out = fs::temp_directory_path() / "se_test_cli_dag_ptxas.jsonl";
  const auto run = bench("dag-label --features-only --ptxas --sizes 64 --threads 2 --count 2 --seed 7 --out " + out.string());
  REQUIRE(run.exit_code == 0);
  std::ifstream in(out);
  std::string line;
  int records = 0;
  while (std::getline(in, line)) {
    const nlohmann::json rec = nlohmann::json::parse(line);
    INFO(line.substr(0, 200));
    REQUIRE(rec.contains("ptxas"));
    const nlohmann::json& at = rec["ptxas"]["64"];
    for (const char* s : {"sequential", "producer-consumer", "parallel"}) {
      REQUIRE(at[s].is_array());
      CHECK(!at[s].empty());
      for (const auto& k : at[s]) CHECK((k[0].get<int>() > 0 && k[0].get<int>() <= 255)); // registers
    }
    // as many sequential kernels as the program has stencils
    CHECK(at["sequential"].size() == rec["counts"]["stencils"].get<std::size_t>());
    ++records;
  }
  CHECK(records == 2);
  CHECK(bench("dag-label --ptxas --count 1 --out " + out.string()).exit_code == 2); // needs --features-only
  fs::remove(out);
}

TEST_CASE("dag-gen writes seeded programs that dag accepts; auto uses the learned fusion choice", "[dag]") {
  const fs::path dir = fs::temp_directory_path() / "se_test_cli_dag_gen";
  fs::remove_all(dir);
  const auto r = bench("dag-gen --seed 5 --count 3 --out " + dir.string());
  REQUIRE(r.exit_code == 0);
  for (int s = 5; s < 8; ++s) REQUIRE(fs::exists(dir / ("gen_" + std::to_string(s) + ".dag")));
  const auto first = se::dag::load_program((dir / "gen_5.dag").string());
  CHECK(bench("dag-gen --seed 5 --count 1 --out " + (dir / "again").string()).exit_code == 0);
  CHECK(se::dag::print_program(se::dag::load_program((dir / "again" / "gen_5.dag").string())) ==
        se::dag::print_program(first));
  CHECK(bench("dag-gen --seed -1 --out " + dir.string()).exit_code == 2);
  CHECK(bench("dag-gen --count 0 --out " + dir.string()).exit_code == 2);
  const auto a = bench("dag --backend cpu --size 12 -f " + dags() + "hdiff.dag");
  CHECK(a.exit_code == 0);
  CHECK_THAT(a.output, Catch::Contains("auto: the fusion model picks producer-consumer (probability"));
  CHECK(bench("dag --backend cpu --size 12 -f " + dags() + "hdiff.dag --model /nonexistent.json").exit_code == 2);
  fs::remove_all(dir);
}
