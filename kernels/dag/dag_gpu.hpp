// The GPU strategies of complex-stencil programs (core/dag): the source generate_cuda() writes is compiled at
// run time with NVRTC (opened with dlopen, never linked) and loaded with the CUDA runtime's library API
// (cudaLibraryLoadData), so the program starts without NVRTC and says why it cannot run these. Plain C++ header.
#pragma once
#include <string>
#include <vector>

#include "core/dag/dag.hpp"

namespace se::dag {

// Empty when the GPU strategies can run here (this build has CUDA, a device is usable, NVRTC loads);
// otherwise why not, in a person's words.
std::string gpu_strategies_unavailable_reason();

struct GpuTiming {
  Strategy strategy = Strategy::Sequential;
  double seconds = 0;         // median time of one whole program run (every kernel of the strategy)
  double min_seconds = 0;     // the fastest run
  int repeats = 0;            // timed runs
  int launches = 0;           // kernel launches per run (graph: one graph launch of `launches` kernel nodes)
  double compile_seconds = 0; // NVRTC
  int registers = 0;          // the most registers per thread among the strategy's kernels
  std::string schedule;       // parallel: the vEU count and the mTasks per vEU
  std::string device;
};

// Empty when NVRTC loads; otherwise why not. Needs no device.
std::string nvrtc_unavailable_reason_for_dag();
// Compiles generated source with NVRTC for sm_<cc> without any device (a check the CI can run where NVRTC is
// installed); returns the size of the cubin, throws InputError without NVRTC and CudaError with NVRTC's log.
std::size_t compile_only(const GeneratedCode& g, int cc_major, int cc_minor);
// What ptxas makes of one kernel (its `ptxas -v` lines): registers per thread, and per thread the bytes of spill
// stores, spill loads and stack frame.
struct KernelResources {
  std::string name; // the entry's symbol
  int registers = 0, spill_store_bytes = 0, spill_load_bytes = 0, stack_bytes = 0;
};
// Every entry of a `ptxas -v` log, in the log's order (a plain parser: the tests feed it a log by hand).
std::vector<KernelResources> parse_ptxas_log(const std::string& log);
// Compiles `source` with NVRTC for sm_<cc> and ptxas's report (--ptxas-options=-v), without any device; throws
// InputError without NVRTC and CudaError with NVRTC's log when it does not compile.
std::vector<KernelResources> ptxas_resources(const std::string& source, int cc_major, int cc_minor);
// The cubin itself (the labeller compiles on many threads and loads the cubins on one).
std::vector<char> compile_to_cubin(const GeneratedCode& g, int cc_major, int cc_minor);

// Uploads `inputs`' input fields, runs strategy `s` (warm-up, then timed runs for at least `target_seconds`),
// and returns the timing; `result` receives every field the strategy writes (the outputs always). `max_recompute`:
// producer-consumer fusion's recomputation limit (generate_cuda).
GpuTiming run_gpu(const Program& p, Strategy s, const State& inputs, State& result, double target_seconds = 0.3,
                  int max_recompute = FusionPlan{}.max_recompute);

} // namespace se::dag
