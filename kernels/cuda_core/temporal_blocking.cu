// cuda-core-tb and cuda-core-tb-fp32: temporal blocking on CUDA cores, T steps per launch (T from
// core/temporal_blocking_model.hpp). 1D and 2D run the streaming kernels of tb_1d.cu and tb_2d.cuh, with the
// weights as launch arguments (constant-bank operands of the FMAs) and the shape (radius, star or box)
// compiled in. 3D radius 1..3 runs tb_3d.cu's plane pipeline; wider 3D stencils the generic kernel below: a block
// loads its tile with a halo of k*r into shared memory, advances k steps there on a region that shrinks by r per
// step, and reads its taps from device memory.
// Points outside a Dirichlet grid keep the boundary value at every intermediate step; on a periodic grid they
// are images and are computed like any other.
#include <algorithm>
#include <string>

#include "core/error.hpp"
#include "core/temporal_blocking_model.hpp"
#include "kernels/common/device_grid.hpp"
#include "kernels/cuda_core/cuda_core.hpp"
#include "kernels/cuda_core/ping_pong_stepper.hpp"
#include "kernels/cuda_core/step_kernels.hpp"
#include "kernels/cuda_core/tb_kernels.hpp"

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

std::size_t shared_bytes(int dims, int radius, int k, std::size_t value_bytes) {
  const TileShape ts = tile_shape(dims);
  std::size_t vol = 1;
  for (int d = 0; d < 3; ++d) vol *= static_cast<std::size_t>(ts.t[d] + (d < dims ? 2 * k * radius : 0));
  return vol * value_bytes * (k > 1 ? 2 : 1);
}

__device__ inline void decode(int i, const int ext[3], int out[3]) {
  out[0] = i % ext[0];
  out[1] = (i / ext[0]) % ext[1];
  out[2] = i / (ext[0] * ext[1]);
}

// Taps: offsets in the shared box (x fastest), in the stencil's order with zero weights left out.
template <typename S>
__global__ void __launch_bounds__(kThreads)
    temporal_block_kernel(const S* __restrict__ in, S* __restrict__ out, PaddedLayout L, bool periodic,
                          double boundary_value, const int* __restrict__ tap_dx, const int* __restrict__ tap_dy,
                          const int* __restrict__ tap_dz, const double* __restrict__ tap_w, int taps, int radius,
                          int k, TileShape ts) {
  using C = compute_t<S>;
  extern __shared__ __align__(16) unsigned char box_bytes[];
  S* box = reinterpret_cast<S*>(box_bytes);
  int h[3], ext[3];
  std::int64_t origin[3]; // grid coordinate of the box's first point
  const unsigned block[3] = {blockIdx.x, blockIdx.y, blockIdx.z};
  for (int d = 0; d < 3; ++d) {
    h[d] = d < L.dims ? k * radius : 0;
    ext[d] = ts.t[d] + 2 * h[d];
    origin[d] = static_cast<std::int64_t>(block[d]) * ts.t[d] - h[d];
  }
  const int vol = ext[0] * ext[1] * ext[2];
  S* buf[2] = {box, box + vol};
  for (int i = threadIdx.x; i < vol; i += kThreads) {
    int l[3];
    decode(i, ext, l);
    const std::int64_t g[3] = {origin[0] + l[0], origin[1] + l[1], origin[2] + l[2]};
    // The box never reaches below -h; above, a partial tile can run past the padding (those points feed nothing).
    const bool stored = g[0] < L.n[0] + L.halo[0] && g[1] < L.n[1] + L.halo[1] && g[2] < L.n[2] + L.halo[2];
    buf[0][i] = stored ? in[L.index(g[0], g[1], g[2])] : S(0);
  }
  __syncthreads();
  for (int s = 1; s <= k; ++s) {
    const S* src = buf[(s - 1) & 1];
    S* dst = buf[s & 1];
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
      C v = static_cast<C>(boundary_value);
      if (inside || periodic) {
        v = C(0);
        for (int t = 0; t < taps; ++t)
          v = fma(static_cast<C>(__ldg(tap_w + t)),
                  static_cast<C>(src[li + (__ldg(tap_dz + t) * ext[1] + __ldg(tap_dy + t)) * ext[0] + __ldg(tap_dx + t)]),
                  v);
      }
      if (s == k) store_with_images(out, L, periodic, g[0], g[1], g[2], static_cast<S>(v));
      else dst[li] = static_cast<S>(v);
    }
    __syncthreads();
  }
}

// The stencil's (2R+1)^dims weights, with R its radius (radius 0 runs as radius 1).
bool star_shaped(const Stencil& s) { return s.dims == 2 && s.is_star(); }

template <typename S> class TemporalBlockStepper final : public PingPongStepper<S> {
public:
  TemporalBlockStepper(const Stencil& s, const Extent& e, const Boundary& b, int k)
      : PingPongStepper<S>(make_padded_layout(e, layout_halo(s, k), 16), b,
                           std::string(storage_precision<S>() == Precision::FP64 ? "cuda-core-tb" : "cuda-core-tb-fp32") +
                               " on a " + e.to_string() + " grid"),
        dims_(s.dims), radius_(std::max(1, s.radius)), k_(k) {
    int device = 0;
    SE_CUDA_CHECK(cudaGetDevice(&device));
    SE_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count_, cudaDevAttrMultiProcessorCount, device));
    load_taps(s);
    if (dims_ == 3) {
      const std::size_t smem = shared_bytes(dims_, s.radius, k_, sizeof(S));
      SE_CUDA_CHECK(cudaFuncSetAttribute(temporal_block_kernel<S>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(smem)));
    }
    this->stream_.synchronize();
  }

  // 1D and 2D: the streaming kernels, whose halo is T R rounded to a 16-byte chunk; 3D: the generic kernel's k r.
  static int layout_halo(const Stencil& s, int k) {
    const int r = std::max(1, s.radius);
    const int bytes = static_cast<int>(sizeof(S));
    if (s.dims == 3 && s.radius > 3) return std::max(1, k * s.radius); // the generic kernel
    if (s.dims == 3) return std::max((k + 1) * r, tb::halo_columns(k, r, bytes) + tb::halo_columns(1, r, bytes));
    return tb::halo_columns(k, r, bytes);
  }

  void advance(int steps) override {
    const PaddedLayout& L = this->layout();
    for (int done = 0; done < steps;) {
      const int k = std::min(k_, steps - done);
      if (dims_ == 3 && radius_taps_ > 3) {
        const TileShape ts = tile_shape(dims_);
        const dim3 grid(static_cast<unsigned>((L.n[0] + ts.t[0] - 1) / ts.t[0]),
                        static_cast<unsigned>((L.n[1] + ts.t[1] - 1) / ts.t[1]),
                        static_cast<unsigned>((L.n[2] + ts.t[2] - 1) / ts.t[2]));
        temporal_block_kernel<S><<<grid, kThreads, shared_bytes(dims_, radius_taps_, k, sizeof(S)), this->stream()>>>(
            this->current(), this->next(), L, this->periodic(), this->boundary().value, tap_dx_.get(), tap_dy_.get(),
            tap_dz_.get(), tap_w_.get(), taps_, radius_taps_, k, ts);
        SE_CUDA_CHECK_LAUNCH("temporal_block_kernel");
      } else {
        TbLaunch a;
        a.radius = radius_;
        a.star = star_;
        a.periodic = this->periodic();
        a.boundary = this->boundary().value;
        a.steps = k;
        a.sm_count = sm_count_;
        // A plan that tb::single_step_2d puts on step_2d.cuh's single-step kernel (FP32 at depth 1: every pass of such
        // a plan is depth 1, so the periodic images those write, R deep, are all any pass reads).
        if (dims_ == 1) launch_tb_1d<S>(a, this->current(), this->next(), L, weights_, this->stream());
        else if (tb::single_step_2d(dims_, static_cast<int>(sizeof(S)), k_))
          launch_step_2d<S>(radius_, this->current(), this->next(), L, a.periodic, weights_, this->stream());
        else if (dims_ == 2) launch_tb_2d<S>(a, this->current(), this->next(), L, weights_, this->stream());
        else launch_tb_3d<S>(a, this->current(), this->next(), L, weights_, this->stream());
      }
      this->swap();
      done += k;
      this->record_pass(k);
    }
  }

  int fused_steps() const override { return k_; }

  // New weights on the same grids while the radius (the halo and the fusion depth it allows) stays.
  bool set_stencil(const MethodPlan& plan) override {
    const Stencil& s = plan.stencil; // validated when the plan was built
    if (s.dims != dims_ || std::max(1, s.radius) != radius_ || plan.fused_steps != k_ || s.radius != radius_taps_)
      return false;
    this->stream_.synchronize(); // no queued launch still reads the old taps
    load_taps(s);
    return true;
  }

private:
  void load_taps(const Stencil& s) {
    radius_taps_ = s.radius;
    star_ = star_shaped(s);
    weights_ = weights_at_radius(s, radius_);
    if (dims_ != 3) return;
    // The generic 3D kernel reads the non-zero taps from four device arrays (offsets and weights).
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
      tap_dx_.upload(dx.data(), dx.size(), this->stream());
      tap_dy_.upload(dy.data(), dy.size(), this->stream());
      tap_dz_.upload(dz.data(), dz.size(), this->stream());
      tap_w_.upload(w.data(), w.size(), this->stream());
    }
    this->stream_.synchronize(); // the host vectors go out of scope
  }

  int dims_, radius_, k_;
  int radius_taps_ = 0;
  int sm_count_ = 1;
  bool star_ = false;
  std::vector<double> weights_;
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

int cuda_core_tb_fused_steps(const Stencil& s, Precision storage, int max_fused) {
  const int bytes = storage == Precision::FP64 ? 8 : 4;
  if (s.dims != 3) return std::max(1, std::min(max_fused, tb::capacity_steps(s.dims, s.radius, bytes)));
  if (tb::cube_symmetric(s)) return std::max(1, std::min(max_fused, tb::kMaxSteps3DSym));
  if (s.radius <= 3) return std::max(1, std::min(max_fused, tb::kMaxSteps3D));
  const int limit = shared_limit();
  for (int k = std::max(1, max_fused); k >= 1; --k)
    if (shared_bytes(s.dims, s.radius, k, static_cast<std::size_t>(bytes)) <= static_cast<std::size_t>(limit)) return k;
  return 0;
}

std::unique_ptr<GridStepper> make_cuda_core_tb_stepper(Precision storage, const Stencil& s, const Extent& e,
                                                       const Boundary& b, int max_fused) {
  validate(s);
  check_extent_fits_stencil(e, s);
  const int k = cuda_core_tb_fused_steps(s, storage, max_fused);
  if (k == 0)
    throw InputError("cuda-core-tb: a " + std::to_string(s.dims) + "D tile of radius " + std::to_string(s.radius) +
                     " does not fit in this GPU's shared memory; use cuda-core");
  if (storage == Precision::FP64) return std::make_unique<TemporalBlockStepper<double>>(s, e, b, k);
  if (storage == Precision::FP32) return std::make_unique<TemporalBlockStepper<float>>(s, e, b, k);
  throw InputError("cuda-core-tb runs FP64 or FP32 storage");
}

} // namespace se
