// What the CPU the program runs on offers: the vector ISA its FP64 kernels dispatch to at run time (the binary
// is built for baseline x86-64 and carries AVX2 and AVX-512 versions of the hot loops), its name, its threads
// and its cache sizes. The reference stencil and the CPU roof probes ask here, so they name the same ISA.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace se {

// Ordered: a later ISA can do everything an earlier one can.
enum class CpuIsa {
  Baseline, // x86-64 SSE2 (2 doubles per vector), or the compiler's own code on other architectures
  Avx2,     // 4 doubles per vector (with FMA for the multiply-add probe)
  Avx512,   // AVX-512F: 8 doubles per vector
};
std::string_view to_string(CpuIsa isa); // "SSE2", "AVX2", "AVX-512"
// The ISA as $SE_CPU_ISA spells it: "sse2" (or "baseline"), "avx2", "avx512"; throws InputError otherwise.
CpuIsa parse_cpu_isa(std::string_view text);

// Whether this CPU (and operating system) runs the ISA's kernels.
bool cpu_supports(CpuIsa isa);
// The ISAs this CPU runs, Baseline first.
std::vector<CpuIsa> supported_cpu_isas();
// The best one, capped by $SE_CPU_ISA when that names a lower one (to compare ISAs on one machine).
CpuIsa best_cpu_isa();
// Doubles per vector register of the ISA's kernels.
int vector_doubles(CpuIsa isa);

// "AMD EPYC 9354 32-Core Processor" (from /proc/cpuinfo), or "unknown CPU".
std::string cpu_model_name();
// The threads this process may run on (its affinity mask), at least 1.
int cpu_thread_count();
// Per-core L1 data cache, L2 and the last-level cache in bytes (sysfs); a typical value when the system does not say.
std::int64_t cpu_l1_bytes();
std::int64_t cpu_l2_bytes();
std::int64_t cpu_llc_bytes();

} // namespace se
