// Work on worker threads, results in order on the calling thread: the labeller's NVRTC compiles while the GPU times
// what is compiled (kernels/dag/dag_label.cpp), and `dag-label --features-only --ptxas` (app/cli/dag_cli.cpp).
// Plain C++.
#pragma once
#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

namespace se {

// Runs produce(j) for j = 0 .. jobs - 1 on `threads` worker threads (at least one) and hands each result to
// consume(j, result) on the calling thread, in order of j. At most `ahead` results wait unconsumed (at least one): the
// memory they hold stays bounded however slow the consumer. consume returns false to stop: the workers finish the job
// in hand, take no other, and are joined before the call returns. An exception from produce(j) is rethrown on the
// calling thread when j's turn comes; one from consume propagates the same way: the workers are stopped and joined
// first, never left running (a joinable std::thread destroyed would end the program).
template <class T, class Produce, class Consume>
void ordered_parallel(std::size_t jobs, int threads, std::size_t ahead, Produce&& produce, Consume&& consume) {
  struct Slot {
    bool ready = false;
    std::optional<T> value;
    std::exception_ptr error;
  };
  std::vector<Slot> slots(jobs);
  std::mutex mu;
  std::condition_variable cv;
  std::size_t next = 0, consumed = 0;
  bool stop = false;
  ahead = std::max<std::size_t>(ahead, 1);
  const auto worker = [&] {
    for (;;) {
      std::size_t j = 0;
      {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [&] { return stop || next >= jobs || next < consumed + ahead; });
        if (stop || next >= jobs) return;
        j = next++;
      }
      Slot s;
      try {
        s.value.emplace(produce(j));
      } catch (...) {
        s.error = std::current_exception();
      }
      s.ready = true;
      {
        std::lock_guard<std::mutex> lock(mu);
        slots[j] = std::move(s);
      }
      cv.notify_all();
    }
  };
  struct Joiner {
    std::vector<std::thread> pool;
    std::mutex& mu;
    std::condition_variable& cv;
    bool& stop;
    ~Joiner() {
      {
        std::lock_guard<std::mutex> lock(mu);
        stop = true;
      }
      cv.notify_all();
      for (std::thread& t : pool) t.join();
    }
  } joiner{{}, mu, cv, stop};
  const int n = std::max(1, std::min(threads, static_cast<int>(std::min<std::size_t>(jobs, 1 << 12))));
  for (int i = 0; i < n && jobs > 0; ++i) joiner.pool.emplace_back(worker);
  for (std::size_t j = 0; j < jobs; ++j) {
    Slot s;
    {
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [&] { return slots[j].ready; });
      s = std::move(slots[j]);
      slots[j] = Slot{};
      consumed = j + 1;
    }
    cv.notify_all();
    if (s.error) std::rethrow_exception(s.error);
    if (!consume(j, std::move(*s.value))) return;
  }
}

} // namespace se
