// The GPU plan without a GPU: every fragment table, replayed lane by lane with the kernels' own staged-memory
// offsets and m8n8k4 semantics, must reproduce the fused stencil on a warp tile; terms are classified as the
// kernels expect; the band boxes cover exactly the Dirichlet band; the tile geometry is bank-conflict free.
#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <random>
#include <set>

#include "core/error.hpp"
#include "kernels/lorastencil/lora_gpu_plan.hpp"

using namespace se;
using namespace se::lora_gpu;

namespace {

using Lanes = std::array<double, 32>;
using Accumulator = std::array<std::array<double, 4>, 32>; // [lane][register] of a 16x8 C fragment

// mma.m16n8k4.f64 as the PTX ISA defines it: A[g][q] = a0, A[g+8][q] = a1, B[q][g] = b, D[g][2q+h] in
// register h and D[g+8][2q+h] in register h+2 of lane 4g+q.
void mma1684(Accumulator& d, const Lanes& a0, const Lanes& a1, const Lanes& b) {
  Accumulator out = d;
  for (int half = 0; half < 2; ++half) {
    const Lanes& a = half == 0 ? a0 : a1;
    for (int g = 0; g < 8; ++g)
      for (int n = 0; n < 8; ++n) {
        const auto lane = static_cast<std::size_t>(4 * g + n / 2), reg = static_cast<std::size_t>(2 * half + n % 2);
        double s = d[lane][reg];
        for (int k = 0; k < 4; ++k) s += a[static_cast<std::size_t>(4 * g + k)] * b[static_cast<std::size_t>(4 * n + k)];
        out[lane][reg] = s;
      }
  }
  d = out;
}

struct Staged {
  int rows = 0, pitch = 0;
  std::vector<double> v;
  double at(int offset) const { return v.at(static_cast<std::size_t>(offset)); }
};

// A staged plane as the kernels hold it: random inputs, then kSlackRows zero rows (the fragments' overreach).
Staged random_plane(int rows, int pitch, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  Staged s{rows, pitch, std::vector<double>(static_cast<std::size_t>((rows + kSlackRows) * pitch), 0.0)};
  for (int i = 0; i < rows * pitch; ++i) s.v[static_cast<std::size_t>(i)] = d(rng);
  return s;
}

Lanes table_slot(const GpuPass& p, int slot) {
  Lanes l{};
  for (int lane = 0; lane < 32; ++lane) l[static_cast<std::size_t>(lane)] = p.tables.at(static_cast<std::size_t>(slot * 32 + lane));
  return l;
}

// Chunk c of a U table: per lane the pair (row g, row g+8), as the kernels load it with one double2.
std::array<Lanes, 2> u_chunk(const GpuPass& p, int table, int c) {
  std::array<Lanes, 2> u{};
  for (int lane = 0; lane < 32; ++lane)
    for (int h = 0; h < 2; ++h)
      u[static_cast<std::size_t>(h)][static_cast<std::size_t>(lane)] =
          p.tables.at(static_cast<std::size_t>(table * 32 + 2 * (c * 32 + lane) + h));
  return u;
}

// The keys lora_device.cuh's plane_terms switches on (every other key would be skipped there).
bool kernel_handles(int key) {
  for (int kc = 5; kc <= 8; ++kc)
    if (key == term_key(kFull, kc, 0) || key == term_key(kFull, kc, 1) || key == term_key(kRowGather, kc, 0)) return true;
  for (int kc = 3; kc <= 6; ++kc)
    if (key == term_key(kColGather, kc, 0)) return true;
  return key == term_key(kScalar, 0, 0);
}

// One warp's 16 x 8*tiles outputs for one plane, replaying lora_device.cuh's plane_terms with the descriptors
// make_pass_args wrote (dispatch key, offset from the lane base of the term's kind) (tiles: 4 in 1D/2D, 2 in 3D).
// A folded plane (a.plane_mirror >= 0) reads the sum of its staged values and its mirror plane's, as staged<true>.
std::vector<Accumulator> emulate_plane(const GpuPass& p, const PassArgs& a, int plane, const Staged& plane_values,
                                       const Staged* mirror, int oy0, int ox0, int tiles) {
  std::vector<Accumulator> acc(static_cast<std::size_t>(tiles), Accumulator{});
  const int P = a.pitch;
  struct {
    const Staged& x;
    const Staged* m;
    double at(int o) const { return m ? x.at(o) + m->at(o) : x.at(o); }
  } x{plane_values, mirror};
  const auto lanes = [&](auto offset_of_lane) {
    Lanes l{};
    for (int lane = 0; lane < 32; ++lane) l[static_cast<std::size_t>(lane)] = x.at(offset_of_lane(lane >> 2, lane & 3));
    return l;
  };
  // lane_base() of lora_device.cuh
  const auto rows = [&](int g, int q) { return (oy0 + q) * P + ox0 + g; };
  const auto cols = [&](int g, int q) { return (oy0 + g) * P + ox0 + q; };
  const int first = p.plane_first[static_cast<std::size_t>(plane)];
  for (int k = first; k < first + p.plane_count[static_cast<std::size_t>(plane)]; ++k) {
    const TermDesc& t = a.terms[k];
    REQUIRE(kernel_handles(t.key));
    REQUIRE(t.key == term_key(t.kind, t.kind == kScalar ? 0 : t.kc, t.wide));
    switch (t.kind) {
    case kFull: {
      const int dmax = t.wide ? 2 : 1, nt = tiles + dmax;
      std::vector<Accumulator> tacc(static_cast<std::size_t>(nt), Accumulator{});
      for (int c = 0; c < t.kc; ++c) {
        const auto u = u_chunk(p, t.table, c);
        for (int tt = 0; tt < nt; ++tt)
          mma1684(tacc[static_cast<std::size_t>(tt)], u[0], u[1],
                  lanes([&](int g, int q) { return rows(g, q) + t.offset + 4 * c * P + 8 * tt; }));
      }
      for (int d = 0; d <= dmax; ++d)
        for (int h = 0; h < 2; ++h)
          for (int j = 0; j < tiles; ++j) {
            Lanes top{}, bottom{}; // T's registers h and h+2 reused in place as the A fragment (butterfly swap)
            for (int lane = 0; lane < 32; ++lane) {
              const auto& r = tacc[static_cast<std::size_t>(j + d)][static_cast<std::size_t>(lane)];
              top[static_cast<std::size_t>(lane)] = r[static_cast<std::size_t>(h)];
              bottom[static_cast<std::size_t>(lane)] = r[static_cast<std::size_t>(h + 2)];
            }
            mma1684(acc[static_cast<std::size_t>(j)], top, bottom, table_slot(p, t.table + 2 * t.kc + 2 * d + h));
          }
      break;
    }
    case kRowGather:
      for (int c = 0; c < t.kc; ++c) {
        const auto u = u_chunk(p, t.table, c);
        for (int j = 0; j < tiles; ++j)
          mma1684(acc[static_cast<std::size_t>(j)], u[0], u[1],
                  lanes([&](int g, int q) { return rows(g, q) + t.offset + 4 * c * P + 8 * j; }));
      }
      break;
    case kColGather:
      for (int j = 0; j < tiles; ++j)
        for (int c = 0; c < t.kc; ++c) {
          const auto at = [&](int row_offset) {
            return lanes([&](int g, int q) { return cols(g, q) + t.offset + row_offset * P + 4 * (2 * j + c); });
          };
          mma1684(acc[static_cast<std::size_t>(j)], at(0), at(8), table_slot(p, t.table + c));
        }
      break;
    default:
      for (int j = 0; j < tiles; ++j)
        for (int lane = 0; lane < 32; ++lane)
          for (int reg = 0; reg < 4; ++reg)
            acc[static_cast<std::size_t>(j)][static_cast<std::size_t>(lane)][static_cast<std::size_t>(reg)] +=
                t.scalar * x.at((oy0 + (lane >> 2) + 8 * (reg >> 1)) * P + ox0 + 2 * (lane & 3) + t.offset + (reg & 1) +
                                8 * j);
    }
  }
  return acc;
}

// The same outputs straight from W^T's weights: Y(y, x) = sum W(dx, dy, dz) X_dz(y + dy, x + dx).
double direct(const Stencil& kernel, const std::vector<Staged>& planes, const PassArgs& a, int y, int x) {
  const int R = a.radius, xs = a.halo - a.radius;
  const int rz = kernel.dims == 3 ? R : 0;
  double s = 0;
  for (const Tap& t : taps(kernel))
    s += t.w * planes[static_cast<std::size_t>(t.dz + rz)].at((y + R + t.dy) * a.pitch + x + xs + R + t.dx);
  return s;
}

double check_tile(const LoraStencilPlan& plan) {
  const GpuPass p = make_gpu_pass(plan);
  const Extent e = plan.stencil.dims == 3 ? parse_extent("64x64x16") : parse_extent("128x64");
  const PassArgs a = make_pass_args(p, e, Boundary{});
  std::vector<Staged> planes;
  for (std::size_t i = 0; i < p.plane_first.size(); ++i) planes.push_back(random_plane(a.staged_rows, a.pitch, 7 + i));
  double worst = 0, scale = 0;
  const int tiles = plan.stencil.dims == 3 ? k3dOutTilesPerWarp : kOutTilesPerWarp;
  for (int oy0 : {0, a.tile_rows - kWarpRows})
    for (int ox0 : {0, kTileCols - 8 * tiles}) {
      std::vector<Accumulator> acc(static_cast<std::size_t>(tiles), Accumulator{});
      for (std::size_t plane = 0; plane < planes.size(); ++plane) {
        const int mirror = a.plane_mirror[plane];
        REQUIRE(mirror < static_cast<int>(planes.size()));
        const auto part = emulate_plane(p, a, static_cast<int>(plane), planes[plane],
                                        mirror >= 0 ? &planes[static_cast<std::size_t>(mirror)] : nullptr, oy0, ox0, tiles);
        for (int j = 0; j < tiles; ++j)
          for (int lane = 0; lane < 32; ++lane)
            for (int reg = 0; reg < 4; ++reg)
              acc[static_cast<std::size_t>(j)][static_cast<std::size_t>(lane)][static_cast<std::size_t>(reg)] +=
                  part[static_cast<std::size_t>(j)][static_cast<std::size_t>(lane)][static_cast<std::size_t>(reg)];
      }
      for (int j = 0; j < tiles; ++j)
        for (int lane = 0; lane < 32; ++lane)
          for (int reg = 0; reg < 4; ++reg) {
            const double want = direct(plan.kernel, planes, a, oy0 + (lane >> 2) + 8 * (reg >> 1),
                                       ox0 + 8 * j + 2 * (lane & 3) + (reg & 1));
            const double got = acc[static_cast<std::size_t>(j)][static_cast<std::size_t>(lane)][static_cast<std::size_t>(reg)];
            worst = std::max(worst, std::abs(got - want));
            scale = std::max(scale, std::abs(want));
          }
    }
  return worst / scale;
}

LoraStencilOptions with_fusion(int t) {
  LoraStencilOptions o;
  o.fused_steps = t;
  return o;
}

Stencil random_weights(int dims, int radius, bool symmetric, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> d(0.1, 1.0);
  Stencil s = make_stencil(dims, radius, "random");
  for (double& w : s.weights) w = d(rng);
  if (symmetric) // each orbit takes the weight drawn for its representative with non-negative offsets
    for_each_offset(s, [&](int dx, int dy, int dz) {
      if (dx < 0 || dy < 0 || dz < 0) return;
      const double w = s.at(dx, dy, dz);
      for (const auto& q : symmetric_positions(dims, dx, dy, dz)) s.at(q[0], q[1], q[2]) = w;
    });
  return s;
}

} // namespace

TEST_CASE("fragment tables replay the fused stencil on a warp tile", "[lora-gpu]") {
  for (const std::string name : {"heat-2d", "box-2d9p", "star-2d13p", "box-2d25p", "box-2d49p", "heat-3d", "box-3d27p"})
    for (int t = 1; t <= 3; ++t) {
      const Stencil s = preset(name);
      if (t * s.radius > kMaxRadius) continue;
      INFO(name << " fused " << t);
      CHECK(check_tile(make_lorastencil_plan(s, with_fusion(t))) < 1e-13);
    }
  for (int dims : {2, 3})
    for (int radius : {1, 2, 3})
      for (bool symmetric : {true, false}) {
        INFO(dims << "D radius " << radius << (symmetric ? " symmetric" : " general"));
        const Stencil s = random_weights(dims, radius, symmetric, 100 * dims + 10 * radius + symmetric);
        CHECK(check_tile(make_lorastencil_plan(s, with_fusion(1))) < 1e-13);
        CHECK(check_tile(make_lorastencil_plan(s, kernel_plan_options(s, with_fusion(1)))) < 1e-13); // 3D: folded
      }
}

TEST_CASE("3D mirror folding: a plane whose mirror has its weights runs once on both planes' sum", "[lora-gpu]") {
  const Stencil box = preset("box-3d27p");
  LoraStencilOptions unfolded_options = kernel_plan_options(box, with_fusion(1));
  unfolded_options.fold_mirror_planes = false;
  const LoraStencilPlan paper = make_lorastencil_plan(box, unfolded_options);
  const LoraStencilPlan folded = make_lorastencil_plan(box, kernel_plan_options(box, with_fusion(1)));
  REQUIRE(folded.planes.size() == 3);
  CHECK(folded.planes[0].folds_mirror);
  CHECK(folded.planes[2].mirrored);
  CHECK_FALSE(folded.planes[1].folds_mirror);
  CHECK_FALSE(paper.planes[0].folds_mirror);
  // Planes -1 and +1 carry the same terms, so the folded pass runs 2 of the 3 planes' MMAs.
  CHECK(folded.cost.mma_per_point == Approx(paper.cost.mma_per_point * 2 / 3).epsilon(1e-12));
  const GpuPass p = make_gpu_pass(folded);
  CHECK(p.plane_mirror == std::vector<int>{2, -1, -1});
  CHECK(p.plane_count[2] == 0);
  CHECK(p.counts.mma_per_point == Approx(folded.cost.mma_per_point).epsilon(1e-12));
  CHECK(check_tile(folded) < 1e-13);
  // Weights that differ between dz = -1 and +1 by one tap are not folded.
  Stencil lopsided = box;
  lopsided.at(1, 1, 1) *= 1.5;
  const LoraStencilPlan unfolded = make_lorastencil_plan(lopsided, kernel_plan_options(lopsided, with_fusion(1)));
  CHECK_FALSE(unfolded.planes[0].folds_mirror);
  CHECK_FALSE(unfolded.planes[2].mirrored);
  CHECK(make_gpu_pass(unfolded).plane_mirror == std::vector<int>{-1, -1, -1});
  // The rule itself (the pyramid view says which planes the kernels fold).
  CHECK(mirror_planes_fold(box, -1));
  CHECK(mirror_planes_fold(box, 1));
  CHECK_FALSE(mirror_planes_fold(box, 0));
  CHECK_FALSE(mirror_planes_fold(lopsided, 1));
  CHECK_FALSE(mirror_planes_fold(preset("heat-2d"), 1));
}

TEST_CASE("the symmetric radius-1 3D presets run the kernels' compiled-in term lists", "[lora-gpu]") {
  const auto program = [](const std::string& name, const char* size) {
    const Stencil s = preset(name);
    return static_program_3d(make_pass_args(make_gpu_pass(plan_for_gpu(s, gpu_plan_options())), parse_extent(size),
                                            Boundary{BoundaryKind::Dirichlet, 0.0}));
  };
  CHECK(program("box-3d27p", "512x512x512") == 0);
  CHECK(program("heat-3d", "512x512x512") == 1);
  CHECK(program("heat-3d", "37x45x29") == 1);
  CHECK(program("heat-2d", "512x512") == -1);
  // Without folding, or with weights that differ between dz = -1 and +1, the kernel dispatches term by term.
  {
    const Stencil box = preset("box-3d27p");
    LoraStencilOptions o = kernel_plan_options(box, with_fusion(1));
    o.fold_mirror_planes = false;
    CHECK(static_program_3d(make_pass_args(make_gpu_pass(make_lorastencil_plan(box, o)), parse_extent("64x64x16"),
                                           Boundary{})) == -1);
  }
  Stencil lopsided = preset("box-3d27p");
  lopsided.at(1, 1, 1) *= 1.5;
  CHECK(static_program_3d(make_pass_args(make_gpu_pass(plan_for_gpu(lopsided, gpu_plan_options())),
                                         parse_extent("64x64x16"), Boundary{})) == -1);
  // Every static program's keys are keys the kernels handle.
  for (const StaticProgram3d& p : kStaticPrograms3d)
    for (int key : {p.lower[0], p.lower[1], p.middle[0], p.middle[1]})
      if (key >= 0) CHECK(kernel_handles(key));
}

TEST_CASE("star planes run as single gathers; the kernels' MMAs are core's count on their tile", "[lora-gpu]") {
  const auto kinds = [](const GpuPass& p) {
    std::multiset<int> k;
    for (const GpuTerm& t : p.terms) k.insert(t.desc.kind);
    return k;
  };
  // heat-2d: the row and the column, then (fused) the multinomial terms: T - 1 chains beside the two gathers.
  for (int t = 1; t <= 3; ++t) {
    const Stencil s = preset("heat-2d");
    const LoraStencilPlan plan = make_lorastencil_plan(s, kernel_plan_options(s, with_fusion(t)));
    const GpuPass p = make_gpu_pass(plan);
    INFO("heat-2d T=" << t << "\n" << p.describe());
    std::multiset<int> want{kColGather, kRowGather};
    for (int j = 1; j < t; ++j) want.insert(kFull);
    CHECK(kinds(p) == want);
    CHECK(check_tile(plan) < 1e-13);
  }
  const GpuPass heat3 = make_gpu_pass(plan_for_gpu(preset("heat-3d"), gpu_plan_options()));
  // Planes -1 and +1 (one weight each) fold into one scalar term on both planes' sum.
  CHECK(kinds(heat3) == std::multiset<int>{kScalar, kColGather, kRowGather});
  // Every preset at every depth, on the kernels' tile: the pass counts exactly the MMAs core's plan counts.
  for (const std::string& name : preset_names()) {
    const Stencil s = preset(name);
    for (int t = 1; t <= 3 && t * s.radius <= kMaxRadius; ++t) {
      const LoraStencilPlan plan = make_lorastencil_plan(s, kernel_plan_options(s, with_fusion(t)));
      INFO(name << " T=" << t);
      if (s.dims > 1) CHECK(plan.tile.warp_fragments == (s.dims == 3 ? k3dOutTilesPerWarp : kOutTilesPerWarp));
      CHECK(make_gpu_pass(plan).counts.mma_per_point == Approx(plan.cost.mma_per_point * t).epsilon(1e-12));
    }
  }
  // Random stars with arms of both signs, not symmetric, fused up to 3 times: the tables replay W^T.
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  for (int dims : {2, 3})
    for (int radius : {1, 2})
      for (int t = 1; t <= 3 && t * radius <= (dims == 3 ? 4 : 6); ++t) {
        Stencil s = make_stencil(dims, radius, "random-star");
        s.at(0, 0, 0) = d(rng);
        for (int k = -radius; k <= radius; ++k)
          if (k != 0)
            for (int axis = 0; axis < dims; ++axis) s.at(axis == 0 ? k : 0, axis == 1 ? k : 0, axis == 2 ? k : 0) = d(rng);
        const LoraStencilPlan plan = make_lorastencil_plan(s, kernel_plan_options(s, with_fusion(t)));
        INFO(dims << "D star radius " << radius << " T=" << t);
        for (const LoraPlane& p : plan.planes)
          if (p.kind == PlaneKind::TensorCores) CHECK(p.decomposition.kind == DecompositionKind::Cross);
        CHECK(check_tile(plan) < 1e-13);
      }
}

TEST_CASE("the GPU's fusion choice: the roofline over the kernels' tile, 1D and 2D up to radius 7, 3D unfused",
          "[lora-gpu]") {
  const LoraStencilPlan line = plan_for_gpu(preset("heat-1d"), gpu_plan_options());
  CHECK(line.fused_steps == 7);
  CHECK(line.fusion_candidates.size() == 7);
  for (const char* name : {"heat-2d", "box-2d9p"}) {
    const LoraStencilPlan p = plan_for_gpu(preset(name), gpu_plan_options());
    INFO(name << ": " << p.fusion_rule);
    CHECK(p.fused_steps == 4); // the estimate peaks at W^4 (measured on the H200: faster than W^3)
    CHECK(p.fusion_candidates.size() == 7);
    CHECK(p.tile.warp_points() == 512);
  }
  CHECK(plan_for_gpu(preset("star-2d13p"), gpu_plan_options()).fused_steps == 2);
  CHECK(plan_for_gpu(preset("box-2d49p"), gpu_plan_options()).fused_steps == 1);
  for (const char* name : {"heat-3d", "box-3d27p"}) {
    const LoraStencilPlan p = plan_for_gpu(preset(name), gpu_plan_options());
    INFO(p.fusion_rule);
    CHECK(p.fused_steps == 1);
    CHECK(p.fusion_candidates.size() == 3);
    CHECK(p.tile.warp_points() == 256);
    CHECK_THAT(p.fusion_rule, Catch::Contains("T = 1 in 3D"));
  }
  LoraStencilOptions forced = gpu_plan_options();
  forced.fused_steps = 2;
  CHECK(plan_for_gpu(preset("heat-3d"), forced).fused_steps == 2);
}

TEST_CASE("every preset plans for the kernels' m16n8k4 shape", "[lora-gpu]") {
  LoraStencilOptions o;
  o.shape = MmaShape::M16N8K4_F64;
  for (const std::string& name : preset_names()) {
    INFO(name);
    const LoraStencilPlan plan = make_lorastencil_plan(preset(name), o);
    const GpuPass p = make_gpu_pass(plan);
    CHECK(p.radius == plan.kernel.radius);
    CHECK(p.counts.mma_per_point > 0);
    CHECK(!p.describe().empty());
  }
}

TEST_CASE("1D fragments replay the line gather", "[lora-gpu]") {
  for (const std::string name : {"heat-1d", "1d5p", "1d7p"})
    for (int t = 1; t <= 3; ++t) {
      if (t * preset(name).radius > kMaxRadius) continue;
      const LoraStencilPlan plan = make_lorastencil_plan(preset(name), with_fusion(t));
      const GpuPass p = make_gpu_pass(plan);
      REQUIRE(p.terms.size() == 1);
      const TermDesc& d = p.terms[0].desc;
      REQUIRE(d.kind == kColGather);
      const PassArgs a = make_pass_args(p, parse_extent("100000"), Boundary{});
      const Staged x = random_plane(kLineRows, a.pitch, 3);
      // Warp 1, output tiles 0..3: chunk m = 2j + c at column 32 + halo - wv + q + 4m of segments g and g+8.
      double worst = 0;
      for (int j = 0; j < 4; ++j) {
        Accumulator acc{};
        for (int c = 0; c < d.kc; ++c) {
          std::array<Lanes, 2> l{};
          for (int lane = 0; lane < 32; ++lane)
            for (int h = 0; h < 2; ++h)
              l[static_cast<std::size_t>(h)][static_cast<std::size_t>(lane)] =
                  x.at(((lane >> 2) + 8 * h) * a.pitch + kWarpCols + a.halo - d.wv + (lane & 3) + 4 * (2 * j + c));
          mma1684(acc, l[0], l[1], table_slot(p, d.table + c));
        }
        for (int lane = 0; lane < 32; ++lane)
          for (int reg = 0; reg < 4; ++reg) {
            const int segment = (lane >> 2) + 8 * (reg >> 1), col = kWarpCols + 8 * j + 2 * (lane & 3) + (reg & 1);
            double want = 0;
            for (int dx = -a.radius; dx <= a.radius; ++dx)
              want += plan.kernel.at(dx) * x.at(segment * a.pitch + col + a.halo + dx);
            worst = std::max(worst, std::abs(acc[static_cast<std::size_t>(lane)][static_cast<std::size_t>(reg)] - want));
          }
      }
      INFO(name << " fused " << t);
      CHECK(worst < 1e-14);
    }
}

TEST_CASE("terms are classified as the kernels run them", "[lora-gpu]") {
  // heat-3d: planes dz = +-1 hold one weight (CUDA cores, Algorithm 2); dz = 0 is a 5-point star.
  const GpuPass heat = make_gpu_pass(make_lorastencil_plan(preset("heat-3d"), with_fusion(1)));
  REQUIRE(heat.plane_count.size() == 3);
  CHECK(heat.plane_count[0] == 1);
  CHECK(heat.terms[static_cast<std::size_t>(heat.plane_first[0])].desc.kind == kScalar);
  CHECK(heat.terms[static_cast<std::size_t>(heat.plane_first[2])].desc.kind == kScalar);
  // box-2d49p: the pyramid's 7x7, 5x5 and 3x3 chains plus the apex on CUDA cores.
  const GpuPass box = make_gpu_pass(make_lorastencil_plan(preset("box-2d49p"), with_fusion(1)));
  std::multiset<int> widths;
  int scalars = 0;
  for (const GpuTerm& t : box.terms) {
    if (t.desc.kind == kFull) widths.insert(t.desc.wu);
    scalars += t.desc.kind == kScalar;
  }
  CHECK(widths == std::multiset<int>{1, 2, 3});
  CHECK(scalars == 1);
  // The kernel's count: 3 chains on 16x32 warp tiles, (6*5 + 16) + (5*5 + 16) + (5*5 + 16) m16n8k4 per 512 points.
  CHECK(box.counts.mma_per_point == Approx(128.0 / 512.0));
}

TEST_CASE("band boxes cover the Dirichlet band exactly once", "[lora-gpu]") {
  for (const char* text : {"37", "5", "29x17", "7x40", "13x11x9", "4x30x6"}) {
    const Extent e = parse_extent(text);
    for (int r : {1, 2})
      for (int t : {2, 3}) {
        const std::vector<FixBox> boxes = band_fix_boxes(e, r, t, 48 * 1024);
        std::vector<int> hits(static_cast<std::size_t>(e.points()), 0);
        for (const FixBox& b : boxes)
          for (long long z = b.z0; z < b.z0 + b.bz; ++z)
            for (long long y = b.y0; y < b.y0 + b.by; ++y)
              for (long long x = b.x0; x < b.x0 + b.bx; ++x) ++hits[static_cast<std::size_t>((z * e.n[1] + y) * e.n[0] + x)];
        const long long band = static_cast<long long>(t - 1) * r;
        for (long long z = 0; z < e.n[2]; ++z)
          for (long long y = 0; y < e.n[1]; ++y)
            for (long long x = 0; x < e.n[0]; ++x) {
              const long long c[3] = {x, y, z};
              bool in_band = false;
              for (int d = 0; d < e.dims; ++d) in_band = in_band || c[d] < band || c[d] >= e.n[d] - band;
              INFO(text << " r=" << r << " T=" << t << " at " << x << "," << y << "," << z);
              REQUIRE(hits[static_cast<std::size_t>((z * e.n[1] + y) * e.n[0] + x)] == (in_band ? 1 : 0));
            }
      }
  }
  CHECK(band_fix_boxes(parse_extent("100x100"), 1, 1, 48 * 1024).empty());
}

TEST_CASE("tile geometry: conflict-free pitch, aligned halo, items", "[lora-gpu]") {
  for (int t = 1; t <= 3; ++t) {
    const GpuPass p = make_gpu_pass(make_lorastencil_plan(preset("box-2d9p"), with_fusion(t)));
    const PassArgs a = make_pass_args(p, parse_extent("1000x999"), Boundary{});
    CHECK((a.pitch % 16 == 4 || a.pitch % 16 == 12));
    CHECK(a.pitch >= kTileCols + 2 * a.halo);
    CHECK(a.halo % 2 == 0);
    CHECK(a.halo >= a.radius);
    CHECK(a.items == 16LL * 16); // ceil(1000/64) x ceil(999/64)
    CHECK(a.aligned_rows == 1);
  }
  const GpuPass p3 = make_gpu_pass(make_lorastencil_plan(preset("box-3d27p"), with_fusion(1)));
  const PassArgs a3 = make_pass_args(p3, parse_extent("513x512x100"), Boundary{});
  CHECK(a3.aligned_rows == 0);
  CHECK(shared_bytes(a3) <= 112 * 1024);
  CHECK(block_threads(a3) == (a3.tile_rows / kWarpRows) * 4 * 32);
  CHECK(a3.items == static_cast<long long>(a3.tiles_x) * a3.tiles_y * ((100 + a3.z_chunk - 1) / a3.z_chunk));
}

TEST_CASE("passes the kernels cannot hold are refused with a reason", "[lora-gpu]") {
  Stencil s = make_stencil(3, 3, "wide-3d");
  for (double& w : s.weights) w = 1.0;
  // Any split of a 3D radius-3 box fits; radius 7 in one pass is within kMaxFusedRadius, so only the term
  // limit can refuse: a general 15x15 plane per dz gives up to 15 x 15 SVD terms.
  Stencil big = make_stencil(3, 7, "big-3d");
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> d(0.1, 1.0);
  for (double& w : big.weights) w = d(rng);
  CHECK_NOTHROW(make_gpu_pass(make_lorastencil_plan(s, with_fusion(1))));
  CHECK_THROWS_AS(make_gpu_pass(make_lorastencil_plan(big, with_fusion(1))), InputError);
}

TEST_CASE("steps that T does not divide end in the cheapest passes", "[lora-gpu]") {
  using V = std::vector<int>;
  // heat-2d's cost model, per pass (depth x ps per point and step): T = 4 is the deepest and cheapest per step.
  const std::vector<double> heat2d = {3.953, 2 * 2.071, 3 * 1.445, 4 * 1.279};
  CHECK(split_into_passes(0, 4, heat2d).empty());
  CHECK(split_into_passes(8, 4, heat2d) == V{4, 4});
  CHECK(split_into_passes(6, 4, heat2d) == V{3, 3});
  CHECK(split_into_passes(5, 4, heat2d) == V{3, 2});
  CHECK(split_into_passes(7, 4, heat2d) == V{4, 3});
  CHECK(split_into_passes(33, 4, heat2d) == V{4, 4, 4, 4, 4, 4, 4, 3, 2});
  CHECK(split_into_passes(3, 4, heat2d) == V{3});
  CHECK(split_into_passes(1, 4, heat2d) == V{1});
  // Without the model's costs: passes of T, then one pass of the rest.
  CHECK(split_into_passes(6, 4, {}) == V{4, 2});
  CHECK(split_into_passes(6, 4, {1, 0, 1, 1}) == V{4, 2});
  for (int steps = 0; steps < 60; ++steps)
    for (int T = 1; T <= 7; ++T) {
      std::vector<double> cost;
      for (int d = 1; d <= T; ++d) cost.push_back(1.0 + 0.1 * d);
      int sum = 0;
      for (int d : split_into_passes(steps, T, cost)) {
        CHECK(d >= 1);
        CHECK(d <= T);
        sum += d;
      }
      CHECK(sum == steps);
    }
  CHECK_THROWS_AS(split_into_passes(-1, 4, heat2d), InputError);
}
