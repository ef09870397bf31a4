// The exact Dirichlet band after a fused pass, on CUDA cores: each block takes one box of the band, stages it
// with a halo of T*r from the pass's input (the fixed value outside the grid) and runs T single steps in
// shared memory, the valid region shrinking by r per step, exactly as the reference would compute them.
#include <cuda_runtime.h>

#include "core/error.hpp"
#include "kernels/lorastencil/lora_launch.hpp"

namespace se::lora_gpu {
namespace {

__global__ void __launch_bounds__(256) lora_band_fix(const BandFixArgs a) {
  extern __shared__ __align__(16) double shared[];
  const FixBox b = a.boxes[blockIdx.x];
  const int r = a.radius, H = a.steps * r, side = 2 * r + 1;
  const int ry = a.dims >= 2 ? 1 : 0, rz = a.dims >= 3 ? 1 : 0;
  const int ex = b.bx + 2 * H, ey = ry ? b.by + 2 * H : 1, ez = rz ? b.bz + 2 * H : 1;
  const int region = ex * ey * ez;
  const int weight_count = side * (ry ? side : 1) * (rz ? side : 1);
  double* w = shared;
  double* cur = shared + ((weight_count + 1) & ~1);
  double* nxt = cur + region;
  for (int i = threadIdx.x; i < weight_count; i += blockDim.x) w[i] = a.weights[i];

  const long long gx0 = b.x0 - H, gy0 = b.y0 - H * ry, gz0 = b.z0 - H * rz;
  const auto inside = [&](long long x, long long y, long long z) {
    return x >= 0 && x < a.nx && y >= 0 && y < a.ny && z >= 0 && z < a.nz;
  };
  for (int i = threadIdx.x; i < region; i += blockDim.x) {
    const int ix = i % ex, iy = (i / ex) % ey, iz = i / (ex * ey);
    const long long x = gx0 + ix, y = gy0 + iy, z = gz0 + iz;
    cur[i] = inside(x, y, z) ? a.in[(z * a.ny + y) * a.nx + x] : a.boundary_value;
  }
  __syncthreads();
  for (int s = 1; s <= a.steps; ++s) {
    const int m = s * r; // margin that is still exact after s steps
    const int cx = ex - 2 * m, cy = ry ? ey - 2 * m : 1, cz = rz ? ez - 2 * m : 1;
    for (int i = threadIdx.x; i < cx * cy * cz; i += blockDim.x) {
      const int ix = m + i % cx, iy = (ry ? m : 0) + (i / cx) % cy, iz = (rz ? m : 0) + i / (cx * cy);
      const int at = (iz * ey + iy) * ex + ix;
      double sum = a.boundary_value;
      if (inside(gx0 + ix, gy0 + iy, gz0 + iz)) {
        sum = 0.0;
        int k = 0;
        for (int dz = -r * rz; dz <= r * rz; ++dz)
          for (int dy = -r * ry; dy <= r * ry; ++dy)
            for (int dx = -r; dx <= r; ++dx, ++k)
              sum = fma(w[k], cur[at + (dz * ey + dy) * ex + dx], sum);
      }
      nxt[at] = sum;
    }
    __syncthreads();
    double* t = cur;
    cur = nxt;
    nxt = t;
  }
  for (int i = threadIdx.x; i < b.bx * b.by * b.bz; i += blockDim.x) {
    const int ix = i % b.bx, iy = (i / b.bx) % b.by, iz = i / (b.bx * b.by);
    const long long x = b.x0 + ix, y = b.y0 + iy, z = b.z0 + iz;
    a.out[(z * a.ny + y) * a.nx + x] = cur[((iz + H * rz) * ey + iy + H * ry) * ex + ix + H];
  }
}

} // namespace

std::size_t band_fix_shared_budget() {
  int device = 0, optin = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  // Leave room for the weights (at most 15^3 doubles would not fit anyway; fused radii stay small).
  return optin > 16384 ? static_cast<std::size_t>(optin) - 16384 : static_cast<std::size_t>(optin) / 2;
}

void launch_band_fix(const BandFixArgs& args, cudaStream_t stream) {
  if (args.box_count == 0) return;
  cudaFuncSetAttribute(lora_band_fix, cudaFuncAttributeMaxDynamicSharedMemorySize,
                       static_cast<int>(args.shared_bytes));
  lora_band_fix<<<args.box_count, 256, args.shared_bytes, stream>>>(args);
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess)
    throw InputError(std::string("LoRAStencil band fix launch failed: ") + cudaGetErrorString(err));
}

} // namespace se::lora_gpu
