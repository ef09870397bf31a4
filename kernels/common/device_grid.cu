// DeviceGrid: fills, periodic halos and host transfers for the three storage types.
#include "kernels/common/device_grid.hpp"

#include <cstring>
#include <limits>
#include <vector>

#include "core/error.hpp"
#include "core/half.hpp"

namespace se {

namespace {

template <typename S> __global__ void fill_kernel(S* p, std::int64_t count, S value) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    p[i] = value;
}

template <typename S> __global__ void fill_interior_kernel(S* p, PaddedLayout L, S value) {
  const std::int64_t count = L.n[0] * L.n[1] * L.n[2];
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    p[L.index(i % L.n[0], (i / L.n[0]) % L.n[1], i / (L.n[0] * L.n[1]))] = value;
}

// One axis of the periodic halo: coordinate `axis` runs over its two halo slabs, earlier axes over their
// full padded range (their halos are already filled), later axes over the interior, as the reference does.
template <typename S> __global__ void periodic_halo_kernel(S* p, PaddedLayout L, int axis, std::int64_t count) {
  std::int64_t ext[3], first[3];
  for (int d = 0; d < 3; ++d) {
    if (d == axis) {
      ext[d] = 2 * L.halo[d];
      first[d] = 0;
    } else if (d < axis) {
      ext[d] = L.n[d] + 2 * L.halo[d];
      first[d] = -L.halo[d];
    } else {
      ext[d] = L.n[d];
      first[d] = 0;
    }
  }
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    std::int64_t c[3];
    std::int64_t rest = i;
    for (int d = 0; d < 3; ++d) {
      c[d] = first[d] + rest % ext[d];
      rest /= ext[d];
    }
    const std::int64_t h = c[axis]; // 0..2H-1 -> -H..-1 and n..n+H-1
    c[axis] = h < L.halo[axis] ? h - L.halo[axis] : L.n[axis] + (h - L.halo[axis]);
    std::int64_t src[3] = {c[0], c[1], c[2]};
    src[axis] = ((c[axis] % L.n[axis]) + L.n[axis]) % L.n[axis];
    p[L.index(c[0], c[1], c[2])] = p[L.index(src[0], src[1], src[2])];
  }
}

int blocks_for(std::int64_t count) {
  const std::int64_t b = (count + 255) / 256;
  return static_cast<int>(b < 65536 ? (b < 1 ? 1 : b) : 65536);
}

template <typename S> S to_storage(double v) {
  if constexpr (std::is_same_v<S, __half>) {
    const Half h(v);
    __half out;
    static_assert(sizeof(out) == sizeof(h.bits));
    std::memcpy(&out, &h.bits, sizeof(out));
    return out;
  } else {
    return static_cast<S>(v);
  }
}

template <typename S> double from_storage(S v) {
  if constexpr (std::is_same_v<S, __half>) {
    std::uint16_t bits;
    std::memcpy(&bits, &v, sizeof(bits));
    return static_cast<double>(static_cast<float>(Half::from_bits(bits)));
  } else {
    return static_cast<double>(v);
  }
}

cudaMemcpy3DParms interior_copy(const PaddedLayout& L, std::size_t elem) {
  cudaMemcpy3DParms p{};
  p.extent = make_cudaExtent(static_cast<std::size_t>(L.n[0]) * elem, static_cast<std::size_t>(L.n[1]),
                             static_cast<std::size_t>(L.n[2]));
  return p;
}

} // namespace

template <typename S> void DeviceGrid<S>::fill(double value, cudaStream_t stream) {
  fill_kernel<<<blocks_for(layout_.total), 256, 0, stream>>>(data(), layout_.total, to_storage<S>(value));
  SE_CUDA_CHECK_LAUNCH("fill_kernel");
}

template <typename S> void DeviceGrid<S>::fill_interior(double value, cudaStream_t stream) {
  fill_interior_kernel<<<blocks_for(layout_.n[0] * layout_.n[1] * layout_.n[2]), 256, 0, stream>>>(data(), layout_,
                                                                                                   to_storage<S>(value));
  SE_CUDA_CHECK_LAUNCH("fill_interior_kernel");
}

template <typename S> void DeviceGrid<S>::upload_interior(std::span<const double> values, cudaStream_t stream) {
  const PaddedLayout& L = layout_;
  if (values.size() != static_cast<std::size_t>(L.n[0] * L.n[1] * L.n[2]))
    throw InputError("upload: the values do not match the grid's extent");
  std::vector<S> host(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) host[i] = to_storage<S>(values[i]);
  cudaMemcpy3DParms p = interior_copy(L, sizeof(S));
  p.srcPtr = make_cudaPitchedPtr(host.data(), static_cast<std::size_t>(L.n[0]) * sizeof(S),
                                 static_cast<std::size_t>(L.n[0]), static_cast<std::size_t>(L.n[1]));
  p.dstPtr = make_cudaPitchedPtr(data(), static_cast<std::size_t>(L.pitch_y) * sizeof(S),
                                 static_cast<std::size_t>(L.pitch_y), static_cast<std::size_t>(L.pitch_z / L.pitch_y));
  p.dstPos = make_cudaPos(static_cast<std::size_t>(L.origin[0]) * sizeof(S), static_cast<std::size_t>(L.origin[1]),
                          static_cast<std::size_t>(L.origin[2]));
  p.kind = cudaMemcpyHostToDevice;
  SE_CUDA_CHECK(cudaMemcpy3DAsync(&p, stream));
  SE_CUDA_CHECK(cudaStreamSynchronize(stream)); // `host` dies here
}

template <typename S> void DeviceGrid<S>::upload_elements(std::span<const double> all, cudaStream_t stream) {
  if (all.size() != static_cast<std::size_t>(layout_.total)) throw InputError("upload: wrong number of elements");
  std::vector<S> host(all.size());
  for (std::size_t i = 0; i < all.size(); ++i) host[i] = to_storage<S>(all[i]);
  buffer_.upload(host.data(), host.size(), stream);
  SE_CUDA_CHECK(cudaStreamSynchronize(stream)); // `host` dies here
}

template <typename S> void DeviceGrid<S>::download_interior(std::span<double> values, cudaStream_t stream) const {
  const PaddedLayout& L = layout_;
  if (values.size() != static_cast<std::size_t>(L.n[0] * L.n[1] * L.n[2]))
    throw InputError("download: the values do not match the grid's extent");
  std::vector<S> host(values.size());
  cudaMemcpy3DParms p = interior_copy(L, sizeof(S));
  p.srcPtr = make_cudaPitchedPtr(const_cast<S*>(data()), static_cast<std::size_t>(L.pitch_y) * sizeof(S),
                                 static_cast<std::size_t>(L.pitch_y), static_cast<std::size_t>(L.pitch_z / L.pitch_y));
  p.srcPos = make_cudaPos(static_cast<std::size_t>(L.origin[0]) * sizeof(S), static_cast<std::size_t>(L.origin[1]),
                          static_cast<std::size_t>(L.origin[2]));
  p.dstPtr = make_cudaPitchedPtr(host.data(), static_cast<std::size_t>(L.n[0]) * sizeof(S),
                                 static_cast<std::size_t>(L.n[0]), static_cast<std::size_t>(L.n[1]));
  p.kind = cudaMemcpyDeviceToHost;
  SE_CUDA_CHECK(cudaMemcpy3DAsync(&p, stream));
  SE_CUDA_CHECK(cudaStreamSynchronize(stream));
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = from_storage<S>(host[i]);
}

template <typename S> void DeviceGrid<S>::fill_periodic_halo(cudaStream_t stream) {
  const PaddedLayout& L = layout_;
  for (int axis = 0; axis < 3; ++axis) {
    if (L.halo[axis] == 0) continue;
    std::int64_t count = 1;
    for (int d = 0; d < 3; ++d)
      count *= d == axis ? 2 * L.halo[d] : (d < axis ? L.n[d] + 2 * L.halo[d] : L.n[d]);
    periodic_halo_kernel<<<blocks_for(count), 256, 0, stream>>>(data(), L, axis, count);
    SE_CUDA_CHECK_LAUNCH("periodic_halo_kernel");
  }
}

template <typename S> void DeviceGrid<S>::load(std::span<const double> values, const Boundary& b, cudaStream_t stream) {
  const bool periodic = b.kind == BoundaryKind::Periodic;
  fill(periodic ? 0.0 : b.value, stream);
  upload_interior(values, stream);
  if (periodic) fill_periodic_halo(stream);
}

template <typename S> void DeviceGrid<S>::prepare_output(const Boundary& b, cudaStream_t stream) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (b.kind == BoundaryKind::Periodic) {
    fill(nan, stream);
  } else {
    fill(b.value, stream);
    fill_interior(nan, stream);
  }
}

template class DeviceGrid<double>;
template class DeviceGrid<float>;
template class DeviceGrid<__half>;

} // namespace se
