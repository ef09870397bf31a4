// FlashFFTStencil executed on the CPU fragment by fragment: segments split from the halo-padded grid, paired
// into complex tiles, transformed by m8n8k4.f64 MMAs fed register to register, multiplied by k_f^T, stitched.
#pragma once
#include <cstdint>
#include <vector>

#include "core/flashfft/flashfft_plan.hpp"
#include "core/grid.hpp"
#include "core/reference.hpp"

namespace se {

// What the emulation executed, to hold the cost model to account.
struct FlashFftCounters {
  std::int64_t passes = 0;
  std::int64_t tile_pairs = 0;       // double-layer tiles transformed (a lone last tile counts as a pair)
  std::int64_t mma = 0;              // m8n8k4.f64 instructions
  std::int64_t operand_values = 0;   // A and B values fed to them
  std::int64_t operand_zeros = 0;    // of which exactly zero
  std::int64_t cuda_core_flops = 0;  // spectrum products and z DFTs
  std::int64_t points_written = 0;   // outputs stitched into the grid
  void add(const FlashFftCounters& o);
};

// One pass of `plan` (plan.fused_steps base steps) over the grid, in place. Neighbours outside read the
// Dirichlet value or wrap periodically; the Dirichlet band the fused kernel cannot know is NOT fixed here.
// threads = 0 uses every hardware thread. Throws InputError when the grid does not fit the plan.
void flashfft_pass(const FlashFftPlan& plan, const Extent& extent, std::vector<double>& values,
                   const Boundary& boundary, int threads = 0, FlashFftCounters* counters = nullptr);

struct FlashFftRunOptions {
  FlashFftOptions plan;   // fused_steps = T and the tile (0 = cost model)
  int threads = 0;
  StepProgress progress{}; // called after each pass with base steps done
};

// Advances `values` by `steps` base steps: passes of T fused steps, the remainder in one shorter pass, each
// followed (Dirichlet) by fix_fused_boundary_band. Returns the base steps done (fewer only when cancelled).
int flashfft_advance(const Stencil& s, const Extent& extent, std::vector<double>& values, int steps,
                     const Boundary& boundary, const FlashFftRunOptions& options = {},
                     FlashFftCounters* counters = nullptr);
// The same with a plan already built (its fusion and tile; options.plan is not used).
int flashfft_advance(const FlashFftPlan& plan, const Extent& extent, std::vector<double>& values, int steps,
                     const Boundary& boundary, const FlashFftRunOptions& options = {},
                     FlashFftCounters* counters = nullptr);

// One double-layer tile pair of random data through the chain: the counters of one pass of one pair (the
// cost model's measured fragment zeros come from here).
FlashFftCounters flashfft_tile_pair_counters(const FlashFftPlan& plan, std::uint64_t seed = 1);

// Temporal fusion's numerical error, measured: for T = 1..max_fused_steps, one pass with k_f^T on a periodic
// grid that is exactly one tile (so only k_f^T and the transforms are tested, not the halo), against T steps of
// the FP64 reference from the same random grid.
struct FusionErrorSample {
  int fused_steps = 1;
  double rel_l2 = 0.0;
  double max_abs = 0.0;
  bool finite = true;
};
std::vector<FusionErrorSample> measure_fusion_error_growth(const Stencil& s, int max_fused_steps,
                                                           std::uint64_t seed = 1, const FlashFftOptions& tile = {});

// Issue 11: a fusion depth whose k_f^T error (rel L2 against T steps of the FP64 reference) passes this bound is
// refused by the GPU kernel, and flagged by `stencil-bench plan` for the emulation's plan.
inline constexpr double kFlashFftFusionErrorLimit = 1e-10;

// The error of this plan's k_f^T: one pass of T = plan.fused_steps steps on one periodic tile of the plan's own
// transform sizes, against T steps of the FP64 reference (the last sample of measure_fusion_error_growth).
FusionErrorSample measure_plan_fusion_error(const FlashFftPlan& plan, std::uint64_t seed = 1);

} // namespace se
