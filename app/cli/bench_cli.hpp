// stencil-bench: the benchmark CLI (list, show, plan, run, device, suite), as a function so tests can call it.
// Methods come from the one list (kernels/registry.hpp). Exit codes: 0 success, 1 a result failed its error
// bound or a run failed, 2 usage or input errors.
#pragma once

namespace se {

int bench_main(int argc, char** argv);

} // namespace se
