// A method variant: one way of advancing a stencil (the CPU reference, a CPU emulation of a tensor-core
// method, a GPU kernel), described as plain data plus a launcher. The app builds its list from these.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "core/cost.hpp"
#include "core/grid.hpp"
#include "core/reference.hpp"
#include "core/stencil.hpp"

namespace se {

enum class Backend { CPU, Emulate, GPU };
std::string_view to_string(Backend b);
Backend parse_backend(std::string_view s); // "cpu", "emulate", "gpu"

// What a launcher gets: the stencil, the grid (initial values in FP64, replaced by the result, which the
// method computed in its own precision), steps, boundary, and a progress callback.
struct MethodRun {
  Stencil stencil;
  Extent extent;
  int steps = 1;
  Boundary boundary{};
  std::vector<double> values;
  StepProgress progress{};
};

struct MethodTiming {
  double seconds = 0.0; // compute time only (no setup, no transfers of the initial grid)
  int steps_done = 0;
  int fused_steps = 1;  // base-stencil steps per launch (temporal fusion); GStencil/s never counts them twice
};

struct Method {
  std::string id;          // "cpu-reference", "lorastencil", ...; the same id names the CPU emulation and the GPU kernel
  Backend backend = Backend::CPU;
  Precision precision = Precision::FP64; // arithmetic precision of the method
  std::string description;
  // Empty when the method can run this stencil on this grid; otherwise why not (shown to the user, exit code 2).
  std::function<std::string(const Stencil&, const Extent&)> unsupported_reason;
  // Empty when the method can run at all here; otherwise why not (e.g. "no CUDA device").
  std::function<std::string()> unavailable_reason;
  std::function<MethodTiming(MethodRun&)> run;
};

// The plan, layouts and cost a tensor-core method derives for a stencil (what `stencil-bench plan` prints).
// Throws InputError for an unknown method id, or when the method cannot take the stencil (with the reason).
PlanSummary plan_summary(std::string_view method_id, const Stencil& s, const Extent& e);
// The method ids that have a plan.
std::vector<std::string> planned_method_ids();

// The CPU methods core provides: the FP64 reference and the fragment-level emulations.
std::vector<Method> core_methods();

// GStencil/s, defined once for the whole project: (points updated x base-stencil steps) / seconds / 1e9.
// Temporal fusion never counts twice because `steps` are base-stencil steps.
inline double gstencils_per_second(std::int64_t points, std::int64_t steps, double seconds) {
  return seconds > 0 ? static_cast<double>(points) * static_cast<double>(steps) / seconds / 1e9 : 0.0;
}

} // namespace se
