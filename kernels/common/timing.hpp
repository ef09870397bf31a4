// Event timing of device work: warm-up launches first (module load, first-touch), then the median of
// repeated timed launches with the spread, so one noisy repeat cannot make or break a number.
#pragma once
#include <functional>

#include <cuda_runtime.h>

namespace se {

struct TimingStats {
  double median_s = 0, min_s = 0, max_s = 0;
  int repeats = 0;
  double spread() const { return median_s > 0 ? (max_s - min_s) / median_s : 0.0; } // (max-min)/median
};

// Times `enqueue` (which enqueues device work on `stream`) with CUDA events around each repeat.
TimingStats time_on_device(const std::function<void()>& enqueue, cudaStream_t stream, int warmup, int repeats);

} // namespace se
