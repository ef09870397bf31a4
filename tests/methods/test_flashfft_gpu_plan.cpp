// FlashFFTStencil's GPU plan, without a GPU: core's plan at a tile the kernel is compiled for, the depth from the
// H200 roofline, the fusion error measured and printed, too-deep fusions refused with the reason; 3D at the
// 16 x 16 x 8 cube.
#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "core/flashfft/flashfft_plan.hpp"
#include "kernels/flashfft/flashfft_gpu_method.hpp"

using namespace se;

TEST_CASE("FlashFFTStencil's GPU plan is core's plan at a compiled tile; too deep is refused with the reason",
          "[flashfft-gpu]") {
  const Stencil h = preset("heat-1d");
  const FlashFftPlan p = flashfft_gpu::plan_for_gpu(h, 14);
  CHECK(p.fused_steps == 14);
  CHECK(p.halo == 14);
  CHECK(p.stitched[0] == p.tile[0] - 28);
  bool compiled = false;
  for (const auto& t : flashfft_gpu::tiles_1d()) compiled = compiled || (t.L1 == p.rows.length && t.L2 == p.cols.length);
  CHECK(compiled);
  const FlashFftPlan automatic = flashfft_gpu::plan_for_gpu(h, 0);
  CHECK(automatic.fused_steps >= 1);
  CHECK(flashfft_gpu::predict(automatic).seconds_per_point <= flashfft_gpu::predict(p).seconds_per_point);
  CHECK(flashfft_gpu::tile_of(flashfft_gpu::plan_for_gpu(preset("box-2d9p"), 0)) != nullptr);
  const FlashFftPlan h3 = flashfft_gpu::plan_for_gpu(preset("heat-3d"), 1);
  CHECK(flashfft_gpu::tile_of(h3) != nullptr);
  CHECK(h3.depth.length == 8);
  CHECK(h3.stitched[2] == 6);
  CHECK(flashfft_gpu::tile_of(flashfft_gpu::plan_for_gpu(preset("box-3d27p"), 0)) != nullptr);
  CHECK_THROWS_AS(flashfft_gpu::plan_for_gpu(preset("heat-3d"), 4), InputError); // halo 4 leaves no z slice of 8
  CHECK_THROWS_AS(flashfft_gpu::plan_for_gpu(preset("box-2d49p"), 6), InputError); // halo 18 leaves no 32-point tile
  CHECK_THROWS_AS(flashfft_gpu::plan_for_gpu(h, 1000), InputError);
}

TEST_CASE("FlashFFTStencil's GPU plan picks a compiled tile for every preset (1D, 2D, 3D) and says what it predicts",
          "[flashfft-gpu]") {
  for (const auto& name : preset_names()) {
    const Stencil s = preset(name);
    const FlashFftPlan p = flashfft_gpu::plan_for_gpu(s, 0);
    INFO(name << ": " << p.tile_choice);
    REQUIRE(flashfft_gpu::tile_of(p) != nullptr);
    CHECK(p.halo == p.fused_steps * s.radius);
    for (int d = 0; d < s.dims; ++d) CHECK(p.stitched[static_cast<std::size_t>(d)] >= 1);
    const flashfft_gpu::GpuPrediction g = flashfft_gpu::predict(p);
    CHECK(g.seconds_per_point > 0);
    CHECK(p.tile_choice.find("fusion error measured") != std::string::npos);
    // Any depth the tile holds is taken as asked.
    CHECK(flashfft_gpu::plan_for_gpu(s, 1).fused_steps == 1);
  }
}
