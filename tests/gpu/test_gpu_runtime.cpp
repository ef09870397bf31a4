// The GPU runtime around the methods: bad input ends as InputError with a message a person can act on,
// the measured ceilings are real numbers, and the live view writes what the grid holds into a CUDA array.
#include <catch2/catch.hpp>

#include <cuda_runtime.h>

#include <cmath>

#include "core/error.hpp"
#include "core/error_bound.hpp"
#include "core/reference.hpp"
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/grid_stepper.hpp"
#include "kernels/common/ceilings.hpp"
#include "kernels/live_view.hpp"
#include "kernels/registry.hpp"
#include "kernels/vendor/dynamic_library.hpp"

using namespace se;

TEST_CASE("a grid larger than the device's memory is refused before anything is allocated") {
  const Method& m = find_method(all_methods(), "cuda-core", Backend::GPU);
  const Extent huge = parse_extent("4000x4000x4000"); // 512 GB per FP64 buffer
  try {
    make_gpu_stepper(m, *m.plan(preset("heat-3d")), huge, {});
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("out of device memory") && Catch::Contains("GiB") && Catch::Contains("free"));
  }
}

TEST_CASE("an FP16 run whose values could overflow is refused with the reason") {
  const std::vector<Method> methods = all_methods();
  const Method& m = find_method(methods, "cuda-core-fp16", Backend::GPU);
  Stencil s = preset("heat-2d");
  for (auto& w : s.weights) w *= 3.0; // sum |w| = 3: 3^12 > 65504
  MethodRun r;
  r.stencil = s;
  r.extent = parse_extent("64x64");
  r.steps = 12;
  r.values = initial_values(r.extent, InitialCondition::Random, 3);
  CHECK_THROWS_WITH(m.run(r), Catch::Contains("overflow"));
  r.steps = 5; // 3^5 = 243 < 65504
  CHECK_NOTHROW(m.run(r));
}

TEST_CASE("unsupported requests name the method and the reason") {
  const std::vector<Method> methods = all_methods();
  CHECK_THROWS_WITH(find_method(methods, "warp-drive", Backend::GPU), Catch::Contains("unknown method"));
  const Extent big = parse_extent("1300x1300x1300");
  CHECK_THAT(find_method(methods, "cudnn", Backend::GPU).unsupported_reason(preset("heat-3d"), big), Catch::Contains("2^31"));
}

TEST_CASE("a library that cannot be found is reported with the paths tried") {
  const DynamicLibrary lib("libnothing", "SE_TEST_NO_SUCH_VARIABLE", {"libse-no-such-library.so.1", "/nonexistent/libx.so"});
  CHECK_FALSE(lib.loaded());
  CHECK_THAT(lib.failure(), Catch::Contains("libnothing not found") && Catch::Contains("/nonexistent/libx.so"));
  CHECK_THROWS_AS(lib.symbol("anything"), InputError);
}

TEST_CASE("the measured ceilings are plausible for the device") {
  const DeviceCeilings c = measure_device_ceilings(3);
  CHECK(c.device.available);
  CHECK(c.copy_gbs > 100.0);     // any CUDA GPU of the last decade
  CHECK(c.copy_gbs < 20000.0);   // and none moves 20 TB/s
  REQUIRE(c.rates.size() == 9);  // two copies, seven MMA shapes
  for (const auto& r : c.rates) {
    INFO(r.name << " " << r.median << " " << r.unit);
    if (r.name.find("m16n8k") != std::string::npos && r.name.find("f64") != std::string::npos)
      CHECK(r.supported == (c.device.cc_major >= 9));
    if (!r.supported) continue;
    CHECK(r.min <= r.median);
    CHECK(r.median <= r.max);
    CHECK(r.median > (r.unit == "GB/s" ? 100.0 : 1.0));
  }
}

TEST_CASE("the live view writes the grid's values, colour-mapped or raw, into CUDA arrays") {
  const Stencil s = preset("box-2d9p");
  const Extent e = parse_extent("70x45");
  const std::vector<double> initial = initial_values(e, InitialCondition::Random, 11);
  const Method& m = find_method(all_methods(), "cuda-core-fp32", Backend::GPU);
  GpuLiveRun live(m, *m.plan(s), e, {}, initial);
  CHECK(live.advance(5) > 0.0);
  CHECK(live.steps_done() == 5);
  const std::vector<double> values = live.download();
  std::vector<double> ref = initial;
  reference_advance(s, e, ref, 5, Precision::FP64);
  CHECK(compare(values, ref).rel_l2 <= error_bound(s, Precision::FP32, 5, Boundary{}, initial, ref));

  cudaArray_t rgba = nullptr, r32 = nullptr;
  const cudaChannelFormatDesc u8x4 = cudaCreateChannelDesc<uchar4>(), f32 = cudaCreateChannelDesc<float>();
  SE_CUDA_CHECK(cudaMallocArray(&rgba, &u8x4, 80, 48, cudaArraySurfaceLoadStore));
  SE_CUDA_CHECK(cudaMallocArray(&r32, &f32, 70, 45, cudaArraySurfaceLoadStore));
  ColourMapping map;
  map.lo = 0.2;
  map.hi = 0.8;
  map.lut = {{0, 0, 0, 255}, {100, 50, 0, 255}, {200, 100, 50, 255}, {255, 255, 255, 255}};
  CHECK(live.write_rgba8(rgba, map) > 0.0);
  CHECK(live.write_r32f(r32) > 0.0);
  std::vector<uchar4> texels(80 * 48);
  std::vector<float> raw(70 * 45);
  SE_CUDA_CHECK(cudaMemcpy2DFromArray(texels.data(), 80 * sizeof(uchar4), rgba, 0, 0, 70 * sizeof(uchar4), 45,
                                      cudaMemcpyDeviceToHost));
  SE_CUDA_CHECK(cudaMemcpy2DFromArray(raw.data(), 70 * sizeof(float), r32, 0, 0, 70 * sizeof(float), 45,
                                      cudaMemcpyDeviceToHost));
  int wrong_colour = 0, wrong_value = 0;
  for (int y = 0; y < 45; ++y)
    for (int x = 0; x < 70; ++x) {
      const double v = values[static_cast<std::size_t>(y * 70 + x)];
      const double t = std::clamp((v - map.lo) / (map.hi - map.lo), 0.0, 1.0);
      const auto& want = map.lut[static_cast<std::size_t>(std::min(3, static_cast<int>(t * 3 + 0.5)))];
      const uchar4 got = texels[static_cast<std::size_t>(y * 80 + x)];
      wrong_colour += got.x != want[0] || got.y != want[1] || got.z != want[2] || got.w != want[3];
      wrong_value += raw[static_cast<std::size_t>(y * 70 + x)] != static_cast<float>(v);
    }
  CHECK(wrong_colour == 0);
  CHECK(wrong_value == 0);

  cudaArray_t small = nullptr;
  SE_CUDA_CHECK(cudaMallocArray(&small, &u8x4, 32, 32, cudaArraySurfaceLoadStore));
  CHECK_THROWS_WITH(live.write_rgba8(small, map), Catch::Contains("smaller than the grid"));
  cudaFreeArray(small);
  cudaFreeArray(rgba);
  cudaFreeArray(r32);
}
