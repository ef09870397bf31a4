// The GPU method variants, declared as data: id, precision, supported dims and radii, the steps one launch
// fuses, the optional library they need, and a factory for the device-resident stepper that runs them.
// The CLI, the GUI and the tests enumerate methods only through all_methods() = core's + gpu_methods().
#pragma once
#include <array>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/method.hpp"

namespace se {

class GridStepper; // kernels/common/grid_stepper.hpp (CUDA builds)

struct GpuMethodSpec {
  std::string id;
  Precision precision = Precision::FP64; // arithmetic precision (cuda-core-fp16 stores FP16, computes FP32)
  std::string description;
  std::array<bool, 3> dims{true, true, true}; // 1D, 2D, 3D
  int max_radius = kMaxRadius;
  int fused_steps = 1;  // base steps per launch it aims for; the stepper reports what it used
  std::string library;  // "" or the optional library it loads at run time ("cuDNN", "cuFFT")
  // Beyond dims and radius: why this stencil/grid cannot run ("" when it can).
  std::function<std::string(const Stencil&, const Extent&)> extra_unsupported_reason;
  // Why the method cannot run on this machine at all ("" when it can): no device, library missing.
  std::function<std::string()> unavailable_reason;
  std::function<std::unique_ptr<GridStepper>(const Stencil&, const Extent&, const Boundary&)> make_stepper;

  std::string unsupported_reason(const Stencil& s, const Extent& e) const;
};

std::vector<GpuMethodSpec> gpu_method_specs();
// The specs as core Methods (Backend::GPU): run() uploads, warms up, times the steps with CUDA events, downloads.
std::vector<Method> gpu_methods();

// "" when a CUDA device can be used; otherwise "no CUDA device: <why>".
std::string gpu_unavailable_reason();

// Throws InputError for an unknown id, an unavailable method or an unsupported stencil (with the reason).
const GpuMethodSpec& find_gpu_method(const std::vector<GpuMethodSpec>& specs, const std::string& id);
std::unique_ptr<GridStepper> make_gpu_stepper(const GpuMethodSpec& spec, const Stencil& s, const Extent& e,
                                              const Boundary& b);

// FP16 grids hold at most 65504: throws InputError when the values could exceed it after `steps` steps, by
// both max|input| (sum |w|)^steps and ||input||_2 max|K|^steps (K the stencil's symbol, sampled).
void check_fp16_range(const Stencil& s, std::span<const double> values, int steps, const std::string& method_id);

// Runs spec on r (the engine behind each GPU Method's run): fresh state from r.values, one warm-up pass,
// the timed steps (CUDA events; the progress callback between chunks), the result back into r.values.
MethodTiming run_gpu_method(const GpuMethodSpec& spec, MethodRun& r);

// Seconds per base step of spec on this grid, for sizing benchmark runs: batches of doubling length run
// back to back (which also brings the clocks up) until one lasts `min_seconds`; that batch's time per step.
double gpu_seconds_per_step(const GpuMethodSpec& spec, const Stencil& s, const Extent& e, const Boundary& b,
                            std::span<const double> values, double min_seconds);

} // namespace se
