#include <catch2/catch.hpp>

#include <vector>

#include "core/settled_time.hpp"

namespace {
// A measurement sequence replayed in order; counts how many were taken.
struct Replay {
  std::vector<double> values;
  int taken = 0;
  double operator()() { return values.at(static_cast<std::size_t>(taken++)); }
};
} // namespace

TEST_CASE("settled_time: measures until a reading is no longer faster, and keeps the best", "[timing]") {
  SECTION("a ramping machine: readings fall, then settle") {
    Replay r{{12.5, 3.0, 0.7, 0.61, 0.60, 0.9}};
    CHECK(se::settled_time(r) == Approx(0.60));
    CHECK(r.taken == 5); // 0.60 is within 2% of 0.61: settled
  }
  SECTION("already settled: two readings") {
    Replay r{{0.6, 0.6}};
    CHECK(se::settled_time(r) == Approx(0.6));
    CHECK(r.taken == 2);
  }
  SECTION("a slower second reading also settles, and the first (faster) one is kept") {
    Replay r{{0.6, 0.8}};
    CHECK(se::settled_time(r) == Approx(0.6));
    CHECK(r.taken == 2);
  }
  SECTION("never settling stops at max_rounds") {
    Replay r{{8, 4, 2, 1, 0.5, 0.25}};
    CHECK(se::settled_time(r, 4) == Approx(1));
    CHECK(r.taken == 4);
  }
}
