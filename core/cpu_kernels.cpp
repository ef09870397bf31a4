// The CPU kernels' dispatch and the kernels of cpu_kernels_isa.inc for baseline x86-64 (SSE2), as the compiler
// builds everything else; cpu_kernels_avx2.cpp and cpu_kernels_avx512.cpp build the same text for AVX2 and AVX-512F
// under GCC target pragmas (one file per ISA, so that they compile in parallel). cpu_features.cpp says which of
// them this CPU runs. Every file of the three is compiled with -ffp-contract=off (core/CMakeLists.txt): a product
// is rounded before it is added, on every ISA.
#include "core/cpu_kernels_common.hpp"

#include <sys/mman.h>

#include <fmt/format.h>

#include "core/error.hpp"

namespace se::cpu_kernels {

#define SE_ISA_NS isa_baseline
#define SE_ISA CpuIsa::Baseline
#define SE_W 2
#if SE_CPU_KERNELS_X86
#define SE_STREAM(p, v) _mm_stream_pd((p), (v))
#else
#define SE_STREAM(p, v) store((p), (v))
#endif
#define SE_MADD(x, a, b) ((x) * (a) + (b))
#include "core/cpu_kernels_isa.inc"

const Set& kernels(CpuIsa isa) {
  if (!cpu_supports(isa)) throw InputError(fmt::format("this CPU does not run {} code", to_string(isa)));
  switch (isa) {
#if SE_CPU_KERNELS_X86
  case CpuIsa::Avx512: return isa_avx512::set;
  case CpuIsa::Avx2: return isa_avx2::set;
#endif
  default: return isa_baseline::set;
  }
}

void FreeDoubles::operator()(double* p) const { std::free(p); }

DoubleBuffer allocate_doubles(std::size_t count) {
  constexpr std::size_t kHuge = std::size_t{2} << 20;
  const std::size_t bytes = std::max<std::size_t>(count * sizeof(double), 64);
  const bool huge = bytes >= 2 * kHuge;
  const std::size_t align = huge ? kHuge : 64;
  const std::size_t rounded = (bytes + align - 1) / align * align;
  void* p = std::aligned_alloc(align, rounded);
  if (p == nullptr) throw InputError(fmt::format("cannot allocate {} MiB for the CPU kernels", rounded >> 20));
#ifdef MADV_HUGEPAGE
  if (huge) madvise(p, rounded, MADV_HUGEPAGE); // advice only: without huge pages the kernels still run
#endif
  return DoubleBuffer(static_cast<double*>(p));
}

void store_fence() {
#if SE_CPU_KERNELS_X86
  _mm_sfence();
#endif
}

} // namespace se::cpu_kernels
