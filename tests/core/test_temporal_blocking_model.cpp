// cuda-core-tb's shape rules (core/temporal_blocking_model.hpp) that the kernels read: the cube-symmetric 3D
// kernel's rows per block and its planes per block.
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
