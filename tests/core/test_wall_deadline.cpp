#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

#include "core/wall_deadline.hpp"

// A limit of 0.25 s (sleeps of 0.3 s), so that the calls made right after one another stay far inside it even when a
// loaded CI machine delays the thread (it was 0.05 s against sleeps of 0.07 s).
TEST_CASE("wall_deadline: cancels once the limit has passed, counting from progress(0, total)", "[timing]") {
  using namespace std::chrono_literals;
  SECTION("the clock starts when the callback is made") {
    se::StepProgress p = se::wall_deadline(0.25);
    CHECK(p(1, 10));
    std::this_thread::sleep_for(300ms);
    CHECK_FALSE(p(2, 10));
  }
  SECTION("progress(0, total) starts it again: time before the timed region does not count") {
    se::StepProgress p = se::wall_deadline(0.25);
    std::this_thread::sleep_for(300ms); // uploads and warm-up
    CHECK(p(0, 10));
    CHECK(p(5, 10));
    std::this_thread::sleep_for(300ms);
    CHECK_FALSE(p(6, 10));
  }
}
