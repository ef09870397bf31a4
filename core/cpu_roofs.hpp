// The CPU's roofs for a roofline, measured (never from a data sheet) with the kernels the reference runs: a
// copy with every thread and the dispatched ISA's widest vectors and non-temporal stores (what the hardware
// moves when nothing else limits it), and FP64 multiply-add chains on every thread (fused on AVX2/AVX-512).
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "core/cpu_features.hpp"

namespace se {

struct CpuRoofs {
  std::string cpu;          // cpu_model_name()
  int threads = 0;
  CpuIsa isa = CpuIsa::Baseline;
  double copy_gbs = 0;      // bytes read + written per second (2 x 8 bytes per element copied), best repeat
  double copy_bytes = 0;    // the size of each of the two arrays
  double fma_gflops = 0;    // FP64: 2 FLOPs per multiply-add lane, all threads, best repeat
  std::string copy_name() const;  // "copy, 2 threads, AVX-512 non-temporal stores"
  std::string fma_name() const;   // "CPU FP64 FMA (AVX-512, 2 threads)"
  std::string device() const;     // "AMD EPYC (CPU, 2 threads, AVX-512)"
};

struct CpuRoofOptions {
  int threads = 0;          // 0: cpu_thread_count()
  CpuIsa isa = best_cpu_isa();
  int copy_repeats = 6, fma_repeats = 4;
  // Passes over the arrays per timed copy (source and destination swapped after each, the threads meeting at a
  // barrier as a stencil's steps do): 1 times one burst; se-cpu-bench times as many passes as a stencil run has
  // steps, so on a machine whose bandwidth comes and goes (a shared host) the roof and the stencils are timed over
  // the same bytes and time.
  int copy_passes = 1;
  std::function<bool()> keep_going{}; // checked between repeats; false stops early with what was measured
};

// About half a second with the defaults. The copy's arrays are 4x the last-level cache (at least 64 MiB each).
CpuRoofs measure_cpu_roofs(const CpuRoofOptions& options = {});

} // namespace se
