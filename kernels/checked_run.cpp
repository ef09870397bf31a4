// The reference policy: CPU when cheap; otherwise GPU FP64 after validating it on this very input.
#include "kernels/checked_run.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "core/checked_math.hpp"
#include "core/error.hpp"
#include "core/error_bound.hpp"
#include "core/reference.hpp"
#include "kernels/registry.hpp"

namespace se {

double reference_cost(const Stencil& s, const Extent& e, int steps) {
  return static_cast<double>(e.points()) * std::max(1, s.nonzero_count()) * std::max(1, steps);
}

namespace {

std::vector<double> cpu_reference(const Stencil& s, const Extent& e, const Boundary& b, std::vector<double> v, int steps,
                                  const StepProgress& progress) {
  ReferenceOptions opt;
  opt.boundary = b;
  opt.progress = progress;
  reference_advance(s, e, v, steps, Precision::FP64, opt);
  return v;
}

std::vector<double> gpu_reference(const Method& m, const MethodPlan& plan, const Extent& e, const Boundary& b,
                                  const std::vector<double>& initial, int steps) {
  MethodRun r;
  r.stencil = plan.stencil;
  r.extent = e;
  r.steps = steps;
  r.boundary = b;
  r.values = initial;
  m.run(plan, r);
  return std::move(r.values);
}

} // namespace

CheckedReference compute_reference(const Stencil& s, const Extent& e, const Boundary& b, const std::vector<double>& initial,
                                   int steps, const ReferencePolicy& policy, const StepProgress& progress) {
  CheckedReference ref;
  const double per_step = reference_cost(s, e, 1);
  const bool cheap = reference_cost(s, e, steps) <= policy.cpu_budget;
  // The FP64 cuda-core kernel, when it can run here and take this stencil and grid.
  const Method cuda_core = gpu_variant(find_descriptor(method_list(), "cuda-core"));
  PlanPtr plan;
  if (policy.allow_gpu && !cheap && cuda_core.unavailable_reason().empty()) {
    try {
      plan = cuda_core.plan(s);
      if (!cuda_core.check(*plan, e).empty()) plan.reset();
    } catch (const InputError&) {
      plan.reset();
    }
  }
  const Method* gpu = plan ? &cuda_core : nullptr;
  if (!gpu) {
    ref.values = cpu_reference(s, e, b, initial, steps, progress);
    ref.source = "cpu-reference";
    return ref;
  }
  if (!policy.validated.empty()) {
    ref.values = gpu_reference(*gpu, *plan, e, b, initial, steps);
    ref.source = policy.validated;
    return ref;
  }
  ref.validation_steps = clamped_int(policy.cpu_budget / per_step, 1, steps);
  const std::vector<double> cpu = cpu_reference(s, e, b, initial, ref.validation_steps, {});
  const std::vector<double> check = gpu_reference(*gpu, *plan, e, b, initial, ref.validation_steps);
  const ErrorMetrics m = compare(check, cpu);
  ref.validation_rel_l2 = m.rel_l2;
  // Two FP64 runs that differ only in the order of their sums: within the FP64 bound of each against exact.
  if (!m.finite || m.rel_l2 > error_bound(s, Precision::FP64, ref.validation_steps, b, initial, cpu))
    throw std::runtime_error(fmt::format(
        "the GPU FP64 reference (cuda-core) disagrees with the CPU reference after {} steps: rel L2 {:.3e}, max abs "
        "{:.3e}; no GPU result can be checked",
        ref.validation_steps, m.rel_l2, m.max_abs));
  ref.values = ref.validation_steps == steps ? check : gpu_reference(*gpu, *plan, e, b, initial, steps);
  ref.source = fmt::format("cuda-core (gpu, validated against cpu-reference for {} step{}: rel L2 {:.1e})",
                           ref.validation_steps, ref.validation_steps == 1 ? "" : "s", m.rel_l2);
  return ref;
}

ReferenceCache::ReferenceCache(const Stencil& s, const Extent& e, const Boundary& b, const std::vector<double>& input,
                               ReferencePolicy policy, StepProgress progress)
    : stencil_(s), extent_(e), boundary_(b), input_(input), policy_(std::move(policy)), progress_(std::move(progress)) {}

const CheckedReference& ReferenceCache::at(int steps) {
  auto it = by_steps_.find(steps);
  if (it == by_steps_.end()) {
    it = by_steps_.emplace(steps, compute_reference(stencil_, extent_, boundary_, input_, steps, policy_, progress_))
             .first;
    if (it->second.validation_steps > 0) policy_.validated = it->second.source; // the CPU checked the GPU on this input
  }
  return it->second;
}

RunCheck check_run(const Method& m, const MethodPlan& plan, const Extent& e, const Boundary& b,
                   const std::vector<double>& input, const std::vector<double>& result, int steps,
                   ReferenceCache& references, const StepProgress& keep_going) {
  RunCheck c;
  const CheckedReference& ref = references.at(steps);
  c.reference = ref.source;
  c.timed = compare(result, ref.values);
  const ErrorBound bound(plan.stencil, m.precision, b, input, plan.accumulation);
  const double ref_norm = l2_norm(ref.values);
  c.timed_bound = bound.relative(steps, ref_norm);
  c.checked_steps = steps;
  c.error = c.timed;
  c.bound = c.timed_bound;
  c.timed_passed = steps >= 1 && c.timed.finite && c.timed.rel_l2 <= c.timed_bound;
  const int k = check_steps(bound, steps, ref_norm);
  if (k < steps) {
    MethodRun run{plan.stencil, e, k, b, input, keep_going};
    c.checked_steps = m.run(plan, run).steps_done;
    if (c.checked_steps < k) return c; // stopped: not passed
    const CheckedReference& short_ref = references.at(k);
    c.error = compare(run.values, short_ref.values);
    c.bound = bound.relative(k, short_ref.values);
  }
  c.passed = c.timed_passed && c.error.finite && c.error.rel_l2 <= c.bound;
  return c;
}

} // namespace se
