// core/ordered_parallel.hpp: results in order on the calling thread, a bounded number ahead, early stops and
// exceptions from either side ending with the workers joined.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/ordered_parallel.hpp"

using se::ordered_parallel;

namespace {
void nap(std::size_t j) { std::this_thread::sleep_for(std::chrono::microseconds(50 * ((j * 7919) % 5))); }
} // namespace

TEST_CASE("ordered_parallel hands results over in order, at most `ahead` produced past the consumer", "[parallel]") {
  for (const int threads : {1, 3, 8})
    for (const std::size_t ahead : {std::size_t{1}, std::size_t{4}}) {
      std::atomic<std::size_t> consumed{0};
      std::atomic<int> too_far{0};
      std::vector<std::size_t> order;
      ordered_parallel<long>(
          200, threads, ahead,
          [&](std::size_t j) {
            // The pool takes job j only while j < (jobs taken by the consumer) + ahead; its count runs at most one
            // ahead of this test's, which moves when consume is called.
            if (j >= consumed.load() + ahead + 1) ++too_far;
            nap(j);
            return static_cast<long>(j * j);
          },
          [&](std::size_t j, long v) {
            CHECK(v == static_cast<long>(j * j));
            order.push_back(j);
            ++consumed;
            return true;
          });
      INFO(threads << " threads, " << ahead << " ahead");
      CHECK(too_far == 0);
      REQUIRE(order.size() == 200);
      for (std::size_t j = 0; j < order.size(); ++j) CHECK(order[j] == j);
    }
  int calls = 0;
  ordered_parallel<int>(0, 4, 2, [&](std::size_t) { return ++calls; }, [&](std::size_t, int) { return ++calls > 0; });
  CHECK(calls == 0);
}

TEST_CASE("ordered_parallel stops when consume says so, and rethrows either side's exception", "[parallel]") {
  std::atomic<int> produced{0};
  int consumed = 0;
  ordered_parallel<int>(
      1000, 4, 3, [&](std::size_t j) { return ++produced, static_cast<int>(j); },
      [&](std::size_t j, int) { return ++consumed, j < 10; });
  CHECK(consumed == 11);
  CHECK(produced <= 11 + 3 + 4);

  std::vector<std::size_t> seen;
  CHECK_THROWS_WITH(ordered_parallel<int>(
                        100, 4, 8,
                        [&](std::size_t j) {
                          if (j == 7) throw std::runtime_error("produce 7");
                          return static_cast<int>(j);
                        },
                        [&](std::size_t j, int) { return seen.push_back(j), true; }),
                    "produce 7");
  CHECK(seen.size() == 7); // 0..6 consumed first, in order

  CHECK_THROWS_WITH(ordered_parallel<int>(
                        100, 4, 8, [&](std::size_t j) { return static_cast<int>(j); },
                        [&](std::size_t j, int) -> bool {
                          if (j == 5) throw std::runtime_error("consume 5");
                          return true;
                        }),
                    "consume 5");
}
