// A run's wall-time limit as a progress callback: the suite's guard against a method much slower than the kernel its
// step count was sized by (kernels/bench_suite.cpp).
//
// The clock starts when the callback is made and starts again at progress(0, total), which a GPU run calls as its
// timed region begins (kernels/gpu_run.cpp), after uploading the input twice and a warm-up pass: for a 512^3 FP64
// grid that took about two seconds on an H200 host. Until 2026-11-30 the suite's clock started before them, so a
// 3D run sized for --seconds 1 was cancelled after 0.05-0.45 s of its timed steps (the recorded 3D rows' short
// `timed s`); the steps it did were still timed and checked, so its rate stands.
#pragma once
#include <chrono>

#include "core/reference.hpp"

namespace se {

inline StepProgress wall_deadline(double limit_seconds) {
  using clock = std::chrono::steady_clock;
  return [start = clock::now(), limit_seconds](int done, int) mutable {
    if (done == 0) start = clock::now();
    return std::chrono::duration<double>(clock::now() - start).count() < limit_seconds;
  };
}

} // namespace se
