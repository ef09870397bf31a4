#include "core/spider/spider_method.hpp"

#include <chrono>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/spider/spider_cost.hpp"
#include "core/spider/spider_emulation.hpp"

namespace se {

namespace {

PlanSummary summary(const Stencil& stencil, const Extent& extent, SpiderVariant variant) {
  check_extent_fits_stencil(extent, stencil);
  const SpiderPlan plan = make_spider_plan(stencil, {variant, SwapParity::Odd});
  PlanSummary s;
  s.method = std::string(to_string(variant));
  s.cost = spider_cost(plan);
  const SpiderGeometry& g = plan.geometry;
  s.text = to_string(plan) +
           fmt::format("\ngrid {}: {} warp tiles of {} x {} per step\n\n", extent.to_string(),
                       ((extent.n[0] + g.tile_x - 1) / g.tile_x) * ((extent.n[1] + g.tile_y - 1) / g.tile_y), g.tile_x,
                       g.tile_y) +
           to_string(s.cost);
  s.json = to_json(plan);
  s.json["extent"] = extent.to_string();
  s.json["cost"] = to_json(s.cost);
  return s;
}

Method emulation_method(SpiderVariant variant) {
  const bool sparse = variant == SpiderVariant::Sparse;
  Method m;
  m.id = std::string(to_string(variant));
  m.backend = Backend::Emulate;
  m.precision = Precision::FP16;
  m.description = sparse ? "SPIDER on the CPU: kernel rows as L x (2r+L) bands, strided column swap to 2:4, "
                           "mma.sp.m16n8k16 FP16 -> FP32 with packed metadata, FP16 grid"
                         : "SPIDER's dense ablation on the CPU: the same bands unswapped on mma.m16n8k16 FP16 -> FP32";
  m.unsupported_reason = [variant](const Stencil& stencil, const Extent& extent) {
    try {
      check_extent_fits_stencil(extent, stencil);
      make_spider_plan(stencil, {variant, SwapParity::Odd});
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  m.unavailable_reason = [] { return std::string(); };
  m.run = [variant](MethodRun& r) {
    check_extent_fits_stencil(r.extent, r.stencil);
    const SpiderPlan plan = make_spider_plan(r.stencil, {variant, SwapParity::Odd});
    const auto t0 = std::chrono::steady_clock::now();
    const SpiderRunCounts counts = spider_advance(plan, r.extent, r.values, r.steps, r.boundary, r.progress);
    MethodTiming t;
    t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    t.steps_done = counts.steps_done;
    return t;
  };
  return m;
}

} // namespace

PlanSummary plan_summary_spider(const Stencil& stencil, const Extent& extent) {
  return summary(stencil, extent, SpiderVariant::Sparse);
}
PlanSummary plan_summary_spider_dense(const Stencil& stencil, const Extent& extent) {
  return summary(stencil, extent, SpiderVariant::Dense);
}

Method spider_emulation_method() { return emulation_method(SpiderVariant::Sparse); }
Method spider_dense_emulation_method() { return emulation_method(SpiderVariant::Dense); }

} // namespace se
