// Painting and clearing a grid where it lives on the device: the brush's arithmetic is core/brush.hpp's, run by
// one thread per point of each batch's box; the stores write a point's periodic images too, as every step does.
#pragma once
#include "core/brush.hpp"
#include "kernels/common/grid_stepper.hpp"

namespace se {

#if defined(SE_HAVE_CUDA)
// Enqueues `edit` on `stream` against `data`, the grid `v` describes (its current state, writable). Returns the
// GPU time it took (seconds).
double edit_device_grid(void* data, const DeviceGridView& v, bool periodic, const GridEdit& edit, cudaStream_t stream);
#endif

} // namespace se
