// stencil-bench: the benchmark CLI (list, run, and later plan/suite), as a function so tests can call it.
// Exit codes: 0 success, 1 a result failed its error bound or a run failed, 2 usage or input errors.
#pragma once
#include <vector>

#include "core/method.hpp"

namespace se {

// Every method variant this build knows: core's CPU methods and, when built with CUDA, the GPU kernels.
std::vector<Method> all_methods();

int bench_main(int argc, char** argv);

} // namespace se
