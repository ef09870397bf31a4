// Method variants of a descriptor, their checks in one order, the CPU runner and the reference's descriptor.
#include "core/method.hpp"

#include <chrono>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/fp16_range.hpp"
#include "core/streaming_model.hpp"

namespace se {

std::string_view to_string(Backend b) {
  switch (b) {
  case Backend::CPU: return "cpu";
  case Backend::Emulate: return "emulate";
  case Backend::GPU: return "gpu";
  }
  return "?";
}

Backend parse_backend(std::string_view s) {
  if (s == "cpu") return Backend::CPU;
  if (s == "emulate") return Backend::Emulate;
  if (s == "gpu") return Backend::GPU;
  throw InputError(fmt::format("unknown backend '{}' (cpu, emulate or gpu)", s));
}

void add_pass(PassRuns& runs, int depth) {
  if (!runs.empty() && runs.back().first == depth) ++runs.back().second;
  else runs.emplace_back(depth, 1);
}

std::string describe_passes(const PassRuns& runs) {
  std::string out;
  for (const auto& [depth, count] : runs)
    out += fmt::format("{}{} x T={}", out.empty() ? "" : ", ", count, depth);
  return out;
}

void check_unfused(const std::string& method, const PlanRequest& request) {
  if (request.fused_steps > 1)
    throw InputError(fmt::format("{} runs one step per pass; it cannot fuse {}", method, request.fused_steps));
}

namespace {

// Why the descriptor's declared dims and radius exclude the stencil ("" when they do not).
std::string shape_reason(const MethodDescriptor& d, const Stencil& s) {
  if (s.dims < 1 || s.dims > 3 || !d.dims[static_cast<std::size_t>(s.dims - 1)]) {
    std::string which;
    for (int k = 0; k < 3; ++k)
      if (d.dims[static_cast<std::size_t>(k)]) which += fmt::format("{}{}D", which.empty() ? "" : "/", k + 1);
    return fmt::format("{} runs {} stencils, not {}D", d.id, which, s.dims);
  }
  if (s.radius > d.max_radius)
    return fmt::format("{} takes radius up to {}; this stencil has radius {}", d.id, d.max_radius, s.radius);
  return {};
}

} // namespace

std::string Method::unavailable_reason() const {
  if (backend != Backend::GPU) return {};
  return descriptor->gpu->unavailable_reason ? descriptor->gpu->unavailable_reason() : std::string();
}

PlanPtr Method::plan(const Stencil& s, int fused_steps) const {
  validate(s);
  if (const std::string why = shape_reason(*descriptor, s); !why.empty()) throw InputError(why);
  if (fused_steps < 0) throw InputError(fmt::format("a plan fuses at least 1 step; got {}", fused_steps));
  const PlanRequest request{backend, fused_steps};
  const GpuKernel* gpu = backend == Backend::GPU ? descriptor->gpu.get() : nullptr;
  PlanPtr p = gpu && gpu->plan ? gpu->plan(s, request) : descriptor->plan(s, request);
  if (!p) throw std::logic_error("method '" + id + "' built no plan");
  return p;
}

std::string Method::check(const MethodPlan& plan, const Extent& e) const {
  try {
    check_extent_fits_stencil(e, plan.stencil);
  } catch (const InputError& err) {
    return err.what();
  }
  if (backend == Backend::GPU && descriptor->gpu->unsupported_reason) return descriptor->gpu->unsupported_reason(plan, e);
  return {};
}

std::string Method::unsupported_reason(const Stencil& s, const Extent& e) const {
  try {
    return check(*plan(s), e);
  } catch (const InputError& err) {
    return err.what();
  }
}

MethodTiming Method::run(const MethodPlan& plan, MethodRun& r) const {
  if (r.steps < 0) throw InputError("the number of steps cannot be negative");
  if (!(plan.stencil == r.stencil) || plan.method != id)
    throw std::logic_error("method '" + id + "' was handed a plan for another method or stencil");
  if (const std::string why = check(plan, r.extent); !why.empty())
    throw InputError(fmt::format("method '{}' cannot run {} on {}: {}", id, r.stencil.name, r.extent.to_string(), why));
  if (r.values.size() != static_cast<std::size_t>(r.extent.points()))
    throw InputError(fmt::format("{} values cannot be a {} grid", r.values.size(), r.extent.to_string()));
  if (backend == Backend::GPU && precision == Precision::FP16) check_fp16_range(plan.stencil, r.values, r.steps, id);
  return backend == Backend::GPU ? descriptor->gpu->run(plan, r) : descriptor->run_cpu(plan, r);
}

MethodTiming Method::run(MethodRun& r) const { return run(*plan(r.stencil), r); }

std::string Method::model_beside(const MethodPlan& plan, double gstencils) const {
  if (descriptor->model_beside) return descriptor->model_beside(plan, gstencils);
  return streaming_model_line(plan.cost, gstencils);
}

Method cpu_variant(DescriptorPtr d) {
  if (!d->run_cpu) throw std::logic_error("method '" + d->id + "' has no CPU run");
  Method m;
  m.id = d->id;
  m.backend = d->cpu_backend;
  m.precision = d->precision;
  m.description = d->description;
  m.descriptor = std::move(d);
  return m;
}

Method gpu_variant(DescriptorPtr d) {
  if (!d->gpu) throw std::logic_error("method '" + d->id + "' has no GPU kernel");
  Method m;
  m.id = d->id;
  m.backend = Backend::GPU;
  m.precision = d->precision;
  m.description = d->gpu->description.empty() ? d->description : d->gpu->description;
  m.descriptor = std::move(d);
  return m;
}

std::vector<Method> method_variants(const std::vector<DescriptorPtr>& list) {
  std::vector<Method> out;
  for (const DescriptorPtr& d : list)
    if (d->run_cpu) out.push_back(cpu_variant(d));
  for (const DescriptorPtr& d : list)
    if (d->gpu) out.push_back(gpu_variant(d));
  return out;
}

const DescriptorPtr& find_descriptor(const std::vector<DescriptorPtr>& list, std::string_view id) {
  for (const DescriptorPtr& d : list)
    if (d->id == id) return d;
  std::string known;
  for (const DescriptorPtr& d : list) known += (known.empty() ? "" : ", ") + d->id;
  throw InputError(fmt::format("unknown method '{}' (known: {})", id, known));
}

std::function<MethodTiming(const MethodPlan&, MethodRun&)> cpu_runner(CpuAdvance advance) {
  return [advance = std::move(advance)](const MethodPlan& plan, MethodRun& r) {
    const auto t0 = std::chrono::steady_clock::now();
    MethodTiming t;
    t.steps_done = advance(plan, r.extent, r.values, r.steps, r.boundary, r.progress);
    t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    t.fused_steps = plan.fused_steps;
    return t;
  };
}

std::shared_ptr<MethodDescriptor> make_descriptor(std::string id, std::string name, std::string paper, Precision precision,
                                                  std::string description) {
  auto d = std::make_shared<MethodDescriptor>();
  d->id = std::move(id);
  d->name = std::move(name);
  d->paper = std::move(paper);
  d->precision = precision;
  d->description = std::move(description);
  return d;
}

DescriptorPtr cpu_reference_descriptor() {
  auto d = make_descriptor("cpu-reference", "FP64 reference", "", Precision::FP64,
                           "multi-threaded FP64 CPU stencil; every other method is checked against it");
  d->plan = [](const Stencil& s, const PlanRequest& request) {
    return streaming_plan("cpu-reference", s, request, Precision::FP64, 1,
                          fmt::format("one pass per step over a halo-padded copy, {} multiply-adds per point",
                                      s.nonzero_count()));
  };
  d->summary = streaming_summary;
  d->cpu_backend = Backend::CPU;
  // The grid goes into the reference's padded layout before the clock starts and comes back after it stops, as
  // a GPU run's upload and download do: MethodTiming's seconds are the steps alone.
  d->run_cpu = [](const MethodPlan& p, MethodRun& r) {
    ReferenceOptions options;
    options.boundary = r.boundary;
    ReferenceStepper stepper(p.stencil, r.extent, r.values, Precision::FP64, options);
    const auto t0 = std::chrono::steady_clock::now();
    MethodTiming t;
    t.steps_done = stepper.advance(r.steps, r.progress);
    t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    stepper.read(r.values);
    t.passes = fmt::format("{} x 1 step, {} on {} thread{}{}", t.steps_done, to_string(stepper.isa()), stepper.threads(),
                           stepper.threads() == 1 ? "" : "s", stepper.streaming() ? ", streaming stores" : "");
    return t;
  };
  return d;
}

} // namespace se
