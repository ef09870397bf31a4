#include "kernels/spider/spider_gpu_method.hpp"

#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/spider/spider_cost.hpp"
#include "kernels/registry.hpp"
#include "kernels/spider/spider_gpu_tables.hpp"

#if defined(SE_HAVE_CUDA)
#include "kernels/spider/spider_stepper.hpp"
#endif

namespace se {
namespace {

bool accumulate_fp16_requested() {
  const char* v = std::getenv("SE_SPIDER_ACCUMULATE");
  if (v == nullptr || *v == '\0' || std::strcmp(v, "fp32") == 0) return false;
  if (std::strcmp(v, "fp16") == 0) return true;
  throw InputError(fmt::format("SE_SPIDER_ACCUMULATE is '{}'; it takes fp32 (the default) or fp16", v));
}

} // namespace

GpuKernel spider_gpu_kernel(SpiderVariant variant) {
  const bool sparse = variant == SpiderVariant::Sparse;
  GpuKernel k;
  k.description =
      sparse ? "SPIDER on sparse tensor cores: kernel rows as L x 2L bands (L = 2r+2), strided swap of column pairs "
               "to 2:4, mma.sp.m16n8k16 FP16 with packed metadata (radius 4-7: a shift's two K chunks as one "
               "mma.sp.m16n8k32) and the A fragments in registers, the input row swap folded into the shared-memory "
               "offsets; FP32 accumulation (SE_SPIDER_ACCUMULATE=fp16: FP16)"
             : "SPIDER's dense ablation: the same bands, tiles and loads unswapped on mma.m16n8k16 FP16; FP32 "
               "accumulation (SE_SPIDER_ACCUMULATE=fp16: FP16)";
  k.unavailable_reason = gpu_unavailable_reason;
  k.plan = [variant](const Stencil& s, const PlanRequest& request) -> PlanPtr {
    const std::string id(to_string(variant));
    check_unfused(id, request);
    if (s.dims == 3)
      throw InputError(fmt::format("SPIDER transforms 1D and 2D stencils only; '{}' is 3D", s.name));
    auto p = wrap_plan(id, s, request, spider_gpu::gpu_plan(s, variant, accumulate_fp16_requested()));
    const SpiderPlan& sp = p->value;
    (void)spider_gpu::make_tables(sp); // the kernels' geometry and B pairing hold for this plan
    p->cost = spider_cost(sp);
    if (sp.options.accumulate_fp16) p->accumulation = Precision::FP16;
    p->brief = fmt::format("{} kernel rows as {} x {} bands, {} {} per warp tile of {} x {}, FP16 operands, {} "
                           "accumulation",
                           sp.rows.size(), sp.geometry.L, sp.geometry.band_cols,
                           spider_gpu::geometry(sp.geometry.dims, sp.geometry.radius).nmma,
                           variant == SpiderVariant::Sparse ? "mma.sp" : "mma", sp.geometry.tile_x, sp.geometry.tile_y,
                           sp.options.accumulate_fp16 ? "FP16" : "FP32");
    return p;
  };
#if defined(SE_HAVE_CUDA)
  k.make_stepper = [](const MethodPlan& p, const Extent& e, const Boundary& b) -> std::unique_ptr<GridStepper> {
    return make_spider_stepper(plan_value<SpiderPlan>(p), e, b);
  };
#endif
  return k;
}

} // namespace se
