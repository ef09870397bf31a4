// The method list as a whole (kernels/registry.hpp): every descriptor complete, every CPU run (the reference and
// each fragment-level emulation) against the FP64 reference on every preset it takes, plans handed down whole; the
// check of a long FP16 run on a shorter one (kernels/checked_run.hpp).
// The GPU registry has its own conformance test (tests/gpu/test_gpu_methods.cpp) where a device exists.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <set>
#include <string>

#include "core/error.hpp"
#include "core/error_bound.hpp"
#include "core/reference.hpp"
#include "kernels/checked_run.hpp"
#include "kernels/registry.hpp"
#include "kernels/spider/spider_gpu_tables.hpp"

using namespace se;

namespace {

Extent small_extent(int dims) {
  // Awkward sizes: not multiples of any method's tile, and larger than every preset's stencil.
  return dims == 1 ? parse_extent("97") : dims == 2 ? parse_extent("23x19") : parse_extent("11x9x8");
}

} // namespace

TEST_CASE("every descriptor in the list is whole and its id unique", "[methods]") {
  const auto& list = method_list();
  REQUIRE(list.size() >= 15);
  std::set<std::string> ids;
  for (const DescriptorPtr& d : list) {
    INFO(d->id);
    CHECK(ids.insert(d->id).second);
    CHECK_FALSE(d->name.empty());
    CHECK_FALSE(d->description.empty());
    CHECK(d->plan);
    CHECK(d->summary);
    CHECK((d->run_cpu || d->gpu)); // something runs it
    if (d->gpu) {
      CHECK(d->gpu->make_stepper);
      CHECK(d->gpu->run);
      CHECK(d->gpu->unavailable_reason);
    }
    for (const MethodViewStep& v : d->views) {
      CHECK_FALSE(v.view.empty());
      CHECK_FALSE(v.title.empty());
      CHECK_FALSE(v.caption.empty());
    }
  }
  CHECK(list.front()->id == "cpu-reference");
  CHECK_THROWS_WITH(find_descriptor(list, "warp-drive"), Catch::Contains("unknown method") && Catch::Contains("lorastencil"));
}

TEST_CASE("the variants list every CPU run, then every GPU kernel, each from its descriptor", "[methods]") {
  const std::vector<Method> methods = all_methods();
  bool seen_gpu = false;
  int cpu = 0, gpu = 0;
  for (const Method& m : methods) {
    INFO(m.id << " " << to_string(m.backend));
    REQUIRE(m.descriptor);
    CHECK(m.id == m.descriptor->id);
    CHECK(m.precision == m.descriptor->precision);
    if (m.backend == Backend::GPU) {
      seen_gpu = true;
      ++gpu;
    } else {
      CHECK_FALSE(seen_gpu); // CPU variants come first
      ++cpu;
    }
  }
  CHECK(cpu == 8);
  CHECK(gpu >= 8);
  CHECK(find_method(methods, "lorastencil", Backend::Emulate).backend == Backend::Emulate);
  CHECK_THROWS_WITH(find_method(methods, "cuda-core", Backend::Emulate), Catch::Contains("no emulate backend"));
  CHECK_THROWS_WITH(find_method(methods, "warp-drive"), Catch::Contains("unknown method"));
}

TEST_CASE("every CPU run in the list matches the FP64 reference on every preset it takes", "[methods][conformance]") {
  int runs = 0;
  for (const Method& m : all_methods()) {
    if (m.backend == Backend::GPU) continue;
    for (const std::string& name : preset_names()) {
      const Stencil s = preset(name);
      const Extent e = small_extent(s.dims);
      // The plan is built once and handed down; a method that cannot take the stencil says so through it.
      PlanPtr plan;
      try {
        plan = m.plan(s);
      } catch (const InputError& err) {
        INFO(m.id << " refuses " << name << ": " << err.what());
        CHECK(std::string(err.what()).size() > 10); // a reason a person can read
        continue;
      }
      REQUIRE(plan);
      CHECK(plan->method == m.id);
      CHECK(plan->stencil == s);
      CHECK(plan->target == m.backend);
      CHECK(plan->fused_steps >= 1);
      CHECK_FALSE(plan->brief.empty());
      CHECK(std::isfinite(plan->cost.global_bytes_per_point));
      CHECK(m.check(*plan, e).empty());
      for (const BoundaryKind b : {BoundaryKind::Dirichlet, BoundaryKind::Periodic}) {
        const int steps = 5; // several passes of every fusion depth the emulations take here, and a remainder
        MethodRun r{s, e, steps, Boundary{b, b == BoundaryKind::Dirichlet ? 0.25 : 0.0},
                    initial_values(e, InitialCondition::Random, 7), {}};
        const std::vector<double> initial = r.values;
        std::vector<double> want = r.values;
        ReferenceOptions o;
        o.boundary = r.boundary;
        reference_advance(s, e, want, steps, Precision::FP64, o);
        const MethodTiming t = m.run(*plan, r);
        INFO(m.id << " on " << name << " " << e.to_string() << ", " << to_string(b));
        CHECK(t.steps_done == steps);
        CHECK(t.fused_steps == plan->fused_steps);
        const ErrorMetrics err = compare(r.values, want);
        CHECK(err.finite);
        CHECK(err.rel_l2 <= error_bound(s, m.precision, steps, r.boundary, initial, want));
        ++runs;
      }
    }
  }
  CHECK(runs >= 100);
}

TEST_CASE("a run refuses another method's plan, and a plan reports the fusion asked for", "[methods]") {
  const std::vector<Method> methods = all_methods();
  const Method& lora = find_method(methods, "lorastencil", Backend::Emulate);
  const Method& conv = find_method(methods, "convstencil", Backend::Emulate);
  const Stencil s = preset("heat-2d");
  MethodRun r{s, parse_extent("20x20"), 2, {}, initial_values(parse_extent("20x20"), InitialCondition::Random, 1), {}};
  CHECK_THROWS_AS(conv.run(*lora.plan(s), r), std::logic_error);
  CHECK(lora.plan(s, 2)->fused_steps == 2);
  CHECK(conv.plan(s, 1)->fused_steps == 1);
  CHECK_THROWS_AS(find_method(methods, "tcstencil", Backend::Emulate).plan(s, 2), InputError); // TCStencil does not fuse
  // Plans of the GPU kernels are built without a device: the kernel's own tile for LoRAStencil.
  const Method& lora_gpu = find_method(methods, "lorastencil", Backend::GPU);
  const PlanPtr gp = lora_gpu.plan(s);
  CHECK(gp->target == Backend::GPU);
  CHECK(gp->cost.mma_shape.find("m16n8k4") != std::string::npos);
  CHECK(lora.plan(s)->cost.mma_shape.find("m8n8k4") != std::string::npos);
  CHECK_THAT(lora_gpu.model_beside(*gp, 500.0), Catch::Contains("predicts") && Catch::Contains("T=4"));
  const Method& cuda_core = find_method(methods, "cuda-core", Backend::GPU);
  CHECK_THAT(cuda_core.model_beside(*cuda_core.plan(s), 200.0), Catch::Contains("16.00 bytes") && Catch::Contains("3200 GB/s"));
}

// Core's plan decides SPIDER's block tile (the cost model counts its halo); the GPU kernels are compiled for theirs
// and make_tables refuses a plan whose geometry differs: every radius, 1D and 2D, both variants, both layouts.
TEST_CASE("SPIDER's GPU tables accept core's plan geometry, block tile included, at every radius", "[methods]") {
  for (int dims = 1; dims <= 2; ++dims)
    for (int r = 1; r <= 7; ++r)
      for (const SpiderVariant v : {SpiderVariant::Sparse, SpiderVariant::Dense}) {
        const Stencil s = make_stencil(dims, r, "ones");
        const SpiderPlan plan = spider_gpu::gpu_plan(s, v, false);
        INFO(dims << "D r " << r << " " << to_string(v));
        for (const bool tma : {false, true}) {
          const spider_gpu::Tables t = spider_gpu::make_tables(plan, tma);
          CHECK(t.g.block_x == plan.geometry.block_x);
          CHECK(t.g.block_y == plan.geometry.block_y);
          CHECK(plan.geometry.block_x % plan.geometry.tile_x == 0);
          CHECK(plan.geometry.block_y % plan.geometry.tile_y == 0);
        }
      }
}

TEST_CASE("SPIDER's GPU plan reports FP16 sums when asked for them, and the bound models them", "[methods][check]") {
  const std::vector<Method> methods = all_methods();
  const Method& spider = find_method(methods, "spider", Backend::GPU);
  const Stencil s = preset("box-2d225p");
  const PlanPtr fp32_sums = spider.plan(s);
  CHECK_FALSE(fp32_sums->accumulation.has_value());
  ::setenv("SE_SPIDER_ACCUMULATE", "fp16", 1);
  const PlanPtr fp16_sums = spider.plan(s);
  ::unsetenv("SE_SPIDER_ACCUMULATE");
  REQUIRE(fp16_sums->accumulation.has_value());
  CHECK(*fp16_sums->accumulation == Precision::FP16);
  CHECK_THAT(fp16_sums->brief, Catch::Contains("FP16 accumulation"));
  // 225 FP16 sums per point: their rounding (taps x u_acc x sum |w| per step) with u_acc = 2^-11, not 2^-24.
  CHECK(rounding_model(s, Precision::FP16, Precision::FP16).accumulation ==
        Approx(8192 * rounding_model(s, Precision::FP16).accumulation));
}

TEST_CASE("a long FP16 run is checked on a shorter run from the same input", "[methods][check]") {
  const std::vector<Method> methods = all_methods();
  const Method& spider = find_method(methods, "spider", Backend::Emulate);
  const Stencil s = preset("1d15p");
  const Extent e = parse_extent("1500");
  const Boundary b{};
  const PlanPtr plan = spider.plan(s);
  const std::vector<double> input = initial_values(e, InitialCondition::Random, 21);
  const int steps = 300;
  MethodRun run{s, e, steps, b, input, {}};
  spider.run(*plan, run);
  ReferenceCache references(s, e, b, input);
  const double limit = check_bound_limit(Precision::FP16);
  const RunCheck c = check_run(spider, *plan, e, b, input, run.values, steps, references);
  INFO("timed rel L2 " << c.timed.rel_l2 << " (bound " << c.timed_bound << "), check " << c.checked_steps
                       << " steps: rel L2 " << c.error.rel_l2 << " (bound " << c.bound << ")");
  CHECK(c.reference == "cpu-reference");
  CHECK(c.timed_bound > limit); // too loose to tell: a shorter run decides
  CHECK(c.timed.rel_l2 <= c.timed_bound);
  const ErrorBound bound(s, Precision::FP16, b, input);
  CHECK(c.checked_steps == check_steps(bound, steps, l2_norm(references.at(steps).values)));
  CHECK(c.checked_steps > 50);
  CHECK(c.checked_steps < steps);
  CHECK(c.bound <= limit);
  CHECK(c.error.rel_l2 <= c.bound);
  CHECK(c.passed);
  // A result off by 10% everywhere hides inside the long run's bound; the check run shows it.
  auto scaled = std::make_shared<MethodDescriptor>(*spider.descriptor);
  scaled->run_cpu = [inner = spider.descriptor->run_cpu](const MethodPlan& p, MethodRun& r) {
    const MethodTiming t = inner(p, r);
    for (double& v : r.values) v *= 1.1;
    return t;
  };
  const Method wrong = cpu_variant(scaled);
  MethodRun off{s, e, steps, b, input, {}};
  wrong.run(*plan, off);
  const RunCheck w = check_run(wrong, *plan, e, b, input, off.values, steps, references);
  CHECK(w.timed.rel_l2 <= w.timed_bound);
  CHECK(w.checked_steps == c.checked_steps);
  CHECK(w.error.rel_l2 > w.bound);
  CHECK_FALSE(w.passed);
  // A timed result that is not finite fails however its check run does.
  std::vector<double> broken = run.values;
  broken[7] = NAN;
  CHECK_FALSE(check_run(spider, *plan, e, b, input, broken, steps, references).passed);
  // A short run is its own check.
  MethodRun brief{s, e, 8, b, input, {}};
  spider.run(*plan, brief);
  const RunCheck own = check_run(spider, *plan, e, b, input, brief.values, 8, references);
  CHECK(own.checked_steps == 8);
  CHECK(own.bound == own.timed_bound);
  CHECK(own.passed);
}
