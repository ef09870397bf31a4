// Built with --fmad=false (kernels/CMakeLists.txt): the brush rounds like the host's apply_edit, so a painted GPU
// grid and a painted CPU grid hold the same bits.
#include "kernels/common/grid_edit.hpp"

#include <cuda_fp16.h>

#include "core/error.hpp"
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/device_buffer.hpp"
#include "kernels/common/device_grid.hpp"

namespace se {
namespace {

template <typename S>
__global__ void brush_kernel(S* grid, PaddedLayout L, DabBatch b, BrushBox box) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i >= box.points) return;
  const std::int64_t wx = box.hi[0] - box.lo[0] + 1, wy = box.hi[1] - box.lo[1] + 1;
  const std::int64_t x = brush_wrap(box.lo[0] + i % wx, L.n[0], b.periodic);
  const std::int64_t y = brush_wrap(box.lo[1] + (i / wx) % wy, L.n[1], b.periodic);
  const std::int64_t z = brush_wrap(box.lo[2] + i / (wx * wy), L.n[2], b.periodic);
  if (x < 0 || y < 0 || z < 0) return; // off a fixed-boundary grid
  const double v = load_as<double>(grid[L.index(x, y, z)]);
  store_with_images(grid, L, b.periodic, x, y, z, store_as<S>(brushed_value(v, b, x, y, z)));
}

template <typename S> __global__ void fill_kernel(S* grid, PaddedLayout L, bool periodic, double value) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i >= L.n[0] * L.n[1] * L.n[2]) return;
  store_with_images(grid, L, periodic, i % L.n[0], (i / L.n[0]) % L.n[1], i / (L.n[0] * L.n[1]), store_as<S>(value));
}

unsigned blocks_for(std::int64_t points) { return static_cast<unsigned>((points + 255) / 256); }

template <typename S> void enqueue(S* grid, const PaddedLayout& L, bool periodic, const GridEdit& edit, cudaStream_t stream) {
  if (edit.kind == GridEdit::Kind::Fill) {
    fill_kernel<S><<<blocks_for(L.n[0] * L.n[1] * L.n[2]), 256, 0, stream>>>(grid, L, periodic, edit.fill_value);
    SE_CUDA_CHECK_LAUNCH("fill_kernel");
    return;
  }
  for (const DabBatch& b : edit.batches) {
    const BrushBox box = brush_box(b);
    if (box.points == 0) continue;
    brush_kernel<S><<<blocks_for(box.points), 256, 0, stream>>>(grid, L, b, box);
    SE_CUDA_CHECK_LAUNCH("brush_kernel");
  }
}

} // namespace

double edit_device_grid(void* data, const DeviceGridView& v, bool periodic, const GridEdit& edit, cudaStream_t stream) {
  for (const DabBatch& b : edit.batches)
    if (b.dims != v.layout.dims || b.n[0] != v.layout.n[0] || b.n[1] != v.layout.n[1] || b.n[2] != v.layout.n[2])
      throw InputError("a brush stroke made for another grid than the device's");
  CudaEvent start, stop;
  start.record(stream);
  if (v.storage == Precision::FP64) enqueue(static_cast<double*>(data), v.layout, periodic, edit, stream);
  else if (v.storage == Precision::FP32) enqueue(static_cast<float*>(data), v.layout, periodic, edit, stream);
  else enqueue(static_cast<__half*>(data), v.layout, periodic, edit, stream);
  stop.record(stream);
  return stop.seconds_since(start);
}

} // namespace se
