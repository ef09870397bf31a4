// The kernels of cpu_kernels_isa.inc for each ISA: baseline x86-64 (SSE2) as the compiler builds everything
// else, then AVX2 and AVX-512F under GCC target pragmas. cpu_features.cpp says which of them this CPU runs.
// Compiled with -ffp-contract=off (core/CMakeLists.txt): a product is rounded before it is added, on every ISA.
#include "core/cpu_kernels.hpp"

#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include <algorithm>
#include <type_traits>
#include <utility>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/half.hpp"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define SE_CPU_KERNELS_X86 1
#endif

namespace se::cpu_kernels {

#define SE_ISA_NS isa_baseline
#define SE_ISA CpuIsa::Baseline
#define SE_W 2
#if SE_CPU_KERNELS_X86
#define SE_STREAM(p, v) _mm_stream_pd((p), (v))
#define SE_PREFETCH(p) _mm_prefetch(reinterpret_cast<const char*>(p), _MM_HINT_T1)
#define SE_PREFETCH_L1(p) _mm_prefetch(reinterpret_cast<const char*>(p), _MM_HINT_T0)
#else
#define SE_STREAM(p, v) store((p), (v))
#define SE_PREFETCH(p) __builtin_prefetch((p), 0, 2)
#define SE_PREFETCH_L1(p) __builtin_prefetch((p), 0, 3)
#endif
#define SE_MADD(x, a, b) ((x) * (a) + (b))
#include "core/cpu_kernels_isa.inc"

#if SE_CPU_KERNELS_X86
// Each ISA's copy compiled for its target: GCC's target pragmas, or clang's attribute over every function in between
// (clang builds the sanitizer job).
#if defined(__clang__)
#define SE_AVX2_BEGIN _Pragma("clang attribute push(__attribute__((target(\"avx2,fma\"))), apply_to = function)")
#define SE_AVX512_BEGIN _Pragma("clang attribute push(__attribute__((target(\"avx512f\"))), apply_to = function)")
#define SE_TARGET_END _Pragma("clang attribute pop")
#else
#define SE_AVX2_BEGIN _Pragma("GCC push_options") _Pragma("GCC target(\"avx2,fma\")")
#define SE_AVX512_BEGIN _Pragma("GCC push_options") _Pragma("GCC target(\"avx512f\")")
#define SE_TARGET_END _Pragma("GCC pop_options")
#endif
SE_AVX2_BEGIN
#define SE_ISA_NS isa_avx2
#define SE_ISA CpuIsa::Avx2
#define SE_W 4
#define SE_STREAM(p, v) _mm256_stream_pd((p), (v))
#define SE_MADD(x, a, b) _mm256_fmadd_pd((x), (a), (b))
#include "core/cpu_kernels_isa.inc"
SE_TARGET_END

SE_AVX512_BEGIN
#define SE_ISA_NS isa_avx512
#define SE_ISA CpuIsa::Avx512
#define SE_W 8
#define SE_STREAM(p, v) _mm512_stream_pd((p), (v))
#define SE_MADD(x, a, b) _mm512_fmadd_pd((x), (a), (b))
#include "core/cpu_kernels_isa.inc"
SE_TARGET_END
#endif

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
