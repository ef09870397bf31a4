// The one list of methods. Every descriptor (core/method.hpp) in the order lists and pickers show them, with
// the GPU kernel of each attached: CUDA builds run it, other builds list it as unavailable with the reason.
// The CLI, the GUI and the tests enumerate methods through this list only; docs/ARCHITECTURE.md says how to
// add one.
#pragma once
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/method.hpp"

namespace se {

const std::vector<DescriptorPtr>& method_list();
// Every runnable variant of the list: the CPU runs in list order, then the GPU kernels in list order.
std::vector<Method> all_methods();

// The variant `id` with this backend; with none, the GPU kernel when it can run here, else the CPU run.
// Throws InputError naming the known ids (or saying that the method has no such backend).
const Method& find_method(const std::vector<Method>& methods, const std::string& id,
                          std::optional<Backend> backend = std::nullopt);

// "" when a CUDA device can be used; otherwise "no CUDA device: <why>".
std::string gpu_unavailable_reason();

// The device-resident stepper of a GPU variant for `plan` (built by m.plan): throws InputError when the method is
// unavailable here or the plan cannot run on this grid, with the reason.
std::unique_ptr<GridStepper> make_gpu_stepper(const Method& m, const MethodPlan& plan, const Extent& e, const Boundary& b);

// The timed run behind every GpuKernel::run: fresh state from r.values, one warm-up pass, the timed steps (CUDA
// events; the progress callback at (0, steps) as they begin and between chunks), the result back into r.values, the
// passes it ran.
MethodTiming run_gpu_method(const GpuKernel& kernel, const MethodPlan& plan, MethodRun& r);

// Seconds per base step of a GPU variant's plan on this grid, for sizing benchmark runs: batches of doubling
// length run back to back (which also brings the clocks up) until one lasts `min_seconds`; that batch's time per step.
double gpu_seconds_per_step(const Method& m, const MethodPlan& plan, const Extent& e, const Boundary& b,
                            std::span<const double> values, double min_seconds);

} // namespace se
