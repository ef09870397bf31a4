// Event-timed repeats; the median of the repeats and their spread.
#include "kernels/common/timing.hpp"

#include <algorithm>
#include <vector>

#include "core/error.hpp"
#include "kernels/common/device_buffer.hpp"

namespace se {

TimingStats time_on_device(const std::function<void()>& enqueue, cudaStream_t stream, int warmup, int repeats) {
  if (repeats < 1) throw InputError("time_on_device: repeats must be at least 1");
  for (int i = 0; i < warmup; ++i) enqueue();
  SE_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<double> times;
  CudaEvent start, stop;
  for (int i = 0; i < repeats; ++i) {
    start.record(stream);
    enqueue();
    stop.record(stream);
    times.push_back(stop.seconds_since(start));
  }
  std::sort(times.begin(), times.end());
  TimingStats t;
  t.repeats = repeats;
  t.min_s = times.front();
  t.max_s = times.back();
  t.median_s = repeats % 2 ? times[repeats / 2] : 0.5 * (times[repeats / 2 - 1] + times[repeats / 2]);
  return t;
}

} // namespace se
