// Catch2's implementation, compiled once for every test binary (it is the slowest file of the build to compile):
// se_catch_impl holds it and run_catch() without a main(); se_catch_main adds the plain main() of tests/main.cpp,
// and the test binaries with their own main() (test_gpu, test_wmma_recorder, test_live_gpu: they exit 77 without a
// GPU) link se_catch_impl alone and call run_catch themselves.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "tests/catch_run.hpp"

int se::testing::run_catch(int argc, char** argv) { return Catch::Session().run(argc, argv); }
