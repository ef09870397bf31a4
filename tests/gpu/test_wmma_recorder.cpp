// The WMMA layout on the GPU: the recorder loads index tiles through wmma::load_matrix_sync and the register
// layout it reads back must be core's table (core/fragment marks the WMMA f16 layout "observed": this test is
// the observation). Without a usable CUDA device (or one older than sm_80) it exits 77, which CTest reports as
// skipped, never as passed.
#include <catch2/catch.hpp>

#include "tests/catch_run.hpp"

#include <cstdio>
#include <iostream>

#include "kernels/device.hpp"
#include "kernels/fragment_probe/wmma_recording.hpp"

using namespace se;

TEST_CASE("the WMMA register layout recorded on this GPU is core's table", "[gpu][wmma]") {
  const WmmaRecordingReport report = record_wmma_layouts();
  std::cout << report.summary();
  REQUIRE(report.checks.size() == wmma_recording_plan().size());
  for (const WmmaLayoutCheck& check : report.checks) {
    std::string differences;
    for (const std::string& d : check.differences) differences += "\n  " + d;
    INFO(check.title() << " on " << report.device << differences);
    CHECK(check.recording.elements_per_lane > 0);
    if (check.core_layout_observed) {
      // Core's emulation of TCStencil and the fragments view rely on this table.
      CHECK(check.matches());
      CHECK(check.layout.has_value());
    } else if (!check.matches()) {
      // WMMA's f64 fragments against mma.m8n8k4.f64's documented table: nothing in the project relies on
      // them being equal, so a difference is reported, not failed.
      WARN("WMMA f64 differs from mma.m8n8k4.f64: " << check.title() << ": " << check.differences.front());
    }
  }
}

int main(int argc, char** argv) {
  const DeviceInfo dev = query_device();
  if (!dev.available) {
    std::printf("test_wmma_recorder skipped: no CUDA device: %s\n", dev.reason.c_str());
    return 77;
  }
  if (dev.cc_major < 8) {
    std::printf("test_wmma_recorder skipped: %s is sm_%d%d; the recorder needs sm_80 or newer\n", dev.name.c_str(),
                dev.cc_major, dev.cc_minor);
    return 77;
  }
  return se::testing::run_catch(argc, argv);
}
