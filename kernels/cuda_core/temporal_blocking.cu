// cuda-core-tb: FP64 temporal blocking. A block loads its tile with a halo of k*r (r the radius) into
// shared memory, advances k steps there on a region that shrinks by r per step (recomputing the
// overlap with its neighbours instead of going through device memory), and writes only the last step:
// device traffic is 16 bytes per point per k steps. Points outside a Dirichlet grid keep the boundary
// value at every intermediate step; on a periodic grid they are images and are computed like any other.
#include <algorithm>
#include <string>

#include "core/error.hpp"
#include "kernels/common/device_grid.hpp"
#include "kernels/cuda_core/cuda_core.hpp"
#include "kernels/cuda_core/ping_pong_stepper.hpp"

namespace se {

namespace {

constexpr int kThreads = 256;

struct TileShape {
  int t[3] = {1, 1, 1};
};

TileShape tile_shape(int dims) {
  if (dims == 1) return {{2048, 1, 1}};
  if (dims == 2) return {{32, 32, 1}};
  return {{16, 8, 8}};
}

std::size_t shared_bytes(int dims, int radius, int k) {
  const TileShape ts = tile_shape(dims);
  std::size_t vol = 1;
  for (int d = 0; d < 3; ++d) vol *= static_cast<std::size_t>(ts.t[d] + (d < dims ? 2 * k * radius : 0));
  return vol * sizeof(double) * (k > 1 ? 2 : 1);
}

__device__ inline void decode(int i, const int ext[3], int out[3]) {
  out[0] = i % ext[0];
  out[1] = (i / ext[0]) % ext[1];
  out[2] = i / (ext[0] * ext[1]);
}

// Taps: offsets in the shared box (x fastest), in the stencil's order with zero weights left out.
__global__ void __launch_bounds__(kThreads)
    temporal_block_kernel(const double* __restrict__ in, double* __restrict__ out, PaddedLayout L, bool periodic,
                          double boundary_value, const int* __restrict__ tap_dx, const int* __restrict__ tap_dy,
                          const int* __restrict__ tap_dz, const double* __restrict__ tap_w, int taps, int radius,
                          int k, TileShape ts) {
  extern __shared__ double box[];
  int h[3], ext[3];
  std::int64_t origin[3]; // grid coordinate of the box's first point
  const unsigned block[3] = {blockIdx.x, blockIdx.y, blockIdx.z};
  for (int d = 0; d < 3; ++d) {
    h[d] = d < L.dims ? k * radius : 0;
    ext[d] = ts.t[d] + 2 * h[d];
    origin[d] = static_cast<std::int64_t>(block[d]) * ts.t[d] - h[d];
  }
  const int vol = ext[0] * ext[1] * ext[2];
  double* buf[2] = {box, box + vol};
  for (int i = threadIdx.x; i < vol; i += kThreads) {
    int l[3];
    decode(i, ext, l);
    const std::int64_t g[3] = {origin[0] + l[0], origin[1] + l[1], origin[2] + l[2]};
    // The box never reaches below -h; above, a partial tile can run past the padding (those points feed nothing).
    const bool stored = g[0] < L.n[0] + L.halo[0] && g[1] < L.n[1] + L.halo[1] && g[2] < L.n[2] + L.halo[2];
    buf[0][i] = stored ? in[L.index(g[0], g[1], g[2])] : 0.0;
  }
  __syncthreads();
  for (int s = 1; s <= k; ++s) {
    const double* src = buf[(s - 1) & 1];
    double* dst = buf[s & 1];
    int lo[3], size[3];
    for (int d = 0; d < 3; ++d) {
      const int grow = d < L.dims ? (k - s) * radius : 0;
      lo[d] = h[d] - grow;
      size[d] = ts.t[d] + 2 * grow;
    }
    const int count = size[0] * size[1] * size[2];
    for (int i = threadIdx.x; i < count; i += kThreads) {
      int a[3];
      decode(i, size, a);
      const int l[3] = {lo[0] + a[0], lo[1] + a[1], lo[2] + a[2]};
      const std::int64_t g[3] = {origin[0] + l[0], origin[1] + l[1], origin[2] + l[2]};
      const bool inside = L.inside(g[0], g[1], g[2]);
      const int li = (l[2] * ext[1] + l[1]) * ext[0] + l[0];
      if (s == k && !inside) continue; // the tile's part beyond the grid
      double v = boundary_value;
      if (inside || periodic) {
        v = 0.0;
        for (int t = 0; t < taps; ++t)
          v = fma(__ldg(tap_w + t), src[li + (__ldg(tap_dz + t) * ext[1] + __ldg(tap_dy + t)) * ext[0] + __ldg(tap_dx + t)],
                  v);
      }
      if (s == k) store_with_images(out, L, periodic, g[0], g[1], g[2], v);
      else dst[li] = v;
    }
    __syncthreads();
  }
}

class TemporalBlockStepper final : public PingPongStepper<double> {
public:
  TemporalBlockStepper(const Stencil& s, const Extent& e, const Boundary& b, int k)
      : PingPongStepper<double>(make_padded_layout(e, std::max(1, k * s.radius), 16), b,
                                "cuda-core-tb on a " + e.to_string() + " grid"),
        dims_(s.dims), radius_(s.radius), k_(k) {
    load_taps(s);
    const std::size_t smem = shared_bytes(dims_, radius_, k_);
    SE_CUDA_CHECK(cudaFuncSetAttribute(temporal_block_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(smem)));
    stream_.synchronize();
  }

  void advance(int steps) override {
    const TileShape ts = tile_shape(dims_);
    const PaddedLayout& L = layout();
    const dim3 grid(static_cast<unsigned>((L.n[0] + ts.t[0] - 1) / ts.t[0]),
                    static_cast<unsigned>((L.n[1] + ts.t[1] - 1) / ts.t[1]),
                    static_cast<unsigned>((L.n[2] + ts.t[2] - 1) / ts.t[2]));
    for (int done = 0; done < steps;) {
      const int k = std::min(k_, steps - done);
      temporal_block_kernel<<<grid, kThreads, shared_bytes(dims_, radius_, k), stream()>>>(
          current(), next(), L, periodic(), boundary().value, tap_dx_.get(), tap_dy_.get(), tap_dz_.get(), tap_w_.get(),
          taps_, radius_, k, ts);
      SE_CUDA_CHECK_LAUNCH("temporal_block_kernel");
      swap();
      done += k;
      record_pass(k);
    }
  }

  int fused_steps() const override { return k_; }

  // New taps on the same tiles while the radius (the halo and the fusion depth it allows) stays.
  bool set_stencil(const MethodPlan& plan) override {
    const Stencil& s = plan.stencil; // validated when the plan was built
    if (s.dims != dims_ || s.radius != radius_ || plan.fused_steps != k_) return false;
    stream_.synchronize(); // no queued launch still reads the old taps
    load_taps(s);
    return true;
  }

private:
  // The non-zero taps as four device arrays (offsets and weights), read by every thread of the kernel.
  void load_taps(const Stencil& s) {
    std::vector<int> dx, dy, dz;
    std::vector<double> w;
    for (const Tap& t : taps(s)) dx.push_back(t.dx), dy.push_back(t.dy), dz.push_back(t.dz), w.push_back(t.w);
    taps_ = static_cast<int>(w.size());
    const std::size_t nt = std::max<std::size_t>(1, w.size());
    tap_dx_ = DeviceBuffer<int>(nt, "cuda-core-tb taps");
    tap_dy_ = DeviceBuffer<int>(nt, "cuda-core-tb taps");
    tap_dz_ = DeviceBuffer<int>(nt, "cuda-core-tb taps");
    tap_w_ = DeviceBuffer<double>(nt, "cuda-core-tb taps");
    if (taps_ > 0) {
      tap_dx_.upload(dx.data(), dx.size(), stream());
      tap_dy_.upload(dy.data(), dy.size(), stream());
      tap_dz_.upload(dz.data(), dz.size(), stream());
      tap_w_.upload(w.data(), w.size(), stream());
    }
    stream_.synchronize(); // the host vectors go out of scope
  }

  int dims_, radius_, k_;
  int taps_ = 0;
  DeviceBuffer<int> tap_dx_, tap_dy_, tap_dz_;
  DeviceBuffer<double> tap_w_;
};

int shared_limit() {
  int device = 0, limit = 0;
  SE_CUDA_CHECK(cudaGetDevice(&device));
  SE_CUDA_CHECK(cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  return limit;
}

} // namespace

int cuda_core_tb_fused_steps(const Stencil& s, int max_fused) {
  const int limit = shared_limit();
  for (int k = std::max(1, max_fused); k >= 1; --k)
    if (shared_bytes(s.dims, s.radius, k) <= static_cast<std::size_t>(limit)) return k;
  return 0;
}

std::unique_ptr<GridStepper> make_cuda_core_tb_stepper(const Stencil& s, const Extent& e, const Boundary& b,
                                                       int max_fused) {
  validate(s);
  check_extent_fits_stencil(e, s);
  const int k = cuda_core_tb_fused_steps(s, max_fused);
  if (k == 0)
    throw InputError("cuda-core-tb: a " + std::to_string(s.dims) + "D tile of radius " + std::to_string(s.radius) +
                     " does not fit in this GPU's shared memory; use cuda-core");
  return std::make_unique<TemporalBlockStepper>(s, e, b, k);
}

} // namespace se
