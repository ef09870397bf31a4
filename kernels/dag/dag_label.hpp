// The labeller of the learned fusion-strategy choice (issue 16): many programs measured in one process. NVRTC
// compiles every program's strategies (one module per program and domain: the sequential, producer-consumer and
// parallel sources side by side, each in its own namespace) on worker threads while the main thread times the
// modules already compiled on the GPU. The grids live in one pool allocated once (inputs filled with values in
// [0.5, 1.5) once; stencil slots are overwritten by every program), so a program costs no allocation.
// Plain C++ header.
#pragma once
#include <array>
#include <functional>
#include <string>
#include <vector>

#include "core/dag/dag.hpp"
#include "kernels/dag/dag_gpu.hpp"

namespace se::dag {

struct LabelOptions {
  std::vector<int> sizes{128, 256}; // cubes
  int repeats = 3;                  // timed runs per strategy, after one warm-up; the median is kept
  int threads = 0;                  // compiling threads (0: the cores less one)
  double max_seconds = 0;           // stop starting programs after this long (0: no limit)
};

struct LabelTiming {
  // Median seconds of one whole program run, indexed by Strategy (Sequential, ProducerConsumer, Parallel, Graph).
  // Parallel is the table-free placement (block b = mTask b, the hardware places them), the fastest of the three
  // placements on 14 of the 16 hand-written programs (notes/complex-stencils.md).
  std::array<double, 4> seconds{};
  double compile_seconds = 0; // NVRTC for the module of all strategies (on a worker thread)
  std::string error;          // non-empty when the program could not be compiled or run
};

// Calls `done(program, size_index, timing)` on the calling thread, programs in order, each size in order.
// Returns the device's name. Throws InputError where the GPU strategies cannot run.
std::string label_programs(const std::vector<Program>& programs, const LabelOptions& o,
                           const std::function<void(std::size_t, std::size_t, const LabelTiming&)>& done);

// What ptxas makes of each strategy's kernels at cube size n, compiled as the labeller compiles them (one module of
// the sequential, producer-consumer and parallel sources) for sm_<cc>, with no device: [sequential,
// producer-consumer, parallel], each in launch order (parallel: the table-free kernels the labeller times). The
// compiled kernels' registers and spills, which the program's representation does not show (issue 16's features).
std::array<std::vector<KernelResources>, 3> module_resources(const Program& p, int n, int cc_major, int cc_minor);

} // namespace se::dag
