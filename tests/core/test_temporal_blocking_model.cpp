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

TEST_CASE("2D depths: the two-column kernel at its deepest where that reaches the one-column kernel's depth", "[tb]") {
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
  // The presets' depths, the measured picks of notes/cuda-core-tb.md (session 51, H200). FP64: heat-2d and box-2d9p
  // keep the one-column kernel's 6 (643.9 GStencil/s against the two-column kernel's 331.0 at its 2), box-2d25p its
  // 3 (the two-column kernel holds 1); star-2d13p and box-2d49p take the two-column kernel at 2.
  CHECK(model_steps(2, 1, true, 8) == 6);
  CHECK(model_steps(2, 1, false, 8) == 6);
  CHECK(model_steps(2, 2, false, 8) == 3);
  CHECK(model_steps(2, 3, true, 8) == 2);
  CHECK(model_steps(2, 3, false, 8) == 2);
  CHECK(!two_columns(2, 1, 8, 6));
  CHECK(!two_columns(2, 2, 8, 3));
  CHECK(two_columns(2, 3, 8, 2));
  // FP32: box-2d49p goes one deeper than the one-column kernel's 2 (299.9 against 278.4 at 2).
  CHECK(one_column_steps(2, 3, false, 4) == 2);
  CHECK(model_steps(2, 3, false, 4) == 3);
  CHECK(model_steps(2, 3, true, 4) == 3);
  CHECK(model_steps(2, 2, false, 4) == 3);
  CHECK(two_columns(2, 3, 4, 3));
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
