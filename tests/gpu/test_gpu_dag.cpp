// Complex-stencil programs on the GPU (kernels/dag): every strategy, compiled at run time with NVRTC, gives the
// CPU interpreter's outputs (relative L2 below 1e-12 in FP64) on every example in assets/dags.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "core/dag/dag.hpp"
#include "kernels/dag/dag_gpu.hpp"

using namespace se::dag;

namespace {
std::vector<std::string> example_files() {
  std::vector<std::string> out;
  // The source tree's examples; on a machine that has only a copy of the tree, the ones below the current folder.
  std::string dir = std::string(SE_SOURCE_DIR) + "/assets/dags";
  if (!std::filesystem::is_directory(dir)) dir = "assets/dags";
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".dag") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}
} // namespace

TEST_CASE("gpu dag: every strategy matches the interpreter on every example", "[dag]") {
  if (const std::string why = gpu_strategies_unavailable_reason(); !why.empty()) {
    WARN("GPU strategies unavailable: " << why);
    return;
  }
  const auto files = example_files();
  REQUIRE(files.size() >= 16);
  for (const auto& f : files) {
    const Program p = load_program(f);
    // Not multiples of the 32x8 tile: the edge tiles and the periodic wrap are exercised. At 40x20x11 every block
    // touches the border (each body takes its wrapped path); at 104x40x16 blocks whose tile and reach (up to 6 for a
    // producer-consumer body) lie inside take the unwrapped path, so the two paths meet in one output.
    for (const std::array<int, 3> d : {std::array<int, 3>{40, 20, 11}, std::array<int, 3>{104, 40, 16}}) {
      const State in = make_inputs(p, d, 5);
      State ref = in;
      interpret(p, ref);
      for (Strategy s : kStrategies) {
        INFO(f << " " << to_string(s) << " " << d[0] << "x" << d[1] << "x" << d[2]);
        State got = in;
        const GpuTiming t = run_gpu(p, s, in, got, 0.001);
        const Compare c = compare_outputs(p, got, ref);
        CHECK(c.finite);
        CHECK(c.rel_l2 < 1e-12);
        CHECK(t.seconds > 0);
        CHECK(t.launches >= 1);
      }
    }
  }
}

TEST_CASE("gpu dag: FP32 programs run in FP32", "[dag]") {
  if (!gpu_strategies_unavailable_reason().empty()) return;
  const Program p = parse_program("domain 33 9 5\ninput a f32\ninput b f32\nc = a[1,0,0] * b - a[0,0,-1]\n"
                                  "d = sqrt(abs(c)) + c[0,1,0]\ne = d[-1,0,0] + c\n");
  const State in = make_inputs(p, p.domain, 2);
  State ref = in;
  interpret(p, ref);
  for (Strategy s : kStrategies) {
    State got = in;
    run_gpu(p, s, in, got, 0.001);
    INFO(to_string(s));
    CHECK(compare_outputs(p, got, ref).rel_l2 < 1e-6);
  }
}
