// The CUDA-core descriptors. Plain C++: without CUDA in the build the same methods are listed, unavailable.
#include "kernels/cuda_core/cuda_core_method.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/streaming_model.hpp"
#include "core/temporal_blocking_model.hpp"
#include "kernels/registry.hpp"

#if defined(SE_HAVE_CUDA)
#include "kernels/cuda_core/cuda_core.hpp"
#endif

namespace se {
namespace {

std::string id_of(Precision storage) {
  return storage == Precision::FP64 ? "cuda-core" : fmt::format("cuda-core-{}", to_string(storage));
}

std::shared_ptr<MethodDescriptor> gpu_only(const std::string& id, Precision p, std::string description) {
  auto d = make_descriptor(id, id, "", p, std::move(description));
  d->summary = streaming_summary;
  return d;
}

} // namespace

DescriptorPtr cuda_core_descriptor(Precision storage) {
  static const char* const kDescriptions[] = {
      "CUDA cores, FP64: shared-memory tiles, register-blocked columns (3D streams along z)",
      "CUDA cores, FP32 storage and arithmetic, same kernels",
      "CUDA cores, FP16 storage with FP32 arithmetic (rounded to FP16 once per step; Dirichlet grids in 1D, and "
      "in 2D up to radius 3, take two points per thread through half2 loads and stores)"};
  auto d = gpu_only(id_of(storage), storage, kDescriptions[static_cast<int>(storage)]);
  d->plan = [id = d->id, storage](const Stencil& s, const PlanRequest& request) {
    if (request.fused_steps > 1)
      throw InputError(fmt::format("{} runs one step per launch; use cuda-core-tb to fuse steps", id));
    return streaming_plan(id, s, request, storage, 1,
                          fmt::format("one launch per step, {} weights in registers, {} storage", s.nonzero_count(),
                                      to_string(storage)));
  };
  GpuKernel k;
  k.unavailable_reason = gpu_unavailable_reason;
#if defined(SE_HAVE_CUDA)
  k.make_stepper = [storage](const MethodPlan& p, const Extent& e, const Boundary& b) {
    return make_cuda_core_stepper(storage, p.stencil, e, b);
  };
#endif
  d->gpu = std::make_shared<GpuKernel>(std::move(k));
  if (storage == Precision::FP64) d->compare_rank = 5;
  return d;
}

DescriptorPtr cuda_core_tb_descriptor(Precision storage) {
  const bool fp64 = storage == Precision::FP64;
  const std::string id = fp64 ? "cuda-core-tb" : "cuda-core-tb-fp32";
  auto d = gpu_only(id, storage,
                    fmt::format("CUDA cores, {}, temporally blocked: 1D warps in registers, 2D rows streamed through a "
                                "pipeline of T stages, one or (radius 1-3) two columns per thread (T from a model of "
                                "registers and rates), 3D planes streamed along z (radius 1 "
                                "with cube-symmetric weights: 64-column cross-sections of 24 or 32 rows, 12 operations per point)",
                                to_string(storage)));
  d->plan = [id, storage](const Stencil& s, const PlanRequest& request) {
    const int bytes = storage == Precision::FP64 ? 8 : 4;
    const bool sym = tb::cube_symmetric(s);
    const tb::DepthPick pick = tb::model_pick(s.dims, s.radius, s.dims == 2 && s.is_star(), bytes, sym);
    const int model = pick.steps;
    const int cap = sym ? tb::kMaxSteps3DSym : s.dims == 3 ? model : tb::capacity_steps(s.dims, s.radius, bytes);
    int T = request.fused_steps > 0 ? std::min(request.fused_steps, cap) : model;
#if defined(SE_HAVE_CUDA)
    // 3D: fewer steps where a tile with its T r halo does not fit this GPU's shared memory.
    if (request.target == Backend::GPU && gpu_unavailable_reason().empty()) {
      const int fits = cuda_core_tb_fused_steps(s, storage, T);
      if (fits == 0)
        throw InputError(fmt::format("{}: a {}D tile of radius {} does not fit in this GPU's shared memory; use "
                                     "cuda-core",
                                     id, s.dims, s.radius));
      T = fits;
    }
#endif
    std::string why;
    if (s.dims == 3 && s.radius > 3) why = "overlapped 3D tiles in shared memory, the halo recomputed, taps read from memory";
    else if (sym && request.fused_steps <= 0)
      why = fmt::format("cube-symmetric weights: 64 x {} cross-sections streamed along z, 12 operations per point and "
                        "step",
                        tb::sym3d_rows(bytes, T));
    else if (s.dims == 3 && !sym) why = "3D planes streamed through a 2-stage pipeline, the cross-section halo recomputed";
    else if (request.fused_steps > cap)
      why = fmt::format("{} asked, the kernel holds at most {} (registers and recomputed halo)", request.fused_steps, cap);
    else if (request.fused_steps > 0) why = "as asked";
    else { // 1D and 2D at the model's depth: the rule that set it (tb::model_pick)
      const bool star = s.dims == 2 && s.is_star();
      const double mem = tb::memory_clocks(bytes), chip = tb::onchip_clocks(s.dims, std::max(1, s.radius), star, bytes);
      switch (pick.rule) {
      case tb::DepthRule::kTwoColumns:
        why = fmt::format("the two-column kernel's deepest depth: device traffic per step there ({:.3f} clk/point) "
                          "within the on-chip time per step ({:.3f}), so its cheaper stages pay",
                          mem / T, chip);
        break;
      case tb::DepthRule::kMemoryBound:
        why = fmt::format("the kernel's capacity (registers, recomputed halo): at one step the device traffic "
                          "({:.3f} clk/point) exceeds the on-chip time ({:.3f}), and the measured 2D rates rise up to "
                          "the capacity",
                          mem, chip);
        break;
      case tb::DepthRule::kThreshold:
        why = fmt::format("the model's depth: device traffic per step ({:.3f} clk/point) under 80% of the on-chip "
                          "time per step ({:.3f} clk/point), at most {}",
                          mem / T, chip, cap);
        break;
      case tb::DepthRule::kCapacity:
      case tb::DepthRule::kFixed3D: // 3D plans took their own text above
        why = fmt::format("the kernel's capacity (registers, recomputed halo): device traffic per step still {:.3f} "
                          "clk/point against {:.3f} on chip",
                          mem / T, chip);
        break;
      }
    }
    if (s.dims == 2)
      why += tb::single_step_2d(2, bytes, T) ? "; the single-step kernel"
             : tb::two_columns(2, s.radius, bytes, T) ? "; two columns per thread"
                                                      : "; one column per thread";
    return streaming_plan(id, s, request, storage, T,
                         fmt::format("{} step{} per launch ({})", T, T == 1 ? "" : "s", why));
  };
  GpuKernel k;
  k.unavailable_reason = gpu_unavailable_reason;
#if defined(SE_HAVE_CUDA)
  k.make_stepper = [storage](const MethodPlan& p, const Extent& e, const Boundary& b) {
    return make_cuda_core_tb_stepper(storage, p.stencil, e, b, p.fused_steps);
  };
#endif
  d->gpu = std::make_shared<GpuKernel>(std::move(k));
  return d;
}

} // namespace se
