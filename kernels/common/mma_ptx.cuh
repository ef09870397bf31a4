// Inline-PTX wrappers for the warp-level MMA instructions the tensor-core kernels issue: each instruction is
// written here once, and the GPU test (tests/gpu/test_mma_wrappers.cu) checks every wrapper against core's
// instruction-exact emulation. Operand order and register counts follow the PTX ISA fragments that
// core/fragment/lane_coords.hpp writes down, so a fragment built from core's layouts can be passed straight in.
//
// Two forms per instruction: D += A·B in place, which kernels issue in their inner loops (the accumulators stay
// in their registers and the compiler may schedule the asm freely: it has no side effects), and D = A·B + C.
// FP64 m16n8k{4,8,16} exist on sm_90 only: compiled for an older target, m16n8k4 is issued as the two m8n8k4 it
// equals and the others trap.
#pragma once
#include <cstdint>

#include "kernels/common/cp_async.cuh"

namespace se::ptx {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define SE_PTX_SM90_ONLY 1
#endif

// ------------------------------------------------------------------------------------------- mma.m8n8k4 .f64

__device__ __forceinline__ void mma_m8n8k4_f64(double (&acc)[2], double a, double b) {
  asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
      : "+d"(acc[0]), "+d"(acc[1])
      : "d"(a), "d"(b));
}

__device__ __forceinline__ void mma_m8n8k4_f64(double (&d)[2], double a, double b, const double (&c)[2]) {
  d[0] = c[0];
  d[1] = c[1];
  mma_m8n8k4_f64(d, a, b);
}

// ------------------------------------------------------------------------------------------- mma.m16n8k4 .f64

// A[g][q] = a0, A[g+8][q] = a1, B[q][g] = b; D[g][2q..2q+1] = d0,d1 and D[g+8][2q..2q+1] = d2,d3 in lane 4g+q.
// Hopper runs it at twice the FLOP rate of m8n8k4 (66 vs 33 TFLOP/s measured on an H200).
__device__ __forceinline__ void mma_m16n8k4_f64(double (&acc)[4], double a0, double a1, double b) {
#if defined(SE_PTX_SM90_ONLY)
  asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
      : "+d"(acc[0]), "+d"(acc[1])
      : "d"(a0), "d"(b));
  asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
      : "+d"(acc[2]), "+d"(acc[3])
      : "d"(a1), "d"(b));
#else
  asm("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
      : "+d"(acc[0]), "+d"(acc[1]), "+d"(acc[2]), "+d"(acc[3])
      : "d"(a0), "d"(a1), "d"(b));
#endif
}

__device__ __forceinline__ void mma_m16n8k4_f64(double (&d)[4], const double (&a)[2], double b, const double (&c)[4]) {
  for (int i = 0; i < 4; ++i) d[i] = c[i];
  mma_m16n8k4_f64(d, a[0], a[1], b);
}

// ----------------------------------------------------------------------------------- mma.m16n8k8/k16 .f64

__device__ __forceinline__ void mma_m16n8k8_f64(double (&acc)[4], const double (&a)[4], const double (&b)[2]) {
#if defined(SE_PTX_SM90_ONLY)
  __trap();
#else
  asm("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+d"(acc[0]), "+d"(acc[1]), "+d"(acc[2]), "+d"(acc[3])
      : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
#endif
}

__device__ __forceinline__ void mma_m16n8k8_f64(double (&d)[4], const double (&a)[4], const double (&b)[2],
                                                const double (&c)[4]) {
  for (int i = 0; i < 4; ++i) d[i] = c[i];
  mma_m16n8k8_f64(d, a, b);
}

__device__ __forceinline__ void mma_m16n8k16_f64(double (&acc)[4], const double (&a)[8], const double (&b)[4]) {
#if defined(SE_PTX_SM90_ONLY)
  __trap();
#else
  asm("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7,%8,%9,%10,%11}, "
      "{%12,%13,%14,%15}, {%0,%1,%2,%3};\n"
      : "+d"(acc[0]), "+d"(acc[1]), "+d"(acc[2]), "+d"(acc[3])
      : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]), "d"(b[0]), "d"(b[1]),
        "d"(b[2]), "d"(b[3]));
#endif
}

__device__ __forceinline__ void mma_m16n8k16_f64(double (&d)[4], const double (&a)[8], const double (&b)[4],
                                                 const double (&c)[4]) {
  for (int i = 0; i < 4; ++i) d[i] = c[i];
  mma_m16n8k16_f64(d, a, b);
}

// ------------------------------------------------------------------------------ mma.m16n8k16 .f16 -> .f32

// f16 operands packed two per 32-bit register (low half = lower k index), f32 accumulate.
__device__ __forceinline__ void mma_m16n8k16_f16_f32(float (&acc)[4], const std::uint32_t (&a)[4],
                                                     const std::uint32_t (&b)[2]) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__device__ __forceinline__ void mma_m16n8k16_f16_f32(float (&d)[4], const std::uint32_t (&a)[4],
                                                     const std::uint32_t (&b)[2], const float (&c)[4]) {
  for (int i = 0; i < 4; ++i) d[i] = c[i];
  mma_m16n8k16_f16_f32(d, a, b);
}

// 2:4-sparse A (the compressed 16x8 values) with its metadata word; selector 0. The ordered-metadata form is
// the one the ISA recommends from sm_90 on; it requires each index pair increasing, as core's packing makes it.
__device__ __forceinline__ void mma_sp_m16n8k16_f16_f32(float (&acc)[4], const std::uint32_t (&a)[2],
                                                        const std::uint32_t (&b)[2], std::uint32_t metadata) {
  asm("mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6,%7}, "
      "{%0,%1,%2,%3}, %8, 0x0;\n"
      : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
      : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]), "r"(metadata));
}

__device__ __forceinline__ void mma_sp_m16n8k16_f16_f32(float (&d)[4], const std::uint32_t (&a)[2],
                                                        const std::uint32_t (&b)[2], const float (&c)[4],
                                                        std::uint32_t metadata) {
  for (int i = 0; i < 4; ++i) d[i] = c[i];
  mma_sp_m16n8k16_f16_f32(d, a, b, metadata);
}

// The same with the metadata selector (0..3) as a template argument: four MMAs share one metadata register, each
// reading it from lanes 4g + Selector (the ISA's sparsity selector must be an immediate).
template <int Selector>
__device__ __forceinline__ void mma_sp_m16n8k16_f16_f32_sel(float (&acc)[4], const std::uint32_t (&a)[2],
                                                            const std::uint32_t (&b)[2], std::uint32_t metadata) {
  static_assert(Selector >= 0 && Selector <= 3, "m16n8k16 .f16 takes sparsity selectors 0..3");
  asm("mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6,%7}, "
      "{%0,%1,%2,%3}, %8, %9;\n"
      : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
      : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]), "r"(metadata), "n"(Selector));
}

// ------------------------------------------------------------------------------ mma.m16n8k16 .f16 -> .f16

// f16 accumulators, two per register: acc[0] = (row groupID, cols 2t, 2t+1), acc[1] = the same in row groupID + 8.
__device__ __forceinline__ void mma_m16n8k16_f16_f16(std::uint32_t (&acc)[2], const std::uint32_t (&a)[4],
                                                     const std::uint32_t (&b)[2]) {
  asm("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%0,%1};\n"
      : "+r"(acc[0]), "+r"(acc[1])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

template <int Selector>
__device__ __forceinline__ void mma_sp_m16n8k16_f16_f16_sel(std::uint32_t (&acc)[2], const std::uint32_t (&a)[2],
                                                            const std::uint32_t (&b)[2], std::uint32_t metadata) {
  static_assert(Selector >= 0 && Selector <= 3, "m16n8k16 .f16 takes sparsity selectors 0..3");
  asm("mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3}, {%4,%5}, "
      "{%0,%1}, %6, %7;\n"
      : "+r"(acc[0]), "+r"(acc[1])
      : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]), "r"(metadata), "n"(Selector));
}

// ------------------------------------------------------------------------------ mma.sp.m16n8k32 .f16
// A 16 x 32 2:4-sparse A in one instruction: the fragments are two m16n8k16 ones side by side (PTX ISA, "Matrix
// Fragments for sparse mma.m16n8k32 with .f16"): a[0], a[1] the compressed columns 0..15 (rows g, g + 8), a[2], a[3]
// columns 16..31; b[0], b[1] B's rows 0..15 (2t, 2t + 1 and 2t + 8, 2t + 9), b[2], b[3] rows 16..31. The metadata
// of columns 0..15 sits in lane 4g + 2 Selector, that of columns 16..31 in lane 4g + 2 Selector + 1, each laid out
// as m16n8k16's (row g in the low 16 bits, row g + 8 in the high): so two m16n8k16 MMAs whose metadata core packs
// with selectors 2s and 2s + 1 run as one m16n8k32 with selector s (0..1).
template <int Selector>
__device__ __forceinline__ void mma_sp_m16n8k32_f16_f32_sel(float (&acc)[4], const std::uint32_t (&a)[4],
                                                            const std::uint32_t (&b)[4], std::uint32_t metadata) {
  static_assert(Selector >= 0 && Selector <= 1, "m16n8k32 .f16 takes sparsity selectors 0..1");
  asm("mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9,%10,%11}, {%0,%1,%2,%3}, %12, %13;\n"
      : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]), "r"(metadata),
        "n"(Selector));
}

template <int Selector>
__device__ __forceinline__ void mma_sp_m16n8k32_f16_f16_sel(std::uint32_t (&acc)[2], const std::uint32_t (&a)[4],
                                                            const std::uint32_t (&b)[4], std::uint32_t metadata) {
  static_assert(Selector >= 0 && Selector <= 1, "m16n8k32 .f16 takes sparsity selectors 0..1");
  asm("mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, "
      "{%6,%7,%8,%9}, {%0,%1}, %10, %11;\n"
      : "+r"(acc[0]), "+r"(acc[1])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]), "r"(metadata),
        "n"(Selector));
}

// ------------------------------------------------------------------------------ stmatrix (sm_90)

// Four 8x8 b16 matrices to shared memory transposed: lanes 8j..8j+7 give the 16-byte row addresses of matrix j,
// register j of lane (g = lane / 4, t = lane % 4) holds the matrix's elements (g, 2t) (low half) and (g, 2t + 1),
// and memory row c of matrix j receives its elements (0..7, c). Two matrices (x2): lanes 0..15 give the addresses.
// On earlier architectures the callers store element by element instead (SE_STMATRIX).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define SE_STMATRIX 1
#else
#define SE_STMATRIX 0
#endif
__device__ __forceinline__ void stmatrix_x4_trans(void* row, const std::uint32_t (&r)[4]) {
#if SE_STMATRIX
  asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1,%2,%3,%4};\n" ::"r"(shared_address(row)),
               "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3])
               : "memory");
#endif
}
__device__ __forceinline__ void stmatrix_x2_trans(void* row, const std::uint32_t (&r)[2]) {
#if SE_STMATRIX
  asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1,%2};\n" ::"r"(shared_address(row)),
               "r"(r[0]), "r"(r[1])
               : "memory");
#endif
}

} // namespace se::ptx
