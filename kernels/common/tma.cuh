// Hopper's asynchronous copies on an mbarrier, for kernels that stage planes with one TMA box each
// (cp.async.bulk.tensor, from a tensor map encoded by kernels/common/tensor_map.hpp). On builds for earlier
// architectures every function compiles to nothing: the host never picks a TMA kernel there.
#pragma once
#include <cuda.h>

#include "kernels/common/cp_async.cuh" // shared_address

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define SE_TMA 1
#else
#define SE_TMA 0
#endif

namespace se::tma {

// `count` arrivals complete a phase. Make the initialisation visible (a block barrier) before any use.
__device__ __forceinline__ void barrier_init(unsigned long long* bar, unsigned count) {
#if SE_TMA
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_address(bar)), "r"(count) : "memory");
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#endif
}

// Waits until the phase of `bar` with this parity has completed.
__device__ __forceinline__ void barrier_wait(unsigned long long* bar, unsigned parity) {
#if SE_TMA
  const unsigned b = shared_address(bar);
  unsigned done = 0;
  do {
    asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
                 : "=r"(done)
                 : "r"(b), "r"(parity)
                 : "memory");
  } while (!done);
#endif
}

// One thread: arrive on `bar` announcing `bytes` (the box's), ordering earlier plain shared-memory accesses
// before the async writes that follow.
__device__ __forceinline__ void expect_bytes(unsigned long long* bar, unsigned bytes) {
#if SE_TMA
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(bar)), "r"(bytes)
               : "memory");
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}

// One thread: copy the 2D box at element coordinates (x, y) of `map` into `dst` (128-byte aligned), completing on
// `bar`, after expect_bytes announced its bytes.
__device__ __forceinline__ void copy_box_2d(void* dst, const CUtensorMap& map, int x, int y, unsigned long long* bar) {
#if SE_TMA
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], "
               "[%4];" ::"r"(shared_address(dst)),
               "l"(reinterpret_cast<unsigned long long>(&map)), "r"(x), "r"(y), "r"(shared_address(bar))
               : "memory");
#endif
}

// The same for the 3D box at (x, y, z).
__device__ __forceinline__ void copy_box_3d(void* dst, const CUtensorMap& map, int x, int y, int z,
                                            unsigned long long* bar) {
#if SE_TMA
  asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, "
               "%4}], [%5];" ::"r"(shared_address(dst)),
               "l"(reinterpret_cast<unsigned long long>(&map)), "r"(x), "r"(y), "r"(z), "r"(shared_address(bar))
               : "memory");
#endif
}

// One thread: load the 2D box at (x, y) of `map` into `dst`, announcing its bytes on `bar` first.
__device__ __forceinline__ void load_box_2d(void* dst, const CUtensorMap& map, int x, int y, unsigned bytes,
                                            unsigned long long* bar) {
  expect_bytes(bar, bytes);
  copy_box_2d(dst, map, x, y, bar);
}

// One thread: copy `bytes` (a multiple of 16) from global `src` to shared `dst` (both 16-byte aligned) as one bulk
// copy, announcing them on `bar` first.
__device__ __forceinline__ void load_bulk(void* dst, const void* src, unsigned bytes, unsigned long long* bar) {
  expect_bytes(bar, bytes);
#if SE_TMA
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                   shared_address(dst)),
               "l"(src), "r"(bytes), "r"(shared_address(bar))
               : "memory");
#endif
}

// Makes this thread's plain shared-memory writes visible to the async proxy (a TMA store that reads them next).
__device__ __forceinline__ void fence_shared_to_async() {
#if SE_TMA
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}

// One thread: store the 2D box at element coordinates (x, y) of `map` from `src` (128-byte aligned, the box's
// layout: box[0] elements per row, rows back to back). Elements outside the map's dims are not written. Commits the
// store as a bulk group; wait_stores_read() before `src` is reused or the block exits.
__device__ __forceinline__ void store_box_2d(const CUtensorMap& map, int x, int y, const void* src) {
#if SE_TMA
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];" ::"l"(
                   reinterpret_cast<unsigned long long>(&map)),
               "r"(x), "r"(y), "r"(shared_address(src))
               : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
#endif
}

// The thread that issued bulk stores: wait until every committed group has read its shared memory.
__device__ __forceinline__ void wait_stores_read() {
#if SE_TMA
  asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
#endif
}

// One thread: announce `bytes` on `bar` and load the 3D box at (x, y, z) of `map` into `dst`.
__device__ __forceinline__ void load_box_3d(void* dst, const CUtensorMap& map, int x, int y, int z, unsigned bytes,
                                            unsigned long long* bar) {
  expect_bytes(bar, bytes);
  copy_box_3d(dst, map, x, y, z, bar);
}

// An L2 cache policy, for one thread's later loads, under which the lines it reads are the last to be evicted
// (createpolicy evict_last, fraction 1.0): for data other blocks will read again soon (a neighbour's halo).
__device__ __forceinline__ unsigned long long l2_policy_evict_last() {
  unsigned long long policy = 0;
#if SE_TMA
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
#endif
  return policy;
}

// load_box_3d with an L2 cache policy (l2_policy_evict_last) on the box's reads.
__device__ __forceinline__ void load_box_3d(void* dst, const CUtensorMap& map, int x, int y, int z, unsigned bytes,
                                            unsigned long long* bar, unsigned long long policy) {
  expect_bytes(bar, bytes);
#if SE_TMA
  asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint [%0], "
               "[%1, {%2, %3, %4}], [%5], %6;" ::"r"(shared_address(dst)),
               "l"(reinterpret_cast<unsigned long long>(&map)), "r"(x), "r"(y), "r"(z), "r"(shared_address(bar)),
               "l"(policy)
               : "memory");
#endif
}

} // namespace se::tma
