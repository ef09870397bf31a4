// Entry point of test_gpu: without a usable CUDA device it exits 77, which CTest reports as skipped
// (never as passed); otherwise it runs the Catch2 session.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdio>

#include "kernels/registry.hpp"

int main(int argc, char** argv) {
  if (const std::string why = se::gpu_unavailable_reason(); !why.empty()) {
    std::printf("test_gpu skipped: %s\n", why.c_str());
    return 77;
  }
  return Catch::Session().run(argc, argv);
}
