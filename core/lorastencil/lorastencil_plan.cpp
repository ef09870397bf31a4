// Building the LoRAStencil plan (fusion, planes, tiles) and counting its cost.
#include "core/lorastencil/lorastencil_plan.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"

namespace se {
namespace {

constexpr int kMaxAutoFusion = 3; // the paper fuses at most 3 steps (Fig. 7)
constexpr double kFusionMargin = 0.98;
constexpr double kBytesPerValue = 8.0;

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// The paper's blocking (Table II), along x then y: the thread block reads its tile plus a halo of R once.
double halo_read_factor(int dims, int radius) {
  const double r2 = 2.0 * radius;
  switch (dims) {
  case 1: return (1024 + r2) / 1024;
  case 2: return (32 + r2) * (64 + r2) / (32.0 * 64.0);
  default: return (8 + r2) * (64 + r2) / (8.0 * 64.0);
  }
}

WeightDecomposition decompose(const WeightMatrix& w, DecompositionChoice choice) {
  switch (choice) {
  case DecompositionChoice::Pyramid: return pyramid_decomposition(w);
  case DecompositionChoice::Svd: return svd_decomposition(w);
  case DecompositionChoice::Auto: break;
  }
  const std::string obstacle = pyramid_obstacle(w);
  if (obstacle.empty()) return pyramid_decomposition(w);
  WeightDecomposition d = svd_decomposition(w);
  d.reason = fmt::format("no pyramid: {}; {}", obstacle, d.reason);
  return d;
}

LoraPlane tensor_core_plane(int dz, const WeightMatrix& w, const LoraStencilPlan& plan) {
  LoraPlane p;
  p.dz = dz;
  p.kind = PlaneKind::TensorCores;
  p.decomposition = decompose(w, plan.options.decomposition);
  for (const RankOneTerm& t : p.decomposition.terms) {
    if (t.on_cuda_cores) p.apex = t.weight();
    else p.bands.push_back(make_banded_pair(plan.tile, plan.swap, t));
  }
  return p;
}

LoraPlane plane_for(int dz, const WeightMatrix& w, const LoraStencilPlan& plan) {
  const int nonzero = w.nonzero_count();
  // Algorithm 2 sends single-weight planes to CUDA cores; that is a 3D rule, a 2D stencil keeps its one plane
  // on the tensor cores' path (where a lone centre weight still becomes a CUDA-core apex).
  if (plan.stencil.dims == 3 && nonzero <= 1) {
    LoraPlane p;
    p.dz = dz;
    p.kind = nonzero == 0 ? PlaneKind::Empty : PlaneKind::CudaCores;
    for (int i = 0; i < w.side; ++i)
      for (int j = 0; j < w.side; ++j)
        if (w.at(i, j) != 0.0) {
          p.dy = i - w.radius();
          p.dx = j - w.radius();
          p.weight = w.at(i, j);
        }
    return p;
  }
  return tensor_core_plane(dz, w, plan);
}

LoraStencilPlan build_plan(const Stencil& s, const LoraStencilOptions& options, int steps) {
  LoraStencilPlan plan;
  plan.stencil = s;
  plan.options = options;
  plan.fused_steps = steps;
  plan.kernel = fused_kernel(s, steps);
  const int radius = plan.kernel.radius;
  if (s.dims == 1) {
    plan.line = make_line_gather(options.shape, plan.kernel.weights);
  } else {
    plan.tile = make_gather_tile(options.shape, radius);
    plan.swap = derive_butterfly_swap(options.shape, plan.tile.x_cols);
    const int rz = s.dims == 3 ? radius : 0;
    for (int dz = -rz; dz <= rz; ++dz) plan.planes.push_back(plane_for(dz, weight_matrix(plan.kernel, dz), plan));
  }
  plan.cost = lorastencil_cost(plan);
  return plan;
}

FusionCandidate candidate_of(const LoraStencilPlan& plan) {
  const CostReport& c = plan.cost;
  const RooflineDevice& d = plan.options.device;
  FusionCandidate f;
  f.steps = plan.fused_steps;
  f.radius = plan.kernel.radius;
  f.tensor_core_terms = plan.tensor_core_terms();
  f.mma_per_point = c.mma_per_point;
  f.global_bytes_per_point = c.global_bytes_per_point;
  const double memory_ps = c.global_bytes_per_point / d.memory_gbs * 1e3;
  const double tensor_ps = (c.executed_flops_per_point - c.cuda_core_flops_per_point) / d.tensor_fp64_tflops;
  f.estimated_ps_per_point = std::max(memory_ps, tensor_ps);
  f.bound = memory_ps >= tensor_ps ? "memory" : "tensor cores";
  return f;
}

// Zeros in the operands of every MMA of one tile, and the operand slots those MMAs read.
struct ZeroCount {
  double zeros = 0, slots = 0;
};

ZeroCount count_line_zeros(const LineGather& g) {
  ZeroCount z;
  for (int kb = 0; kb < g.inner / g.k; ++kb) {
    for (int c = 0; c < g.k; ++c) {
      if (kb * g.k + c >= g.window) z.zeros += g.m; // X columns past the segment's window are loaded as zeros
      for (int q = 0; q < g.n; ++q) z.zeros += g.v_band[static_cast<std::size_t>((kb * g.k + c) * g.n + q)] == 0.0;
    }
    z.slots += g.m * g.k + g.k * g.n;
  }
  return z;
}

ZeroCount count_term_zeros(const GatherTile& t, const ButterflySwap& swap, const BandedPair& b) {
  ZeroCount z;
  const double slots_per_mma = t.m * t.k + t.k * t.n;
  for (int kb = 0; kb < t.x_rows / t.k; ++kb)
    for (int nb = 0; nb < t.x_cols / t.n; ++nb) { // T = U·X
      for (int p = 0; p < t.tile_rows; ++p)
        for (int c = 0; c < t.k; ++c) z.zeros += b.u_band[static_cast<std::size_t>(p * t.x_rows + kb * t.k + c)] == 0.0;
      for (int r = 0; r < t.k; ++r)
        for (int c = 0; c < t.n; ++c) z.zeros += kb * t.k + r >= t.window_rows || nb * t.n + c >= t.window_cols;
      z.slots += slots_per_mma;
    }
  for (int kb = 0; kb < t.x_cols / t.k; ++kb) { // Y += T'·V'; T's columns past the window are U·0 = 0
    for (int c = 0; c < t.k; ++c) {
      if (swap.permutation[static_cast<std::size_t>(kb * t.k + c)] >= t.window_cols) z.zeros += t.tile_rows;
      for (int q = 0; q < t.tile_cols; ++q)
        z.zeros += b.v_swapped[static_cast<std::size_t>((kb * t.k + c) * t.tile_cols + q)] == 0.0;
    }
    z.slots += slots_per_mma * (t.tile_cols / t.n);
  }
  return z;
}

std::string term_sides(const LoraStencilPlan& plan) {
  std::string s;
  for (const LoraPlane& p : plan.planes)
    for (const RankOneTerm& t : p.decomposition.terms)
      if (!t.on_cuda_cores) s += fmt::format("{}{}", s.empty() ? "" : ", ", t.size);
  return s.empty() ? "none" : s;
}

} // namespace

std::string_view to_string(DecompositionChoice c) {
  switch (c) {
  case DecompositionChoice::Auto: return "auto";
  case DecompositionChoice::Pyramid: return "pyramid";
  case DecompositionChoice::Svd: return "svd";
  }
  return "?";
}

DecompositionChoice parse_decomposition_choice(std::string_view s) {
  if (s == "auto") return DecompositionChoice::Auto;
  if (s == "pyramid") return DecompositionChoice::Pyramid;
  if (s == "svd") return DecompositionChoice::Svd;
  throw InputError(fmt::format("unknown decomposition '{}' (auto, pyramid or svd)", s));
}

std::string_view to_string(PlaneKind k) {
  switch (k) {
  case PlaneKind::TensorCores: return "tensor cores";
  case PlaneKind::CudaCores: return "CUDA cores";
  case PlaneKind::Empty: return "empty";
  }
  return "?";
}

int LoraStencilPlan::tensor_core_terms() const {
  int n = 0;
  for (const LoraPlane& p : planes) n += static_cast<int>(p.bands.size());
  return stencil.dims == 1 ? 1 : n;
}

int LoraStencilPlan::cuda_core_terms() const {
  int n = 0;
  for (const LoraPlane& p : planes) n += (p.kind == PlaneKind::CudaCores) || (p.apex != 0.0);
  return n;
}

Stencil fused_kernel(const Stencil& s, int steps) {
  validate(s);
  if (steps < 1) throw InputError(fmt::format("fusing needs at least 1 step; got {}", steps));
  if (steps * s.radius > kMaxRadius)
    throw InputError(fmt::format("fusing {} steps of '{}' (radius {}) gives radius {}, beyond the largest stencil "
                                 "radius {}; fuse at most {} steps",
                                 steps, s.name, s.radius, steps * s.radius, kMaxRadius,
                                 std::max(1, kMaxRadius / std::max(1, s.radius))));
  if (steps == 1) return s;
  const int ry = s.dims >= 2 ? 1 : 0, rz = s.dims >= 3 ? 1 : 0;
  Stencil power = s;
  for (int t = 2; t <= steps; ++t) {
    Stencil next = make_stencil(s.dims, power.radius + s.radius, fmt::format("{}^{}", s.name, steps));
    const int pr = power.radius, r = s.radius;
    // (W^t)(f) = sum over d + e = f of W^(t-1)(d) W(e): t steps of a correlation compose by convolving weights.
    for (int dz = -pr * rz; dz <= pr * rz; ++dz)
      for (int dy = -pr * ry; dy <= pr * ry; ++dy)
        for (int dx = -pr; dx <= pr; ++dx) {
          const double a = power.at(dx, dy, dz);
          if (a == 0.0) continue;
          for (int ez = -r * rz; ez <= r * rz; ++ez)
            for (int ey = -r * ry; ey <= r * ry; ++ey)
              for (int ex = -r; ex <= r; ++ex) next.at(dx + ex, dy + ey, dz + ez) += a * s.at(ex, ey, ez);
        }
    power = std::move(next);
  }
  return power;
}

LoraStencilPlan make_lorastencil_plan(const Stencil& s, const LoraStencilOptions& options) {
  validate(s);
  check_lorastencil_shape(options.shape);
  if (s.radius == 0)
    throw InputError(fmt::format("LoRAStencil gathers neighbours, but '{}' has radius 0 (a point-wise scaling): "
                                 "give it a radius of at least 1, or run it with cpu-reference",
                                 s.name));
  if (options.fused_steps < 0)
    throw InputError(fmt::format("fused steps must be 0 (chosen by the cost model) or positive; got {}",
                                 options.fused_steps));
  if (options.device.memory_gbs <= 0 || options.device.tensor_fp64_tflops <= 0)
    throw InputError("the roofline device needs a positive bandwidth and tensor-core peak");
  if (options.fused_steps > 0) {
    LoraStencilPlan plan = build_plan(s, options, options.fused_steps);
    plan.fusion_candidates = {candidate_of(plan)};
    plan.fusion_rule = fmt::format("T = {} as requested", options.fused_steps);
    return plan;
  }
  const int deepest = std::min(kMaxAutoFusion, kMaxRadius / s.radius);
  LoraStencilPlan best;
  std::vector<FusionCandidate> candidates;
  for (int t = 1; t <= deepest; ++t) {
    LoraStencilPlan plan = build_plan(s, options, t);
    candidates.push_back(candidate_of(plan));
    if (t == 1 || candidates.back().estimated_ps_per_point <
                      kFusionMargin * candidates[static_cast<std::size_t>(best.fused_steps - 1)].estimated_ps_per_point)
      best = std::move(plan);
  }
  best.fusion_candidates = candidates;
  best.fusion_rule = fmt::format(
      "T = {} of 1..{}: the smallest estimated time per point and base step, max(global bytes / {:.0f} GB/s, "
      "tensor FLOPs / {:.1f} TFLOP/s) on {}; a deeper fusion must win by more than {:.0f}%",
      best.fused_steps, deepest, options.device.memory_gbs, options.device.tensor_fp64_tflops, options.device.name,
      100 * (1 - kFusionMargin));
  return best;
}

CostReport lorastencil_cost(const LoraStencilPlan& plan) {
  CostReport c;
  c.method = "lorastencil";
  const Stencil& s = plan.stencil;
  const int steps = plan.fused_steps, radius = plan.kernel.radius;
  const MmaShapeInfo& info = mma_info(plan.options.shape);
  c.mma_shape = "mma." + info.id;
  c.fused_steps = steps;
  const double flops_per_mma = 2.0 * info.m * info.n * info.k;

  double mma_per_tile = 0, shared_values_per_tile = 0, points = 0;
  ZeroCount zeros;
  if (s.dims == 1) {
    const LineGather& g = plan.line;
    points = g.points();
    mma_per_tile = g.mma_per_tile();
    shared_values_per_tile = static_cast<double>(g.m) * g.inner;
    zeros = count_line_zeros(g);
  } else {
    const GatherTile& t = plan.tile;
    points = t.points();
    for (const LoraPlane& p : plan.planes) {
      if (p.kind == PlaneKind::TensorCores && !p.bands.empty())
        shared_values_per_tile += static_cast<double>(t.x_rows) * t.x_cols; // X once, reused by every term (PMA)
      for (const BandedPair& b : p.bands) {
        mma_per_tile += t.mma_per_term();
        const ZeroCount z = count_term_zeros(t, plan.swap, b);
        zeros.zeros += z.zeros;
        zeros.slots += z.slots;
      }
    }
    shared_values_per_tile += static_cast<double>(plan.cuda_core_terms()) * points; // one more read per CUDA-core term
  }
  c.mma_per_point = mma_per_tile / points / steps;
  c.shared_bytes_per_point = kBytesPerValue * shared_values_per_tile / points / steps;
  c.global_bytes_per_point = kBytesPerValue * (halo_read_factor(s.dims, radius) + 1.0) / steps;
  c.fragment_zero_fraction = zeros.slots > 0 ? zeros.zeros / zeros.slots : 0.0;
  c.useful_flops_per_point = 2.0 * s.nonzero_count();
  c.cuda_core_flops_per_point = 2.0 * plan.cuda_core_terms() / steps;
  c.executed_flops_per_point = c.mma_per_point * flops_per_mma + c.cuda_core_flops_per_point;

  if (s.dims == 1) {
    const LineGather& g = plan.line;
    c.notes.push_back({"tile", fmt::format("{} segments of {} outputs per warp tile (one gather X·V, paper IV-C); each "
                                           "segment reads {} inputs, padded to {}: {} MMAs",
                                           g.m, g.n, g.window, g.inner, g.mma_per_tile())});
  } else {
    const GatherTile& t = plan.tile;
    c.notes.push_back(
        {"tile", fmt::format("{}x{} outputs per warp tile; the {}x{} window is read as X of {}x{}; per rank-1 term "
                             "U·X takes {} MMAs and T'·V' {}",
                             t.tile_rows, t.tile_cols, t.window_rows, t.window_cols, t.x_rows, t.x_cols, t.step1_mma(),
                             t.step2_mma())});
    c.notes.push_back({"terms", fmt::format("{} rank-1 term(s) on tensor cores (sides {}), {} on CUDA cores",
                                            plan.tensor_core_terms(), term_sides(plan), plan.cuda_core_terms())});
  }
  c.notes.push_back({"shared bytes", "input fragments only: the U and V' weight fragments are loaded once per block and "
                                     "stay in registers; each CUDA-core term reads its input point once more"});
  c.notes.push_back({"global bytes", fmt::format("8-byte values, read once per block of the paper's Table II blocking "
                                                 "with a halo of {} ({:.4f}x) and written once, over {} base step(s)",
                                                 radius, halo_read_factor(s.dims, radius), steps)});
  c.notes.push_back({"zeros", "structural zeros of U, V' and the padding of X and T' past the window, over every "
                              "operand element of every MMA"});
  if (s.dims == 2 && steps == 1) {
    const int h = s.radius;
    const LoraPaperCounts paper = lorastencil_paper_counts(h, 1, 1);
    const double paper_mma = paper.lorastencil_mma, paper_shared = 32.0 * paper.rdg_fragment_loads * kBytesPerValue;
    const bool same_mma = std::abs(paper_mma - c.mma_per_point) < 1e-12;
    c.notes.push_back(
        {"paper Eq. 16",
         fmt::format("{:.4f} MMA per point at h = {} ({}); ours {:.4f}{}", paper_mma, h,
                     "h rank-1 terms of 2 ceil(h/2) x 2 ceil(h/4) + 2 ceil(h/2) MMAs per 32 ceil(h/2) ceil(h/4) points",
                     c.mma_per_point,
                     same_mma ? ", the same"
                              : fmt::format(": ours counts the real {} tile ({}x{} outputs, window padded to the "
                                            "fragment grid) and the rank-1 terms this W needs, where Eq. 16 assumes h "
                                            "terms and a 4 ceil(h/2) x 8 ceil(h/4) update",
                                            info.id, plan.tile.tile_rows, plan.tile.tile_cols))});
    const double x_bytes =
        plan.tensor_core_terms() > 0 ? kBytesPerValue * plan.tile.x_rows * plan.tile.x_cols / plan.tile.points() : 0.0;
    c.notes.push_back(
        {"paper Eq. 12",
         fmt::format("RDG loads ab/8 fragments of 32 values: {:.1f} bytes per point; ours {:.1f} for X{}{}", paper_shared,
                     x_bytes,
                     std::abs(paper_shared - x_bytes) < 1e-9
                         ? ", the same"
                         : " (Eq. 12 assumes a 2h x 2h update from a 4h x 4h window; ours is the tile's real window "
                           "padded to the fragment grid)",
                     plan.cuda_core_terms() ? fmt::format(", plus {:.1f} for the apex read on CUDA cores",
                                                          c.shared_bytes_per_point - x_bytes)
                                            : "")});
  }
  return c;
}

LoraPaperCounts lorastencil_paper_counts(int h, std::int64_t a, std::int64_t b) {
  if (h < 1) throw InputError(fmt::format("the paper's counts need a radius h >= 1; got {}", h));
  if (a < 1 || b < 1) throw InputError(fmt::format("the paper's counts need a grid of at least 1x1; got {}x{}", a, b));
  LoraPaperCounts p;
  p.h = h;
  const double ab = static_cast<double>(a) * static_cast<double>(b);
  const std::int64_t ch2 = ceil_div(h, 2), ch4 = ceil_div(h, 4);
  const std::int64_t kernel_fragments = ceil_div((2 * h + 1) * (2 * h + 1), 4);
  p.points_per_update = 32.0 * ch2 * ch4;
  p.rdg_fragment_loads = ab / 8.0;
  p.convstencil_fragment_loads = 2.0 * kernel_fragments * ceil_div(a, 16 * (h + 1)) * static_cast<double>(b);
  p.memory_ratio = p.convstencil_fragment_loads / p.rdg_fragment_loads;
  p.memory_ratio_limit = static_cast<double>(kernel_fragments) / (h + 1);
  p.lorastencil_mma = 2.0 * h * ch2 * (2 * ch4 + 1) * ab / p.points_per_update;
  p.convstencil_mma = p.convstencil_fragment_loads;
  for (int i = 1; i <= h + 1; ++i) p.pyramid_sides.push_back(2 * h + 3 - 2 * i);
  return p;
}

} // namespace se
