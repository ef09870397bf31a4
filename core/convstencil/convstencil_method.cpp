// ConvStencil cost model, plan summary and emulation method.
#include "core/convstencil/convstencil_method.hpp"

#include <fmt/format.h>

#include "core/convstencil/convstencil_emulation.hpp"
#include "core/error.hpp"
#include "core/common/emulation_checks.hpp"

namespace se {
namespace {

constexpr double kFragmentBytes = 32 * 8; // an m8n8k4 f64 A or B fragment: 32 doubles

int zeros_in_chunk(const std::vector<double>& m, int n_padded, int chunk, int n_tile) {
  int zeros = 0;
  for (int row = 4 * chunk; row < 4 * chunk + 4; ++row)
    for (int col = 8 * n_tile; col < 8 * n_tile + 8; ++col)
      zeros += m[static_cast<std::size_t>(row * n_padded + col)] == 0.0;
  return zeros;
}

} // namespace

double lorastencil_eq13_fragments_per_point(int h) {
  if (h < 0) throw InputError(fmt::format("a kernel radius cannot be negative; got {}", h));
  const int side = 2 * h + 1;
  return 2.0 * ((side * side + 3) / 4) / (16.0 * (h + 1));
}

double lorastencil_eq14_ratio(int h) {
  if (h < 0) throw InputError(fmt::format("a kernel radius cannot be negative; got {}", h));
  const int side = 2 * h + 1;
  return static_cast<double>((side * side + 3) / 4) / (h + 1);
}

CostReport convstencil_cost(const ConvStencilPlan& p) {
  const Stencil& s = p.stencil;
  const int T = p.fused_steps, R = p.fused.radius, Ry = s.dims >= 2 ? R : 0;
  const double outputs = p.outputs_per_tile_row();
  CostReport c;
  c.method = "convstencil";
  c.mma_shape = "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64";
  c.fused_steps = T;
  c.mma_per_point = p.mma_per_tile_row() / outputs / T;
  c.executed_flops_per_point = c.mma_per_point * 2 * 8 * 8 * 4;
  c.useful_flops_per_point = 2.0 * s.nonzero_count();
  c.cuda_core_flops_per_point = 0;
  const double fragments = p.fragment_loads_per_tile_row() / outputs; // per point per pass
  c.shared_bytes_per_point = fragments * kFragmentBytes / T;
  c.input_loads_per_point = fragments * 32 / T; // 32 input values per A or B fragment
  c.parameter_loads_per_point = c.mma_per_point * 4 * 8; // one 4 x 8 kernel-matrix chunk per MMA
  const double block_out = static_cast<double>(p.block_segments) * p.segment;
  const double block_in = (block_out + 2 * R) * (p.block_rows + 2 * Ry);
  c.global_bytes_per_point = 8.0 * (block_in / (block_out * p.block_rows) + 1.0) / T;
  double fed = 0, zeros = 0;
  for (const auto& kern : p.kernels)
    for (const std::vector<double>* m : {&kern.kernel_a, &kern.kernel_b})
      for (int chunk = 0; chunk < p.chunks(); ++chunk)
        for (int nt = 0; nt < p.n_tiles(); ++nt) {
          fed += 64; // a 32-value A fragment of input data and a 32-value chunk of the kernel matrix
          zeros += zeros_in_chunk(*m, p.n_padded, chunk, nt);
        }
  c.fragment_zero_fraction = zeros / fed;

  c.notes.emplace_back("fusion", T > 1 ? fmt::format("{} base steps per pass through W^{} (radius {}), as the paper does "
                                                     "for radius-1 kernels; per-step numbers divide a pass by {}; the "
                                                     "Dirichlet band of width {} is recomputed exactly (not counted)",
                                                     T, T, R, T, (T - 1) * s.radius)
                                         : std::string("no fusion: the kernel is already wider than the radius-1 "
                                                       "kernels the paper fuses"));
  c.notes.emplace_back("counting", fmt::format(
      "per 8 segments x 1 output row ({} outputs) and plane: {} A-fragments times kernel_a chunks and {} B-fragments "
      "times kernel_b chunks{}", p.outputs_per_tile_row(), p.chunks(), p.chunks(),
      p.n_tiles() > 1 ? fmt::format(", each fragment reused for {} n-tiles", p.n_tiles()) : ""));
  c.notes.emplace_back("shared bytes", fmt::format(
      "{:.4f} input fragments per point per pass from shared memory (256 bytes each); kernel-matrix fragments stay in "
      "registers (the paper's kernels load them once per block)", fragments));
  c.notes.emplace_back("global bytes", fmt::format(
      "a block of {} x {} outputs reads its {} x {} input window once{} and writes each output once, per pass",
      p.block_segments * p.segment, p.block_rows, p.block_segments * p.segment + 2 * R, p.block_rows + 2 * Ry,
      s.dims == 3 ? " per plane, streaming along z" : ""));
  c.notes.emplace_back("zeros", "zeros of the kernel-matrix chunks (triangles, K and N padding, zero weights of W^T) "
                                "over all operand elements fed; input fragments counted as non-zero");
  if (s.dims == 3)
    c.notes.emplace_back("3D", "the planes of W^T accumulate in the MMA accumulator; the paper's 3D kernel keeps one "
                               "partial result per plane and adds them on CUDA cores (k - 1 adds per point per pass), "
                               "not counted here");
  if (s.dims == 2) {
    c.notes.emplace_back("LoRAStencil Eq. 13", fmt::format(
        "h = {}: 2 ceil((2h+1)^2/4) / (16(h+1)) = {:.4f} fragments per point per pass (ours {:.4f}); over RDG's 1/8 "
        "(Eq. 12) that is {:.4f}x (Eq. 14)", R, lorastencil_eq13_fragments_per_point(R), fragments,
        lorastencil_eq14_ratio(R)));
    c.notes.emplace_back("SPIDER Table 2", fmt::format(
        "per point per pass: {:.2f} MACs and {:.2f} input elements (SPIDER lists 104 and 13 for Box-2D3R); SPIDER also "
        "counts 13 parameter elements per point, one kernel chunk per MMA, which our register-resident kernel "
        "fragments do not reload", p.mma_per_tile_row() * 256.0 / outputs, fragments * 32));
  }
  return c;
}

PlanSummary convstencil_summary(const ConvStencilPlan& plan, const Extent& extent) {
  check_stencil_grid(plan.stencil, extent);
  PlanSummary out;
  out.method = "convstencil";
  out.cost = convstencil_cost(plan);
  const std::int64_t tiles = (extent.n[0] + plan.outputs_per_tile_row() - 1) / plan.outputs_per_tile_row();
  out.text = to_string(plan);
  out.text += fmt::format("\ngrid {}: {} tiles of {} columns across x, {} MMAs per pass\n\n", extent.to_string(), tiles,
                          plan.outputs_per_tile_row(), tiles * extent.n[1] * extent.n[2] * plan.mma_per_tile_row());
  out.text += to_string(out.cost);
  out.json = to_json(plan);
  out.json["grid"] = {{"extent", extent.to_string()}, {"tiles_x", tiles}};
  out.json["cost"] = to_json(out.cost);
  return out;
}

PlanSummary plan_summary_convstencil(const Stencil& s, const Extent& extent) {
  return convstencil_summary(make_convstencil_plan(s), extent);
}

DescriptorPtr convstencil_descriptor() {
  auto d = make_descriptor("convstencil", "ConvStencil", "Chen et al., PPoPP'24", Precision::FP64,
                           "ConvStencil (PPoPP'24): stencil2row + dual tessellation on FP64 mma.m8n8k4, 3 steps fused "
                           "for radius-1 kernels; CPU emulation fragment by fragment");
  d->tensor_cores = true; // its arithmetic runs on MMAs (the Baselines view sorts by it)
  d->plan = [](const Stencil& s, const PlanRequest& request) -> PlanPtr {
    ConvStencilOptions options;
    options.fused_steps = request.fused_steps;
    auto p = wrap_plan("convstencil", s, request, make_convstencil_plan(s, options));
    const ConvStencilPlan& c = p->value;
    p->fused_steps = c.fused_steps;
    p->cost = convstencil_cost(c);
    p->brief = fmt::format("W^{} (radius {}) as stencil2row rows of {} segments x {} outputs, {} + {} m8n8k4 MMAs per "
                           "tile row and plane", c.fused_steps, c.fused.radius, c.layout.segments, c.segment,
                           c.mma_per_tile_row() / 2, c.mma_per_tile_row() / 2);
    return p;
  };
  use_plan_type<ConvStencilPlan>(*d, convstencil_summary, convstencil_advance);
  d->views.push_back({"params", "convstencil", "ConvStencil: stencil2row and dual tessellation",
                      "stencil2row copies every input row into two overlapping matrices A and B. A lower- and an upper-"
                      "triangular kernel matrix multiply them, and the sum of the two products is the stencil on a whole "
                      "segment."});
  d->compare_rank = 4;
  return d;
}

} // namespace se
