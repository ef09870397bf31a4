// The sm_80+ asynchronous copies from global to shared memory (cp.async), one set for every kernel that writes them
// by hand (kernels that use CUDA's __pipeline_memcpy_async keep it). Every wrapper is `asm volatile` with a memory
// clobber, so the compiler neither drops nor reorders shared-memory accesses across a copy, a commit or a wait.
#pragma once
#include <cuda_runtime.h>

namespace se {

// The 32-bit shared-window address of a generic pointer into shared memory.
__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// 16 bytes, cached in L2 only (.cg); both addresses 16-byte aligned. The _at form takes a shared address already
// converted (one conversion per plane, not per copy).
__device__ __forceinline__ void cp_async16_at(unsigned shared, const void* global) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(shared), "l"(global) : "memory");
}
__device__ __forceinline__ void cp_async16(void* shared, const void* global) {
  cp_async16_at(shared_address(shared), global);
}

// The same 16-byte copy whose L2 miss fetches the whole 128-byte line (the L2::128B prefetch hint) instead of the
// default 64 bytes, for rows that are read whole. H200, cuda-core-tb T = 2, 512^3, FP64: heat-3d 376.6 -> 384.0,
// box-3d27p 376.4 -> 384.4 GStencil/s (FP32 +0.4%); the device-wide cudaLimitMaxL2FetchGranularity of 128 did the
// same for that kernel (notes/cuda-core-tb.md, session 44).
__device__ __forceinline__ void cp_async16_l2_128(void* shared, const void* global) {
  asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16;\n" ::"r"(shared_address(shared)), "l"(global)
               : "memory");
}

// 8 bytes, cached in L1 and L2 (.ca: 4- and 8-byte copies have no .cg form); both addresses 8-byte aligned.
__device__ __forceinline__ void cp_async8(void* shared, const void* global) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n" ::"r"(shared_address(shared)), "l"(global) : "memory");
}

// 4 bytes, cached in L1 and L2; both addresses 4-byte aligned.
__device__ __forceinline__ void cp_async4(void* shared, const void* global) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(shared_address(shared)), "l"(global) : "memory");
}

// Close the calling thread's group of copies issued since the last commit.
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
// Wait until at most Pending of the calling thread's committed groups are still in flight.
template <int Pending> __device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending) : "memory");
}
// Wait for every copy the calling thread issued, committed or not.
__device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_all;\n" ::: "memory"); }

} // namespace se
