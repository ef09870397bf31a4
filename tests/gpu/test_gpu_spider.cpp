// SPIDER's GPU kernels (spider: mma.sp 2:4; spider-dense: mma): every radius 1..7, 1D and 2D, box, star and
// arbitrary weights, against the FP64 reference within the FP16 bound and against core's emulation of the very
// plan the kernel runs (to one FP16 ulp: the tensor cores add their FP32 products in their own order); FP16
// accumulation; the FP16 range refusal; the presets box-2d225p and 1d15p.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <random>
#include <string>

#include "core/error.hpp"
#include "core/error_bound.hpp"
#include "core/half.hpp"
#include "core/reference.hpp"
#include "core/spider/spider_emulation.hpp"
#include "kernels/common/grid_stepper.hpp"
#include "kernels/registry.hpp"
#include "kernels/spider/spider_gpu_method.hpp"
#include "kernels/spider/spider_gpu_tables.hpp"

namespace {

using namespace se;

const char* const kShapes[] = {"box", "star", "arbitrary"};

Stencil shaped(int dims, int r, int shape, std::mt19937_64& rng) {
  Stencil s = make_stencil(dims, r, std::string(kShapes[shape]) + "-" + std::to_string(dims) + "d-r" + std::to_string(r));
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for_each_offset(s, [&](int dx, int dy, int) {
    const double d = 1.0 / (1.0 + dx * dx + dy * dy);
    double w = d;
    if (shape == 1) w = (dx == 0 || dy == 0) ? d : 0.0;
    if (shape == 2) w = u(rng) < 0.3 ? 0.0 : u(rng); // no symmetry, about a third zero
    s.at(dx, dy) = w;
  });
  s.at(0, 0) += 0.25;
  return normalized(s);
}

Extent extent_for(int dims, int r, int salt) {
  Extent e;
  e.dims = dims;
  if (dims == 1) e.n[0] = 5000 + 37 * r + salt; // several blocks, a partial last one
  else {
    e.n[0] = 150 + 7 * r + salt;
    e.n[1] = 90 + 5 * r + salt;
  }
  return e;
}

std::vector<double> reference_after(const Stencil& s, const Extent& e, std::vector<double> v, int steps,
                                    const Boundary& b) {
  ReferenceOptions opt;
  opt.boundary = b;
  reference_advance(s, e, v, steps, Precision::FP64, opt);
  return v;
}

std::vector<double> gpu_after(const SpiderPlan& plan, const Stencil& s, const Extent& e, const std::vector<double>& v,
                              int steps, const Boundary& b) {
  auto p = wrap_plan(std::string(to_string(plan.options.variant)), s, PlanRequest{Backend::GPU, 0}, plan);
  static const std::vector<Method> methods = all_methods();
  const Method& m = find_method(methods, p->method, Backend::GPU);
  auto stepper = make_gpu_stepper(m, *p, e, b);
  stepper->upload(v);
  stepper->advance(steps);
  std::vector<double> out(v.size());
  stepper->download(out);
  return out;
}

// The largest difference in FP16 ulps (of the larger magnitude) between two FP16-valued grids.
double worst_ulps(const std::vector<double>& a, const std::vector<double>& b) {
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!std::isfinite(a[i]) || !std::isfinite(b[i])) return 1e9;
    const double mag = std::max(std::abs(a[i]), std::abs(b[i]));
    const double ulp = mag < 6.103515625e-05 ? std::ldexp(1.0, -24) : std::ldexp(1.0, std::ilogb(mag) - 10);
    worst = std::max(worst, std::abs(a[i] - b[i]) / ulp);
  }
  return worst;
}

} // namespace

TEST_CASE("spider GPU kernels: every radius, 1D and 2D, box, star and arbitrary, both boundaries", "[spider-gpu]") {
  std::mt19937_64 rng(12);
  std::uint64_t seed = 100;
  int runs = 0;
  for (const SpiderVariant variant : {SpiderVariant::Sparse, SpiderVariant::Dense})
    for (int dims = 1; dims <= 2; ++dims)
      for (int r = 1; r <= 7; ++r)
        for (int shape = 0; shape < (dims == 1 ? 1 : 3); ++shape) // 1D: one row, box and star are the same
          for (const BoundaryKind kind : {BoundaryKind::Dirichlet, BoundaryKind::Periodic}) {
            const Stencil s = dims == 1 && shape == 0 && r % 2 == 0 ? shaped(1, r, 2, rng) : shaped(dims, r, shape, rng);
            const Extent e = extent_for(dims, r, static_cast<int>(seed % 13));
            const Boundary b{kind, kind == BoundaryKind::Dirichlet ? 0.125 : 0.0};
            const SpiderPlan plan = spider_gpu::gpu_plan(s, variant, false);
            const std::vector<double> v = initial_values(e, InitialCondition::Random, ++seed);
            for (const int steps : {1, 3}) {
              const std::vector<double> got = gpu_after(plan, s, e, v, steps, b);
              const std::vector<double> want = reference_after(s, e, v, steps, b);
              const ErrorMetrics err = compare(got, want);
              INFO(to_string(variant) << " " << s.name << " " << e.to_string() << " " << to_string(kind) << " "
                                      << steps << " steps: rel L2 " << err.rel_l2 << ", max abs " << err.max_abs);
              CHECK(err.finite);
              CHECK(err.rel_l2 <= error_bound(s, Precision::FP16, steps, b, v, want));
              if (steps == 1) { // core's emulation of the same plan: one FP16 rounding apart at most
                std::vector<double> emulated = v;
                spider_advance(plan, e, emulated, steps, b);
                CHECK(worst_ulps(got, emulated) <= 1.0);
              }
              ++runs;
            }
          }
  CHECK(runs == 2 * (7 + 7 * 3) * 2 * 2);
}

// The 2D kernels load their tiles as TMA boxes on sm_90 and the 1D kernels as
// one bulk copy per tile (double-buffered, from x = bx0 - 8, the row stride a multiple of 8 halves), and with the
// register loader elsewhere or with SE_SPIDER_TMA=0: the same MMAs on the same values, so the grids agree exactly.
// Both grids have more block tiles than resident blocks: blocks run two or more tiles, both buffers, and the last
// tiles are partial (in 1D the last one's copy is cut at the padded row's end).
TEST_CASE("spider GPU kernels give the same grid with TMA tiles and the register loader", "[spider-gpu]") {
  std::mt19937_64 rng(41);
  for (const int dims : {2, 1})
    for (const SpiderVariant variant : {SpiderVariant::Sparse, SpiderVariant::Dense})
      for (int r = 1; r <= 7; ++r)
        for (const BoundaryKind kind : {BoundaryKind::Dirichlet, BoundaryKind::Periodic}) {
          Extent e;
          e.dims = dims;
          e.n[0] = dims == 2 ? 3000 : 4'000'003 + 2 * r;
          e.n[1] = dims == 2 ? 1500 : 1;
          const Stencil s = dims == 2 ? shaped(2, r, (r - 1) % 3, rng) : shaped(1, r, 0, rng);
          const Boundary b{kind, 0.25};
          const SpiderPlan plan = spider_gpu::gpu_plan(s, variant, false);
          const std::vector<double> v = initial_values(e, InitialCondition::Random, 7 + r);
          ::setenv("SE_SPIDER_TMA", "1", 1);
          const std::vector<double> tma = gpu_after(plan, s, e, v, 3, b);
          ::setenv("SE_SPIDER_TMA", "0", 1);
          const std::vector<double> loader = gpu_after(plan, s, e, v, 3, b);
          ::unsetenv("SE_SPIDER_TMA");
          std::size_t differ = 0;
          for (std::size_t i = 0; i < v.size(); ++i) differ += tma[i] == loader[i] ? 0 : 1;
          INFO(dims << "D " << to_string(variant) << " " << s.name << " r" << r << " " << to_string(kind) << ": "
                    << differ << " differ");
          CHECK(differ == 0);
          CHECK(compare(tma, loader).finite);
        }
}

TEST_CASE("spider GPU kernels accumulate in FP16 on request, within the FP16 bound", "[spider-gpu]") {
  std::mt19937_64 rng(5);
  for (const SpiderVariant variant : {SpiderVariant::Sparse, SpiderVariant::Dense})
    for (const int dims : {1, 2})
      for (const int r : {1, 4, 7}) {
        const Stencil s = shaped(dims, r, 2, rng);
        const Extent e = extent_for(dims, r, 3);
        const Boundary b{BoundaryKind::Periodic, 0.0};
        const std::vector<double> v = initial_values(e, InitialCondition::Random, 9);
        const SpiderPlan plan = spider_gpu::gpu_plan(s, variant, true);
        const std::vector<double> got = gpu_after(plan, s, e, v, 2, b);
        const std::vector<double> want = reference_after(s, e, v, 2, b);
        const ErrorMetrics err = compare(got, want);
        const ErrorMetrics fp32 = compare(gpu_after(spider_gpu::gpu_plan(s, variant, false), s, e, v, 2, b), want);
        INFO(to_string(variant) << " " << s.name << ": FP16 accumulation rel L2 " << err.rel_l2 << ", FP32 "
                                << fp32.rel_l2);
        CHECK(err.finite);
        CHECK(err.rel_l2 <= error_bound(s, Precision::FP16, 2, b, v, want, Precision::FP16)); // FP16 sums
      }
}

TEST_CASE("spider GPU runs refuse inputs that would overflow FP16 and run the paper's presets", "[spider-gpu]") {
  const std::vector<Method> methods = all_methods();
  for (const std::string id : {"spider", "spider-dense"}) {
    const Method& m = find_method(methods, id, Backend::GPU);
    MethodRun r;
    r.stencil = preset("box-2d225p");
    r.extent = parse_extent("300x200");
    r.steps = 2;
    r.values = initial_values(r.extent, InitialCondition::Random, 3);
    for (double& x : r.values) x *= 1e5;
    CHECK_THROWS_AS(m.run(*m.plan(r.stencil), r), InputError);
    for (const std::string name : {"box-2d225p", "1d15p"}) {
      MethodRun ok;
      ok.stencil = preset(name);
      ok.extent = parse_extent(ok.stencil.dims == 1 ? "100003" : "517x300");
      ok.steps = 4;
      ok.values = initial_values(ok.extent, InitialCondition::Random, 4);
      const std::vector<double> initial = ok.values;
      const std::vector<double> ref = reference_after(ok.stencil, ok.extent, ok.values, 4, ok.boundary);
      m.run(*m.plan(ok.stencil), ok);
      const ErrorMetrics err = compare(ok.values, ref);
      INFO(id << " " << name << " rel L2 " << err.rel_l2);
      CHECK(err.rel_l2 <= error_bound(ok.stencil, Precision::FP16, 4, ok.boundary, initial, ref));
    }
  }
}

TEST_CASE("spider GPU tables: the pair swap is 2:4 and every radius has aligned B pairs", "[spider-gpu]") {
  for (int dims = 1; dims <= 2; ++dims)
    for (int r = 1; r <= 7; ++r) {
      const Stencil s = make_stencil(dims, r, "ones");
      Stencil ones = s;
      for_each_offset(ones, [&](int dx, int dy, int) { ones.at(dx, dy) = 1.0 / 225; });
      const SpiderPlan plan = spider_gpu::gpu_plan(ones, SpiderVariant::Sparse, false);
      CHECK(plan.all_2to4());
      const spider_gpu::Tables t = spider_gpu::make_tables(plan);
      INFO(dims << "D r " << r << ": row stride " << t.sw << ", bank ways " << t.bank_conflict_ways);
      CHECK(t.shared_bytes() <= 48 * 1024);
      // TMA tiles: 2D radius 1..3 (two kernel-row parts) split their rows so that the B loads meet 32 banks.
      const spider_gpu::Tables tt = spider_gpu::make_tables(plan, true);
      INFO("TMA tiles: row stride " << tt.sw << ", bank ways " << tt.bank_conflict_ways);
      CHECK(tt.split == (dims == 2 && r <= 3));
      if (tt.split && r == 1) CHECK(tt.bank_conflict_ways == 2); // both B loads of a shift conflict-free
      // Radius 4..7 (both variants): interleaved strips, the tile in 8 row classes, the outputs through the block
      // tile.
      for (const SpiderVariant variant : {SpiderVariant::Sparse, SpiderVariant::Dense}) {
        const spider_gpu::Tables v = spider_gpu::make_tables(spider_gpu::gpu_plan(ones, variant, false), true);
        CHECK(v.classes == (v.split ? 2 : dims == 2 && r >= 4 ? 8 : 1));
        CHECK(v.block == (dims == 2 && (r == 1 || r == 3 || r >= 4)));
        CHECK(v.shared_bytes() <= 227 * 1024 / 2); // two blocks per SM where the registers allow
      }
      if (tt.tma) CHECK(tt.sw % 8 == 0);
      // Radius 3 and 7 take core's lane order (sparse, and dense in 2D): one 64- or 128-bit B load per shift, in as
      // few wavefronts as its bytes need (no bank conflict), with and without TMA tiles.
      for (const SpiderVariant variant : {SpiderVariant::Sparse, SpiderVariant::Dense}) {
        const bool sparse = variant == SpiderVariant::Sparse;
        const bool wide = (r == 3 || r == 7) && (sparse || dims == 2);
        const SpiderPlan p = spider_gpu::gpu_plan(ones, variant, false);
        INFO(to_string(variant));
        CHECK(p.options.parity == (wide ? SwapParity::Lanes : SwapParity::Pairs));
        for (const bool tma : {false, true}) {
          const spider_gpu::Tables w = spider_gpu::make_tables(p, tma);
          CHECK(w.bvec == (wide ? 2 * w.g.kc : 1));
          if (!wide) continue;
          CHECK(w.bank_conflict_ways == 2 * w.g.kc);
          if (dims == 2) CHECK(w.sw % 8 == 0); // rows of whole 16-byte units (1D: one row)
        }
      }
    }
}

// Small grids for compute-sanitizer (memcheck, racecheck): every radius, 1D and 2D, both variants, both boundaries,
// grids that end in partial block tiles.
TEST_CASE("spider GPU kernels on small grids, every radius (for the sanitizers)", "[spider-gpu-small]") {
  std::mt19937_64 rng(77);
  for (const SpiderVariant variant : {SpiderVariant::Sparse, SpiderVariant::Dense})
    for (int dims = 1; dims <= 2; ++dims)
      for (int r = 1; r <= 7; ++r)
        for (const BoundaryKind kind : {BoundaryKind::Dirichlet, BoundaryKind::Periodic}) {
          const Stencil s = shaped(dims, r, 2, rng);
          Extent e;
          e.dims = dims;
          e.n[0] = dims == 1 ? 700 + r : 40 + 3 * r;
          if (dims == 2) e.n[1] = 30 + 5 * r;
          const Boundary b{kind, 0.25};
          const std::vector<double> v = initial_values(e, InitialCondition::Random, 31);
          const std::vector<double> got = gpu_after(spider_gpu::gpu_plan(s, variant, false), s, e, v, 2, b);
          const std::vector<double> want = reference_after(s, e, v, 2, b);
          const ErrorMetrics err = compare(got, want);
          INFO(to_string(variant) << " " << s.name << " " << e.to_string() << " rel L2 " << err.rel_l2);
          CHECK(err.rel_l2 <= error_bound(s, Precision::FP16, 2, b, v, want));
        }
}
