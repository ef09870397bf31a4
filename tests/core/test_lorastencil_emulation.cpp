// The fragment-level LoRAStencil emulation against the FP64 reference: every preset, random symmetric and
// non-symmetric stencils, 1D/2D/3D, both boundaries, sizes that are not multiples of the tile, every FP64
// shape, fused passes with a remainder; and the Method entry.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "core/error.hpp"
#include "core/error_bound.hpp"
#include "core/lorastencil/lorastencil_method.hpp"
#include "core/lorastencil/lorastencil_emulation.hpp"
#include "core/reference.hpp"

using namespace se;

namespace {

// FP64 throughout (mma_f64 is an fma chain): the least FP64 bound, 1e-12 relative L2, which these runs (a few
// passes, or 100 steps of heat-2d) keep under (core/error_bound.hpp).
const double kBound = error_bound_floor(Precision::FP64);

Extent awkward_extent(int dims, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Extent e;
  e.dims = dims;
  const int lo[] = {70, 17, 9}, hi[] = {150, 30, 13}; // never whole tiles: see the CHECK below
  std::uniform_int_distribution<int> n(lo[dims - 1], hi[dims - 1]);
  for (int d = 0; d < dims; ++d) {
    int v = n(rng);
    if (v % 8 == 0) ++v;
    e.n[static_cast<std::size_t>(d)] = v;
  }
  return e;
}

// One draw per orbit of the symmetry group (radially symmetric) or per position, scaled to sum |w| = 1 so a
// few steps stay far from overflow.
Stencil random_stencil(int dims, int radius, bool symmetric, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  Stencil s = make_stencil(dims, radius, symmetric ? "random-symmetric" : "random");
  const int ry = dims >= 2 ? radius : 0, rz = dims >= 3 ? radius : 0;
  std::vector<char> drawn(s.weights.size(), 0);
  const auto index = [&](int dx, int dy, int dz) {
    return static_cast<std::size_t>(((dz + rz) * (2 * ry + 1) + dy + ry) * (2 * radius + 1) + dx + radius);
  };
  for_each_offset(s, [&](int dx, int dy, int dz) {
    if (drawn[index(dx, dy, dz)]) return;
    const double w = d(rng);
    const auto orbit = symmetric ? symmetric_positions(dims, dx, dy, dz) : std::vector<std::array<int, 3>>{{dx, dy, dz}};
    for (const auto& p : orbit) {
      s.at(p[0], p[1], p[2]) = w;
      drawn[index(p[0], p[1], p[2])] = 1;
    }
  });
  double total = 0;
  for (double w : s.weights) total += std::abs(w);
  for (double& w : s.weights) w /= total;
  return s;
}

double emulation_error(const Stencil& s, const Extent& e, int steps, const Boundary& b, const LoraStencilOptions& o,
                       std::uint64_t seed, int* fused = nullptr) {
  const LoraStencilPlan plan = make_lorastencil_plan(s, o);
  if (fused) *fused = plan.fused_steps;
  std::vector<double> got = initial_values(e, InitialCondition::Random, seed);
  for (double& v : got) v += 0.5; // an output left unwritten (0) could not hide among values near 0
  std::vector<double> want = got;
  ReferenceOptions ro;
  ro.boundary = b;
  reference_advance(s, e, want, steps, Precision::FP64, ro);
  CHECK(lorastencil_advance(plan, e, got, steps, b) == steps);
  return compare(got, want).rel_l2;
}

const Boundary kBoundaries[] = {Boundary{BoundaryKind::Dirichlet, 0.3}, Boundary{BoundaryKind::Periodic, 0.0}};

} // namespace

TEST_CASE("LoRAStencil emulation equals the FP64 reference on every preset, both boundaries", "[lorastencil]") {
  std::uint64_t seed = 1;
  for (const std::string& name : preset_names()) {
    const Stencil s = preset(name);
    for (const Boundary& b : kBoundaries) {
      const Extent e = awkward_extent(s.dims, seed);
      CHECK(e.n[0] % 8 != 0);
      int fused = 0;
      // 4 steps: with a 3-step fusion that is one fused pass and a 1-step remainder.
      const double err = emulation_error(s, e, 4, b, {}, seed++, &fused);
      INFO(name << " on " << e.to_string() << " " << to_string(b.kind) << ", T = " << fused << ": rel L2 " << err);
      CHECK(err < kBound);
    }
  }
}

TEST_CASE("LoRAStencil emulation equals the reference for random symmetric and non-symmetric stencils",
          "[lorastencil]") {
  std::uint64_t seed = 100;
  for (int dims = 1; dims <= 3; ++dims)
    for (int radius = 1; radius <= (dims == 3 ? 2 : 3); ++radius)
      for (bool symmetric : {true, false})
        for (const Boundary& b : kBoundaries) {
          const Stencil s = random_stencil(dims, radius, symmetric, seed);
          const Extent e = awkward_extent(dims, seed);
          LoraStencilOptions o;
          o.fused_steps = radius <= 2 ? 2 : 1; // fused passes are covered for every dimension
          const double err = emulation_error(s, e, 3, b, o, seed++);
          INFO(dims << "D r=" << radius << (symmetric ? " symmetric" : " non-symmetric") << " on " << e.to_string()
                    << " " << to_string(b.kind) << ": rel L2 " << err);
          CHECK(err < kBound);
          if (dims >= 2) {
            const LoraStencilPlan p = make_lorastencil_plan(s, o);
            const LoraPlane& centre = p.planes[p.planes.size() / 2];
            // Random weights need the SVD; radially symmetric ones (and their fused powers) take the pyramid
            // unless a small corner would make it amplify rounding.
            INFO(centre.decomposition.reason);
            if (!symmetric) CHECK(centre.decomposition.kind == DecompositionKind::Svd);
            if (symmetric && centre.decomposition.kind == DecompositionKind::Svd)
              CHECK_THAT(centre.decomposition.reason, Catch::Contains("amplify rounding"));
          }
        }
}

TEST_CASE("LoRAStencil emulation is exact on Hopper's FP64 shapes and with a forced SVD", "[lorastencil]") {
  for (MmaShape shape : {MmaShape::M16N8K4_F64, MmaShape::M16N8K8_F64, MmaShape::M16N8K16_F64})
    for (const char* name : {"box-2d49p", "heat-3d", "1d7p"}) {
      LoraStencilOptions o;
      o.shape = shape;
      const Stencil s = preset(name);
      const double err = emulation_error(s, awkward_extent(s.dims, 7), 2, kBoundaries[0], o, 7);
      INFO(name << " on " << to_string(shape) << ": " << err);
      CHECK(err < kBound);
    }
  LoraStencilOptions svd;
  svd.decomposition = DecompositionChoice::Svd;
  svd.fused_steps = 1;
  CHECK(emulation_error(preset("box-2d25p"), awkward_extent(2, 9), 2, kBoundaries[1], svd, 9) < kBound);
}

TEST_CASE("LoRAStencil emulation with 3D mirror folding equals the reference, and runs fewer MMAs", "[lorastencil]") {
  for (const char* name : {"heat-3d", "box-3d27p"})
    for (const Boundary& b : kBoundaries) {
      LoraStencilOptions o;
      o.shape = MmaShape::M16N8K4_F64;
      o.warp_fragments = 2;
      o.fold_mirror_planes = true;
      o.fused_steps = 1;
      const Stencil s = preset(name);
      const double err = emulation_error(s, awkward_extent(3, 5), 3, b, o, 5);
      INFO(name << " folded: " << err);
      CHECK(err < kBound);
      const LoraStencilPlan folded = make_lorastencil_plan(s, o);
      CHECK(folded.folded_planes() == 1);
      // The pass itself counts what it runs: one of the two mirror planes' terms fewer.
      std::vector<double> v = initial_values(awkward_extent(3, 5), InitialCondition::Random, 5);
      o.fold_mirror_planes = false;
      const LoraStencilPlan paper = make_lorastencil_plan(s, o);
      std::vector<double> w = v;
      const LoraPassCounts cf = lorastencil_pass(folded, awkward_extent(3, 5), v, kBoundaries[1]);
      const LoraPassCounts cp = lorastencil_pass(paper, awkward_extent(3, 5), w, kBoundaries[1]);
      CHECK(cf.mma + cf.cuda_core_updates < cp.mma + cp.cuda_core_updates);
      CHECK(compare(v, w).rel_l2 < 1e-15);
    }
}

TEST_CASE("LoRAStencil emulation with the cross split and star expansion equals the reference, fused and not, on "
          "the paper's tile and the GPU's warp tiles",
          "[lorastencil][cross]") {
  // Stars: the presets and random ones with arms of both signs, not symmetric; forced cross and the cost model's
  // choice (which also takes the cross split for every star plane here).
  std::vector<Stencil> stars = {preset("heat-2d"), preset("star-2d13p"), preset("heat-3d")};
  std::mt19937_64 rng(77);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  for (int dims : {2, 3})
    for (int radius : {1, 2}) {
      Stencil s = make_stencil(dims, radius, "random-star");
      s.at(0, 0, 0) = d(rng);
      for (int k = -radius; k <= radius; ++k)
        if (k != 0)
          for (int axis = 0; axis < dims; ++axis) s.at(axis == 0 ? k : 0, axis == 1 ? k : 0, axis == 2 ? k : 0) = d(rng);
      double total = 0;
      for (double w : s.weights) total += std::abs(w);
      for (double& w : s.weights) w /= total;
      stars.push_back(s);
    }
  std::uint64_t seed = 300;
  for (const Stencil& s : stars)
    for (int fused = 1; fused <= 3 && fused * s.radius <= (s.dims == 3 ? 4 : 6); ++fused)
      for (const bool gpu_tile : {false, true})
        for (const Boundary& b : kBoundaries) {
          LoraStencilOptions o;
          o.fused_steps = fused;
          o.decomposition = gpu_tile ? DecompositionChoice::Auto : DecompositionChoice::Cross;
          if (gpu_tile) {
            o.shape = MmaShape::M16N8K4_F64;
            o.warp_fragments = s.dims == 3 ? 2 : 4;
          }
          const Extent e = awkward_extent(s.dims, seed);
          const double err = emulation_error(s, e, fused + 1, b, o, seed++);
          const LoraStencilPlan p = make_lorastencil_plan(s, o);
          INFO(s.name << " T=" << fused << (gpu_tile ? " auto on the GPU tile" : " cross") << " on " << e.to_string()
                      << " " << to_string(b.kind) << ": rel L2 " << err);
          CHECK(err < kBound);
          for (const LoraPlane& plane : p.planes)
            if (plane.kind == PlaneKind::TensorCores) CHECK(plane.decomposition.kind == DecompositionKind::Cross);
        }
}

TEST_CASE("LoRAStencil emulation: 100 steps, tiny grids and a grid that is one partial tile", "[lorastencil]") {
  const Stencil heat = preset("heat-2d");
  CHECK(emulation_error(heat, parse_extent("13x11"), 100, kBoundaries[0], {}, 3) < kBound);
  CHECK(emulation_error(heat, parse_extent("13x11"), 100, kBoundaries[1], {}, 4) < kBound);
  // Smaller than one 8x8 tile and smaller than the fused kernel (radius 7 against 7 points, wrapping twice).
  const Stencil box = preset("box-2d49p");
  LoraStencilOptions twice;
  twice.fused_steps = 2;
  for (const Boundary& b : kBoundaries) CHECK(emulation_error(box, parse_extent("7x7"), 5, b, twice, 5) < kBound);
  CHECK(emulation_error(preset("heat-1d"), parse_extent("3"), 7, kBoundaries[1], {}, 6) < kBound);
}

TEST_CASE("the lorastencil Method runs the emulation, reports fused steps and honours cancellation",
          "[lorastencil]") {
  const Method m = cpu_variant(lorastencil_descriptor());
  CHECK(m.id == "lorastencil");
  CHECK(m.backend == Backend::Emulate);
  CHECK(m.precision == Precision::FP64);
  CHECK(m.unavailable_reason().empty());
  MethodRun run;
  run.stencil = preset("box-2d9p");
  run.extent = parse_extent("30x21");
  run.steps = 7;
  run.values = initial_values(run.extent, InitialCondition::Random, 2);
  std::vector<double> want = run.values;
  reference_advance(run.stencil, run.extent, want, 7, Precision::FP64);
  const MethodTiming t = m.run(run);
  CHECK(t.steps_done == 7);
  CHECK(t.fused_steps == make_lorastencil_plan(run.stencil).fused_steps);
  CHECK(t.seconds > 0);
  CHECK(compare(run.values, want).rel_l2 < kBound);

  run.values = initial_values(run.extent, InitialCondition::Random, 2);
  run.progress = [](int done, int) { return done < 2; };
  const MethodTiming cancelled = m.run(run);
  CHECK(cancelled.steps_done >= 2);
  CHECK(cancelled.steps_done < 7);
}
