// Inline-PTX wrappers for the warp-level MMA instructions the tensor-core kernels issue. Operand order and
// register counts follow the PTX ISA fragments that core/fragment/fragment_layout.hpp describes, so a
// fragment built from core's layouts can be passed straight in. FP64 m16n8k{4,8,16} exist on sm_90 only;
// compiled for an older target they trap.
#pragma once
#include <cstdint>

namespace se::ptx {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define SE_PTX_SM90_ONLY 1
#endif

__device__ inline void mma_m8n8k4_f64(double (&d)[2], double a, double b, const double (&c)[2]) {
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%4,%5};\n"
               : "=d"(d[0]), "=d"(d[1])
               : "d"(a), "d"(b), "d"(c[0]), "d"(c[1]));
}

__device__ inline void mma_m16n8k4_f64(double (&d)[4], const double (&a)[2], double b, const double (&c)[4]) {
#if defined(SE_PTX_SM90_ONLY)
  __trap();
#else
  asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};\n"
               : "=d"(d[0]), "=d"(d[1]), "=d"(d[2]), "=d"(d[3])
               : "d"(a[0]), "d"(a[1]), "d"(b), "d"(c[0]), "d"(c[1]), "d"(c[2]), "d"(c[3]));
#endif
}

__device__ inline void mma_m16n8k8_f64(double (&d)[4], const double (&a)[4], const double (&b)[2], const double (&c)[4]) {
#if defined(SE_PTX_SM90_ONLY)
  __trap();
#else
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
               "{%10,%11,%12,%13};\n"
               : "=d"(d[0]), "=d"(d[1]), "=d"(d[2]), "=d"(d[3])
               : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]), "d"(c[0]), "d"(c[1]), "d"(c[2]),
                 "d"(c[3]));
#endif
}

__device__ inline void mma_m16n8k16_f64(double (&d)[4], const double (&a)[8], const double (&b)[4],
                                        const double (&c)[4]) {
#if defined(SE_PTX_SM90_ONLY)
  __trap();
#else
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7,%8,%9,%10,%11}, "
               "{%12,%13,%14,%15}, {%16,%17,%18,%19};\n"
               : "=d"(d[0]), "=d"(d[1]), "=d"(d[2]), "=d"(d[3])
               : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]), "d"(b[0]),
                 "d"(b[1]), "d"(b[2]), "d"(b[3]), "d"(c[0]), "d"(c[1]), "d"(c[2]), "d"(c[3]));
#endif
}

// f16 operands packed two per 32-bit register (low half = lower k index), f32 accumulate.
__device__ inline void mma_m16n8k16_f16_f32(float (&d)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2],
                                            const float (&c)[4]) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
               "{%10,%11,%12,%13};\n"
               : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]),
                 "f"(c[3]));
}

// 2:4-sparse A (the compressed 16x8 values) with its metadata word; selector 0. The ordered-metadata form is
// the one the ISA recommends from sm_90 on; it requires each index pair increasing, as core's packing makes it.
__device__ inline void mma_sp_m16n8k16_f16_f32(float (&d)[4], const std::uint32_t (&a)[2], const std::uint32_t (&b)[2],
                                               const float (&c)[4], std::uint32_t metadata) {
  asm volatile("mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, "
               "{%6,%7}, {%8,%9,%10,%11}, %12, 0x0;\n"
               : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]),
                 "r"(metadata));
}

} // namespace se::ptx
