// Picks the pass kernel for the grid's dimensionality and sizes its persistent grid from the occupancy.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include <fmt/format.h>

#include "core/error.hpp"
#include "kernels/common/tensor_map.hpp"
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

bool encode_tile_map(const PassArgs& a, void* map) {
  if (a.dims < 2 || !a.aligned_rows || a.pitch > 256 || a.staged_rows > 256) return false;
  const std::uint64_t dims[3] = {static_cast<std::uint64_t>(a.nx), static_cast<std::uint64_t>(a.ny),
                                 static_cast<std::uint64_t>(a.nz)};
  const std::uint64_t strides[2] = {static_cast<std::uint64_t>(a.nx) * sizeof(double),
                                    static_cast<std::uint64_t>(a.nx * a.ny) * sizeof(double)};
  const std::uint32_t box[3] = {static_cast<std::uint32_t>(a.pitch), static_cast<std::uint32_t>(a.staged_rows), 1};
  return encode_tensor_map(map, a.in, sizeof(double), a.dims, dims, strides, box);
}

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

BandFixArgs band_fix_args(const Extent& extent, const Stencil& stencil, const double* device_weights, int steps,
                          double boundary_value, const std::vector<FixBox>& boxes, const FixBox* device_boxes) {
  BandFixArgs f;
  f.boxes = device_boxes;
  f.weights = device_weights;
  f.nx = extent.n[0];
  f.ny = extent.n[1];
  f.nz = extent.n[2];
  f.dims = extent.dims;
  f.radius = stencil.radius;
  f.steps = steps;
  f.box_count = static_cast<int>(boxes.size());
  f.boundary_value = boundary_value;
  const long long halo = 2LL * steps * stencil.radius;
  std::size_t region = 0;
  for (const FixBox& b : boxes)
    region = std::max<std::size_t>(region, static_cast<std::size_t>((b.bx + halo) * (extent.dims >= 2 ? b.by + halo : 1) *
                                                                    (extent.dims >= 3 ? b.bz + halo : 1)));
  f.shared_bytes = (stencil.weights.size() + 1 + 2 * region) * sizeof(double);
  return f;
}

} // namespace se::lora_gpu
