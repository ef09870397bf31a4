// FlashFFTStencil's cost model, plan summary and emulation method.
#include "core/flashfft/flashfft_method.hpp"

#include <chrono>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/flashfft/flashfft_emulation.hpp"

namespace se {

CostReport flashfft_cost(const FlashFftPlan& p) {
  const FlashFftPassWork w = flashfft_pass_work(p);
  const FlashFftCounters measured = flashfft_tile_pair_counters(p);
  const double T = p.fused_steps, per = 1.0 / (w.outputs * T);
  const double P1 = p.rows.padded, P2 = p.cols.padded, Lz = p.depth.length;
  CostReport c;
  c.method = "flashfft";
  c.mma_shape = fmt::format("mma.{}", to_string(p.shape));
  c.fused_steps = p.fused_steps;
  c.mma_per_point = w.mma * per;
  c.global_bytes_per_point = 8.0 * (w.inputs + w.outputs) * per;
  // Shared memory: the constant operand of every MMA (32 doubles), the data operand of step 1 once per slice
  // (2 P1 x P2), and k_f^T once per complex cell; steps 2, 4 and 5 read their data operand from registers.
  c.shared_bytes_per_point = (256.0 * w.mma + 8.0 * 2 * P1 * P2 * Lz + 16.0 * P1 * P2 * Lz) * per;
  c.fragment_zero_fraction =
      measured.operand_values > 0 ? static_cast<double>(measured.operand_zeros) / static_cast<double>(measured.operand_values) : 0.0;
  c.useful_flops_per_point = 2.0 * p.stencil.nonzero_count();
  c.cuda_core_flops_per_point = w.cuda_core_flops * per;
  c.executed_flops_per_point = (512.0 * w.mma + w.cuda_core_flops) * per;
  std::string geometry;
  for (int d = 0; d < p.dims; ++d)
    geometry += fmt::format("{}{}: L = {}, S = {}", d ? "; " : "", "xyz"[d], p.tile[d], p.stitched[d]);
  c.notes = {
      {"segments", fmt::format("{} with halo R = T r = {}; each pass reads every tile with its halo and writes S points, "
                               "two segments per complex tile (double-layer filling)",
                               geometry, p.halo)},
      {"mma count", fmt::format("per slice and direction P1 P2 (P1 + P2) / 64 m8n8k4 with P1 = {}, P2 = {} (rows, cols "
                                "padded to 8): steps 1+2 on each of {} input slices, steps 4+5 on each output slice; "
                                "the emulation executes exactly this many (it counts them)",
                                p.rows.padded, p.cols.padded, p.depth.length)},
      {"cuda cores", p.depth.length == 1 ? std::string("the complex product with k_f^T / N: 6 FLOPs per padded cell")
                                         : fmt::format("z DFT ({} x {}), product and inverse z DFT for the {} output "
                                                       "slices, per padded (y, x) cell, 8 FLOPs per complex multiply-add",
                                                       p.depth.length, p.depth.length, p.stitched[2])},
      {"global bytes", "FP64 input read with halo redundancy (tile / S) plus the output written, per base step "
                       "(divided by T); the DFT matrices and k_f^T, a few KiB shared by every block, stay in cache and "
                       "are not counted"},
      {"zeros", "measured in the operands of one tile pair: padding (e.g. L2 = 7 padded to 8) and the exact zeros "
                "of the DFT (cos and sin at multiples of a quarter turn). The paper calls its matrices fully dense (0% "
                "sparsity) because no zeros mask stencil structure; the DFT's own zeros are still multiplied"},
      {"paper", "Eq. 5 sizes segments L = a T(T-1) for fragment size T = 8, i.e. 56 a; the 1D candidates L1 = 8 a, "
                "L2 = 7 (or 15, 23, ...) include exactly those. The paper reports no per-point MMA or byte counts, so "
                "there is no table to reproduce; the cost of k_f^T itself does not grow with T, only the halo does"},
  };
  return c;
}

PlanSummary plan_summary_flashfft(const Stencil& s, const Extent& extent, const FlashFftOptions& options) {
  check_extent_fits_stencil(extent, s);
  const FlashFftPlan plan = make_flashfft_plan(s, options);
  PlanSummary out;
  out.method = "flashfft";
  out.cost = flashfft_cost(plan);
  std::string split = fmt::format("split of the {} grid:", extent.to_string());
  std::int64_t tiles = 1;
  nlohmann::json axes = nlohmann::json::array();
  for (int d = 0; d < plan.dims; ++d) {
    const std::int64_t n = extent.n[static_cast<std::size_t>(d)], S = plan.stitched[static_cast<std::size_t>(d)];
    const std::int64_t count = (n + S - 1) / S, last = n - (count - 1) * S;
    tiles *= count;
    split += fmt::format(" {}: {} segments (last stitches {} of {});", "xyz"[d], count, last, S);
    axes.push_back({{"axis", std::string(1, "xyz"[d])}, {"segments", count}, {"last_stitched", last}});
  }
  split += fmt::format(" {} tiles in {} double-layer pairs\n", tiles, (tiles + 1) / 2);
  out.text = to_string(plan) + split + to_string(out.cost);
  out.json = to_json(plan);
  out.json["extent"] = extent.to_string();
  out.json["split"] = {{"axes", axes}, {"tiles", tiles}, {"pairs", (tiles + 1) / 2}};
  out.json["cost"] = to_json(out.cost);
  return out;
}

Method flashfft_emulation_method(int fused_steps) {
  if (fused_steps < 1) throw InputError(fmt::format("FlashFFTStencil fuses T >= 1 steps per pass; got T = {}", fused_steps));
  Method m;
  m.id = "flashfft";
  m.backend = Backend::Emulate;
  m.precision = Precision::FP64;
  m.description = fmt::format(
      "FlashFFTStencil emulated fragment by fragment: segments split from the grid, two per complex tile, DFTs as "
      "real block products on mma.m8n8k4.f64 (prime-factor maps in 1D, rows x cols in 2D, z DFT on CUDA cores in "
      "3D), multiplied by k_f^T for T = {} fused step{}, stitched back",
      fused_steps, fused_steps == 1 ? "" : "s");
  m.unsupported_reason = [fused_steps](const Stencil& s, const Extent& e) -> std::string {
    try {
      validate(s);
      check_extent_fits_stencil(e, s);
      FlashFftOptions o;
      o.fused_steps = fused_steps;
      make_flashfft_plan(s, o);
      return {};
    } catch (const InputError& err) {
      return err.what();
    }
  };
  m.unavailable_reason = [] { return std::string(); };
  m.run = [fused_steps](MethodRun& r) {
    FlashFftRunOptions o;
    o.plan.fused_steps = fused_steps;
    o.progress = r.progress;
    const auto t0 = std::chrono::steady_clock::now();
    MethodTiming t;
    t.steps_done = flashfft_advance(r.stencil, r.extent, r.values, r.steps, r.boundary, o);
    t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    t.fused_steps = fused_steps;
    return t;
  };
  return m;
}

} // namespace se
