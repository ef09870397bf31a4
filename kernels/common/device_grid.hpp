// A grid held on the device in a padded layout and storage type S (double, float or __half): upload
// from FP64 host values, download, poison with NaN, refresh periodic halos, and the store every kernel
// uses, which also writes a point's periodic images into the halo so the next step needs no extra pass.
#pragma once
#include <cuda_fp16.h>

#include <span>
#include <string>

#include "core/grid.hpp"
#include "kernels/common/device_buffer.hpp"
#include "kernels/common/padded_layout.hpp"

namespace se {

template <typename S> constexpr Precision storage_precision() {
  if constexpr (std::is_same_v<S, double>) return Precision::FP64;
  else if constexpr (std::is_same_v<S, float>) return Precision::FP32;
  else return Precision::FP16;
}

// The arithmetic type for storage S: FP16 grids are computed in FP32 and rounded once per step.
template <typename S> using compute_t = std::conditional_t<std::is_same_v<S, double>, double, float>;

template <typename S> class DeviceGrid {
public:
  DeviceGrid() = default;
  DeviceGrid(const PaddedLayout& layout, const std::string& what)
      : layout_(layout), buffer_(static_cast<std::size_t>(layout.total), what) {}

  S* data() { return buffer_.get(); }
  const S* data() const { return buffer_.get(); }
  const PaddedLayout& layout() const { return layout_; }

  // Sets every element (halo too) to `value`: the Dirichlet value, or NaN to poison.
  void fill(double value, cudaStream_t stream);
  // Sets the interior points only.
  void fill_interior(double value, cudaStream_t stream);
  // Copies `values` (x fastest, n points) into the interior, converting to S. The halo is left alone.
  void upload_interior(std::span<const double> values, cudaStream_t stream);
  // Copies `all` (layout.total elements, padding included) into the allocation as it is laid out.
  void upload_elements(std::span<const double> all, cudaStream_t stream);
  // Copies the interior out in FP64; waits for the stream.
  void download_interior(std::span<double> values, cudaStream_t stream) const;
  // Fills the halo with the periodic images of the interior (all widths, corners included).
  void fill_periodic_halo(cudaStream_t stream);
  // Upload for a run: halo = Dirichlet value or periodic images; interior = values.
  void load(std::span<const double> values, const Boundary& boundary, cudaStream_t stream);
  // A buffer a step will write: interior poisoned with NaN; the halo holds the Dirichlet value, or NaN too
  // on a periodic grid, where the step itself writes the images.
  void prepare_output(const Boundary& boundary, cudaStream_t stream);

private:
  PaddedLayout layout_{};
  DeviceBuffer<S> buffer_;
};

#if defined(__CUDACC__)
// Writes v at interior point (x, y, z) and, on a periodic grid, at each of its images inside the halo.
template <typename S>
__device__ inline void store_with_images(S* out, const PaddedLayout& L, bool periodic, std::int64_t x, std::int64_t y,
                                         std::int64_t z, S v) {
  out[L.index(x, y, z)] = v;
  if (!periodic) return;
  const std::int64_t c[3] = {x, y, z};
  bool near_face = false;
  for (int d = 0; d < 3; ++d)
    near_face |= L.halo[d] > 0 && (c[d] < L.halo[d] || c[d] >= L.n[d] - L.halo[d]);
  if (!near_face) return;
  std::int64_t lo[3], hi[3]; // image shifts k with c + k n inside [-halo, n + halo)
  for (int d = 0; d < 3; ++d) {
    lo[d] = -((c[d] + L.halo[d]) / L.n[d]);
    hi[d] = (L.n[d] + L.halo[d] - 1 - c[d]) / L.n[d];
  }
  for (std::int64_t kz = lo[2]; kz <= hi[2]; ++kz)
    for (std::int64_t ky = lo[1]; ky <= hi[1]; ++ky)
      for (std::int64_t kx = lo[0]; kx <= hi[0]; ++kx)
        if (kx | ky | kz) out[L.index(x + kx * L.n[0], y + ky * L.n[1], z + kz * L.n[2])] = v;
}

template <typename C, typename S> __device__ inline C load_as(const S& v) {
  if constexpr (std::is_same_v<S, __half>) return static_cast<C>(__half2float(v));
  else return static_cast<C>(v);
}
template <typename S, typename C> __device__ inline S store_as(C v) {
  if constexpr (std::is_same_v<S, __half>) return __float2half_rn(static_cast<float>(v));
  else return static_cast<S>(v);
}
#endif

} // namespace se
