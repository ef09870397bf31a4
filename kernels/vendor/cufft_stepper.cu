// cufft: the standard FFT stencil. The stencil placed circularly is transformed once (k_f); each round trip
// is D2Z, a point-wise product with k_f^f / M, and Z2D, which advances f base steps at once. A periodic grid
// is exactly a circular convolution. A Dirichlet grid runs on a grid extended to M >= n + r points per axis
// (an FFT-friendly size) whose extension holds the boundary value, reset after every single step.
#include <cufft.h>

#include <string>
#include <vector>

#include "core/error.hpp"
#include "kernels/common/device_grid.hpp"
#include "kernels/vendor/dynamic_library.hpp"
#include "kernels/vendor/vendor_libraries.hpp"
#include "kernels/vendor/vendor_steppers.hpp"

namespace se {

namespace {

struct CufftApi {
  explicit CufftApi(const DynamicLibrary& lib)
#define SE_CUFFT_FN(name) name(lib.function<decltype(&::name)>(#name))
      : SE_CUFFT_FN(cufftPlanMany), SE_CUFFT_FN(cufftExecD2Z), SE_CUFFT_FN(cufftExecZ2D), SE_CUFFT_FN(cufftSetStream),
        SE_CUFFT_FN(cufftDestroy) {}
#undef SE_CUFFT_FN
  decltype(&::cufftPlanMany) cufftPlanMany;
  decltype(&::cufftExecD2Z) cufftExecD2Z;
  decltype(&::cufftExecZ2D) cufftExecZ2D;
  decltype(&::cufftSetStream) cufftSetStream;
  decltype(&::cufftDestroy) cufftDestroy;
};

// Smallest 2^a 3^b 5^c 7^d >= n: the sizes cuFFT transforms fastest.
std::int64_t fft_friendly_size(std::int64_t n) {
  for (std::int64_t m = n;; ++m) {
    std::int64_t v = m;
    for (const std::int64_t p : {2, 3, 5, 7})
      while (v % p == 0) v /= p;
    if (v == 1) return m;
  }
}

__global__ void multiply_spectrum_kernel(cufftDoubleComplex* __restrict__ a, const cufftDoubleComplex* __restrict__ k,
                                         std::int64_t count) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const cufftDoubleComplex x = a[i], y = k[i];
    a[i] = make_cuDoubleComplex(x.x * y.x - x.y * y.y, x.x * y.y + x.y * y.x);
  }
}

// out = base^power * scale, by repeated squaring (exact enough: log2(power) roundings).
__global__ void power_spectrum_kernel(const cufftDoubleComplex* __restrict__ base, cufftDoubleComplex* __restrict__ out,
                                      std::int64_t count, int power, double scale) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    cufftDoubleComplex result = make_cuDoubleComplex(scale, 0.0), b = base[i];
    for (int p = power; p > 0; p >>= 1) {
      if (p & 1) result = cuCmul(result, b);
      b = cuCmul(b, b);
    }
    out[i] = result;
  }
}

// Sets the extension (points with any coordinate >= n) of an M-sized packed grid to `value`. The extension
// is split into disjoint slabs: along axis a, coordinate a in [n_a, M_a), earlier axes below n, later below M.
__global__ void reset_extension_kernel(double* __restrict__ grid, PaddedLayout L, std::int64_t m0, std::int64_t m1,
                                       std::int64_t m2, double value, std::int64_t count) {
  const std::int64_t m[3] = {m0, m1, m2};
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    std::int64_t rest = i;
    for (int a = 0; a < 3; ++a) {
      std::int64_t ext[3];
      for (int d = 0; d < 3; ++d) ext[d] = d == a ? m[d] - L.n[d] : (d < a ? L.n[d] : m[d]);
      const std::int64_t slab = ext[0] * ext[1] * ext[2];
      if (rest >= slab) {
        rest -= slab;
        continue;
      }
      std::int64_t c[3];
      for (int d = 0; d < 3; ++d) {
        c[d] = rest % ext[d];
        rest /= ext[d];
      }
      c[a] += L.n[a];
      grid[L.index(c[0], c[1], c[2])] = value;
      break;
    }
  }
}

unsigned blocks_for(std::int64_t count) {
  return static_cast<unsigned>(std::max<std::int64_t>(1, std::min<std::int64_t>((count + 255) / 256, 65536)));
}

class CufftStepper final : public GridStepper {
public:
  CufftStepper(const Stencil& s, const Extent& e, const Boundary& b, int fused)
      : lib_(cufft_search().display_name, cufft_search().env_var, cufft_search().candidates, cufft_search().siblings),
        api_(lib_), boundary_(b), periodic_(b.kind == BoundaryKind::Periodic), fused_(periodic_ ? std::max(1, fused) : 1) {
    const std::string what = "cufft on a " + e.to_string() + " grid";
    for (int d = 0; d < 3; ++d) m_[d] = d < e.dims ? (periodic_ ? e.n[d] : fft_friendly_size(e.n[d] + s.radius)) : 1;
    layout_.dims = e.dims;
    for (int d = 0; d < 3; ++d) layout_.n[d] = e.n[d];
    layout_.pitch_y = m_[0];
    layout_.pitch_z = m_[0] * m_[1];
    layout_.total = m_[0] * m_[1] * m_[2];
    spectrum_count_ = (m_[0] / 2 + 1) * m_[1] * m_[2];
    // Two real grids, the transform, the stencil's spectrum and its power, and cuFFT's own work area (~ one grid).
    require_device_memory(static_cast<std::uint64_t>(3 * layout_.total + 3 * 2 * spectrum_count_) * sizeof(double),
                          what + " (real grids, spectra and cuFFT work area)");
    grids_[0] = DeviceGrid<double>(layout_, what);
    grids_[1] = DeviceGrid<double>(layout_, what);
    spectrum_ = DeviceBuffer<cufftDoubleComplex>(static_cast<std::size_t>(spectrum_count_), what);
    kernel_ = DeviceBuffer<cufftDoubleComplex>(static_cast<std::size_t>(spectrum_count_), what);
    kernel_power_ = DeviceBuffer<cufftDoubleComplex>(static_cast<std::size_t>(spectrum_count_), what);

    int n[3];
    for (int d = 0; d < e.dims; ++d) n[d] = static_cast<int>(m_[e.dims - 1 - d]); // slowest axis first
    plan(&forward_, e.dims, n, CUFFT_D2Z);
    plan(&inverse_, e.dims, n, CUFFT_Z2D);

    load_kernel(s, grids_[0]);
    stream_.synchronize();
  }

  ~CufftStepper() override {
    for (int i = 0; i < plans_made_; ++i) api_.cufftDestroy(i == 0 ? forward_ : inverse_);
  }

  void upload(std::span<const double> values) override {
    clear_passes();
    current_ = 0;
    grids_[0].load(values, boundary_, stream()); // fill (boundary value in the extension), then the interior
    grids_[1].fill(std::numeric_limits<double>::quiet_NaN(), stream());
    stream_.synchronize();
  }

  void advance(int steps) override {
    for (int done = 0; done < steps;) {
      const int f = std::min(fused_, steps - done);
      if (f != power_) set_power(f);
      exec(api_.cufftExecD2Z(forward_, grids_[current_].data(), spectrum_.get()), "cufftExecD2Z");
      multiply_spectrum_kernel<<<blocks_for(spectrum_count_), 256, 0, stream()>>>(spectrum_.get(), kernel_power_.get(),
                                                                                   spectrum_count_);
      SE_CUDA_CHECK_LAUNCH("multiply_spectrum_kernel");
      exec(api_.cufftExecZ2D(inverse_, spectrum_.get(), grids_[1 - current_].data()), "cufftExecZ2D");
      if (!periodic_) {
        const std::int64_t extension = layout_.total - layout_.n[0] * layout_.n[1] * layout_.n[2];
        reset_extension_kernel<<<blocks_for(extension), 256, 0, stream()>>>(grids_[1 - current_].data(), layout_, m_[0],
                                                                             m_[1], m_[2], boundary_.value, extension);
        SE_CUDA_CHECK_LAUNCH("reset_extension_kernel");
      }
      current_ = 1 - current_;
      done += f;
      record_pass(f);
    }
  }

  // In place while the zero extension of a Dirichlet grid still holds the new radius (periodic grids: always).
  bool set_stencil(const MethodPlan& plan) override {
    const Stencil& s = plan.stencil; // validated when the plan was built
    if (s.dims != layout_.dims) return false;
    for (int d = 0; d < layout_.dims; ++d)
      if (!periodic_ && m_[d] < layout_.n[d] + s.radius) return false;
    stream_.synchronize();
    load_kernel(s, grids_[1 - current_]); // the buffer the next pass overwrites serves as scratch
    stream_.synchronize();
    return true;
  }

  void download(std::span<double> values) override { grids_[current_].download_interior(values, stream()); }
  DeviceGridView view() const override { return {grids_[current_].data(), Precision::FP64, layout_}; }
  int fused_steps() const override { return fused_; }

private:
  void plan(cufftHandle* h, int rank, int* n, cufftType type) {
    const cufftResult res = api_.cufftPlanMany(h, rank, n, nullptr, 1, 0, nullptr, 1, 0, type, 1);
    if (res == CUFFT_ALLOC_FAILED)
      throw InputError("out of device memory: cuFFT could not allocate its plan's work area for a " +
                       std::to_string(layout_.total) + "-point transform");
    exec(res, "cufftPlanMany");
    ++plans_made_;
    exec(api_.cufftSetStream(*h, stream()), "cufftSetStream");
  }
  void exec(cufftResult res, const char* what) const {
    if (res != CUFFT_SUCCESS) throw CudaError(std::string("cuFFT: ") + what + " failed with cufftResult " + std::to_string(res));
  }
  // k_f: the weights placed so that a circular convolution with them is the stencil, g[-d mod M] = w(d),
  // transformed through `scratch`, and its power for this stepper's fusion.
  void load_kernel(const Stencil& s, DeviceGrid<double>& scratch) {
    std::vector<double> g(static_cast<std::size_t>(layout_.total), 0.0);
    for (const Tap& t : taps(s)) {
      const std::int64_t o[3] = {t.dx, t.dy, t.dz};
      std::int64_t at[3];
      for (int d = 0; d < 3; ++d) at[d] = ((-o[d]) % m_[d] + m_[d]) % m_[d];
      g[static_cast<std::size_t>((at[2] * m_[1] + at[1]) * m_[0] + at[0])] += t.w;
    }
    scratch.upload_elements(g, stream());
    exec(api_.cufftExecD2Z(forward_, scratch.data(), kernel_.get()), "cufftExecD2Z (stencil)");
    set_power(fused_);
  }
  void set_power(int f) {
    power_spectrum_kernel<<<blocks_for(spectrum_count_), 256, 0, stream()>>>(
        kernel_.get(), kernel_power_.get(), spectrum_count_, f, 1.0 / static_cast<double>(layout_.total));
    SE_CUDA_CHECK_LAUNCH("power_spectrum_kernel");
    power_ = f;
  }

  DynamicLibrary lib_;
  CufftApi api_;
  Boundary boundary_;
  bool periodic_;
  int fused_;
  std::int64_t m_[3] = {1, 1, 1};
  PaddedLayout layout_{};
  std::int64_t spectrum_count_ = 0;
  DeviceGrid<double> grids_[2];
  DeviceBuffer<cufftDoubleComplex> spectrum_, kernel_, kernel_power_;
  cufftHandle forward_ = 0, inverse_ = 0;
  int plans_made_ = 0; // forward_ first, then inverse_
  int current_ = 0;
  int power_ = 0;
};

} // namespace

std::unique_ptr<GridStepper> make_cufft_stepper(const Stencil& s, const Extent& e, const Boundary& b, int fused) {
  validate(s);
  check_extent_fits_stencil(e, s);
  return std::make_unique<CufftStepper>(s, e, b, fused);
}

} // namespace se
