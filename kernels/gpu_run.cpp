// The timed run of a GPU method: what every GpuKernel::run does.
#include <algorithm>

#include "core/error.hpp"
#include "kernels/common/grid_stepper.hpp"
#include "kernels/registry.hpp"

namespace se {

MethodTiming run_gpu_method(const GpuKernel& kernel, const MethodPlan& plan, MethodRun& r) {
  if (r.steps < 0) throw InputError("the number of steps cannot be negative");
  auto stepper = kernel.make_stepper(plan, r.extent, r.boundary);
  // Warm-up: module loading, library plans and first touches happen here, outside the timed region.
  stepper->upload(r.values);
  stepper->advance(std::max(1, std::min(r.steps, stepper->fused_steps())));
  stepper->synchronize();
  stepper->upload(r.values); // fresh state; the output buffers are poisoned again

  // Chunks let the progress callback run (and cancel) between them; the sync between chunks costs a few
  // microseconds against runs of about a second. Every chunk but the last is a whole number of fused passes: a
  // chunk of 41 steps on a kernel fusing 2 would end in a pass of depth 1, and a 16-step run in 16 chunks would
  // time the depth-1 kernel alone.
  const int fused = std::max(1, stepper->fused_steps());
  const int chunks = r.progress ? std::clamp(r.steps / fused, 1, 20) : 1;
  // progress(0, steps) says the timed region begins: a caller that bounds a run's wall time (the suite,
  // core/wall_deadline.hpp) starts its clock here, after the uploads and the warm-up (seconds for a 512^3 grid).
  const bool go = !r.progress || r.progress(0, r.steps);
  CudaEvent start, stop;
  start.record(stepper->stream());
  int done = 0;
  for (int c = 1; go && c <= chunks && done < r.steps; ++c) {
    const int target = c == chunks ? r.steps
                                   : static_cast<int>(static_cast<long long>(r.steps) * c / chunks / fused * fused);
    stepper->advance(target - done);
    done = target;
    if (r.progress && c < chunks) {
      stepper->synchronize();
      if (!r.progress(done, r.steps)) break;
    }
  }
  stop.record(stepper->stream());
  MethodTiming t;
  t.seconds = stop.seconds_since(start);
  t.steps_done = done;
  t.fused_steps = stepper->fused_steps();
  t.passes = describe_passes(stepper->passes());
  stepper->download(r.values);
  if (r.progress && done == r.steps) r.progress(done, r.steps);
  return t;
}

double gpu_seconds_per_step(const Method& m, const MethodPlan& plan, const Extent& e, const Boundary& b,
                            std::span<const double> values, double min_seconds) {
  auto stepper = make_gpu_stepper(m, plan, e, b);
  stepper->upload(values);
  // Warm-up, as run_gpu_method does: without it the first launch (module loading) was timed as a step, and a
  // suite sized by this (every method runs the reference's steps) ran its methods a tenth of the time asked.
  stepper->advance(std::max(1, stepper->fused_steps()));
  stepper->synchronize();
  for (int n = std::max(1, stepper->fused_steps());; n *= 2) {
    CudaEvent start, stop;
    start.record(stepper->stream());
    stepper->advance(n);
    stop.record(stepper->stream());
    const double t = stop.seconds_since(start);
    if (t >= min_seconds || n >= (1 << 20)) return t / n;
  }
}

} // namespace se
