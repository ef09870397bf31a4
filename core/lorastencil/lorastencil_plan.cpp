// Building the LoRAStencil plan (fusion, planes, tiles) and counting its cost.
#include "core/lorastencil/lorastencil_plan.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/lorastencil/cross_decomposition.hpp"

namespace se {
namespace {

constexpr int kMaxAutoFusion = 3; // the paper fuses at most 3 steps (Fig. 7)
constexpr double kFusionMargin = 0.98;
constexpr double kBytesPerValue = 8.0;
constexpr int kMaxWarpFragments = 16; // a warp holds every fragment's accumulators in its registers

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

int tile_cuda_terms(const WeightDecomposition& d, const GatherTile& tile) {
  int n = 0;
  for (const RankOneTerm& t : d.terms)
    n += t.on_cuda_cores || term_gather(t, tile.radius).kind == GatherKind::CudaCores;
  return n;
}

// The cross split of a star-shaped plane, or (for a fused star) the multinomial expansion of its power;
// empty with the reasons in `obstacle` when neither applies.
std::optional<WeightDecomposition> cross_candidate(const WeightMatrix& w, int dz, const LoraStencilPlan& plan,
                                                   std::string& obstacle) {
  obstacle = cross_obstacle(w);
  if (obstacle.empty()) return cross_decomposition(w);
  if (plan.fused_steps > 1) {
    const std::string star = star_power_obstacle(plan.stencil, plan.fused_steps, dz);
    if (star.empty()) return star_power_decomposition(plan.stencil, plan.fused_steps, dz);
    obstacle += "; " + star;
  }
  return std::nullopt;
}

WeightDecomposition decompose(const WeightMatrix& w, int dz, const LoraStencilPlan& plan) {
  const DecompositionChoice choice = plan.options.decomposition;
  switch (choice) {
  case DecompositionChoice::Pyramid: return pyramid_decomposition(w);
  case DecompositionChoice::Svd: return svd_decomposition(w);
  case DecompositionChoice::Cross: {
    std::string obstacle;
    auto d = cross_candidate(w, dz, plan, obstacle);
    if (!d) throw InputError(fmt::format("LoRAStencil's cross split cannot take plane dz = {}: {}", dz, obstacle));
    return std::move(*d);
  }
  case DecompositionChoice::Auto: break;
  }
  std::vector<WeightDecomposition> candidates;
  std::string pyramid_obstacle_text = pyramid_obstacle(w), cross_obstacle_text;
  if (pyramid_obstacle_text.empty()) candidates.push_back(pyramid_decomposition(w));
  if (auto cross = cross_candidate(w, dz, plan, cross_obstacle_text)) candidates.push_back(std::move(*cross));
  candidates.push_back(svd_decomposition(w));
  const GatherTile& tile = plan.tile;
  std::size_t best = 0;
  std::vector<int> mma, cuda;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    mma.push_back(decomposition_tile_mma(candidates[i], tile));
    cuda.push_back(tile_cuda_terms(candidates[i], tile));
    if (mma[i] < mma[best] || (mma[i] == mma[best] && cuda[i] < cuda[best])) best = i;
  }
  std::string others;
  for (std::size_t i = 0; i < candidates.size(); ++i)
    if (i != best) others += fmt::format(", {} {}", to_string(candidates[i].kind), mma[i]);
  WeightDecomposition d = std::move(candidates[best]);
  d.reason += fmt::format("; chosen by the cost model: {} MMAs per {}x{} warp tile{}", mma[best], tile.tile_rows,
                          tile.warp_cols(), others.empty() ? "" : " (against" + others.substr(1) + ")");
  if (!pyramid_obstacle_text.empty()) d.reason += "; no pyramid: " + pyramid_obstacle_text;
  return d;
}

LoraPlane tensor_core_plane(int dz, const WeightMatrix& w, const LoraStencilPlan& plan) {
  LoraPlane p;
  p.dz = dz;
  p.kind = PlaneKind::TensorCores;
  p.decomposition = decompose(w, dz, plan);
  for (const RankOneTerm& t : p.decomposition.terms) {
    if (t.on_cuda_cores) {
      p.apex += t.weight();
      continue;
    }
    p.bands.push_back(make_banded_pair(plan.tile, plan.swap, t));
    p.gathers.push_back(term_gather(t, plan.tile.radius));
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
    plan.tile = make_gather_tile(options.shape, radius, options.warp_fragments);
    plan.swap = derive_butterfly_swap(options.shape, plan.tile.x_cols);
    const int rz = s.dims == 3 ? radius : 0;
    for (int dz = -rz; dz <= rz; ++dz) plan.planes.push_back(plane_for(dz, weight_matrix(plan.kernel, dz), plan));
    if (s.dims == 3 && options.fold_mirror_planes)
      for (int dz = 1; dz <= rz; ++dz) {
        LoraPlane& below = plan.planes[static_cast<std::size_t>(rz - dz)];
        LoraPlane& above = plan.planes[static_cast<std::size_t>(rz + dz)];
        if (mirror_planes_fold(plan.kernel, dz)) below.folds_mirror = above.mirrored = true;
      }
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

// Per MMA of one term on the warp tile: zeros of its weight operand (U, V' or V) and input slots past the warp
// tile's window (loaded as zeros; for T' the columns of T that U·X computed from them).
ZeroCount count_gather_zeros(const GatherTile& t, const TermOperands& o) {
  ZeroCount z;
  const TermGather& g = o.gather;
  const TermSchedule& s = o.schedule;
  const int R = t.radius, rows_used = t.m + 2 * R, cols_used = t.warp_cols() + 2 * R;
  const double slots = t.m * t.k + t.k * t.n;
  const auto u_zeros = [&](int c) {
    int n = 0;
    const int cols = s.chunks * t.k;
    for (int p = 0; p < t.m; ++p)
      for (int kk = 0; kk < t.k; ++kk) n += o.u_band[static_cast<std::size_t>(p * cols + c * t.k + kk)] == 0.0;
    return n;
  };
  const auto v_zeros = [&](const std::vector<double>& v, int c) {
    return static_cast<int>(std::count(v.begin() + c * t.k * t.n, v.begin() + (c + 1) * t.k * t.n, 0.0));
  };
  const auto x_outside = [&](int row0, int col0, int rows, int cols) { // input block past the window
    int n = 0;
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) n += row0 + r >= rows_used || col0 + c >= cols_used;
    return n;
  };
  switch (g.kind) {
  case GatherKind::Chain:
    for (int c = 0; c < s.chunks; ++c)
      for (int tt = 0; tt < s.t_tiles; ++tt) {
        z.zeros += u_zeros(c) + x_outside(R - g.wu + c * t.k, R - g.wv + tt * t.n, t.k, t.n);
        z.slots += slots;
      }
    for (int j = 0; j < t.warp_fragments; ++j)
      for (int b = 0; b < s.v_chunks; ++b) {
        z.zeros += v_zeros(o.v_swapped, b);
        for (int kk = 0; kk < t.k; ++kk)
          if (R - g.wv + j * t.n + o.swap.permutation[static_cast<std::size_t>(b * t.k + kk)] >= cols_used) z.zeros += t.m;
        z.slots += slots;
      }
    break;
  case GatherKind::Rows:
    for (int c = 0; c < s.chunks; ++c)
      for (int j = 0; j < t.warp_fragments; ++j) {
        z.zeros += u_zeros(c) + x_outside(R - g.wu + c * t.k, R + j * t.n, t.k, t.n);
        z.slots += slots;
      }
    break;
  case GatherKind::Columns:
    for (int c = 0; c < s.chunks; ++c)
      for (int j = 0; j < t.warp_fragments; ++j) {
        z.zeros += v_zeros(o.v_band, c) + x_outside(R, R - g.wv + j * t.n + c * t.k, t.m, t.k);
        z.slots += slots;
      }
    break;
  case GatherKind::CudaCores: break;
  }
  return z;
}

// "2 U·X·V' chains (u x v half-widths 3x3, 2x2), 1 U·X gather (half-widths 2), 1 X·V gather (half-widths 2)".
std::string term_kinds(const LoraStencilPlan& plan) {
  std::string lists[3];
  int counts[3] = {0, 0, 0};
  for (const LoraPlane& p : plan.planes) {
    if (p.mirrored) continue; // its terms run as its mirror's
    for (const TermGather& g : p.gathers) {
      const int i = g.kind == GatherKind::Chain ? 0 : g.kind == GatherKind::Rows ? 1 : g.kind == GatherKind::Columns ? 2 : -1;
      if (i < 0) continue;
      const std::string item = i == 0 ? fmt::format("{}x{}", g.wu, g.wv) : std::to_string(i == 1 ? g.wu : g.wv);
      lists[i] += (lists[i].empty() ? "" : ", ") + item;
      ++counts[i];
    }
  }
  const char* names[3] = {"U·X·V' chain", "U·X gather", "X·V gather"};
  std::string s;
  for (int i = 0; i < 3; ++i)
    if (counts[i])
      s += fmt::format("{}{} {}{} ({} {})", s.empty() ? "" : ", ", counts[i], names[i], counts[i] > 1 ? "s" : "",
                       i == 0 ? "u x v half-widths" : "half-widths", lists[i]);
  return s.empty() ? "none" : s;
}

} // namespace

bool mirror_planes_fold(const Stencil& kernel, int dz) {
  if (kernel.dims != 3 || dz == 0 || std::abs(dz) > kernel.radius) return false;
  const WeightMatrix w = weight_matrix(kernel, dz);
  return w.nonzero_count() > 0 && w.values == weight_matrix(kernel, -dz).values;
}

int decomposition_tile_mma(const WeightDecomposition& d, const GatherTile& tile) {
  int mma = 0;
  for (const RankOneTerm& t : d.terms)
    if (!t.on_cuda_cores) mma += term_schedule(tile, term_gather(t, tile.radius)).mma;
  return mma;
}

std::string_view to_string(DecompositionChoice c) {
  switch (c) {
  case DecompositionChoice::Auto: return "auto";
  case DecompositionChoice::Pyramid: return "pyramid";
  case DecompositionChoice::Svd: return "svd";
  case DecompositionChoice::Cross: return "cross";
  }
  return "?";
}

DecompositionChoice parse_decomposition_choice(std::string_view s) {
  if (s == "auto") return DecompositionChoice::Auto;
  if (s == "pyramid") return DecompositionChoice::Pyramid;
  if (s == "svd") return DecompositionChoice::Svd;
  if (s == "cross") return DecompositionChoice::Cross;
  throw InputError(fmt::format("unknown decomposition '{}' (auto, pyramid, cross or svd)", s));
}

std::string_view to_string(PlaneKind k) {
  switch (k) {
  case PlaneKind::TensorCores: return "tensor cores";
  case PlaneKind::CudaCores: return "CUDA cores";
  case PlaneKind::Empty: return "empty";
  }
  return "?";
}

int LoraStencilPlan::folded_planes() const {
  return static_cast<int>(std::count_if(planes.begin(), planes.end(), [](const LoraPlane& p) { return p.folds_mirror; }));
}

int LoraStencilPlan::tensor_core_terms() const {
  int n = 0;
  for (const LoraPlane& p : planes)
    if (!p.mirrored) n += static_cast<int>(std::count_if(p.gathers.begin(), p.gathers.end(),
                                        [](const TermGather& g) { return g.kind != GatherKind::CudaCores; }));
  return stencil.dims == 1 ? 1 : n;
}

int LoraStencilPlan::cuda_core_terms() const {
  int n = 0;
  for (const LoraPlane& p : planes) {
    if (p.mirrored) continue;
    n += (p.kind == PlaneKind::CudaCores) || (p.apex != 0.0);
    n += static_cast<int>(std::count_if(p.gathers.begin(), p.gathers.end(), [](const TermGather& g) {
      return g.kind == GatherKind::CudaCores && g.scalar() != 0.0;
    }));
  }
  return n;
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
  if (options.warp_fragments < 1 || options.warp_fragments > kMaxWarpFragments)
    throw InputError(fmt::format("a warp tile takes 1 to {} C fragments along x; got {}", kMaxWarpFragments,
                                 options.warp_fragments));
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
    points = t.warp_points();
    // The warp tile's window, padded to the fragment grid: read once per plane, reused by every term (PMA).
    const double window_values = static_cast<double>(ceil_div(t.m + 2 * radius, t.k) * t.k) *
                                 static_cast<double>(ceil_div(t.warp_cols() + 2 * radius, std::lcm(t.n, t.k)) *
                                                     std::lcm(t.n, t.k));
    for (const LoraPlane& p : plan.planes) {
      if (p.mirrored) continue; // its mirror's terms run on both planes' sum
      // A folded plane reads its window, and its CUDA-core term its point, in both planes (the CUDA-core term's
      // first read is counted with all of them below).
      const double reads = p.folds_mirror ? 2.0 : 1.0;
      if (p.kind == PlaneKind::TensorCores && p.gathers.size() > 0) shared_values_per_tile += window_values * reads;
      if (p.folds_mirror)
        shared_values_per_tile += static_cast<double>((p.kind == PlaneKind::CudaCores) + (p.apex != 0.0)) * points;
      for (const TermGather& g : p.gathers) {
        const TermOperands o = term_operands(t, g);
        mma_per_tile += o.schedule.mma;
        const ZeroCount z = count_gather_zeros(t, o);
        zeros.zeros += z.zeros;
        zeros.slots += z.slots;
      }
    }
    shared_values_per_tile += static_cast<double>(plan.cuda_core_terms()) * points; // one more read per CUDA-core term
  }
  c.mma_per_point = mma_per_tile / points / steps;
  c.shared_bytes_per_point = kBytesPerValue * shared_values_per_tile / points / steps;
  c.input_loads_per_point = shared_values_per_tile / points / steps;
  // Every MMA takes one weight operand: U as A of U·X, V' (or V) as B of T'·V' (X·V); m8n8k4: 32 values either way.
  c.parameter_loads_per_point = c.mma_per_point * info.m * info.k;
  c.global_bytes_per_point = kBytesPerValue * (halo_read_factor(s.dims, radius) + 1.0) / steps;
  c.fragment_zero_fraction = zeros.slots > 0 ? zeros.zeros / zeros.slots : 0.0;
  c.useful_flops_per_point = 2.0 * s.nonzero_count();
  // Folding adds each loaded pair once: about one add per point and folded plane.
  c.cuda_core_flops_per_point = (2.0 * plan.cuda_core_terms() + plan.folded_planes()) / steps;
  c.executed_flops_per_point = c.mma_per_point * flops_per_mma + c.cuda_core_flops_per_point;

  if (s.dims == 1) {
    const LineGather& g = plan.line;
    c.notes.push_back({"tile", fmt::format("{} segments of {} outputs per warp tile (one gather X·V, paper IV-C); each "
                                           "segment reads {} inputs, padded to {}: {} MMAs",
                                           g.m, g.n, g.window, g.inner, g.mma_per_tile())});
  } else {
    const GatherTile& t = plan.tile;
    c.notes.push_back(
        {"tile", fmt::format("{}x{} outputs per warp tile ({} C fragment(s) of {}x{} sharing T = U·X); a full-size "
                             "term of one fragment reads a {}x{} window as X of {}x{}, U·X taking {} MMAs and T'·V' {}; "
                             "each term runs trimmed to its own non-zeros",
                             t.tile_rows, t.warp_cols(), t.warp_fragments, t.tile_rows, t.tile_cols, t.window_rows,
                             t.window_cols, t.x_rows, t.x_cols, t.step1_mma(), t.step2_mma())});
    c.notes.push_back({"terms", fmt::format("{} rank-1 term(s) on tensor cores: {}; {} on CUDA cores",
                                            plan.tensor_core_terms(), term_kinds(plan), plan.cuda_core_terms())});
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
                                            "fragment grid) and the rank-1 terms this W needs, each trimmed to its "
                                            "own non-zeros, where Eq. 16 assumes h full-size terms and a 4 ceil(h/2) "
                                            "x 8 ceil(h/4) update",
                                            info.id, plan.tile.tile_rows, plan.tile.warp_cols()))});
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
