// cuda-core-tb's shape rules (core/temporal_blocking_model.hpp) that the kernels read: the cube-symmetric 3D
// kernel's rows per block and its planes per block, and the 2D depth between the one- and two-column kernels.
#include <catch2/catch.hpp>

#include "core/temporal_blocking_model.hpp"

using namespace se::tb;

TEST_CASE("the cube-symmetric 3D kernel's planes per block: whole waves against the recomputed planes", "[tb]") {
  // H200, 512^3 FP64 at T = 2: 9 x 24 column blocks, 132 SMs x 2 blocks, 4 halo planes. 86 planes: 6 blocks along
  // z, 1296 blocks in 5 waves of 264 (5 x 90 = 450); 47 fills 9 waves exactly but streams 51 planes for 47
  // (9 x 51 = 459); 64 takes 7 waves (476).
  CHECK(wave_planes(512, 9 * 24, 264, 4, 32, 128) == 86);
  // Every split fills its waves: the largest blocks (fewest recomputed planes).
  CHECK(wave_planes(512, 132, 132, 4, 32, 128) == 128);
  // One wave holds every block at any split: a wave lasts one block, so the shortest blocks (more SMs busy) win.
  CHECK(wave_planes(512, 1, 264, 4, 32, 128) == 32);
  // Without recomputed planes only the waves count: 4 x 128 and 8 x 64 tie at 2 waves of 264; the larger wins.
  CHECK(wave_planes(512, 66, 132, 0, 32, 128) == 128);
  // A grid shallower than the smallest block is one block along z; no occupancy known keeps the largest.
  CHECK(wave_planes(20, 100, 264, 4, 32, 128) == 128);
  CHECK(wave_planes(512, 216, 0, 4, 32, 128) == 128);
  // The pick lies in the range asked.
  for (const int nz : {33, 100, 257, 512, 1000})
    for (const long long cols : {1LL, 7LL, 216LL, 1000LL}) {
      const int p = wave_planes(nz, cols, 264, 4, 32, 128);
      INFO(nz << " " << cols << " -> " << p);
      CHECK(p <= 128);
      CHECK(p >= 32);
    }
}

TEST_CASE("the cube-symmetric 3D kernel's rows per block", "[tb]") {
  CHECK(sym3d_rows(8, 2) == 24);
  CHECK(sym3d_rows(8, 1) == 32);
  CHECK(sym3d_rows(4, 2) == 32);
}

TEST_CASE("2D depths: the two-column kernel at its deepest where it is on-chip bound there, else the one-column "
          "kernel",
          "[tb]") {
  // The two-column kernel's depths (what compiled without spills), within the one-column capacity; none above
  // radius 3 or in FP16.
  CHECK(pair_capacity_steps(1, 4) == 4);
  CHECK(pair_capacity_steps(2, 4) == 3);
  CHECK(pair_capacity_steps(3, 4) == 3);
  CHECK(pair_capacity_steps(1, 8) == 2);
  CHECK(pair_capacity_steps(2, 8) == 1);
  CHECK(pair_capacity_steps(3, 8) == 2);
  CHECK(pair_capacity_steps(4, 4) == 0);
  CHECK(pair_capacity_steps(1, 2) == 0);
  for (int r = 1; r <= 3; ++r)
    for (const int b : {4, 8}) CHECK(pair_capacity_steps(r, b) <= capacity_steps(2, r, b));
  // The traffic ratio (device memory against on-chip time per point at one step) of the presets: heat-2d and
  // box-2d9p are shared-memory bound on chip (3 loads of a row), so their ratios agree.
  CHECK(traffic_ratio(2, 1, true, 4) == Approx(4.638).epsilon(1e-3));
  CHECK(traffic_ratio(2, 1, false, 8) == Approx(4.638).epsilon(1e-3));
  CHECK(traffic_ratio(2, 3, true, 8) == Approx(1.988).epsilon(1e-3));
  CHECK(traffic_ratio(2, 3, false, 8) == Approx(1.136).epsilon(1e-3));
  CHECK(traffic_ratio(2, 7, false, 8) < 1.0);
  // The presets' depths, the measured picks of notes/cuda-core-tb.md (sessions 51-52, H200). FP64: heat-2d and
  // box-2d9p take the one-column kernel's capacity 6 (642.3 GStencil/s against the two-column kernel's 330.5 at its
  // 2), box-2d25p its capacity 4 (312.7 against 291.9 at 3; the two-column kernel holds 1); star-2d13p (ratio 0.99
  // per step at 2) and box-2d49p take the two-column kernel at 2.
  CHECK(model_steps(2, 1, true, 8) == 6);
  CHECK(model_steps(2, 1, false, 8) == 6);
  CHECK(model_steps(2, 2, false, 8) == 4);
  CHECK(model_steps(2, 2, false, 8) == capacity_steps(2, 2, 8));
  CHECK(model_steps(2, 3, true, 8) == 2);
  CHECK(model_steps(2, 3, false, 8) == 2);
  CHECK(!two_columns(2, 1, 8, 6));
  CHECK(!two_columns(2, 2, 8, 4));
  CHECK(two_columns(2, 3, 8, 2));
  // FP32: heat-2d and box-2d9p take the one-column capacity 8 (934.7 against the two-column kernel's 825.2 at 4,
  // where its traffic ratio per step is 1.16); radius 2 and 3 the two-column kernel at 3 (box-2d49p 299.4 against
  // the one-column kernel's 245.9 at 4).
  CHECK(model_steps(2, 1, true, 4) == 8);
  CHECK(model_steps(2, 1, false, 4) == 8);
  CHECK(!two_columns(2, 1, 4, 8));
  CHECK(one_column_steps(2, 3, false, 4) == capacity_steps(2, 3, 4));
  CHECK(model_steps(2, 3, false, 4) == 3);
  CHECK(model_steps(2, 3, true, 4) == 3);
  CHECK(model_steps(2, 2, false, 4) == 3);
  CHECK(two_columns(2, 3, 4, 3));
  // On-chip bound at one step (box-2d225p): one step, the 80% rule's pick.
  CHECK(model_steps(2, 7, false, 8) == 1);
  CHECK(model_steps(2, 7, false, 4) == 1);
  // The rule behind each pick (the plan prints it).
  CHECK(model_pick(2, 1, true, 4).rule == DepthRule::kMemoryBound);
  CHECK(model_pick(2, 2, false, 8).rule == DepthRule::kMemoryBound);
  CHECK(model_pick(2, 3, true, 8).rule == DepthRule::kTwoColumns);
  CHECK(model_pick(2, 2, false, 4).rule == DepthRule::kTwoColumns);
  CHECK(model_pick(2, 7, false, 8).rule == DepthRule::kThreshold);
  CHECK(model_pick(3, 1, true, 8, true).rule == DepthRule::kFixed3D);
  CHECK(model_pick(1, 1, true, 8).rule == DepthRule::kCapacity);  // heat-1d: the threshold is never reached by 16
  CHECK(model_pick(1, 2, false, 8).rule == DepthRule::kThreshold); // 1d5p at 14
  // Radius above 3 and 1D and 3D are the one-column (or their own) rules.
  CHECK(model_steps(2, 7, false, 4) == one_column_steps(2, 7, false, 4));
  CHECK(!two_columns(2, 7, 4, 1));
  CHECK(!two_columns(1, 1, 4, 2));
  CHECK(model_steps(1, 1, true, 8) == one_column_steps(1, 1, true, 8));
  CHECK(model_steps(3, 1, true, 8) == 2);
  // FP32 plans of depth 1 run on the single-step kernel; FP64 and deeper plans on a pipeline kernel.
  CHECK(single_step_2d(2, 4, 1));
  CHECK(!single_step_2d(2, 8, 1));
  CHECK(!single_step_2d(2, 4, 2));
  CHECK(!single_step_2d(3, 4, 1));
}
