// Turning core's LoRAStencil plan into the GPU's term descriptors and lane-ordered fragment tables.
#include "kernels/lorastencil/lora_gpu_plan.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"

namespace se::lora_gpu {
namespace {

constexpr int kSlot = 32; // doubles per fragment slot: one per lane

long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

GpuTerm scalar_term(int plane, double weight, int dx, int dy) {
  GpuTerm t;
  t.plane = plane;
  t.desc.kind = kScalar;
  t.desc.scalar = weight;
  t.desc.dx = dx;
  t.desc.dy = dy;
  return t;
}

// The term as core's warp tile runs it (trimmed, classified, a single weight folded into the other vector),
// with the chunk count the kernels' templates take.
GpuTerm gpu_term(int plane, const TermGather& g, const GatherTile& tile) {
  if (g.kind == GatherKind::CudaCores) return scalar_term(plane, g.scalar(), 0, 0);
  GpuTerm t;
  t.plane = plane;
  t.u = g.u;
  t.v = g.v;
  t.desc.wu = g.wu;
  t.desc.wv = g.wv;
  t.desc.kc = term_schedule(tile, g).chunks;
  t.desc.kind = g.kind == GatherKind::Chain ? kFull : g.kind == GatherKind::Rows ? kRowGather : kColGather;
  t.desc.wide = g.kind == GatherKind::Chain && g.wv > 4 ? 1 : 0;
  return t;
}

// The kernels' warp tile for a pass: m16n8k4, 4 C fragments along x in 1D and 2D, 2 in 3D.
GatherTile kernel_tile(int dims, int radius) {
  return make_gather_tile(MmaShape::M16N8K4_F64, radius, dims == 3 ? k3dOutTilesPerWarp : kOutTilesPerWarp);
}

void append_tables(GpuTerm& t, std::vector<double>& tables) {
  t.desc.table = static_cast<int>(tables.size() / kSlot);
  const TermDesc& d = t.desc;
  const auto push = [&](auto value_of_lane) {
    for (int lane = 0; lane < kSlot; ++lane) tables.push_back(value_of_lane(lane));
  };
  // A chunk of U for 16 rows: lane 4g+q holds rows g and g+8 side by side (one 16-byte load).
  const auto push_u = [&](int chunk) {
    for (int lane = 0; lane < kSlot; ++lane) {
      tables.push_back(band_fragment(t.u, chunk, lane));
      tables.push_back(band_fragment(t.u, chunk, lane, 8));
    }
  };
  switch (d.kind) {
  case kFull:
    for (int c = 0; c < d.kc; ++c) push_u(c);
    for (int dd = 0; dd < (d.wide ? 3 : 2); ++dd)
      for (int h = 0; h < 2; ++h) push([&](int lane) { return swapped_v_fragment(t.v, dd, h, lane); });
    break;
  case kRowGather:
    for (int c = 0; c < d.kc; ++c) push_u(c);
    break;
  case kColGather:
    for (int c = 0; c < d.kc; ++c) push([&](int lane) { return band_fragment(t.v, c, lane); });
    break;
  default: break;
  }
}

// Per output point of one pass, on the warp tile the kernels run: 16 x 32 (1D: 16 segments x 32), 3D 16 x 16.
// The MMAs are core's count for that tile (term_schedule), which is what the kernels' loops issue.
void add_counts(const GpuTerm& t, const GatherTile& tile, bool folded, PassCounts& c) {
  const TermDesc& d = t.desc;
  const double reads = folded ? 2.0 : 1.0; // a folded plane's term adds two staged values per operand
  const int tiles = tile.warp_fragments;
  const double points = tile.warp_points();
  if (d.kind != kScalar) {
    TermGather g{d.kind == kFull ? GatherKind::Chain : d.kind == kRowGather ? GatherKind::Rows : GatherKind::Columns,
                 d.wu, d.wv, t.u, t.v};
    c.mma_per_point += term_schedule(tile, g).mma / points;
  }
  const int t_tiles = tiles + (d.wide ? 3 : 2) - 1;
  switch (d.kind) {
  case kFull: c.shared_loads_per_point += reads * 32.0 * d.kc * t_tiles / points; break;
  case kRowGather: c.shared_loads_per_point += reads * 32.0 * d.kc * tiles / points; break;
  case kColGather: c.shared_loads_per_point += reads * 64.0 * (2 * (tiles - 1) + d.kc) / points; break;
  default:
    c.cuda_core_fma_per_point += 1.0;
    c.shared_loads_per_point += reads;
    break;
  }
}

std::string_view kind_name(int kind) {
  switch (kind) {
  case kFull: return "U·X·V' chain";
  case kRowGather: return "U·X gather";
  case kColGather: return "X·V gather";
  default: return "CUDA-core scalar";
  }
}

// The descriptor with its dispatch key and its staged-plane offset for the pitch and halo of `a` (see TermDesc).
TermDesc with_offsets(TermDesc d, const PassArgs& a) {
  const int R = a.radius, P = a.pitch, xs = a.halo - a.radius;
  d.key = term_key(d.kind, d.kind == kScalar ? 0 : d.kc, d.wide);
  switch (d.kind) {
  case kFull: d.offset = (R - d.wu) * P + xs + R - d.wv; break;
  case kRowGather: d.offset = (R - d.wu) * P + xs + R; break;
  case kColGather: d.offset = R * P + xs + R - d.wv; break;
  default: d.offset = (R + d.dy) * P + xs + R + d.dx; break;
  }
  return d;
}

int pitch_for(int cols) {
  // 8-byte fragment loads of a half-warp touch 4 rows x 4 columns: a pitch of 4 or 12 mod 16 doubles puts
  // them in 16 distinct bank pairs.
  int p = cols;
  while (p % 16 != 4 && p % 16 != 12) p += 2;
  return p;
}

} // namespace

RooflineDevice h200_roofline() { return {"NVIDIA H200 (measured: copy, mma.m16n8k4.f64)", 4241.0, 65.7}; }

LoraStencilOptions gpu_plan_options() {
  LoraStencilOptions o;
  o.shape = MmaShape::M16N8K4_F64;
  o.device = h200_roofline();
  o.warp_fragments = kOutTilesPerWarp;
  return o;
}

LoraStencilOptions kernel_plan_options(const Stencil& s, LoraStencilOptions options) {
  options.shape = MmaShape::M16N8K4_F64;
  options.warp_fragments = s.dims == 3 ? k3dOutTilesPerWarp : kOutTilesPerWarp;
  // 3D planes whose mirror has the same weights run once on both planes' sum (box-3d27p: 2 of 3 planes' MMAs;
  // H100, one call: 152 against 133 GStencil/s, notes/lorastencil-gpu.md).
  options.fold_mirror_planes = true;
  return options;
}

LoraStencilPlan plan_for_gpu(const Stencil& s, const LoraStencilOptions& options) {
  LoraStencilOptions o = kernel_plan_options(s, options);
  if (o.fused_steps != 0 || s.radius == 0) return make_lorastencil_plan(s, o);
  if (s.dims == 3) {
    // The roofline sees bytes and MMAs only. A fused 3D pass also stages 2R+3 planes per block, which halves
    // the warps per SM with each fused step; fused 3D passes measured slower than T = 1 even with the cross
    // split's fewer MMAs (notes/lorastencil-gpu.md, runs 3 and 5).
    const LoraStencilPlan weighed = make_lorastencil_plan(s, o);
    o.fused_steps = 1;
    LoraStencilPlan plan = make_lorastencil_plan(s, o);
    plan.fusion_candidates = weighed.fusion_candidates;
    plan.fusion_rule = fmt::format("T = 1 in 3D (the roofline alone picks T = {}): each fused step adds 2 staged "
                                   "planes to every block's ring of 2R+3 and halves the warps per SM, and fused 3D "
                                   "passes measured slower than T = 1 on the H200 (notes/lorastencil-gpu.md)",
                                   weighed.fused_steps);
    return plan;
  }
  // 1D and 2D: the same cost model over every depth up to radius kMaxRadius, not only the paper's 3 steps. The
  // line gather costs under 1% of the tensor peak at any depth, so each step fused divides the bytes per step; in
  // 2D the model's estimate peaks at T = 4 for the radius-1 stencils (heat-2d, box-2d9p), which the H200
  // confirmed: heat-2d 560 GStencil/s at T = 4 against 539 at T = 3, box-2d9p 507 against 483
  // (notes/lorastencil-gpu.md, run 11).
  std::vector<FusionCandidate> candidates;
  LoraStencilPlan best;
  for (int t = 1; t <= kMaxRadius / s.radius; ++t) {
    o.fused_steps = t;
    LoraStencilPlan plan = make_lorastencil_plan(s, o);
    candidates.push_back(plan.fusion_candidates.front());
    if (t == 1 || candidates.back().estimated_ps_per_point <
                      0.98 * candidates[static_cast<std::size_t>(best.fused_steps - 1)].estimated_ps_per_point)
      best = std::move(plan);
  }
  best.fusion_candidates = candidates;
  best.fusion_rule = fmt::format("T = {} of 1..{}: the cost model's smallest max(global bytes / {:.0f} GB/s, tensor "
                                 "FLOPs / {:.1f} TFLOP/s) per point and base step; in 1D and 2D every depth up to "
                                 "radius {} is weighed, not only the paper's 3; a deeper one must win by 2%",
                                 best.fused_steps, candidates.size(), options.device.memory_gbs,
                                 options.device.tensor_fp64_tflops, kMaxRadius);
  return best;
}

double band_fragment(const std::vector<double>& w, int chunk, int lane, int row_offset) {
  // Register row_offset / 8 of the lane's A fragment holds U[row][col] with U[row][col] = w[col - row] (core's
  // layout table of m16n8k4); chunk `chunk` starts at column 4 chunk.
  const FragmentCoord at = hardware_fragment_layout(MmaShape::M16N8K4_F64, Operand::A).at(lane, row_offset / 8);
  const int i = 4 * chunk + at.col - at.row;
  return i >= 0 && i < static_cast<int>(w.size()) ? w[static_cast<std::size_t>(i)] : 0.0;
}

double swapped_v_fragment(const std::vector<double>& v, int d, int h, int lane) {
  // The accumulator of T-tile (j + d) holds T column `c.col` in register h; used as an A fragment it multiplies
  // B row k = this lane's B row, so the lane's element of V' (B row k, column `b.col`) must be band row
  // 8d + c.col of V: v[8d + c.col - b.col].
  const FragmentCoord c = hardware_fragment_layout(MmaShape::M16N8K4_F64, Operand::C).at(lane, h);
  const FragmentCoord b = hardware_fragment_layout(MmaShape::M16N8K4_F64, Operand::B).at(lane, 0);
  const int i = 8 * d + c.col - b.col;
  return i >= 0 && i < static_cast<int>(v.size()) ? v[static_cast<std::size_t>(i)] : 0.0;
}

GpuPass make_gpu_pass(const LoraStencilPlan& plan) {
  GpuPass pass;
  pass.dims = plan.stencil.dims;
  pass.fused_steps = plan.fused_steps;
  pass.radius = plan.kernel.radius;
  const int R = pass.radius;
  if (R < 1 || R > kMaxFusedRadius)
    throw InputError(fmt::format("the LoRAStencil GPU kernels take fused radii 1..{}; W^{} of '{}' has radius {}",
                                 kMaxFusedRadius, plan.fused_steps, plan.stencil.name, R));
  const int side = 2 * R + 1;
  const GatherTile tile = kernel_tile(pass.dims, R);
  if (pass.dims == 1) {
    // The line gather (paper IV-C) always runs as X·V, even when only the centre weight (or none) is left.
    RankOneTerm line;
    line.size = side;
    line.u.assign(static_cast<std::size_t>(side), 0.0);
    line.u[static_cast<std::size_t>(R)] = 1.0;
    line.v = plan.kernel.weights;
    TermGather g = term_gather(line, R);
    if (g.kind != GatherKind::Columns) g = TermGather{GatherKind::Columns, 0, 1, {1.0}, {0.0, g.scalar(), 0.0}};
    pass.terms.push_back(gpu_term(0, g, tile));
    pass.plane_first = {0};
    pass.plane_count = {1};
  } else {
    const int rz = pass.dims == 3 ? R : 0;
    pass.plane_first.assign(static_cast<std::size_t>(2 * rz + 1), 0);
    pass.plane_count.assign(static_cast<std::size_t>(2 * rz + 1), 0);
    pass.plane_mirror.assign(static_cast<std::size_t>(2 * rz + 1), -1);
    for (const LoraPlane& p : plan.planes) {
      const int index = p.dz + rz;
      if (index < 0 || index > 2 * rz) throw InputError(fmt::format("plane dz = {} outside the kernel", p.dz));
      pass.plane_first[static_cast<std::size_t>(index)] = static_cast<int>(pass.terms.size());
      if (p.folds_mirror) pass.plane_mirror[static_cast<std::size_t>(index)] = index - 2 * p.dz;
      if (p.mirrored) {
        // nothing of its own: its mirror's terms read both planes
      } else if (p.kind == PlaneKind::CudaCores) {
        pass.terms.push_back(scalar_term(index, p.weight, p.dx, p.dy));
      } else if (p.kind == PlaneKind::TensorCores) {
        for (const RankOneTerm& t : p.decomposition.terms) {
          GpuTerm g = gpu_term(index, term_gather(t, R), tile);
          if (g.desc.kind == kScalar && g.desc.scalar == 0.0) continue;
          pass.terms.push_back(std::move(g));
        }
      }
      pass.plane_count[static_cast<std::size_t>(index)] =
          static_cast<int>(pass.terms.size()) - pass.plane_first[static_cast<std::size_t>(index)];
    }
  }
  if (static_cast<int>(pass.terms.size()) > kMaxTerms)
    throw InputError(fmt::format("W^{} of '{}' splits into {} rank-1 terms; one LoRAStencil GPU pass holds at most {}: "
                                 "fuse fewer steps",
                                 plan.fused_steps, plan.stencil.name, pass.terms.size(), kMaxTerms));
  for (GpuTerm& t : pass.terms) {
    append_tables(t, pass.tables);
    const bool folded = !pass.plane_mirror.empty() && pass.plane_mirror[static_cast<std::size_t>(t.plane)] >= 0;
    add_counts(t, tile, folded, pass.counts);
  }
  pass.table_slots = static_cast<int>(pass.tables.size() / kSlot);
  if (pass.dims == 1) {
    pass.counts.staged_values_per_point = static_cast<double>(kLineCols + 2 * (R + R % 2)) / kLineCols;
  } else {
    const double rows = kTileRows + 2.0 * R, cols = kTileCols + 2.0 * (R + R % 2);
    pass.counts.staged_values_per_point = rows * cols / (kTileRows * kTileCols);
  }
  return pass;
}

std::string GpuPass::describe() const {
  std::string s = fmt::format("{}D pass of W^{} (radius {}): {} term(s), {} fragment slot(s); per point {:.4f} m16n8k4, "
                              "{:.3f} shared-memory values, {:.3f} CUDA-core FMA, {:.3f} staged values\n",
                              dims, fused_steps, radius, terms.size(), table_slots, counts.mma_per_point,
                              counts.shared_loads_per_point, counts.cuda_core_fma_per_point,
                              counts.staged_values_per_point);
  const int rz = dims == 3 ? radius : 0;
  for (const GpuTerm& t : terms) {
    const TermDesc& d = t.desc;
    const bool folded = !plane_mirror.empty() && plane_mirror[static_cast<std::size_t>(t.plane)] >= 0;
    s += fmt::format("  plane dz={:+d}{} {:<16} ", t.plane - rz,
                     folded ? fmt::format(" (+ dz={:+d})", plane_mirror[static_cast<std::size_t>(t.plane)] - rz) : "",
                     kind_name(d.kind));
    if (d.kind == kScalar) s += fmt::format("w={:.6g} at dx={} dy={}\n", d.scalar, d.dx, d.dy);
    else s += fmt::format("u {}-wide, v {}-wide, {} chunk(s) of 4\n", 2 * d.wu + 1, 2 * d.wv + 1, d.kc);
  }
  return s;
}

int staged_plane_count(const PassArgs& a) { return a.dims == 1 ? kLineStages : a.dims == 2 ? 2 : 2 * a.radius + 3; }

int block_threads(const PassArgs& a) {
  return a.dims == 1 ? kLineThreads : a.dims == 2 ? kThreads : (a.tile_rows / kWarpRows) * (kTileCols / k3dWarpCols) * 32;
}

int staged_plane_stride(const PassArgs& a) {
  if (a.dims == 1) return (a.staged_rows + kLineSlackRows) * a.pitch;
  // 2D/3D planes start 128-byte aligned (the TMA's shared-memory destination): the stride rounds up to 16 doubles.
  const int values = (a.staged_rows + kSlackRows) * a.pitch;
  return (values + 15) / 16 * 16;
}

std::size_t shared_bytes(const PassArgs& a) {
  const std::size_t align_slack = a.dims == 1 ? 0 : kStagedAlign; // the kernels round the staged base up
  return static_cast<std::size_t>(a.tables_in_shared ? a.table_slots : 0) * kSlot * sizeof(double) + align_slack +
         static_cast<std::size_t>(staged_plane_count(a)) * staged_plane_stride(a) * sizeof(double);
}

PassArgs make_pass_args(const GpuPass& pass, const Extent& extent, const Boundary& boundary) {
  if (extent.dims != pass.dims)
    throw InputError(fmt::format("a {}D LoRAStencil pass cannot run on a {}D grid", pass.dims, extent.dims));
  PassArgs a;
  a.nx = extent.n[0];
  a.ny = extent.n[1];
  a.nz = extent.n[2];
  a.dims = pass.dims;
  a.radius = pass.radius;
  a.halo = pass.radius + pass.radius % 2;
  a.periodic = boundary.kind == BoundaryKind::Periodic ? 1 : 0;
  a.boundary_value = boundary.value;
  a.table_slots = pass.table_slots;
  // 3D tables beyond 32 KB (general stencils: many full-size SVD terms per plane) would crowd out the
  // ring of staged planes: those passes read their fragments through the L1 cache instead.
  a.tables_in_shared =
      pass.dims < 3 || static_cast<std::size_t>(pass.table_slots) * kSlot * sizeof(double) <= 32 * 1024 ? 1 : 0;
  a.term_count = static_cast<int>(pass.terms.size());
  a.aligned_rows = (pass.dims == 1 || a.nx % 2 == 0) ? 1 : 0;
  a.pitch = pitch_for((pass.dims == 1 ? kLineCols : kTileCols) + 2 * a.halo);
  for (std::size_t i = 0; i < pass.terms.size(); ++i) a.terms[i] = with_offsets(pass.terms[i].desc, a);
  for (std::size_t p = 0; p < pass.plane_first.size(); ++p) {
    a.plane_first[p] = pass.plane_first[p];
    a.plane_count[p] = pass.plane_count[p];
    a.plane_mirror[p] = p < pass.plane_mirror.size() ? pass.plane_mirror[p] : -1;
  }
  if (pass.dims == 1) {
    a.tile_rows = kLineRows;
    a.staged_rows = kLineRows;
    a.plane_stride = staged_plane_stride(a);
    a.items = ceil_div(a.nx, static_cast<long long>(kLineRows) * kLineCols);
    return a;
  }
  a.tiles_x = static_cast<int>(ceil_div(a.nx, static_cast<long long>(kTileCols)));
  a.tile_rows = kTileRows;
  if (pass.dims == 3) {
    // 2R+3 staged planes per block: shrink the tile until two blocks fit in an SM's shared memory.
    constexpr std::size_t kBudget = 112 * 1024;
    a.tile_rows = kTileRows / 2;
    while (a.tile_rows > kWarpRows) {
      a.staged_rows = a.tile_rows + 2 * a.radius;
      a.plane_stride = staged_plane_stride(a);
      if (shared_bytes(a) <= kBudget) break;
      a.tile_rows /= 2;
    }
  }
  a.staged_rows = a.tile_rows + 2 * a.radius;
  a.plane_stride = staged_plane_stride(a);
  a.tiles_y = static_cast<int>(ceil_div(a.ny, static_cast<long long>(a.tile_rows)));
  const long long tiles = static_cast<long long>(a.tiles_x) * a.tiles_y;
  if (tiles >= (1LL << 31))
    throw InputError(fmt::format("a {}x{} plane has {} LoRAStencil tiles; the kernels index at most 2^31", a.nx, a.ny,
                                 tiles));
  if (pass.dims == 2) {
    a.items = tiles;
  } else {
    // Chunks of z short enough that the last wave of blocks is small, long enough that the 2R re-staged
    // halo planes per chunk stay a few percent.
    a.z_chunk = static_cast<int>(std::min<long long>(a.nz, std::max(64, 8 * a.radius)));
    a.items = tiles * ceil_div(a.nz, static_cast<long long>(a.z_chunk));
    if (a.items >= (1LL << 31))
      throw InputError(fmt::format("a {}x{}x{} grid has {} LoRAStencil work items; the kernels index at most 2^31",
                                   a.nx, a.ny, a.nz, a.items));
  }
  return a;
}

std::vector<int> split_into_passes(int steps, int T, const std::vector<double>& pass_cost) {
  if (steps < 0 || T < 1) throw InputError(fmt::format("cannot split {} steps into passes of at most {}", steps, T));
  int full = steps / T;
  const int rest = steps % T;
  std::vector<int> out(static_cast<std::size_t>(full), T);
  if (rest == 0) return out;
  bool known = static_cast<int>(pass_cost.size()) >= T;
  for (int d = 1; known && d <= T; ++d) known = pass_cost[static_cast<std::size_t>(d - 1)] > 0;
  if (!known) {
    out.push_back(rest);
    return out;
  }
  if (full > 0) out.pop_back(); // the last full pass joins the rest
  const int n = rest + (full > 0 ? T : 0);
  std::vector<double> best(static_cast<std::size_t>(n) + 1, 0.0);
  std::vector<int> last(static_cast<std::size_t>(n) + 1, 0);
  for (int m = 1; m <= n; ++m)
    for (int d = std::min(T, m); d >= 1; --d) { // deeper first: a tie keeps fewer passes
      const double c = best[static_cast<std::size_t>(m - d)] + pass_cost[static_cast<std::size_t>(d - 1)];
      if (last[static_cast<std::size_t>(m)] == 0 || c < best[static_cast<std::size_t>(m)] * (1 - 1e-9)) {
        best[static_cast<std::size_t>(m)] = c;
        last[static_cast<std::size_t>(m)] = d;
      }
    }
  std::vector<int> tail;
  for (int m = n; m > 0; m -= last[static_cast<std::size_t>(m)]) tail.push_back(last[static_cast<std::size_t>(m)]);
  std::sort(tail.rbegin(), tail.rend());
  out.insert(out.end(), tail.begin(), tail.end());
  return out;
}

std::vector<FixBox> band_fix_boxes(const Extent& e, int radius, int fused_steps, std::size_t shared_budget) {
  std::vector<FixBox> boxes;
  if (fused_steps <= 1 || radius == 0) return boxes;
  const long long band = static_cast<long long>(fused_steps - 1) * radius;
  const long long halo = static_cast<long long>(fused_steps) * radius;
  // The longest box side along the face that keeps (band + 2H) x (L + 2H)^(d-1) values x 2 buffers in budget.
  const double values = static_cast<double>(shared_budget) / (2 * sizeof(double));
  long long along = 1024;
  if (e.dims >= 2) {
    const double per_face = values / static_cast<double>(band + 2 * halo);
    along = static_cast<long long>(std::floor(std::pow(per_face, 1.0 / (e.dims - 1)))) - 2 * halo;
    if (along < 1)
      throw InputError(fmt::format("the Dirichlet band of W^{} (radius {}) does not fit in shared memory; fuse fewer "
                                   "steps",
                                   fused_steps, radius));
    along = std::min<long long>(along, e.dims == 2 ? 256 : 32);
  }
  for (int axis = 0; axis < e.dims; ++axis) {
    const long long n = e.n[axis];
    for (int side = 0; side < 2; ++side) {
      long long lo = side == 0 ? 0 : std::max(n - band, band);
      long long hi = side == 0 ? std::min(band, n) : n;
      if (lo >= hi) continue;
      // Earlier axes already hold their bands: take only their interior here.
      long long from[3] = {0, 0, 0}, to[3] = {e.n[0], e.n[1], e.n[2]};
      from[axis] = lo;
      to[axis] = hi;
      bool empty = false;
      for (int a = 0; a < axis; ++a) {
        from[a] = band;
        to[a] = e.n[a] - band;
        empty = empty || from[a] >= to[a];
      }
      if (empty) continue;
      long long step[3] = {along, along, along};
      step[axis] = hi - lo;
      for (int a = e.dims; a < 3; ++a) step[a] = 1;
      for (long long z = from[2]; z < to[2]; z += step[2])
        for (long long y = from[1]; y < to[1]; y += step[1])
          for (long long x = from[0]; x < to[0]; x += step[0]) {
            FixBox b;
            b.x0 = x;
            b.y0 = y;
            b.z0 = z;
            b.bx = static_cast<int>(std::min(step[0], to[0] - x));
            b.by = static_cast<int>(std::min(step[1], to[1] - y));
            b.bz = static_cast<int>(std::min(step[2], to[2] - z));
            boxes.push_back(b);
          }
    }
  }
  return boxes;
}

} // namespace se::lora_gpu
