// GpuLiveRun: a stepper from the registry plus a kernel that reads the stepper's current grid in whatever
// storage and layout it has and stores colours (or floats) through a surface object.
#include "kernels/live_view.hpp"

#include <cuda_fp16.h>

#include <algorithm>
#include <cstring>

#include "core/error.hpp"
#include "kernels/common/device_grid.hpp"
#include "kernels/common/grid_edit.hpp"
#include "kernels/common/grid_stepper.hpp"
#include "kernels/registry.hpp"

namespace se {

namespace {

template <typename S> __device__ inline double read_value(const void* data, std::int64_t i) {
  return static_cast<double>(load_as<float>(static_cast<const S*>(data)[i]));
}
template <> __device__ inline double read_value<double>(const void* data, std::int64_t i) {
  return static_cast<const double*>(data)[i];
}

template <typename S>
__global__ void write_rgba8_kernel(const void* data, PaddedLayout L, std::int64_t z, cudaSurfaceObject_t surface,
                                   const uchar4* __restrict__ lut, int lut_size, double lo, double hi) {
  const std::int64_t x = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const std::int64_t y = blockIdx.y * static_cast<std::int64_t>(blockDim.y) + threadIdx.y;
  if (x >= L.n[0] || y >= L.n[1]) return;
  const double v = read_value<S>(data, L.index(x, y, z));
  double t = hi > lo ? (v - lo) / (hi - lo) : 0.0;
  t = isnan(t) ? 0.0 : fmin(1.0, fmax(0.0, t));
  const int entry = min(lut_size - 1, static_cast<int>(t * (lut_size - 1) + 0.5));
  surf2Dwrite(lut[entry], surface, static_cast<int>(x * sizeof(uchar4)), static_cast<int>(y));
}

template <typename S>
__global__ void write_r32f_kernel(const void* data, PaddedLayout L, std::int64_t z, cudaSurfaceObject_t surface) {
  const std::int64_t x = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const std::int64_t y = blockIdx.y * static_cast<std::int64_t>(blockDim.y) + threadIdx.y;
  if (x >= L.n[0] || y >= L.n[1]) return;
  surf2Dwrite(static_cast<float>(read_value<S>(data, L.index(x, y, z))), surface, static_cast<int>(x * sizeof(float)),
              static_cast<int>(y));
}

class SurfaceObject {
public:
  explicit SurfaceObject(cudaArray_t array) {
    if (!array) throw InputError("live view: no CUDA array to write into");
    cudaResourceDesc desc{};
    desc.resType = cudaResourceTypeArray;
    desc.res.array.array = array;
    SE_CUDA_CHECK(cudaCreateSurfaceObject(&surface_, &desc));
  }
  ~SurfaceObject() { cudaDestroySurfaceObject(surface_); }
  SurfaceObject(const SurfaceObject&) = delete;
  SurfaceObject& operator=(const SurfaceObject&) = delete;
  cudaSurfaceObject_t get() const { return surface_; }

private:
  cudaSurfaceObject_t surface_ = 0;
};

void check_array_fits(cudaArray_t array, const PaddedLayout& L, std::size_t texel_bytes) {
  cudaChannelFormatDesc fmt{};
  cudaExtent ext{};
  unsigned flags = 0;
  SE_CUDA_CHECK(cudaArrayGetInfo(&fmt, &ext, &flags, array));
  const std::size_t bits = static_cast<std::size_t>(fmt.x + fmt.y + fmt.z + fmt.w);
  if (bits != texel_bytes * 8)
    throw InputError("live view: the texture's texels are " + std::to_string(bits) + " bits; expected " +
                     std::to_string(texel_bytes * 8));
  const std::size_t height = std::max<std::size_t>(1, ext.height);
  if (ext.width < static_cast<std::size_t>(L.n[0]) || height < static_cast<std::size_t>(L.n[1]))
    throw InputError("live view: the texture (" + std::to_string(ext.width) + "x" + std::to_string(height) +
                     ") is smaller than the grid (" + std::to_string(L.n[0]) + "x" + std::to_string(L.n[1]) + ")");
  if (!(flags & cudaArraySurfaceLoadStore))
    throw InputError("live view: the texture was not registered for surface stores (cudaGraphicsRegisterFlagsSurfaceLoadStore)");
}

template <typename F> void dispatch_storage(Precision p, F&& f) {
  if (p == Precision::FP64) f(double{});
  else if (p == Precision::FP32) f(float{});
  else f(__half{});
}

std::int64_t slice_of(const PaddedLayout& L, int slice_z) {
  if (L.dims < 3) return 0;
  if (slice_z < 0) return L.n[2] / 2;
  if (slice_z >= L.n[2])
    throw InputError("live view: slice " + std::to_string(slice_z) + " is outside the grid's " + std::to_string(L.n[2]) +
                     " planes");
  return slice_z;
}

} // namespace

struct GpuLiveRun::State {
  std::string id;
  std::unique_ptr<GridStepper> stepper;
  DeviceBuffer<uchar4> lut;
  std::vector<std::array<std::uint8_t, 4>> lut_host;
  int steps = 0;
  bool periodic = false;
};

GpuLiveRun::GpuLiveRun(const Method& method, const MethodPlan& plan, const Extent& e, const Boundary& b,
                       std::span<const double> initial)
    : state_(std::make_unique<State>()) {
  state_->id = method.id;
  state_->periodic = b.kind == BoundaryKind::Periodic;
  state_->stepper = make_gpu_stepper(method, plan, e, b);
  state_->stepper->upload(initial);
}

bool GpuLiveRun::set_stencil(const MethodPlan& plan) {
  if (plan.method != state_->id) throw std::logic_error("live view: a plan of '" + plan.method + "' for a run of '" + state_->id + "'");
  return state_->stepper->set_stencil(plan);
}

GpuLiveRun::~GpuLiveRun() = default;

double GpuLiveRun::advance(int steps) {
  if (steps < 0) throw InputError("live view: the number of steps cannot be negative");
  CudaEvent start, stop;
  start.record(state_->stepper->stream());
  state_->stepper->advance(steps);
  stop.record(state_->stepper->stream());
  state_->steps += steps;
  return stop.seconds_since(start);
}

double GpuLiveRun::edit(const GridEdit& edit) {
  const DeviceGridView v = state_->stepper->view();
  // The view is the run's current state, read-only to its readers; the brush writes it between steps, on the
  // stepper's own stream, exactly where the next step would have written it.
  const double seconds = edit_device_grid(const_cast<void*>(v.data), v, state_->periodic, edit, state_->stepper->stream());
  return seconds;
}

double GpuLiveRun::write_rgba8(cudaArray_t array, const ColourMapping& m) {
  if (m.lut.size() < 2) throw InputError("live view: the colour map needs at least 2 entries");
  const DeviceGridView v = state_->stepper->view();
  check_array_fits(array, v.layout, sizeof(uchar4));
  const cudaStream_t stream = state_->stepper->stream();
  if (m.lut != state_->lut_host) { // upload a changed colour map only
    std::vector<uchar4> lut(m.lut.size());
    for (std::size_t i = 0; i < lut.size(); ++i) lut[i] = make_uchar4(m.lut[i][0], m.lut[i][1], m.lut[i][2], m.lut[i][3]);
    state_->lut = DeviceBuffer<uchar4>(lut.size(), "live view colour map");
    state_->lut.upload(lut.data(), lut.size(), stream);
    state_->lut_host = m.lut;
  }
  const SurfaceObject surface(array);
  const std::int64_t z = slice_of(v.layout, m.slice_z);
  const dim3 block(32, 8), grid(static_cast<unsigned>((v.layout.n[0] + 31) / 32), static_cast<unsigned>((v.layout.n[1] + 7) / 8));
  CudaEvent start, stop;
  start.record(stream);
  dispatch_storage(v.storage, [&](auto tag) {
    write_rgba8_kernel<decltype(tag)><<<grid, block, 0, stream>>>(v.data, v.layout, z, surface.get(), state_->lut.get(),
                                                                  static_cast<int>(m.lut.size()), m.lo, m.hi);
  });
  SE_CUDA_CHECK_LAUNCH("write_rgba8_kernel");
  stop.record(stream);
  return stop.seconds_since(start); // also keeps the surface alive until the kernel is done
}

double GpuLiveRun::write_r32f(cudaArray_t array, int slice_z) {
  const DeviceGridView v = state_->stepper->view();
  check_array_fits(array, v.layout, sizeof(float));
  const cudaStream_t stream = state_->stepper->stream();
  const SurfaceObject surface(array);
  const std::int64_t z = slice_of(v.layout, slice_z);
  const dim3 block(32, 8), grid(static_cast<unsigned>((v.layout.n[0] + 31) / 32), static_cast<unsigned>((v.layout.n[1] + 7) / 8));
  CudaEvent start, stop;
  start.record(stream);
  dispatch_storage(v.storage, [&](auto tag) {
    write_r32f_kernel<decltype(tag)><<<grid, block, 0, stream>>>(v.data, v.layout, z, surface.get());
  });
  SE_CUDA_CHECK_LAUNCH("write_r32f_kernel");
  stop.record(stream);
  return stop.seconds_since(start);
}

std::vector<double> GpuLiveRun::download() {
  const PaddedLayout& L = state_->stepper->view().layout;
  std::vector<double> values(static_cast<std::size_t>(L.n[0] * L.n[1] * L.n[2]));
  state_->stepper->download(values);
  return values;
}

double GpuLiveRun::value_at(std::int64_t x, std::int64_t y, std::int64_t z) {
  const DeviceGridView v = state_->stepper->view();
  if (!v.layout.inside(x, y, z)) throw InputError("live view: a point outside the grid");
  const std::size_t bytes = bytes_per_value(v.storage);
  unsigned char raw[8] = {};
  const auto* at = static_cast<const unsigned char*>(v.data) + static_cast<std::size_t>(v.layout.index(x, y, z)) * bytes;
  SE_CUDA_CHECK(cudaMemcpyAsync(raw, at, bytes, cudaMemcpyDeviceToHost, state_->stepper->stream()));
  state_->stepper->synchronize();
  if (v.storage == Precision::FP64) {
    double d;
    std::memcpy(&d, raw, 8);
    return d;
  }
  if (v.storage == Precision::FP32) {
    float f;
    std::memcpy(&f, raw, 4);
    return f;
  }
  __half h;
  std::memcpy(&h, raw, 2);
  return static_cast<double>(__half2float(h));
}

const std::string& GpuLiveRun::method_id() const { return state_->id; }
int GpuLiveRun::steps_done() const { return state_->steps; }
int GpuLiveRun::fused_steps() const { return state_->stepper->fused_steps(); }

} // namespace se
