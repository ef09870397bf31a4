// SPIDER's plan summary and descriptors.
#include "core/spider/spider_method.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/spider/spider_cost.hpp"
#include "core/spider/spider_emulation.hpp"

namespace se {

PlanSummary spider_summary(const SpiderPlan& plan, const Extent& extent) {
  check_extent_fits_stencil(extent, plan.stencil);
  PlanSummary s;
  s.method = std::string(to_string(plan.options.variant));
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

PlanSummary plan_summary_spider(const Stencil& stencil, const Extent& extent) {
  return spider_summary(make_spider_plan(stencil, {SpiderVariant::Sparse, SwapParity::Odd}), extent);
}
PlanSummary plan_summary_spider_dense(const Stencil& stencil, const Extent& extent) {
  return spider_summary(make_spider_plan(stencil, {SpiderVariant::Dense, SwapParity::Odd}), extent);
}

namespace {

DescriptorPtr descriptor(SpiderVariant variant) {
  const bool sparse = variant == SpiderVariant::Sparse;
  auto d = make_descriptor(std::string(to_string(variant)), sparse ? "SPIDER" : "SPIDER (dense ablation)", "Gu et al.",
                           Precision::FP16,
                           sparse ? "SPIDER on the CPU: kernel rows as L x (2r+L) bands, strided column swap to 2:4, "
                                    "mma.sp.m16n8k16 FP16 -> FP32 with packed metadata, FP16 grid"
                                  : "SPIDER's dense ablation on the CPU: the same bands unswapped on mma.m16n8k16 FP16 "
                                    "-> FP32");
  d->tensor_cores = true; // its arithmetic runs on MMAs (the Baselines view sorts by it)
  d->plan = [id = d->id, variant](const Stencil& s, const PlanRequest& request) -> PlanPtr {
    check_unfused(id, request);
    auto p = wrap_plan(id, s, request, make_spider_plan(s, {variant, SwapParity::Odd}));
    const SpiderPlan& sp = p->value;
    p->cost = spider_cost(sp);
    p->brief = fmt::format("{} kernel rows as {} x {} bands (L = {}), {} MMAs per warp tile of {} x {}", sp.rows.size(),
                           sp.geometry.L, sp.geometry.band_cols, sp.geometry.L, sp.mmas.size(), sp.geometry.tile_x,
                           sp.geometry.tile_y);
    return p;
  };
  use_plan_type<SpiderPlan>(*d, spider_summary, spider_advance);
  if (sparse) {
    d->views.push_back({"sparse24", "", "SPIDER: a kernel row made 2:4-sparse",
                        "A kernel row becomes an L×(2r+L) band with L = 2r+2, so half of it is zero. Swapping the even "
                        "(0-based) columns j and j+L, as Section 3.2's offsets read, leaves at most two non-zeros in "
                        "every group of four: the sparse tensor cores keep those two values and their 2-bit positions, "
                        "and the input rows are swapped to match.",
                        1, {true, true, false}, ""}); // kernel rows of a 1D or 2D stencil
    d->views.push_back({"table2", "", "SPIDER Table 2: what one point update costs",
                        "Per updated point, the multiply-adds, input loads and weight loads of each tensor-core method "
                        "against the lower bound: the paper's numbers beside the ones our plans count, and why they "
                        "differ. SPIDER's 2:4 swap stops the tensor cores multiplying half the band's zeros.",
                        1, {true, true, true}, ""});
    d->compare_rank = 1;
  }
  return d;
}

} // namespace

DescriptorPtr spider_descriptor() { return descriptor(SpiderVariant::Sparse); }
DescriptorPtr spider_dense_descriptor() { return descriptor(SpiderVariant::Dense); }

} // namespace se
