// From core's LoRAStencil plan to what the GPU kernels read: each rank-1 term classified (full U·X·V chain,
// single gather, or CUDA-core scalar), its per-lane m8n8k4 fragments (U, butterfly-swapped V'), and counts.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/grid.hpp"
#include "core/lorastencil/lorastencil_plan.hpp"
#include "kernels/lorastencil/lora_pass_args.hpp"

namespace se::lora_gpu {

// One rank-1 term as the kernel sees it: centred compact vectors (u has 2wu+1 entries, v 2wv+1).
struct GpuTerm {
  int plane = 0;          // index dz + Rz into the kernel's planes
  TermDesc desc;
  std::vector<double> u, v; // the vectors the fragments were built from (Scalar: empty)
};

// What one pass of W^T does per output point (counted from the terms, for the kernel's real tiles).
struct PassCounts {
  double mma_per_point = 0;        // m16n8k4 instructions
  double shared_loads_per_point = 0; // 8-byte input fragment loads from shared memory (tables excluded)
  double cuda_core_fma_per_point = 0;
  double staged_values_per_point = 0; // values copied global -> shared per output point (halo included)
};

struct GpuPass {
  int dims = 2;
  int fused_steps = 1;
  int radius = 0;                // R of W^T
  std::vector<GpuTerm> terms;    // grouped by plane, planes in order
  std::vector<int> plane_first, plane_count;
  std::vector<int> plane_mirror; // 3D: the plane whose staged values a folded plane adds to its own, or -1
  std::vector<double> tables;    // table_slots x 32, lane-ordered fragments
  int table_slots = 0;
  PassCounts counts;
  std::string describe() const;  // one line per term
};

// The roofs the fusion choice weighs on the machine the kernels are tuned for: an H200's measured copy
// bandwidth and its measured mma.m16n8k4.f64 rate (lorastencil-bench, notes/lorastencil-gpu.md).
RooflineDevice h200_roofline();
// Core's plan options for the kernels: the m16n8k4 shape they run, the H200 roofline, cost-model fusion.
LoraStencilOptions gpu_plan_options();
// `options` with the kernels' warp tile for `s`: m16n8k4, 4 C fragments per warp in 1D and 2D, 2 in 3D, so
// that core counts (and picks its decomposition and fusion by) exactly the MMAs the kernels issue.
LoraStencilOptions kernel_plan_options(const Stencil& s, LoraStencilOptions options);
// Core's plan for the kernels' tile with the cost model's fusion; for 1D and 2D stencils the model weighs every
// depth up to kMaxRadius instead of the paper's 3 (its estimate, not a measurement, picks the depth either way);
// 3D stays at T = 1.
LoraStencilPlan plan_for_gpu(const Stencil& s, const LoraStencilOptions& options);

// Throws InputError when the plan exceeds what one pass holds (radius > 8, more than kMaxTerms terms).
GpuPass make_gpu_pass(const LoraStencilPlan& plan);

// A lane's fragment value of a banded matrix built from `w` (2w+1 entries): element [g + row_offset][4*chunk + q]
// of U = band(w) (A operand; row_offset 8 for the second half of m16), equally element [4*chunk + q][g] of the
// X·V gather's V (B operand).
double band_fragment(const std::vector<double>& w, int chunk, int lane, int row_offset = 0);
// The butterfly-swapped V' of a full term: B fragment (row q, col g) of T-tile offset d, half h.
double swapped_v_fragment(const std::vector<double>& v, int d, int h, int lane);

// The tile geometry of a pass on a grid: pitch, staged rows, work items; `in`, `out`, `tables` left null.
PassArgs make_pass_args(const GpuPass& pass, const Extent& extent, const Boundary& boundary);
// Shared memory one block needs for these arguments (tables + staged planes; 2D/3D: + kStagedAlign).
std::size_t shared_bytes(const PassArgs& args);
// Doubles per staged plane: staged rows plus the slack rows, in 2D/3D rounded up to 16 (128-byte aligned planes).
int staged_plane_stride(const PassArgs& args);
int staged_plane_count(const PassArgs& args); // ring slots: 2 for 1D/2D, 2R+2 for 3D
int block_threads(const PassArgs& args);

// The pass depths that advance `steps` base steps at fusion T: passes of T, and when T does not divide `steps`,
// the last T + rest steps (or the rest alone) split into the depths of least total cost. pass_cost[d-1] is the
// cost of one depth-d pass (the cost model's time per point); without a positive cost for every depth 1..T the
// rest is one shallower pass. Deepest passes first; the depths always sum to `steps`.
std::vector<int> split_into_passes(int steps, int T, const std::vector<double>& pass_cost);

// Boxes of the Dirichlet band (points within (T-1)*r of a face) that a fused pass must recompute exactly.
struct FixBox {
  long long x0 = 0, y0 = 0, z0 = 0;
  int bx = 1, by = 1, bz = 1;
  int pad = 0;
};
// Boxes cover the band once; each box plus a halo of T*r fits in `shared_budget` bytes twice (ping-pong).
std::vector<FixBox> band_fix_boxes(const Extent& extent, int radius, int fused_steps, std::size_t shared_budget);

} // namespace se::lora_gpu
