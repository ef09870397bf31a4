// Checking a run against FP64: the CPU reference where it is affordable, otherwise the FP64 cuda-core
// kernel on the GPU, itself validated against the CPU reference on the same input for as many steps as
// the CPU budget allows; and the check of a timed run against it, with a shorter check run where a long run's
// bound is too loose. Shared by `stencil-bench run`, the suite, the Performance view's sweep and the GPU tests.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/method.hpp"
#include "core/reference.hpp"

namespace se {

struct ReferencePolicy {
  // Multiply-adds (points x non-zero weights x steps) the CPU reference may spend; beyond it the GPU one is used.
  double cpu_budget = 4e9;
  bool allow_gpu = true;
  // Empty: validate the GPU reference against the CPU on this input. Otherwise it was validated already
  // (this says how), and the CPU is not run again.
  std::string validated;
};

struct CheckedReference {
  std::vector<double> values; // the FP64 result after `steps` steps
  std::string source;         // "cpu-reference" or "cuda-core (gpu, validated against cpu-reference for N steps)"
  int validation_steps = 0;   // GPU source only: steps compared against the CPU
  double validation_rel_l2 = 0.0;
};

// Throws InputError when neither reference can run, and CudaError-like std::runtime_error when the GPU
// reference disagrees with the CPU on its validation (rel L2 above the FP64 error bound): then no GPU number is
// trusted.
CheckedReference compute_reference(const Stencil& s, const Extent& e, const Boundary& b, const std::vector<double>& initial,
                                   int steps, const ReferencePolicy& policy = {}, const StepProgress& progress = {});

// CPU work of the reference: points x non-zero weights x steps.
double reference_cost(const Stencil& s, const Extent& e, int steps);

// The references of one input, by step count, each computed once (compute_reference under `policy`, with
// `progress`); the first that validates the GPU reference on this input marks the policy validated, so that longer
// or shorter runs of the same input are not validated again. Keeps a reference to `input`.
class ReferenceCache {
public:
  ReferenceCache(const Stencil& s, const Extent& e, const Boundary& b, const std::vector<double>& input,
                 ReferencePolicy policy = {}, StepProgress progress = {});
  const CheckedReference& at(int steps);

private:
  Stencil stencil_;
  Extent extent_;
  Boundary boundary_;
  const std::vector<double>& input_;
  ReferencePolicy policy_;
  StepProgress progress_;
  std::map<int, CheckedReference> by_steps_;
};

// The check of a timed run against FP64 (core/error_bound.hpp). The timed run's error against the reference of
// its length is always measured. Where the bound at that length is above check_bound_limit (a long FP16 run: its
// bound no longer tells a right result from a wrong one), the check rests on a second, shorter run of the same
// plan from the same input, as long as the bound allows, against the reference of that length.
struct RunCheck {
  std::string reference; // the timed run's reference (CheckedReference::source)
  ErrorMetrics timed;    // the timed run against the reference of its length
  double timed_bound = 0;
  bool timed_passed = false; // the timed run within its own bound (however loose), at least one step
  int checked_steps = 0; // the run the check rests on: the timed run's steps, or the shorter check run's
  ErrorMetrics error;    // that run's error
  double bound = 0;      // and its bound
  // Both runs within their bounds (the timed run's bound holds at any length), and at least one step timed.
  bool passed = false;
};
// `result` is the timed run's values after `steps` steps from `input`; the check run, if any, gets `keep_going` as
// its progress (it ends early, and fails, when that returns false).
RunCheck check_run(const Method& m, const MethodPlan& plan, const Extent& e, const Boundary& b,
                   const std::vector<double>& input, const std::vector<double>& result, int steps,
                   ReferenceCache& references, const StepProgress& keep_going = {});

// What a results record keeps of a RunCheck (the suite's SuiteRecord, the app's BenchmarkRecord): the run the check
// rests on (checked_steps: the timed run's steps, or the shorter check run's), that run's errors and bound, and the
// timed run's own (the same numbers where checked_steps equals the timed steps).
struct CheckedFields {
  int checked_steps = 0;
  double rel_l2 = 0, max_abs = 0, bound = 0;
  double timed_rel_l2 = 0, timed_max_abs = 0, timed_bound = 0;
  bool finite = true, passed = false; // finite: the check's run
  void take(const RunCheck& c) {
    checked_steps = c.checked_steps;
    rel_l2 = c.error.rel_l2;
    max_abs = c.error.max_abs;
    finite = c.error.finite;
    bound = c.bound;
    timed_rel_l2 = c.timed.rel_l2;
    timed_max_abs = c.timed.max_abs;
    timed_bound = c.timed_bound;
    passed = c.passed;
  }
};

} // namespace se
