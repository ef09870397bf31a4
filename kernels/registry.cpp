// The GPU method table. Without CUDA in the build the same methods are listed, unavailable, with the reason.
#include "kernels/registry.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include <fmt/format.h>

#include "core/error.hpp"
#include "kernels/common/grid_stepper.hpp"
#include "kernels/device.hpp"
#include "kernels/lorastencil/lora_gpu_method.hpp"

#if defined(SE_HAVE_CUDA)
#include "kernels/cuda_core/cuda_core.hpp"
#include "kernels/vendor/vendor_libraries.hpp"
#include "kernels/vendor/vendor_steppers.hpp"
#endif

namespace se {

namespace {

// cuda-core-tb aims for 4 steps per launch in 1D/2D and 2 in 3D, where the recomputed halo of a 3D tile grows
// fastest (fewer where shared memory is short).
constexpr int kTemporalBlockSteps = 4;
constexpr int kTemporalBlockSteps3D = 2;
constexpr int kFftFusedSteps = 6;      // FlashFFTStencil's Figure 7 fuses six steps

std::string library_reason(const std::string& library) {
#if defined(SE_HAVE_CUDA)
  if (library == "cuDNN") return cudnn_unavailable_reason();
  if (library == "cuFFT") return cufft_unavailable_reason();
#endif
  (void)library;
  return "";
}

GpuMethodSpec spec(std::string id, Precision p, std::string description) {
  GpuMethodSpec s;
  s.id = std::move(id);
  s.precision = p;
  s.description = std::move(description);
  return s;
}

} // namespace

std::string GpuMethodSpec::unsupported_reason(const Stencil& s, const Extent& e) const {
  if (s.dims < 1 || s.dims > 3 || !dims[static_cast<std::size_t>(s.dims - 1)]) {
    std::string which;
    for (int d = 0; d < 3; ++d)
      if (dims[static_cast<std::size_t>(d)]) which += fmt::format("{}{}D", which.empty() ? "" : "/", d + 1);
    return fmt::format("{} runs {} stencils, not {}D", id, which, s.dims);
  }
  if (s.radius > max_radius) return fmt::format("{} takes radius up to {}; this stencil has radius {}", id, max_radius, s.radius);
  return extra_unsupported_reason ? extra_unsupported_reason(s, e) : std::string();
}

std::string gpu_unavailable_reason() {
  const DeviceInfo dev = query_device();
  return dev.available ? std::string() : "no CUDA device: " + dev.reason;
}

std::vector<GpuMethodSpec> gpu_method_specs() {
  std::vector<GpuMethodSpec> specs;
  specs.push_back(spec("cuda-core", Precision::FP64,
                       "CUDA cores, FP64: shared-memory tiles, register-blocked columns (3D streams along z)"));
  specs.push_back(spec("cuda-core-fp32", Precision::FP32, "CUDA cores, FP32 storage and arithmetic, same kernels"));
  specs.push_back(spec("cuda-core-fp16", Precision::FP16,
                       "CUDA cores, FP16 storage with FP32 arithmetic (rounded to FP16 once per step)"));
  {
    GpuMethodSpec s = spec("cuda-core-tb", Precision::FP64,
                           "CUDA cores, FP64, temporally blocked: up to 4 steps per launch in shared memory (2 in 3D)");
    s.fused_steps = kTemporalBlockSteps;
    specs.push_back(std::move(s));
  }
  {
    GpuMethodSpec s = spec("cudnn", Precision::FP64, "cuDNN forward convolution, FP64 (the papers' vendor baseline)");
    s.library = "cuDNN";
    specs.push_back(std::move(s));
  }
  {
    GpuMethodSpec s = spec("cudnn-fp32", Precision::FP32, "cuDNN forward convolution, FP32 (FMA math, no TF32)");
    s.library = "cuDNN";
    specs.push_back(std::move(s));
  }
  {
    GpuMethodSpec s = spec("cufft", Precision::FP64,
                           "cuFFT stencil, FP64: 6 steps per FFT round trip by k_f^6 on periodic grids, 1 on Dirichlet");
    s.library = "cuFFT";
    s.fused_steps = kFftFusedSteps;
    specs.push_back(std::move(s));
  }
  for (auto& s : specs) {
    if (s.id.rfind("cudnn", 0) == 0)
      s.extra_unsupported_reason = [](const Stencil&, const Extent& e) {
        return e.points() > 2147483647 ? std::string("cuDNN tensors hold at most 2^31-1 points") : std::string();
      };
    const std::string library = s.library;
    s.unavailable_reason = [library] {
      std::string why = gpu_unavailable_reason();
      if (why.empty() && !library.empty()) why = library_reason(library);
      return why;
    };
#if defined(SE_HAVE_CUDA)
    const std::string id = s.id;
    const Precision p = s.precision;
    s.make_stepper = [id, p](const Stencil& st, const Extent& e, const Boundary& b) -> std::unique_ptr<GridStepper> {
      if (id == "cuda-core-tb")
        return make_cuda_core_tb_stepper(st, e, b, st.dims == 3 ? kTemporalBlockSteps3D : kTemporalBlockSteps);
      if (id.rfind("cuda-core", 0) == 0) return make_cuda_core_stepper(p, st, e, b);
      if (id.rfind("cudnn", 0) == 0) return make_cudnn_stepper(p, st, e, b);
      return make_cufft_stepper(st, e, b, kFftFusedSteps);
    };
#else
    s.make_stepper = [](const Stencil&, const Extent&, const Boundary&) -> std::unique_ptr<GridStepper> {
      throw InputError(gpu_unavailable_reason());
    };
#endif
  }
  specs.push_back(lorastencil_gpu_spec()); // after the loop above: it brings its own stepper and reasons
  return specs;
}

const GpuMethodSpec& find_gpu_method(const std::vector<GpuMethodSpec>& specs, const std::string& id) {
  for (const auto& s : specs)
    if (s.id == id) return s;
  std::string known;
  for (const auto& s : specs) known += (known.empty() ? "" : ", ") + s.id;
  throw InputError(fmt::format("unknown GPU method '{}' (known: {})", id, known));
}

std::unique_ptr<GridStepper> make_gpu_stepper(const GpuMethodSpec& spec, const Stencil& s, const Extent& e,
                                              const Boundary& b) {
  validate(s);
  check_extent_fits_stencil(e, s);
  if (const std::string why = spec.unavailable_reason(); !why.empty())
    throw InputError(fmt::format("method '{}' (gpu) is unavailable: {}", spec.id, why));
  if (const std::string why = spec.unsupported_reason(s, e); !why.empty())
    throw InputError(fmt::format("method '{}' cannot run {}: {}", spec.id, s.name, why));
  return spec.make_stepper(s, e, b);
}

namespace {

// max |K(w)| of the stencil's symbol K(w) = sum_d w(d) e^{i w.d}, sampled on a grid of frequencies (4096 in
// 1D, 256^2 in 2D, 32^3 in 3D, all including w = 0 and pi): how much one step can grow the L2 norm.
double sampled_symbol_peak(const Stencil& s) {
  struct Tap { int dx, dy, dz; double w; };
  std::vector<Tap> taps;
  const int r = s.radius, rz = s.dims == 3 ? r : 0, ry = s.dims >= 2 ? r : 0;
  for (int dz = -rz; dz <= rz; ++dz)
    for (int dy = -ry; dy <= ry; ++dy)
      for (int dx = -r; dx <= r; ++dx)
        if (s.at(dx, dy, dz) != 0.0) taps.push_back({dx, dy, dz, s.at(dx, dy, dz)});
  const int m = s.dims == 1 ? 4096 : (s.dims == 2 ? 256 : 32);
  const int my = s.dims >= 2 ? m : 1, mz = s.dims == 3 ? m : 1;
  const double step = 2 * std::numbers::pi / m;
  double peak = 0;
  for (int kz = 0; kz < mz; ++kz)
    for (int ky = 0; ky < my; ++ky)
      for (int kx = 0; kx < m; ++kx) {
        double re = 0, im = 0;
        for (const Tap& t : taps) {
          const double phase = step * (kx * t.dx + ky * t.dy + kz * t.dz);
          re += t.w * std::cos(phase);
          im += t.w * std::sin(phase);
        }
        peak = std::max(peak, std::hypot(re, im));
      }
  return peak;
}

} // namespace

void check_fp16_range(const Stencil& s, std::span<const double> values, int steps, const std::string& method_id) {
  double max_in = 0, l2 = 0, gain = 0;
  for (const double v : values) {
    max_in = std::max(max_in, std::abs(v));
    l2 += v * v;
  }
  l2 = std::sqrt(l2);
  for (const double w : s.weights) gain += std::abs(w);
  if (!(max_in <= kHalfMax))
    throw InputError(fmt::format("{} stores FP16: the input holds {:.4g}, beyond its largest finite value {}", method_id,
                                 max_in, kHalfMax));
  // Two bounds on the largest value after `steps` steps, in logs (they overflow doubles): a step grows the
  // largest magnitude by at most sum |w|, and the L2 norm (which bounds every value) by at most max |K|.
  const double log_max = std::log(kHalfMax);
  const double by_sum = std::log(std::max(max_in, 1e-300)) + steps * std::log(std::max(1.0, gain));
  if (by_sum <= log_max) return;
  const double peak = sampled_symbol_peak(s);
  const double by_symbol = std::log(std::max(l2, 1e-300)) + steps * std::log(std::max(peak, 1e-300));
  if (by_symbol <= log_max) return;
  throw InputError(fmt::format(
      "{} stores FP16 (largest finite value {}): after {} steps the values could reach {:.3g} and overflow (max |input| {:.4g}, "
      "sum |w| = {:.4g}; L2 norm {:.4g}, max |K| = {:.4g} per step); use fewer steps, a stencil that does not "
      "amplify, or an FP32/FP64 method",
      method_id, kHalfMax, steps, std::exp(std::min(by_sum, by_symbol)), max_in, gain, l2, peak));
}

std::vector<Method> gpu_methods() {
  std::vector<Method> methods;
  for (const auto& spec : gpu_method_specs()) {
    Method m;
    m.id = spec.id;
    m.backend = Backend::GPU;
    m.precision = spec.precision;
    m.description = spec.description;
    m.unsupported_reason = [spec](const Stencil& s, const Extent& e) { return spec.unsupported_reason(s, e); };
    m.unavailable_reason = spec.unavailable_reason;
    m.run = [spec](MethodRun& r) { return run_gpu_method(spec, r); };
    methods.push_back(std::move(m));
  }
  return methods;
}

} // namespace se
