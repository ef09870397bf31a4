// Entry point of stencil-bench; everything lives in bench_cli.cpp so the tests can drive it.
#include "app/cli/bench_cli.hpp"

int main(int argc, char** argv) { return se::bench_main(argc, argv); }
