// stencil-bench against careless and hostile input, one test per class of failure: every case ends in exit 2 (or 1
// for a failed write) with one clear line, under an 8 GiB address-space limit and a timeout, never a crash, a hang
// or an exit 0 on junk.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/run_command.hpp"

namespace fs = std::filesystem;

namespace {

using se::testing::CommandResult;

// The command as a user runs it, limited as the issue's hostile runs were: 8 GiB of address space (not under
// AddressSanitizer, whose shadow memory reserves terabytes of addresses), 60 seconds.
CommandResult bench(const std::string& args) {
  const bool sanitized = std::getenv("ASAN_OPTIONS") != nullptr;
  return se::testing::run_command(std::string(sanitized ? "" : "ulimit -v 8388608; ") + "timeout 60 " +
                                  std::string(SE_BENCH_EXE) + " " + args);
}

fs::path temp_dir() {
  const fs::path d = fs::temp_directory_path() / "se_test_hostile";
  fs::create_directories(d);
  return d;
}

fs::path write_text(const std::string& name, const std::string& text) {
  const fs::path p = temp_dir() / name;
  std::ofstream(p) << text;
  return p;
}

// A refusal: exit 2, one "error:" line saying `what`, and no result printed.
void refused(const std::string& args, const std::string& what) {
  const CommandResult r = bench(args);
  INFO("stencil-bench " << args << "\n" << r.output);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("error: ") && Catch::Contains(what));
  CHECK_THAT(r.output, !Catch::Contains("GStencil/s"));
}

} // namespace

TEST_CASE("sizes whose point count overflows 64 bits are refused, never run as 0 points", "[hostile]") {
  refused("run --stencil heat-3d --size 4194304x4194304x1048576 --steps 1", "more than 2^50 points");
  refused("run --stencil heat-2d --size 4294967296x4294967296", "more than 2^50 points");
  refused("plan --method lorastencil --stencil heat-2d --size 9223372036854775807x9223372036854775807",
          "more than 2^50 points");
  refused("plan --method tcstencil --stencil heat-2d --size 4611686018427387904x3", "more than 2^50 points");
  refused("run --size 99999999999999999999x2", "not of the form");
  refused("run --size -5x4", "every extent must be positive; got -5");
  // Large but representable: refused by the memory check before anything is allocated.
  refused("run --stencil heat-2d --size 1048576x1048576 --steps 1", "needs");
}

TEST_CASE("numbers in stencil files that do not fit their field are errors, not truncated", "[hostile]") {
  const std::string w = R"("weights": [[0,1,0],[1,1,1],[0,1,0]])";
  refused("show --stencil " + write_text("dims.json", R"({"dims": 4294967298, )" + w + "}").string(), "got 4294967298");
  refused("show --stencil " + write_text("radius.json", R"({"dims": 2, "radius": 4294967297, )" + w + "}").string(),
          "got 4294967297");
  refused("show --stencil " + write_text("neg.json", R"({"dims": -18446744073709551615, )" + w + "}").string(), "dims");
  refused("show --stencil " + write_text("float.json", R"({"dims": 2.0, )" + w + "}").string(), "must be an integer");
  refused("show --stencil " + write_text("name.json", R"({"name": ")" + std::string(5000, 'n') + R"(", "dims": 2, )" +
                                                          w + "}").string(),
          "5000 characters");
}

TEST_CASE("a stencil file is one JSON object and nothing else", "[hostile]") {
  const std::string ok = R"({"dims": 2, "weights": [[0,1,0],[1,1,1],[0,1,0]]})";
  refused("show --stencil " + write_text("trailing.json", ok + " trailing").string(), "not valid JSON");
  refused("show --stencil " + write_text("two.json", ok + "\n" + ok).string(), "not valid JSON");
  const CommandResult fine = bench("show --stencil " + write_text("spaces.json", ok + "\n\n  \n").string());
  CHECK(fine.exit_code == 0);
}

TEST_CASE("paths that are not regular files are refused with exit 2", "[hostile]") {
  const fs::path dir = temp_dir() / "a-folder.json";
  fs::create_directories(dir);
  refused("show --stencil " + dir.string(), "is a directory");
  refused("run --stencil " + dir.string(), "is a directory");
  refused("suite --quick --methods cpu-reference --stencils " + dir.string(), "is a directory");
  refused("show --stencil /dev/null/x.json", "stencil file");
  refused("run --size 8x8 --json " + dir.string(), "is a directory");
}

TEST_CASE("writes that fail are reported with the path and the reason, and checked before a long run", "[hostile]") {
  for (const std::string& args : {std::string("run --size 8x8 --steps 2 --json /dev/full"),
                                  std::string("show --stencil heat-2d --json /dev/full"),
                                  std::string("plan --method lorastencil --stencil heat-2d --json /dev/full"),
                                  std::string("suite --quick --methods cpu-reference --stencils heat-1d --no-sweep --json /dev/full"),
                                  std::string("suite --quick --methods cpu-reference --stencils heat-1d --no-sweep --csv /dev/full")}) {
    const CommandResult r = bench(args);
    INFO("stencil-bench " << args << "\n" << r.output);
    CHECK(r.exit_code != 0);
    CHECK_THAT(r.output, Catch::Contains("/dev/full") && Catch::Contains("No space left on device"));
  }
  // An output that cannot be written is refused before the run: no result is computed and then lost.
  const CommandResult r = bench("run --size 64x64 --steps 5 --json /nonexistent-folder/result.json");
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("does not exist"));
  CHECK_THAT(r.output, !Catch::Contains("GStencil/s"));
}

TEST_CASE("messages: a misspelt subcommand names the ones that exist, numbers appear as the user wrote them", "[hostile]") {
  const CommandResult r = bench("sutie --quick");
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("unknown subcommand 'sutie'") && Catch::Contains("did you mean 'suite'") &&
                           Catch::Contains("list, show, plan, run, device, suite"));
  refused("frobnicate", "unknown subcommand 'frobnicate'");
  refused("suite --quick --seconds 1e400", "got '1e400'");
  refused("suite --quick --seconds 0.0000", "got '0.0000'");
  refused("suite --quick --seconds nan", "got 'nan'");
  const CommandResult unknown = bench("suite --quick --methods cpu-refrence");
  INFO(unknown.output);
  CHECK(unknown.exit_code == 2);
  const std::string known = unknown.output.substr(unknown.output.find("known: ") + 7);
  CHECK_THAT(unknown.output, Catch::Contains("did you mean 'cpu-reference'"));
  CHECK_THAT(known, Catch::Contains("cpu-reference, "));
  CHECK(known.find("lorastencil") == known.rfind("lorastencil")); // each id once, not once per backend
  refused("run --size 8x8 --seed -1", "got '-1'");
  refused("run --size 8x8 --seed 18446744073709551616", "got '18446744073709551616'");
  refused("run --size 8x8 --steps 99999999999999999999", "99999999999999999999");
  const CommandResult seeded = bench("run --size 8x8 --steps 1 --seed 18446744073709551615");
  CHECK(seeded.exit_code == 0);
}
