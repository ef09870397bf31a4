// The halo-padded grid layout every CUDA-core kernel reads: the interior n[] plus a halo of width
// halo[] on each side of each active axis, rows padded so the interior starts on a 128-byte boundary.
#pragma once
#include <cstdint>

#include "core/grid.hpp"

#if defined(__CUDACC__)
#define SE_HOST_DEVICE __host__ __device__
#else
#define SE_HOST_DEVICE
#endif

namespace se {

struct PaddedLayout {
  int dims = 1;
  std::int64_t n[3] = {1, 1, 1};      // interior extent, x first
  std::int64_t halo[3] = {0, 0, 0};   // halo width on each side (0 on inactive axes)
  std::int64_t origin[3] = {0, 0, 0}; // padded coordinate of interior point 0 along each axis
  std::int64_t pitch_y = 1;           // elements from one padded row to the next
  std::int64_t pitch_z = 1;           // elements from one padded plane to the next
  std::int64_t total = 1;             // elements in the allocation

  // Element offset of interior coordinate (x, y, z); each may lie in [-halo, n + halo).
  SE_HOST_DEVICE std::int64_t index(std::int64_t x, std::int64_t y, std::int64_t z) const {
    return (z + origin[2]) * pitch_z + (y + origin[1]) * pitch_y + (x + origin[0]);
  }
  SE_HOST_DEVICE bool inside(std::int64_t x, std::int64_t y, std::int64_t z) const {
    return x >= 0 && x < n[0] && y >= 0 && y < n[1] && z >= 0 && z < n[2];
  }
};

// `halo` on every active axis; x rows aligned to `align_elements` (a power of two) so loads of a row coalesce.
PaddedLayout make_padded_layout(const Extent& e, int halo, int align_elements);
// A packed layout (no halo, no row padding): what cuDNN and cuFFT read and write.
PaddedLayout make_packed_layout(const Extent& e);

} // namespace se
