// How long a repeated piece of work takes once the machine has settled: the rule the benchmark uses to size its
// timed runs from a short measurement (kernels/gpu_run.cpp, gpu_seconds_per_step).
//
// An idle GPU's clocks and memory take tens of milliseconds to ramp up (an idle H200 reports 345 MHz), so a single
// 50 ms measurement taken after the GPU sat idle (e.g. while the CPU built a 512^3 input) can read many times the
// steady time. Before this rule the suite sized such experiments from one reading: on an H200 (2026-11-30)
// `suite --seconds 0.5` timed heat-3d 512^3 over 40 steps (0.025 s, a twentieth of what was asked) and `--seconds 1`
// over 0.2 s.
#pragma once
#include <algorithm>

namespace se {

// Calls `measure` (which returns one measurement, e.g. seconds per step) until a measurement is no more than
// `tolerance` (a fraction) faster than the best before it, at most `max_rounds` times in all, and returns the best.
template <typename Measure> double settled_time(Measure&& measure, int max_rounds = 8, double tolerance = 0.02) {
  double best = measure();
  for (int round = 1; round < max_rounds; ++round) {
    const double t = measure();
    const bool settled = t >= best * (1.0 - tolerance);
    best = std::min(best, t);
    if (settled) break;
  }
  return best;
}

} // namespace se
