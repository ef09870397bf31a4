// A method is one descriptor: its id and paper, what it takes, how it plans, how it runs on the CPU (the FP64
// reference or a fragment-level emulation) and, filled in by kernels/, on the GPU, the line it prints beside a
// measurement and the teaching views that draw it. The plan a descriptor builds is a value that is handed down
// to everything that runs or draws it, never rebuilt on the way. kernels/registry.hpp holds the one list of
// descriptors; docs/ARCHITECTURE.md says how to add one.
#pragma once
#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/cost.hpp"
#include "core/grid.hpp"
#include "core/reference.hpp"
#include "core/stencil.hpp"

namespace se {

enum class Backend { CPU, Emulate, GPU };
std::string_view to_string(Backend b);
Backend parse_backend(std::string_view s); // "cpu", "emulate", "gpu"

// ------------------------------------------------------------------------------------------------- the plan

// What a method derives from a stencil for one backend: its matrices, fragment tables, fusion depth and cost.
// The method's own plan type rides in PlanOf<P>; methods without one (CUDA-core streaming) use MethodPlan.
struct MethodPlan {
  virtual ~MethodPlan() = default;
  std::string method;                 // the descriptor's id
  Backend target = Backend::Emulate;  // the backend it was built for
  Stencil stencil;                    // the base stencil (one step)
  int fused_steps = 1;                // base steps one pass advances
  CostReport cost;                    // per point and base step
  std::string brief;                  // one line: what a pass runs
  // The precision of the sums where the plan departs from its method's default (FP32 sums for FP16 values, else
  // the values' own): SPIDER's FP16 accumulation on request. The error bound (core/error_bound.hpp) models it.
  std::optional<Precision> accumulation;
};
using PlanPtr = std::shared_ptr<const MethodPlan>;

template <typename P> struct PlanOf final : MethodPlan {
  P value;
};

// The method's own plan inside `plan`; throws std::logic_error when it holds another type (a programming error:
// a stepper handed another method's plan).
template <typename P> const P& plan_value(const MethodPlan& plan) {
  if (const auto* p = dynamic_cast<const PlanOf<P>*>(&plan)) return p->value;
  throw std::logic_error("the plan of '" + plan.method + "' does not hold the type this code expects");
}

// What a caller asks of a plan beyond the stencil.
struct PlanRequest {
  Backend target = Backend::Emulate;
  int fused_steps = 0; // 0: the method's own choice (its cost model); else exactly this depth
};

// Throws InputError when a method that runs one step per pass is asked to fuse more.
void check_unfused(const std::string& method, const PlanRequest& request);

// A method's own plan `value` as a MethodPlan for `request` (the caller fills fused_steps, cost and brief).
template <typename P> std::shared_ptr<PlanOf<P>> wrap_plan(std::string method, const Stencil& s, const PlanRequest& request,
                                                           P value) {
  auto p = std::make_shared<PlanOf<P>>();
  p->method = std::move(method);
  p->target = request.target;
  p->stencil = s;
  p->value = std::move(value);
  return p;
}

// ------------------------------------------------------------------------------------------------- running

// What a run gets: the stencil, the grid (initial values in FP64, replaced by the result, which the method
// computed in its own precision), steps, boundary, and a progress callback.
struct MethodRun {
  Stencil stencil;
  Extent extent;
  int steps = 1;
  Boundary boundary{};
  std::vector<double> values;
  StepProgress progress{};
};

// What a run reports: its time, the steps done and the fusion it actually used.
struct MethodTiming {
  double seconds = 0.0; // compute time only (no setup, no transfers of the initial grid)
  int steps_done = 0;
  int fused_steps = 1;  // base-stencil steps per launch (temporal fusion); GStencil/s never counts them twice
  std::string passes;   // the passes the run executed, e.g. "24 x T=4, 2 x T=3" ("" when not recorded)
};

// Passes in the order they ran: (depth in base steps, how many in a row).
using PassRuns = std::vector<std::pair<int, std::int64_t>>;
void add_pass(PassRuns& runs, int depth);
// "24 x T=4, 2 x T=3".
std::string describe_passes(const PassRuns& runs);

// One rung of the lecture tour that a method's plan is drawn on: a teaching view (app/views), the page it opens,
// and what a student should look at.
struct MethodViewStep {
  std::string view;    // "pyramid", "sparse24", "params", "fft", "fragments"
  std::string page;    // the view's tab ("" keeps its current one)
  std::string title;
  std::string caption; // two or three sentences
  int captures = 1;    // --record: frames saved for this step (more for animations)
  std::array<bool, 3> dims{true, true, true}; // the stencils (1D, 2D, 3D) the step has something to show for
  std::string caption_1d; // the caption for a 1D stencil where the general one speaks of rows and columns
};

class GridStepper; // kernels/common/grid_stepper.hpp: a grid that lives on the device (CUDA builds)

// The GPU side of a method. kernels/ fills it in; a build without CUDA lists the method with the reason.
struct GpuKernel {
  std::string description; // what the kernel does ("" for the descriptor's)
  std::string library;     // "" or the library loaded at run time ("cuDNN", "cuFFT")
  // "" when the kernel can run on this machine; else why not (no device, library missing).
  std::function<std::string()> unavailable_reason;
  // Optional: the plan the kernel runs when it differs from the CPU's (its own MMA shape and tile).
  std::function<PlanPtr(const Stencil&, const PlanRequest&)> plan;
  // Optional: beyond the plan, why it cannot run on this grid ("" when it can), e.g. a shared-memory limit.
  std::function<std::string(const MethodPlan&, const Extent&)> unsupported_reason;
  // A device-resident grid that advances by this plan.
  std::function<std::unique_ptr<GridStepper>(const MethodPlan&, const Extent&, const Boundary&)> make_stepper;
  // The timed run (set by kernels/registry.cpp: upload, warm-up, CUDA events, download).
  std::function<MethodTiming(const MethodPlan&, MethodRun&)> run;
};

struct MethodDescriptor {
  std::string id;          // "lorastencil": one id names its CPU emulation and its GPU kernel
  std::string name;        // "LoRAStencil"
  std::string paper;       // "Zhang et al., SC'24"; "" for baselines
  // Its arithmetic runs on tensor cores (MMAs): the papers' methods. False: CUDA cores, a vendor library (GpuKernel::
  // library says which) or the CPU reference. The Baselines view puts the best of each kind side by side.
  bool tensor_cores = false;
  std::string description; // one or two sentences for lists and tooltips (the CPU run's, when there is one)
  Precision precision = Precision::FP64; // arithmetic precision
  std::array<bool, 3> dims{true, true, true}; // 1D, 2D, 3D
  int max_radius = kMaxRadius;
  // Builds the plan (both backends, unless the GPU kernel brings its own); throws InputError saying why the
  // method cannot take the stencil.
  std::function<PlanPtr(const Stencil&, const PlanRequest&)> plan;
  // `stencil-bench plan`: the plan's matrices and layouts as text and JSON, with the grid's tile counts.
  std::function<PlanSummary(const MethodPlan&, const Extent&)> summary;
  // The CPU run: the FP64 reference (cpu_backend CPU) or a fragment-level emulation; empty: none.
  Backend cpu_backend = Backend::Emulate;
  std::function<MethodTiming(const MethodPlan&, MethodRun&)> run_cpu;
  std::shared_ptr<const GpuKernel> gpu; // null: no GPU kernel
  // The line beside a GPU measurement; empty: the streaming model's line from plan.cost.
  std::function<std::string(const MethodPlan&, double gstencils)> model_beside;
  std::vector<MethodViewStep> views; // the teaching views that draw this method's plan
  int compare_rank = 1000;           // the Compare view's default panels take the lowest ranks first
};
using DescriptorPtr = std::shared_ptr<const MethodDescriptor>;

// One runnable variant of a descriptor: its CPU run or its GPU kernel.
struct Method {
  DescriptorPtr descriptor;
  std::string id;
  Backend backend = Backend::CPU;
  Precision precision = Precision::FP64;
  std::string description;

  // "" when this variant can run on this machine.
  std::string unavailable_reason() const;
  // "" when it can take the stencil on this grid; builds the plan to know (a picker caches the answer).
  std::string unsupported_reason(const Stencil& s, const Extent& e) const;
  // The plan this variant runs; throws InputError with the reason when it cannot take the stencil.
  PlanPtr plan(const Stencil& s, int fused_steps = 0) const;
  // "" when `plan` can run on this grid (its size, the GPU's limits), else why not.
  std::string check(const MethodPlan& plan, const Extent& e) const;
  // Runs `plan` (this variant's, for r.stencil) on r. Throws InputError when the grid cannot take it.
  MethodTiming run(const MethodPlan& plan, MethodRun& r) const;
  // plan(r.stencil), then run: for callers that run a stencil once.
  MethodTiming run(MethodRun& r) const;
  // The line beside a measured rate (GPU runs).
  std::string model_beside(const MethodPlan& plan, double gstencils) const;
};

// The variants of the descriptors: every CPU run in list order, then every GPU kernel in list order.
std::vector<Method> method_variants(const std::vector<DescriptorPtr>& list);
Method cpu_variant(DescriptorPtr d); // throws std::logic_error when d has no CPU run
Method gpu_variant(DescriptorPtr d); // throws std::logic_error when d has no GPU kernel
// The descriptor with this id; throws InputError naming the known ones.
const DescriptorPtr& find_descriptor(const std::vector<DescriptorPtr>& list, std::string_view id);

// The CPU run of a method whose emulation advances values by whole passes of its plan: times it and reports
// the steps done and the plan's fusion. `advance` returns the steps done (fewer only when progress cancelled).
using CpuAdvance = std::function<int(const MethodPlan&, const Extent&, std::vector<double>&, int steps, const Boundary&,
                                     const StepProgress&)>;
std::function<MethodTiming(const MethodPlan&, MethodRun&)> cpu_runner(CpuAdvance advance);

// A descriptor with its names filled in; the caller adds the plan and what runs it.
std::shared_ptr<MethodDescriptor> make_descriptor(std::string id, std::string name, std::string paper, Precision precision,
                                                  std::string description);

// The summary and the CPU run of a method whose plan type is P: `summary(const P&, const Extent&)`, or
// `summary(const P&, const Extent&, int fused_steps)` where the fusion depth rides in the MethodPlan rather than in
// P (TCStencil's GPU schedule), and `advance(const P&, extent, values, steps, boundary, progress)` (returning the
// steps done, or counts with .steps_done).
template <typename P, typename Summary, typename Advance>
void use_plan_type(MethodDescriptor& d, Summary summary, Advance advance) {
  d.summary = [summary](const MethodPlan& p, const Extent& e) {
    if constexpr (std::is_invocable_v<Summary, const P&, const Extent&, int>) return summary(plan_value<P>(p), e, p.fused_steps);
    else return summary(plan_value<P>(p), e);
  };
  d.run_cpu = cpu_runner([advance](const MethodPlan& p, const Extent& e, std::vector<double>& v, int steps,
                                   const Boundary& b, const StepProgress& progress) -> int {
    const auto done = advance(plan_value<P>(p), e, v, steps, b, progress);
    if constexpr (std::is_integral_v<decltype(done)>) return done;
    else return done.steps_done;
  });
}

// The descriptor of the FP64 CPU reference every other method is checked against.
DescriptorPtr cpu_reference_descriptor();

// GStencil/s, defined once for the whole project: (points updated x base-stencil steps) / seconds / 1e9.
// Temporal fusion never counts twice because `steps` are base-stencil steps.
inline double gstencils_per_second(std::int64_t points, std::int64_t steps, double seconds) {
  return seconds > 0 ? static_cast<double>(points) * static_cast<double>(steps) / seconds / 1e9 : 0.0;
}

} // namespace se
