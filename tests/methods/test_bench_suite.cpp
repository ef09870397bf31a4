// The suite's report of a run the wall-time guard stopped (kernels/bench_suite.cpp): no GPU needed.
#include <catch2/catch.hpp>

#include "kernels/bench_suite.hpp"
#include "kernels/registry.hpp"

namespace {
se::SuiteRecord record(int steps, int requested) {
  se::SuiteRecord x;
  x.experiment = "papers";
  x.method = "slow-method";
  x.stencil = "heat-3d";
  x.backend = "gpu";
  x.extent = se::Extent{3, {8, 8, 8}};
  x.steps = steps;
  x.steps_requested = requested;
  x.checked_steps = steps;
  x.seconds = 2.0;
  x.passed = true;
  return x;
}
} // namespace

TEST_CASE("suite: a run stopped by the wall-time guard says so in the table and the JSON", "[suite]") {
  se::SuiteResult r;
  r.results = {record(500, 1669), record(1669, 1669)};
  r.results[1].method = "whole-method";
  const std::string table = se::format_table(r);
  CHECK_THAT(table, Catch::Contains("stopped slow-method heat-3d: 500 of 1669 steps"));
  CHECK_THAT(table, !Catch::Contains("stopped whole-method"));
  const auto j = se::to_json(r);
  CHECK(j["results"][0]["steps"] == 500);
  CHECK(j["results"][0]["steps_requested"] == 1669);
  CHECK(j["results"][1]["steps_requested"] == 1669);
}

TEST_CASE("suite --quick: every run does the steps it was asked for", "[suite]") {
  se::SuiteOptions o;
  o.quick = true;
  o.sweep = false;
  o.stencils = {"heat-1d"};
  o.method_ids = {"cpu-reference"};
  const se::SuiteResult r = se::run_suite(se::all_methods(), o);
  REQUIRE(r.results.size() == 1);
  CHECK(r.results[0].steps == 4);
  CHECK(r.results[0].steps_requested == 4);
  CHECK_THAT(se::format_table(r), !Catch::Contains("stopped"));
}
