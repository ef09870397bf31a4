// cuda-core-tb's shape: how many base steps one launch fuses, from a model of the kernel's registers, its
// recomputed halo and the GPU's rates. Header-only and constexpr: the CUDA kernels size their register queues
// from the same numbers core's plan prints, so the two cannot drift apart.
//
// The kernels (kernels/cuda_core/tb_1d.cu, tb_2d.cuh, tb_2d_pair.cu):
// - 1D: a warp owns 32 x kPoints1D consecutive points in registers (kPoints1D per lane), exchanges its R edge
//   values with the neighbouring lanes by shuffles each step, and writes the centre 32 x kPoints1D - 2A after T
//   steps (A = T R rounded up to a 16-byte chunk). No shared memory, no barrier.
// - 2D: a block of kThreads2D threads owns a kThreads2D-column strip (one column per thread, the outer A columns
//   recomputed halo) and streams it along y. T stages run as a pipeline: stage t consumes the row stage t - 1
//   produced in the previous iteration, neighbours along x come from a shared-memory row, neighbours along y from
//   a register queue of 2R + 1 partial sums. One barrier per row. Radius 1..3 in FP32 and FP64 run the same pipeline
//   with two columns per thread (tb_2d_pair.cu, pair_capacity_steps below) at the depths it holds; FP32 plans of depth
//   1 run step_2d.cuh's single-step kernel instead (box-2d225p, H200: 72.0 against the pipeline's 62.7 GStencil/s;
//   FP64 keeps the pipeline, 48.5 against 47.0).
// Per point and base step the 2D kernel spends: 2R shared loads and one shared store, and (box) (2R+1)^2 or (star)
// 4R+1 FMAs; the 1D kernel 2R+1 FMAs. Device memory: one read and one write per point per launch.
#pragma once
#include <algorithm>

namespace se::tb {

constexpr int kThreads2D = 256;
constexpr int kPoints1D = 16;     // points per lane
constexpr int kMaxSteps1D = 16;   // the 1D kernel's steps per launch (a run-time loop: no register cost)
constexpr int kMaxSteps2D = 8;    // the 2D kernel's register queues are sized for at most this many stages
constexpr int kMaxSteps3D = 2;    // the 3D kernel (radius 1..3): its recomputed halo grows in two axes
constexpr int kMaxSteps3DSym = 3; // the cube-symmetric radius-1 3D kernel (tb_3d_sym.cuh): 64-column cross-sections
constexpr int kSteps3DSym = 2;    // its depth: the model's pick, see model_steps
// Rows of that kernel's 64-column cross-section at a depth and value size: FP64 at T = 2 takes 24 (6 warps, up to
// 170 registers at two blocks per SM; it uses 168, and periodic grids spill 36 bytes instead of 220) rather than 32
// (8 warps held to 128 registers, at which the compiler has no room to hoist loads). H200, box-3d27p / heat-3d
// 512^3, `suite --seconds 0.5`, alternated in one call (notes/cuda-core-tb.md): 32 rows 371.9 / 370.4 and 371.9 /
// 368.6, 24 rows 376.1 / 376.4 and 375.6 / 376.8 GStencil/s. Not measured on an H100, nor in FP32 (kept at 32).
constexpr int sym3d_rows(int value_bytes, int steps) { return value_bytes == 8 && steps == 2 ? 24 : 32; }
// Planes one block of that kernel streams along z. A block of P output planes streams P + halo planes (the
// recomputed ones at its two ends: 2T at radius 1), and the grid's blocks run in waves of `slots` (SMs x blocks per
// SM): the time is modelled as whole waves x (P + halo), and the P in min_planes..max_planes that minimises it is
// taken (the larger P on a tie). `column_blocks` is the grid's blocks per plane (x times y). The model is a hard
// one (a wave's last blocks run faster while it drains); it ranks the measured choices but one: H200, box-3d27p /
// heat-3d 512^3, FP64 T = 2 (216 column blocks, 264 slots, halo 4), `suite --seconds 0.5`, in one call: 64 planes
// (6.55 waves, model 476) 374.6 / 374.2 and 375.3 / 376.0 GStencil/s; 86 (4.91 waves, model 450, this rule's pick)
// 380.9 / 380.2 and 380.9 / 379.1; 74 (5.73, 468) 378.3 / 379.6; 57 (7.36, 488) 377.7 / 377.7 (notes/cuda-core-tb.md).
constexpr int wave_planes(int nz, long long column_blocks, long long slots, int halo, int min_planes, int max_planes) {
  if (slots <= 0 || column_blocks <= 0) return max_planes;
  int best = max_planes;
  long long best_cost = -1;
  for (int blocks_z = (nz + max_planes - 1) / max_planes; blocks_z <= nz; ++blocks_z) {
    const int planes = (nz + blocks_z - 1) / blocks_z;
    if (planes < min_planes) break;
    if (planes > max_planes) continue;
    const long long waves = (column_blocks * ((nz + planes - 1) / planes) + slots - 1) / slots;
    const long long cost = waves * (planes + halo);
    if (best_cost < 0 || cost < best_cost) { best_cost = cost; best = planes; }
  }
  return best;
}
constexpr int kQueueRegisters = 40; // 32-bit registers the 2D kernel may spend on its T x (2R+1) partial sums

// Per SM and clock, H200 (132 SMs at the 1.755 GHz the suite's runs hold): device memory 4.26 TB/s = 18.4 bytes,
// 64 FP64 or 128 FP32 FMAs, 128 bytes of shared memory.
constexpr double kMemBytesPerClk = 18.4;
constexpr double kFmaPerClk(int value_bytes) { return value_bytes == 8 ? 64.0 : 128.0; }
constexpr double kSharedBytesPerClk = 128.0;

constexpr int chunk_elements(int value_bytes) { return 16 / value_bytes; }
constexpr int round_up(int v, int a) { return (v + a - 1) / a * a; }
// Columns (1D: points) of recomputed halo on each side of a tile fusing `steps` steps.
constexpr int halo_columns(int steps, int radius, int value_bytes) {
  return round_up(steps * radius, chunk_elements(value_bytes));
}

// Clocks per SM that one point and base step costs on chip, and per point and launch in device memory.
constexpr double onchip_clocks(int dims, int radius, bool star, int value_bytes) {
  const double side = 2 * radius + 1;
  if (dims == 1) return side / kFmaPerClk(value_bytes);
  const double fma = star ? 4 * radius + 1 : side * side;
  // 2R shared loads and one store per point (the centre stays in a register); a warp's access moves 32 values.
  const double shared = (2 * radius + 1) * 32.0 * value_bytes / kSharedBytesPerClk / 32.0;
  return std::max(fma / kFmaPerClk(value_bytes), shared);
}
constexpr double memory_clocks(int value_bytes) { return 2.0 * value_bytes / kMemBytesPerClk; }

// The largest depth the kernel's capacity allows.
constexpr int capacity_steps(int dims, int radius, int value_bytes) {
  const int r = std::max(1, radius);
  if (dims == 1) return std::max(1, std::min(kMaxSteps1D, 32 * kPoints1D / 4 / (2 * r))); // halo <= 1/4 of a warp
  const int registers = kQueueRegisters / ((2 * r + 1) * (value_bytes / 4 > 0 ? value_bytes / 4 : 1));
  const int waste = kThreads2D / 4 / (2 * r); // halo columns <= 1/4 of the strip
  return std::max(1, std::min({kMaxSteps2D, registers, waste}));
}

// Radius-1 3D weights (27, x fastest) that depend only on how many of dx, dy, dz are non-zero (heat-3d,
// box-3d27p): c[k] is the weight of the offsets with k non-zero components. Such a stencil is
// c0 a + c1 (6 faces) + c2 (12 edges) + c3 (8 corners), which tb_3d_sym.cuh evaluates in 12 FP64 operations per
// point instead of 27 FMAs by sharing in-plane pair sums between neighbouring rows and planes.
constexpr bool cube_symmetric_r1(const double* w27, double* c) {
  bool seen[4] = {false, false, false, false};
  for (int i = 0; i < 27; ++i) {
    const int k = (i % 3 != 1) + (i / 3 % 3 != 1) + (i / 9 != 1);
    if (!seen[k]) c[k] = w27[i], seen[k] = true;
    else if (w27[i] != c[k]) return false;
  }
  return true;
}

// The same test on a stencil (core's Stencil: dims, radius, at(dx, dy, dz)).
template <typename Stencil> bool cube_symmetric(const Stencil& s) {
  if (s.dims != 3 || s.radius != 1) return false;
  double w[27] = {}, c[4] = {};
  for (int i = 0; i < 27; ++i) w[i] = s.at(i % 3 - 1, i / 3 % 3 - 1, i / 9 - 1);
  return cube_symmetric_r1(w, c);
}

// The two-column 2D kernel (kernels/cuda_core/tb_2d_pair.cu): a block of kThreads2D threads owns a strip twice as
// wide, a thread two neighbouring columns whose window it reads as 8- or 16-byte pairs, so a stage issues about half
// the shared loads and addressing of the one-column kernel per point. It holds fewer stages (two queues of partial
// sums per thread): the depths below compiled without spills (ptxas sm_90, 128 registers; FP32 radius 1 spills from
// T = 5, radius 2 from T = 4; FP64 radius 1 from T = 3, radius 2's star at T = 2), within the one-column capacity.
// 0: no two-column kernel (radius above 3, or FP16).
constexpr int pair_capacity_steps(int radius, int value_bytes) {
  if (radius < 1 || radius > 3 || (value_bytes != 4 && value_bytes != 8)) return 0;
  constexpr int fp32[4] = {0, 4, 3, 3}, fp64[4] = {0, 2, 1, 2};
  return std::min(capacity_steps(2, radius, value_bytes), value_bytes == 4 ? fp32[radius] : fp64[radius]);
}

// Device traffic against on-chip time per point at one step: above 1 the kernel waits on memory at depth 1.
constexpr double traffic_ratio(int dims, int radius, bool star, int value_bytes) {
  return memory_clocks(value_bytes) / onchip_clocks(dims, std::max(1, radius), star, value_bytes);
}

// The one-column kernel's depth. 2D, where the device traffic exceeds the on-chip time at one step: the capacity.
// Every such 2D row measured rose to the capacity (H200, `suite --seconds 0.5 --fused-steps T`, session 52,
// notes/cuda-core-tb.md): FP32 heat-2d T = 2..8 475.4 / 548.3 / 627.6 / 718.7 / 797.9 / 874.7 / 934.7 GStencil/s,
// box-2d9p 465.2 ... 712.4 (T = 6) / 784.7 / 827.4; FP64 heat-2d T = 2..6 402.0 ... 642.3, box-2d25p T = 2..4 253.8 /
// 291.9 / 312.7; the 80% rule below had stopped FP32 radius 1 at 6 and FP64 box-2d25p at 3. Otherwise (1D, and 2D
// stencils on-chip bound at one step): the smallest T whose device traffic per step (memory_clocks / T) stays under
// 80% of the on-chip time per step, within capacity.
// Which of the rules below set a depth (cuda-core-tb's plan says it in words).
enum class DepthRule {
  kThreshold,   // the smallest T under the 80% threshold
  kCapacity,    // the capacity, reached before the threshold
  kMemoryBound, // 2D, memory-bound at one step: the capacity
  kTwoColumns,  // the two-column kernel's deepest depth, on-chip bound there
  kFixed3D,     // 3D's fixed depths
};
struct DepthPick {
  int steps;
  DepthRule rule;
};

constexpr DepthPick one_column_pick(int dims, int radius, bool star, int value_bytes) {
  const int cap = capacity_steps(dims, radius, value_bytes);
  const double ratio = traffic_ratio(dims, radius, star, value_bytes);
  if (dims == 2 && ratio > 1.0) return {cap, DepthRule::kMemoryBound};
  int t = 1;
  while (t < cap && ratio / t > 0.8) ++t;
  return {t, ratio / t > 0.8 ? DepthRule::kCapacity : DepthRule::kThreshold};
}
constexpr int one_column_steps(int dims, int radius, bool star, int value_bytes) {
  return one_column_pick(dims, radius, star, value_bytes).steps;
}

// The depth the model picks. 1D: one_column_steps (a warp's registers). 3D fuses 2 steps (tb_3d.cu; radius > 3 the
// generic tile kernel). 2D: the two-column kernel at its deepest depth where the device traffic per step there is at
// most the on-chip time per step (the pipeline on-chip bound: its cheaper stages pay), else the one-column kernel at
// its own depth (the deeper one-column pipeline cuts the traffic further). H200, `suite --seconds 0.5 --fused-steps
// T` (notes/cuda-core-tb.md, sessions 51-52), each pick against the other kernel's best: FP32 box-2d49p two-column
// T = 3 299.4 against one-column T = 4 245.9, star-2d13p 467.2 / 415.6, box-2d25p 492.3 / 413.2 (T = 4); FP64
// star-2d13p and box-2d49p two-column T = 2 317.8 / 202.7 against one-column T = 2 235.1 / 160.5 (traffic ratio at
// T = 2: 0.99 and 0.57). The one-column picks: FP32 heat-2d T = 8 934.7 against two-column T = 4 825.2 (ratio there
// 1.16), box-2d9p 827.4 / 708.2; FP64 heat-2d T = 6 642.3 against two-column T = 2 330.5, box-2d25p T = 4 312.7
// against the two-column kernel's T = 1.
constexpr DepthPick model_pick(int dims, int radius, bool star, int value_bytes, bool cube_symmetric = false) {
  if (dims == 3) return {cube_symmetric && radius == 1 ? kSteps3DSym : 2, DepthRule::kFixed3D};
  const DepthPick one = one_column_pick(dims, radius, star, value_bytes);
  if (dims != 2) return one;
  const int pair = pair_capacity_steps(radius, value_bytes);
  if (pair > 0 && traffic_ratio(2, radius, star, value_bytes) / pair <= 1.0) return {pair, DepthRule::kTwoColumns};
  return one;
}
constexpr int model_steps(int dims, int radius, bool star, int value_bytes, bool cube_symmetric = false) {
  return model_pick(dims, radius, star, value_bytes, cube_symmetric).steps;
}

// Whether a 2D plan of depth `steps` runs its passes on step_2d.cuh's single-step kernel rather than a pipeline
// kernel: FP32 at depth 1 (the measurement is in this file's first comment).
constexpr bool single_step_2d(int dims, int value_bytes, int steps) {
  return dims == 2 && value_bytes == 4 && steps == 1;
}

// Whether a 2D pass of `steps` stages runs on the two-column kernel (a layout permitting: tb_2d_pair.cu), where the
// plan does not take the single-step kernel.
constexpr bool two_columns(int dims, int radius, int value_bytes, int steps) {
  return dims == 2 && steps >= 1 && steps <= pair_capacity_steps(radius, value_bytes);
}

} // namespace se::tb
