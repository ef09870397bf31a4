// TCStencil cost model, plan summaries and the emulation methods.
#include "core/tcstencil/tcstencil_method.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/common/emulation_checks.hpp"
#include "core/tcstencil/tcstencil_emulation.hpp"

namespace se {
namespace {

// Input cells one tile reads from device memory: the tile and every neighbour a non-zero tap reaches, counted
// once (3D streams planes, so each plane's cells are read once and reused by the output planes around it).
std::int64_t input_cells_per_tile(const TCStencilPlan& plan) {
  const Stencil& s = plan.stencil;
  const int r = s.radius, L = plan.L, side = L + 2 * r;
  if (s.dims == 1) { // L^2 consecutive points and the farthest neighbour each side that a non-zero tap reads
    int left = 0, right = 0;
    for (const Tap& t : taps(s)) left = std::max(left, -t.dx), right = std::max(right, t.dx);
    return static_cast<std::int64_t>(L) * L + left + right;
  }
  std::vector<char> read(static_cast<std::size_t>(side * side), 0);
  const auto reach = [&](int dx, int dy) { // the tile shifted by (dx, dy)
    for (int row = 0; row < L; ++row)
      for (int col = 0; col < L; ++col) read[static_cast<std::size_t>((row + dy + r) * side + col + dx + r)] = 1;
  };
  reach(0, 0); // the tile itself, also when its centre weight is zero
  for (const Tap& t : taps(s)) reach(t.dx, t.dy);
  std::int64_t cells = 0;
  for (const char c : read) cells += c;
  return cells;
}

std::string method_id(const TCStencilPlan& plan) { return plan.precision == Precision::FP16 ? "tcstencil" : "tcstencil-fp64"; }

} // namespace

double spider_table1_tcstencil_macs_per_point(int radius, int L) {
  if (radius < 0 || !(L > 2 * radius))
    throw InputError(fmt::format("SPIDER's TCStencil count needs L > 2r; got L = {}, r = {}", L, radius));
  const double inner = static_cast<double>(L - 2 * radius);
  return std::pow(static_cast<double>(L), 3) * (2 * radius + 1) / (inner * inner);
}

int tcstencil_max_fused_steps(const TCStencilPlan& plan) {
  const bool star = plan.decomposition == TCStencilDecomposition::Star;
  return plan.precision == Precision::FP16 && star && plan.stencil.dims == 2 && plan.L == 16 && plan.stencil.radius <= 2
             ? 2
             : 1;
}

CostReport tcstencil_cost(const TCStencilPlan& plan, int fused_steps) {
  if (fused_steps < 1 || fused_steps > tcstencil_max_fused_steps(plan))
    throw InputError(fmt::format("TCStencil runs {} steps per launch on this stencil at most; asked for {}",
                                 tcstencil_max_fused_steps(plan), fused_steps));
  const MmaShapeInfo& info = mma_info(plan.shape);
  const Stencil& s = plan.stencil;
  const int L = plan.L, r = s.radius;
  const double points = static_cast<double>(L) * L;
  const double bytes = static_cast<double>(bytes_per_value(plan.precision));
  const int mt = L / info.m, nt = L / info.n;
  CostReport c;
  c.method = method_id(plan);
  c.mma_shape = info.ptx;
  c.fused_steps = 1;
  c.mma_per_point = plan.mma_per_tile() / points;
  const double fma = static_cast<double>(plan.cuda_core_fma_per_tile());
  c.cuda_core_flops_per_point = 2.0 * fma / points;
  c.executed_flops_per_point = c.mma_per_point * 2.0 * info.m * info.n * info.k + c.cuda_core_flops_per_point;
  c.useful_flops_per_point = 2.0 * s.nonzero_count();
  c.global_bytes_per_point = bytes * (static_cast<double>(input_cells_per_tile(plan)) / points + 1.0);
  c.shared_bytes_per_point = bytes * (static_cast<double>(plan.matrices.size()) * points + fma) / points;
  c.input_loads_per_point = c.shared_bytes_per_point / bytes;
  // Each MMA takes one parameter-matrix block as A (left) or B (right): m x k = k x n values for its square shapes.
  c.parameter_loads_per_point = c.mma_per_point * info.m * info.k;
  // A left matrix is the A operand of each of the nt column blocks, a right one the B operand of each of the mt
  // row blocks; the input tile is the other operand, taken as non-zero data.
  double fed = 0, zeros = 0;
  for (const ParameterMatrix& p : plan.matrices) {
    const int reuse = p.side == ParameterSide::Left ? nt : mt, input_reuse = p.side == ParameterSide::Left ? mt : nt;
    fed += (reuse + input_reuse) * points;
    zeros += reuse * static_cast<double>(p.zero_count());
  }
  c.fragment_zero_fraction = fed > 0 ? zeros / fed : 0.0;

  c.notes.emplace_back("counting", fmt::format(
      "non-overlapping {0} x {0} tiles, every point updated: the GEMMs hold the in-tile part of each sum (partial "
      "coefficients in the border lines, paper Fig. 5), CUDA cores add the {1} halo products per tile (Algorithm 2)",
      L, plan.cuda_core_fma_per_tile()));
  if (plan.shape == MmaShape::M16N8K16_F16_F32)
    c.notes.emplace_back("mma", "mma.m16n8k16 (FP16 operands, FP32 accumulate; two per 16x16x16 product, counted "
                                "as two instructions); FP16 grid");
  else if (plan.shape == MmaShape::M16N8K4_F64)
    c.notes.emplace_back("fp64 variant", "ours, on the GPU: mma.m16n8k4 keeps the paper's L = 16 (radius up to 7): a "
                                         "16x16x16 product is 8 MMAs (2 column halves x 4 K chunks), band blocks "
                                         "entirely outside the radius skipped by the kernel");
  else if (plan.precision == Precision::FP16)
    c.notes.emplace_back("mma", "one wmma.mma_sync m16n16k16 counts as one instruction (it issues two mma.m16n8k16 on "
                                "sm_80/sm_90); FP16 operands, FP32 accumulate, FP16 grid");
  else
    c.notes.emplace_back("fp64 variant", "ours: the paper is FP16-only (L = 16); on mma.m8n8k4 the tile is L = 8, so the "
                                         "radius is at most 3 and a GEMM is 2 MMAs (K = 8 in chunks of 4). The "
                                         "LoRAStencil and ConvStencil papers instead divide FP16 TCStencil rates by 4");
  c.notes.emplace_back("global bytes", "the tile and the halo cells its taps read, once per tile (3D: each plane once, "
                                       "streamed), plus one write; parameter matrices load once per thread block");
  c.notes.emplace_back("shared bytes", "each GEMM loads its L x L input operand; parameter fragments stay in registers "
                                       "across the block's tiles (paper Algorithm 2); each CUDA-core FMA reads one value");
  c.notes.emplace_back("zeros", "zeros of the parameter matrices over all operand elements fed to the MMAs (input tiles "
                                "counted as non-zero)");
  if (fused_steps == 2) {
    // Per block of B x B tiles and two base steps: (B + 1)^2 + B^2 tiles of work; the input region of step 1's
    // tiles and their halo, (16 (B + 1) + 2r)^2 cells, read once, and the B x B tiles' outputs written once.
    const double B = kFusedBlockTiles, work = ((B + 1) * (B + 1) + B * B) / (2 * B * B);
    const double side = L * (B + 1) + 2.0 * r, block = L * B;
    c.fused_steps = 2;
    c.mma_per_point *= work;
    c.cuda_core_flops_per_point *= work;
    c.executed_flops_per_point *= work;
    c.shared_bytes_per_point *= work;
    c.input_loads_per_point *= work;
    c.parameter_loads_per_point *= work;
    c.global_bytes_per_point = bytes * (side * side / (block * block) + 1.0) / 2.0;
    c.notes.emplace_back("two steps per launch", fmt::format(
        "the GPU's schedule for FP16 stars of radius 1-2: a block of {0} x {0} tiles computes step 1 on the {1} x {1} "
        "tiles around them (kept in shared memory as FP16) and step 2 from those: {2:.3f}x the tile work of two "
        "launches, and one read of the {3:g} x {3:g} input cells and one write per two steps", kFusedBlockTiles,
        kFusedBlockTiles + 1, work, side));
  }
  c.notes.emplace_back("paper inner region", fmt::format(
      "(L-2r)^2 = {} points per tile get their whole stencil from the GEMMs alone (paper Sec. 3.3: a 9-point star, "
      "r = 2, updates at least 12 x 12 points with two 16x16x16 HMMA)", plan.inner_points_per_tile()));
  if (plan.decomposition == TCStencilDecomposition::Box && s.dims == 2 && L > 2 * r) {
    const double macs = plan.mma_per_tile() * info.m * info.n * info.k / points;
    c.notes.emplace_back("SPIDER Table 1", fmt::format(
        "SPIDER counts L^3(2r+1)/(L-2r)^2 = {:.2f} MACs per point (tiles updating only their (L-2r)^2 inner points, "
        "L = {}); with partial coefficients every tile updates all L^2 points: {:.2f} MACs on tensor cores + {:.2f} "
        "CUDA-core FMAs per point", spider_table1_tcstencil_macs_per_point(r, L), L, macs, fma / points));
  }
  return c;
}

PlanSummary tcstencil_summary(const TCStencilPlan& plan, const Extent& extent, int fused_steps) {
  check_stencil_grid(plan.stencil, extent);
  PlanSummary out;
  out.method = method_id(plan);
  out.cost = tcstencil_cost(plan, fused_steps);
  const std::int64_t tile_points = static_cast<std::int64_t>(plan.L) * plan.L;
  const std::int64_t tiles_x = extent.dims == 1 ? (extent.n[0] + tile_points - 1) / tile_points
                                                : (extent.n[0] + plan.L - 1) / plan.L,
                     tiles_y = extent.dims == 1 ? 1 : (extent.n[1] + plan.L - 1) / plan.L;
  const std::int64_t tiles = tiles_x * tiles_y * extent.n[2];
  const std::int64_t covered = tiles * plan.L * plan.L;
  out.text = to_string(plan);
  out.text += fmt::format("\ngrid {}: {} x {} tiles{} per step, {} tile points for {} grid points ({:.1f}% of tile work "
                          "falls outside the grid)\n\n", extent.to_string(), tiles_x, tiles_y,
                          extent.dims == 3 ? fmt::format(" x {} planes", extent.n[2]) : "", covered, extent.points(),
                          100.0 * static_cast<double>(covered - extent.points()) / static_cast<double>(covered));
  out.text += to_string(out.cost);
  out.json = to_json(plan);
  out.json["grid"] = {{"extent", extent.to_string()}, {"tiles", tiles}, {"tile_points", covered}};
  out.json["cost"] = to_json(out.cost);
  return out;
}

PlanSummary plan_summary_tcstencil(const Stencil& s, const Extent& extent) {
  return tcstencil_summary(make_tcstencil_plan(s, Precision::FP16), extent);
}
PlanSummary plan_summary_tcstencil_fp64(const Stencil& s, const Extent& extent) {
  return tcstencil_summary(make_tcstencil_plan(s, Precision::FP64), extent);
}

PlanPtr tcstencil_method_plan(const Stencil& s, const PlanRequest& request, Precision precision, MmaShape shape,
                              bool gpu_schedule) {
  const std::string id = precision == Precision::FP16 ? "tcstencil" : "tcstencil-fp64";
  auto p = wrap_plan(id, s, request, make_tcstencil_plan(s, precision, shape));
  const TCStencilPlan& t = p->value;
  const int most = gpu_schedule ? tcstencil_max_fused_steps(t) : 1;
  if (request.fused_steps > most)
    throw InputError(fmt::format("{} runs at most {} step{} per pass on {}; it cannot fuse {}", id, most,
                                 most == 1 ? "" : "s", s.name, request.fused_steps));
  p->fused_steps = request.fused_steps > 0 ? request.fused_steps : most;
  p->cost = tcstencil_cost(t, p->fused_steps);
  p->brief = fmt::format("{} decomposition: {} parameter matrices on {} (L = {}), {} CUDA-core taps per tile{}",
                         to_string(t.decomposition), t.matrices.size(), mma_info(t.shape).id, t.L,
                         t.cuda_core_taps.size(), p->fused_steps == 2 ? ", two steps per launch" : "");
  return p;
}

namespace {

DescriptorPtr descriptor(Precision precision) {
  const bool fp16 = precision == Precision::FP16;
  auto d = make_descriptor(fp16 ? "tcstencil" : "tcstencil-fp64", fp16 ? "TCStencil" : "TCStencil (FP64)",
                           "Liu et al., ICS'22", precision,
                           fp16 ? "TCStencil (ICS'22): banded parameter matrices on WMMA 16x16x16, FP16 operands, FP32 "
                                  "accumulate; CPU emulation fragment by fragment"
                                : "TCStencil on FP64 mma.m8n8k4 (our variant, L = 8); CPU emulation fragment by fragment");
  d->tensor_cores = true; // its arithmetic runs on MMAs (the Baselines view sorts by it)
  d->plan = [precision](const Stencil& s, const PlanRequest& request) -> PlanPtr {
    return tcstencil_method_plan(s, request, precision,
                                 precision == Precision::FP16 ? MmaShape::WMMA_M16N16K16_F16_F32 : MmaShape::M8N8K4_F64);
  };
  use_plan_type<TCStencilPlan>(*d, tcstencil_summary, tcstencil_advance); // the summary counts the plan's fusion
  if (fp16) {
    d->views.push_back({"params", "tcstencil", "TCStencil: parameter matrices",
                        "A star stencil is two GEMMs: P_ver sums down the columns, P_hor along the rows. A box stencil "
                        "needs one matrix per kernel row, each applied to the input shifted by one row. The tile border "
                        "cuts the band: those partial sums are finished on CUDA cores.",
                        1, {true, true, true},
                        "A 1D stencil reads the line as rows of 16 consecutive points: A' x P_hor sums along each row "
                        "(P_hor holds the whole band, centre included), and the neighbours past a row's ends, the "
                        "previous and next rows' end points, are finished on CUDA cores."});
    d->compare_rank = 2;
  }
  return d;
}

} // namespace

DescriptorPtr tcstencil_descriptor() { return descriptor(Precision::FP16); }
DescriptorPtr tcstencil_fp64_descriptor() { return descriptor(Precision::FP64); }

} // namespace se
