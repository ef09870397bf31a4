// Picks the pass kernel for the grid's dimensionality and sizes its persistent grid from the occupancy.
#include <cuda_runtime.h>

#include <fmt/format.h>

#include "core/error.hpp"
#include "kernels/lorastencil/lora_kernel_entry.hpp"
#include "kernels/lorastencil/lora_launch.hpp"

namespace se::lora_gpu {
namespace {

int run_for_dims(const PassArgs& a, int blocks, cudaStream_t stream) {
  const std::size_t shared = shared_bytes(a);
  switch (a.dims) {
  case 1: return run_pass_1d(a, blocks, shared, stream);
  case 2: return run_pass_2d(a, blocks, shared, stream);
  default: return run_pass_3d(a, blocks, shared, stream);
  }
}

} // namespace

int pass_blocks(const PassArgs& a) {
  int device = 0, optin = 0, sms = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  const std::size_t shared = shared_bytes(a);
  if (shared > static_cast<std::size_t>(optin))
    throw InputError(fmt::format("a LoRAStencil block needs {} KB of shared memory for radius {} ({} fragment slots); "
                                 "this GPU gives a block {} KB: fuse fewer steps",
                                 shared / 1024, a.radius, a.table_slots, optin / 1024));
  const int per_sm = run_for_dims(a, 0, nullptr);
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess || per_sm < 1)
    throw InputError(fmt::format("the LoRAStencil {}D kernel cannot be resident on this GPU ({})", a.dims,
                                 err != cudaSuccess ? cudaGetErrorString(err) : "occupancy 0"));
  const long long resident = static_cast<long long>(per_sm) * sms;
  return static_cast<int>(a.items < resident ? a.items : resident);
}

void launch_pass(const PassArgs& a, int blocks, cudaStream_t stream) {
  if (a.items == 0) return;
  run_for_dims(a, blocks, stream);
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess)
    throw InputError(fmt::format("LoRAStencil {}D pass launch failed: {}", a.dims, cudaGetErrorString(err)));
}

} // namespace se::lora_gpu
