// Entry point of test_gpu: without a usable CUDA device it exits 77, which CTest reports as skipped
// (never as passed); otherwise it runs the Catch2 session.
#include <cstdio>

#include "tests/catch_run.hpp"

#include "kernels/registry.hpp"

int main(int argc, char** argv) {
  if (const std::string why = se::gpu_unavailable_reason(); !why.empty()) {
    std::printf("test_gpu skipped: %s\n", why.c_str());
    return 77;
  }
  return se::testing::run_catch(argc, argv);
}
