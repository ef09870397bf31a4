// The PTX ISA's fragment formulas, written once: which element (row, col) of an operand tile lane `lane` holds
// in its register (element) i. Plain constexpr functions with no library dependencies, host and device alike
// under nvcc, so that host code (core's layout tables, the kernels' fragment tables) and device code (the
// kernels' operand addressing) use the same lines. fragment_layout.cpp builds its printable,
// testable tables from these; the tests check them against the ISA's figures and the hardware.
//
// The ISA's names: groupID = %laneid >> 2, threadID_in_group = %laneid % 4, and i the element index ("a_i",
// "b_i", "c_i"). Sections refer to https://docs.nvidia.com/cuda/parallel-thread-execution/ (PTX ISA 8.x).
#pragma once

#if defined(__CUDACC__)
#define SE_LANE_FN constexpr __host__ __device__ inline
#else
#define SE_LANE_FN constexpr inline
#endif

namespace se {

struct FragmentCoord {
  int row = 0, col = 0;
  SE_LANE_FN bool operator==(const FragmentCoord& o) const { return row == o.row && col == o.col; }
};

namespace lane {

SE_LANE_FN int group(int lane) { return lane >> 2; }          // groupID
SE_LANE_FN int thread_in_group(int lane) { return lane & 3; } // threadID_in_group

// 9.7.14.5.2 (#warp-level-matrix-fragment-mma-884-f64), Figures 53-55: mma.m8n8k4 .f64.
SE_LANE_FN FragmentCoord m8n8k4_f64_a(int lane, int) { return {group(lane), thread_in_group(lane)}; }
SE_LANE_FN FragmentCoord m8n8k4_f64_b(int lane, int) { return {thread_in_group(lane), group(lane)}; }
SE_LANE_FN FragmentCoord m8n8k4_f64_c(int lane, int i) { return {group(lane), thread_in_group(lane) * 2 + (i & 1)}; }

// The 16x8 accumulator shared by every m16n8kK shape, f64, f32 and f16 alike (9.7.14.5.6-8): "row = groupID for
// c0, c1; groupID + 8 for c2, c3; col = threadID_in_group * 2 + (i & 1)".
SE_LANE_FN FragmentCoord accumulator_16x8(int lane, int i) {
  return {group(lane) + 8 * (i >> 1), thread_in_group(lane) * 2 + (i & 1)};
}

// f64 A of m16n8k4 (9.7.14.5.6, #mma-1684-a-f64), m16n8k8 (9.7.14.5.7) and m16n8k16 (9.7.14.5.8): rows alternate
// groupID / groupID + 8 with i, columns step by 4 every second element. For k4: "row = groupID (+8 for a1),
// col = threadID_in_group".
SE_LANE_FN FragmentCoord f64_a_16xk(int lane, int i) {
  return {group(lane) + 8 * (i & 1), thread_in_group(lane) + 4 * (i >> 1)};
}

// f64 B of m16n8k4/k8/k16: "row = threadID_in_group + 4 * i, col = groupID".
SE_LANE_FN FragmentCoord f64_b_kx8(int lane, int i) { return {thread_in_group(lane) + 4 * i, group(lane)}; }

// 9.7.14.5.8 (#mma-16816-a-f16): "row = groupID for a0, a1, a4, a5, else groupID + 8; col = threadID_in_group * 2
// + (i & 1), + 8 for i >= 4". The same pattern places the compressed 16x8 A of mma.sp m16n8k16 (9.7.14.6.2.1,
// #sparse-mma-16816-f16-bf16-a: a0, a1 in row groupID and a2, a3 in row groupID + 8, taken from the four-wide
// chunk threadID_in_group of the dense row, i.e. compressed columns 2 * threadID_in_group + (i & 1)).
SE_LANE_FN FragmentCoord f16_a_16x16(int lane, int i) {
  return {group(lane) + 8 * ((i >> 1) & 1), thread_in_group(lane) * 2 + (i & 1) + 8 * (i >> 2)};
}

// 9.7.14.5.8 (#mma-16816-b-f16): "row = threadID_in_group * 2 + (i & 1), + 8 for i >= 2; col = groupID".
SE_LANE_FN FragmentCoord f16_b_16x8(int lane, int i) {
  return {thread_in_group(lane) * 2 + (i & 1) + 8 * (i >> 1), group(lane)};
}

// WMMA m16n16k16 f16 has no documented register layout (the CUDA fragment type is opaque). What sm_80 and sm_90
// are observed to do (kernels/fragment_probe records it): the warp issues two mma.m16n8k16, one per 8-column half
// of B and C, so A: x[0..7] as mma.m16n8k16 A; B: x[0..3] as its B for columns 0-7, x[4..7] the same for columns
// 8-15; C: x[0..3] as its accumulator for columns 0-7, x[4..7] for columns 8-15. The CUDA fragments of A and B
// expose 16 halves, x[i + 8] repeating x[i]; only the 8 distinct ones are modelled.
SE_LANE_FN FragmentCoord wmma_b_16x16(int lane, int i) {
  const FragmentCoord half_tile = f16_b_16x8(lane, i & 3);
  return {half_tile.row, half_tile.col + 8 * (i >> 2)};
}
SE_LANE_FN FragmentCoord wmma_c_16x16(int lane, int i) {
  const FragmentCoord half_tile = accumulator_16x8(lane, i & 3);
  return {half_tile.row, half_tile.col + 8 * (i >> 2)};
}

} // namespace lane
} // namespace se
