// What the per-ISA translation units of the CPU kernels share (cpu_kernels.cpp: baseline x86-64 and the
// dispatch; cpu_kernels_avx2.cpp; cpu_kernels_avx512.cpp): the headers cpu_kernels_isa.inc uses, and each ISA's
// kernel set, defined by its own file so that the three compile in parallel. Private to core.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include <algorithm>
#include <type_traits>
#include <utility>

#include "core/cpu_kernels.hpp"
#include "core/half.hpp"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define SE_CPU_KERNELS_X86 1
#endif

// Prefetches, the same on every ISA.
#if SE_CPU_KERNELS_X86
#define SE_PREFETCH(p) _mm_prefetch(reinterpret_cast<const char*>(p), _MM_HINT_T1)
#define SE_PREFETCH_L1(p) _mm_prefetch(reinterpret_cast<const char*>(p), _MM_HINT_T0)
#else
#define SE_PREFETCH(p) __builtin_prefetch((p), 0, 2)
#define SE_PREFETCH_L1(p) __builtin_prefetch((p), 0, 3)
#endif

// Each ISA's copy compiled for its target: GCC's target pragmas, or clang's attribute over every function in between
// (clang builds the sanitizer job).
#if SE_CPU_KERNELS_X86
#if defined(__clang__)
#define SE_AVX2_BEGIN _Pragma("clang attribute push(__attribute__((target(\"avx2,fma\"))), apply_to = function)")
#define SE_AVX512_BEGIN _Pragma("clang attribute push(__attribute__((target(\"avx512f\"))), apply_to = function)")
#define SE_TARGET_END _Pragma("clang attribute pop")
#else
#define SE_AVX2_BEGIN _Pragma("GCC push_options") _Pragma("GCC target(\"avx2,fma\")")
#define SE_AVX512_BEGIN _Pragma("GCC push_options") _Pragma("GCC target(\"avx512f\")")
#define SE_TARGET_END _Pragma("GCC pop_options")
#endif
#endif

namespace se::cpu_kernels {
namespace isa_baseline { extern const Set set; }
#if SE_CPU_KERNELS_X86
namespace isa_avx2 { extern const Set set; }
namespace isa_avx512 { extern const Set set; }
#endif
} // namespace se::cpu_kernels
