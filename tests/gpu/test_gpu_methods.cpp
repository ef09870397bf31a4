// Every registered GPU method against the FP64 CPU reference: presets and random stencils (symmetric and
// not, radius 0 to 7, 1D to 3D) on grids of awkward sizes, Dirichlet and periodic, one step and enough steps
// to cross a fused launch with a remainder. The outputs were poisoned with NaN, so a point a kernel fails to
// write fails the check.
#include <catch2/catch.hpp>

#include <random>

#include "core/error.hpp"
#include "core/error_bound.hpp"
#include "core/reference.hpp"
#include "kernels/common/grid_stepper.hpp"
#include "kernels/registry.hpp"

namespace {

using namespace se;

std::string random_name(int dims, int radius, bool symmetric) {
  return "random-" + std::to_string(dims) + "d-r" + std::to_string(radius) + (symmetric ? "-sym" : "-asym");
}

// Non-negative weights summing to 1 (a smoothing stencil: stable, FP16-safe, its signal never vanishes),
// with about a third of them zero. Symmetric ones depend only on the sorted |offsets|.
Stencil random_stencil(int dims, int radius, bool symmetric, std::mt19937_64& rng) {
  Stencil s = make_stencil(dims, radius, random_name(dims, radius, symmetric));
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for_each_offset(s, [&](int dx, int dy, int dz) {
    if (s.at(dx, dy, dz) != 0.0) return; // already set through symmetry
    const double w = u(rng) < 0.33 ? 0.0 : u(rng);
    if (symmetric)
      for (const auto& p : symmetric_positions(dims, dx, dy, dz)) s.at(p[0], p[1], p[2]) = w;
    else
      s.at(dx, dy, dz) = w;
  });
  s.at(0, 0, 0) += 0.5; // never all zero
  return normalized(s);
}

struct Case {
  Stencil stencil;
  Extent extent;
};

Extent awkward_extent(int dims, int radius, int salt) {
  Extent e;
  e.dims = dims;
  const int side = 2 * radius + 1;
  const std::int64_t extra[3][3] = {{1013, 0, 0}, {37, 23, 0}, {9, 6, 4}};
  for (int d = 0; d < dims; ++d) e.n[d] = side + extra[dims - 1][d] + (salt * 7 + d * 3) % 11;
  return e;
}

std::vector<Case> cases() {
  std::vector<Case> out;
  int salt = 0;
  for (const auto& name : preset_names()) {
    const Stencil s = preset(name);
    out.push_back({s, awkward_extent(s.dims, s.radius, ++salt)});
  }
  std::mt19937_64 rng(4242);
  const std::vector<std::vector<int>> radii = {{0, 1, 3, 7}, {0, 2, 4, 7}, {1, 2, 5}};
  for (int dims = 1; dims <= 3; ++dims)
    for (const int r : radii[static_cast<std::size_t>(dims - 1)])
      for (const bool symmetric : {true, false})
        out.push_back({random_stencil(dims, r, symmetric, rng), awkward_extent(dims, r, ++salt)});
  return out;
}

std::vector<Method> gpu_methods() {
  std::vector<Method> out;
  for (const Method& m : all_methods())
    if (m.backend == Backend::GPU) out.push_back(m);
  return out;
}

std::vector<double> reference_after(const Stencil& s, const Extent& e, std::vector<double> v, int steps, const Boundary& b) {
  ReferenceOptions opt;
  opt.boundary = b;
  reference_advance(s, e, v, steps, Precision::FP64, opt);
  return v;
}

} // namespace

TEST_CASE("every registered GPU method matches the FP64 reference on awkward grids and both boundaries") {
  const std::vector<Method> methods = gpu_methods();
  REQUIRE(methods.size() >= 8);
  const std::vector<Case> all = cases();
  std::uint64_t seed = 1;
  for (const Method& m : methods) {
    if (const std::string why = m.unavailable_reason(); !why.empty()) {
      WARN(m.id << " not checked here: " << why);
      continue;
    }
    int runs = 0;
    for (const auto& c : all) {
      PlanPtr plan; // built once per stencil, handed to every run of it
      try {
        plan = m.plan(c.stencil);
      } catch (const InputError&) {
        continue;
      }
      if (!m.check(*plan, c.extent).empty()) continue;
      for (const BoundaryKind kind : {BoundaryKind::Dirichlet, BoundaryKind::Periodic})
        for (const int steps : {1, 2 * plan->fused_steps + 1}) {
          MethodRun r;
          r.stencil = c.stencil;
          r.extent = c.extent;
          r.steps = steps;
          r.boundary.kind = kind;
          r.values = initial_values(c.extent, InitialCondition::Random, ++seed);
          const std::vector<double> initial = r.values;
          const std::vector<double> ref = reference_after(c.stencil, c.extent, r.values, steps, r.boundary);
          const MethodTiming t = m.run(*plan, r);
          const ErrorMetrics err = compare(r.values, ref);
          INFO(m.id << " " << c.stencil.name << " " << c.extent.to_string() << " " << to_string(kind) << " "
                    << steps << " steps: rel L2 " << err.rel_l2 << ", max abs " << err.max_abs << ", fused "
                    << t.fused_steps << ", passes " << t.passes);
          CHECK(err.finite);
          CHECK(err.rel_l2 <= error_bound(c.stencil, m.precision, steps, r.boundary, initial, ref));
          CHECK(t.steps_done == steps);
          CHECK(t.seconds > 0.0);
          CHECK_FALSE(t.passes.empty());
          ++runs;
        }
    }
    INFO(m.id);
    CHECK(runs >= 40); // every method takes most of the cases
  }
}

TEST_CASE("fused methods report the steps one launch advances and the passes they ran") {
  const std::vector<Method> methods = gpu_methods();
  const auto timing_of = [&](const std::string& id, BoundaryKind kind, const Stencil& s, const Extent& e) {
    const Method& m = find_method(methods, id, Backend::GPU);
    MethodRun r;
    r.stencil = s;
    r.extent = e;
    r.steps = 9;
    r.boundary.kind = kind;
    r.values = initial_values(e, InitialCondition::Random, 5);
    return m.run(*m.plan(s), r);
  };
  const Extent e2 = parse_extent("100x70");
  CHECK(timing_of("cuda-core", BoundaryKind::Dirichlet, preset("heat-2d"), e2).fused_steps == 1);
  CHECK(timing_of("cuda-core", BoundaryKind::Dirichlet, preset("heat-2d"), e2).passes == "9 x T=1");
  // cuda-core-tb's model fuses 6 steps of heat-2d in FP64 (core/temporal_blocking_model.hpp).
  CHECK(timing_of("cuda-core-tb", BoundaryKind::Dirichlet, preset("heat-2d"), e2).fused_steps == 6);
  CHECK(timing_of("cuda-core-tb", BoundaryKind::Dirichlet, preset("heat-2d"), e2).passes == "1 x T=6, 1 x T=3");
  CHECK(timing_of("cuda-core-tb", BoundaryKind::Periodic, preset("box-3d27p"), parse_extent("30x20x18")).fused_steps == 2);
  // With a progress callback (the CLI's bar, the app's runs) the run is cut into chunks; each chunk but the last is
  // whole passes, so the chunks change no kernel: 16 steps were once 16 chunks of one step, all at depth 1.
  const auto chunked = [&](const std::string& id, const Stencil& s, const Extent& e, int steps) {
    const Method& m = find_method(methods, id, Backend::GPU);
    MethodRun r;
    r.stencil = s;
    r.extent = e;
    r.steps = steps;
    r.values = initial_values(e, InitialCondition::Random, 6);
    int calls = 0;
    r.progress = [&calls](int, int) { return ++calls > 0; };
    const MethodTiming t = m.run(*m.plan(s), r);
    CHECK(calls >= 1);
    CHECK(t.steps_done == steps);
    return t.passes;
  };
  CHECK(chunked("cuda-core-tb", preset("box-3d27p"), parse_extent("30x20x18"), 16) == "8 x T=2");
  CHECK(chunked("cuda-core-tb", preset("heat-2d"), e2, 48) == "8 x T=6");
  CHECK(chunked("cuda-core-tb", preset("heat-2d"), e2, 9) == "1 x T=6, 1 x T=3");
  // LoRAStencil fuses 4 steps of heat-2d and ends 9 steps in the cost model's cheapest passes.
  const MethodTiming lora = timing_of("lorastencil", BoundaryKind::Dirichlet, preset("heat-2d"), e2);
  CHECK(lora.fused_steps == 4);
  CHECK_THAT(lora.passes, Catch::StartsWith("1 x T=4"));
  if (find_method(methods, "cufft", Backend::GPU).unavailable_reason().empty()) {
    CHECK(timing_of("cufft", BoundaryKind::Periodic, preset("heat-2d"), e2).fused_steps == 6);
    CHECK(timing_of("cufft", BoundaryKind::Dirichlet, preset("heat-2d"), e2).fused_steps == 1);
  }
}

// New weights on a running device grid (the live view's weight edits): every GPU method either takes the new
// plan in place, keeping the values on the device, or declines (a wider halo) without changing anything.
TEST_CASE("set_stencil swaps the weights of a running device grid in place") {
  const Stencil a = preset("box-2d9p");
  Stencil b = a; // the same shape, other weights (as a dragged weight makes them)
  b.at(1, 1) = b.at(-1, -1) = b.at(1, -1) = b.at(-1, 1) = 0.02;
  b = normalized(b);
  const Extent e = parse_extent("61x47");
  for (const Method& m : gpu_methods()) {
    if (!m.unavailable_reason().empty()) continue;
    PlanPtr pa, pb;
    try {
      pa = m.plan(a);
      pb = m.plan(b);
    } catch (const InputError&) {
      continue;
    }
    for (const BoundaryKind kind : {BoundaryKind::Dirichlet, BoundaryKind::Periodic}) {
      const Boundary boundary{kind, 0.0};
      INFO(m.id << " " << to_string(kind));
      const std::vector<double> initial = initial_values(e, InitialCondition::Random, 11);
      auto stepper = make_gpu_stepper(m, *pa, e, boundary);
      stepper->upload(initial);
      stepper->advance(3);
      // Each stencil's steps against the reference from where they started, within that stencil's bound.
      std::vector<double> middle(initial.size());
      stepper->download(middle);
      const std::vector<double> want_a = reference_after(a, e, initial, 3, boundary);
      CHECK(compare(middle, want_a).rel_l2 <= error_bound(a, m.precision, 3, boundary, initial, want_a));
      REQUIRE(stepper->set_stencil(*pb)); // the same radius: every method keeps its grid
      stepper->advance(5);
      std::vector<double> got(initial.size());
      stepper->download(got);
      const std::vector<double> want = reference_after(b, e, middle, 5, boundary);
      const ErrorMetrics err = compare(got, want);
      INFO("rel L2 " << err.rel_l2);
      CHECK(err.rel_l2 <= error_bound(b, m.precision, 5, boundary, middle, want));
      // A radius the grid was not laid out for is declined or taken, never half-done.
      const Stencil wide = preset("box-2d25p");
      PlanPtr pw;
      try {
        pw = m.plan(wide);
      } catch (const InputError&) {
        continue;
      }
      stepper->download(got);
      if (stepper->set_stencil(*pw)) {
        stepper->advance(2);
        std::vector<double> after(initial.size());
        stepper->download(after);
        const std::vector<double> want_wide = reference_after(wide, e, got, 2, boundary);
        CHECK(compare(after, want_wide).rel_l2 <= error_bound(wide, m.precision, 2, boundary, got, want_wide));
      } else {
        std::vector<double> same(initial.size());
        stepper->download(same);
        CHECK(same == got);
      }
    }
  }
}
