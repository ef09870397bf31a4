// The CPU methods: the FP64 reference and each tensor-core method's fragment-level emulation, plus plan dispatch.
#include "core/method.hpp"

#include <chrono>

#include <fmt/format.h>

#include "core/convstencil/convstencil_method.hpp"
#include "core/error.hpp"
#include "core/flashfft/flashfft_method.hpp"
#include "core/lorastencil/lorastencil_emulation.hpp"
#include "core/lorastencil/lorastencil_plan.hpp"
#include "core/spider/spider_method.hpp"
#include "core/tcstencil/tcstencil_method.hpp"

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

static Method cpu_reference_method() {
  Method m;
  m.id = "cpu-reference";
  m.backend = Backend::CPU;
  m.precision = Precision::FP64;
  m.description = "multi-threaded FP64 CPU stencil; every other method is checked against it";
  m.unsupported_reason = [](const Stencil&, const Extent&) { return std::string(); };
  m.unavailable_reason = [] { return std::string(); };
  m.run = [](MethodRun& r) {
    ReferenceOptions opt;
    opt.boundary = r.boundary;
    opt.progress = r.progress;
    const auto t0 = std::chrono::steady_clock::now();
    MethodTiming t;
    t.steps_done = reference_advance(r.stencil, r.extent, r.values, r.steps, Precision::FP64, opt);
    t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return t;
  };
  return m;
}

namespace {

struct PlannedMethod {
  const char* id;
  PlanSummary (*summary)(const Stencil&, const Extent&);
};

// One row per tensor-core method of the teaching core.
const std::vector<PlannedMethod>& planned_methods() {
  static const std::vector<PlannedMethod> methods = {
      {"tcstencil", plan_summary_tcstencil},
      {"tcstencil-fp64", plan_summary_tcstencil_fp64},
      {"convstencil", plan_summary_convstencil},
      {"lorastencil", plan_summary_lorastencil},
      {"flashfft", [](const Stencil& s, const Extent& e) { return plan_summary_flashfft(s, e); }},
      {"spider", plan_summary_spider},
      {"spider-dense", plan_summary_spider_dense},
  };
  return methods;
}

} // namespace

std::vector<std::string> planned_method_ids() {
  std::vector<std::string> ids;
  for (const auto& m : planned_methods()) ids.emplace_back(m.id);
  return ids;
}

PlanSummary plan_summary(std::string_view method_id, const Stencil& s, const Extent& e) {
  validate(s);
  for (const auto& m : planned_methods())
    if (method_id == m.id) return m.summary(s, e);
  std::string known;
  for (const auto& id : planned_method_ids()) known += (known.empty() ? "" : ", ") + id;
  throw InputError(fmt::format("no plan for method '{}' (methods with plans: {})", method_id,
                               known.empty() ? "none yet" : known));
}

std::vector<Method> core_methods() {
  return {cpu_reference_method(),          tcstencil_emulation_method(), tcstencil_fp64_emulation_method(),
          convstencil_emulation_method(),  lorastencil_emulation_method(), flashfft_emulation_method(),
          spider_emulation_method(),       spider_dense_emulation_method()};
}

} // namespace se
