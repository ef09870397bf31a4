// Microbenchmarks behind the ceilings: a large device-to-device copy (cudaMemcpy and a 16-byte-vector
// kernel), and per MMA shape a kernel in which every warp runs four independent accumulator chains, so the
// tensor cores, not the instruction latency, bound the rate. Operands are non-zero and vary by lane.
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string>

#include "core/error.hpp"
#include "kernels/common/ceilings.hpp"
#include "kernels/common/device_buffer.hpp"
#include "kernels/common/mma_ptx.cuh"
#include "kernels/common/timing.hpp"

namespace se {

namespace {

constexpr int kChains = 4;
constexpr int kWarpsPerBlock = 8;

enum class Shape { F64_M8N8K4, F64_M16N8K4, F64_M16N8K8, F64_M16N8K16, F16_M16N8K16, F16_SP_M16N8K16,
                   F16_SP_M16N8K32 };

__global__ void copy_kernel(const int4* __restrict__ src, int4* __restrict__ dst, std::int64_t count) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    dst[i] = src[i];
}

template <Shape S> __global__ void __launch_bounds__(kWarpsPerBlock * 32) mma_rate_kernel(int iters, double* sink) {
  const int lane = threadIdx.x & 31;
  double out = 0;
  if constexpr (S == Shape::F16_M16N8K16 || S == Shape::F16_SP_M16N8K16 || S == Shape::F16_SP_M16N8K32) {
    const __half2 h = __floats2half2_rn(1.0f + lane * 1e-3f, 0.5f - lane * 1e-3f);
    const std::uint32_t v = *reinterpret_cast<const std::uint32_t*>(&h);
    const std::uint32_t a[4] = {v, v ^ 0x00010001u, v, v ^ 0x00020002u}, b[2] = {v, v ^ 0x00030003u};
    float acc[kChains][4] = {};
    for (int it = 0; it < iters; ++it)
#pragma unroll
      for (int c = 0; c < kChains; ++c) {
        if constexpr (S == Shape::F16_M16N8K16) {
          ptx::mma_m16n8k16_f16_f32(acc[c], a, b, acc[c]);
        } else if constexpr (S == Shape::F16_SP_M16N8K16) {
          const std::uint32_t as[2] = {a[0], a[1]};
          ptx::mma_sp_m16n8k16_f16_f32(acc[c], as, b, acc[c], 0x44444444u); // index pairs (0,1): valid, ordered
        } else {
          const std::uint32_t b4[4] = {b[0], b[1], b[0] ^ 0x00040004u, b[1] ^ 0x00050005u};
          ptx::mma_sp_m16n8k32_f16_f32_sel<0>(acc[c], a, b4, 0x44444444u);
        }
      }
#pragma unroll
    for (int c = 0; c < kChains; ++c) out += acc[c][0] + acc[c][1] + acc[c][2] + acc[c][3];
  } else {
    const double x = 1.0 + lane * 1e-3, y = 1.0 - lane * 1e-3;
    if constexpr (S == Shape::F64_M8N8K4) {
      double acc[kChains][2] = {};
      for (int it = 0; it < iters; ++it)
#pragma unroll
        for (int c = 0; c < kChains; ++c) ptx::mma_m8n8k4_f64(acc[c], x, y, acc[c]);
#pragma unroll
      for (int c = 0; c < kChains; ++c) out += acc[c][0] + acc[c][1];
    } else {
      constexpr int kA = S == Shape::F64_M16N8K4 ? 2 : (S == Shape::F64_M16N8K8 ? 4 : 8);
      double a[kA], b[kA / 2], acc[kChains][4] = {};
#pragma unroll
      for (int i = 0; i < kA; ++i) a[i] = x + i * 1e-4;
#pragma unroll
      for (int i = 0; i < kA / 2; ++i) b[i] = y - i * 1e-4;
      for (int it = 0; it < iters; ++it)
#pragma unroll
        for (int c = 0; c < kChains; ++c) {
          if constexpr (S == Shape::F64_M16N8K4) ptx::mma_m16n8k4_f64(acc[c], a, b[0], acc[c]);
          else if constexpr (S == Shape::F64_M16N8K8) ptx::mma_m16n8k8_f64(acc[c], a, b, acc[c]);
          else ptx::mma_m16n8k16_f64(acc[c], a, b, acc[c]);
        }
#pragma unroll
      for (int c = 0; c < kChains; ++c) out += acc[c][0] + acc[c][1] + acc[c][2] + acc[c][3];
    }
  }
  sink[blockIdx.x * blockDim.x + threadIdx.x] = out; // keeps every chain alive
}

// Latency and occupancy of mma.m16n8k4.f64: `Chains` independent accumulators per warp, one block of `warps` warps
// per SM (warps / 4 per SM sub-partition); B either in a register or loaded from shared memory right before each
// MMA, as the LoRAStencil kernels' gathers do.
template <int Chains, bool FromShared>
__global__ void __launch_bounds__(512) mma_grid_kernel(int iterations, double* sink) {
  __shared__ double b_values[256];
  for (int i = threadIdx.x; i < 256; i += blockDim.x) b_values[i] = 1e-6 * (i + 1);
  __syncthreads();
  const int lane = threadIdx.x & 31;
  const double a0 = 1.0 + 1e-3 * threadIdx.x, a1 = 2.0 + 1e-3 * threadIdx.x, b = 1e-6 * a0;
  double c[Chains][4];
  for (int k = 0; k < Chains; ++k) c[k][0] = c[k][1] = c[k][2] = c[k][3] = 0.0;
  const double* bp = b_values + lane;
  for (int it = 0; it < iterations; ++it)
#pragma unroll
    for (int k = 0; k < Chains; ++k) ptx::mma_m16n8k4_f64(c[k], a0, a1, FromShared ? bp[32 * ((it + k) & 7)] : b);
  double s = 0;
  for (int k = 0; k < Chains; ++k) s += c[k][0] + c[k][1] + c[k][2] + c[k][3];
  if (s == 12345.678) sink[threadIdx.x] = s; // keeps the chains alive without a store per thread
}

template <int Chains, bool FromShared> double time_mma_grid(const DeviceInfo& device, int warps, int repeats) {
  constexpr int kIterations = 2048;
  CudaStream stream;
  DeviceBuffer<double> sink(512, "MMA grid probe");
  const TimingStats t = time_on_device(
      [&] {
        mma_grid_kernel<Chains, FromShared><<<device.sm_count, warps * 32, 0, stream.get()>>>(kIterations, sink.get());
        SE_CUDA_CHECK_LAUNCH("mma_grid_kernel");
      },
      stream.get(), 1, repeats);
  const double mmas = static_cast<double>(device.sm_count) * warps * kIterations * Chains;
  return mmas * 2.0 * 16 * 8 * 4 / t.median_s / 1e12;
}

struct ShapeInfo {
  Shape shape;
  const char* name;
  double flops; // per instruction per warp (2 m n k; the dense equivalent for mma.sp)
  bool needs_sm90;
  double target_flops; // per timed launch: a few milliseconds of work
};

constexpr ShapeInfo kShapes[] = {
    {Shape::F64_M8N8K4, "mma.m8n8k4.f64", 2.0 * 8 * 8 * 4, false, 4e11},
    {Shape::F64_M16N8K4, "mma.m16n8k4.f64", 2.0 * 16 * 8 * 4, true, 4e11},
    {Shape::F64_M16N8K8, "mma.m16n8k8.f64", 2.0 * 16 * 8 * 8, true, 4e11},
    {Shape::F64_M16N8K16, "mma.m16n8k16.f64", 2.0 * 16 * 8 * 16, true, 4e11},
    {Shape::F16_M16N8K16, "mma.m16n8k16.f16.f32", 2.0 * 16 * 8 * 16, false, 4e12},
    {Shape::F16_SP_M16N8K16, "mma.sp.m16n8k16.f16.f32", 2.0 * 16 * 8 * 16, false, 8e12},
    {Shape::F16_SP_M16N8K32, "mma.sp.m16n8k32.f16.f32", 2.0 * 16 * 8 * 32, false, 1.6e13},
};

template <Shape S> void launch_rate(int blocks, int iters, double* sink, cudaStream_t stream) {
  mma_rate_kernel<S><<<blocks, kWarpsPerBlock * 32, 0, stream>>>(iters, sink);
  SE_CUDA_CHECK_LAUNCH("mma_rate_kernel");
}

void launch_shape(Shape s, int blocks, int iters, double* sink, cudaStream_t stream) {
  switch (s) {
  case Shape::F64_M8N8K4: return launch_rate<Shape::F64_M8N8K4>(blocks, iters, sink, stream);
  case Shape::F64_M16N8K4: return launch_rate<Shape::F64_M16N8K4>(blocks, iters, sink, stream);
  case Shape::F64_M16N8K8: return launch_rate<Shape::F64_M16N8K8>(blocks, iters, sink, stream);
  case Shape::F64_M16N8K16: return launch_rate<Shape::F64_M16N8K16>(blocks, iters, sink, stream);
  case Shape::F16_M16N8K16: return launch_rate<Shape::F16_M16N8K16>(blocks, iters, sink, stream);
  case Shape::F16_SP_M16N8K16: return launch_rate<Shape::F16_SP_M16N8K16>(blocks, iters, sink, stream);
  case Shape::F16_SP_M16N8K32: return launch_rate<Shape::F16_SP_M16N8K32>(blocks, iters, sink, stream);
  }
}

RateMeasurement from_stats(std::string name, std::string unit, const TimingStats& t, double work, std::string note) {
  RateMeasurement m;
  m.name = std::move(name);
  m.unit = std::move(unit);
  m.median = work / t.median_s;
  m.min = work / t.max_s; // the slowest repeat gives the lowest rate
  m.max = work / t.min_s;
  m.repeats = t.repeats;
  m.note = std::move(note);
  return m;
}

} // namespace

DeviceCeilings measure_device_ceilings(int repeats, bool include_mma) {
  DeviceCeilings c;
  c.device = query_device(0);
  if (!c.device.available) throw InputError("no CUDA device: " + c.device.reason);
  SE_CUDA_CHECK(cudaSetDevice(0));
  CudaStream stream;

  // Copy: several times the L2 so every byte comes from device memory; a quarter of what is free at most.
  const std::size_t bytes =
      std::min<std::size_t>(std::size_t(2) << 30, (c.device.free_bytes / 4) & ~std::size_t(4095));
  if (bytes < (std::size_t(64) << 20)) throw InputError("too little free device memory to measure the copy bandwidth");
  DeviceBuffer<int4> src(bytes / sizeof(int4), "copy benchmark"), dst(bytes / sizeof(int4), "copy benchmark");
  SE_CUDA_CHECK(cudaMemsetAsync(src.get(), 0x5a, bytes, stream.get()));
  const double moved = 2.0 * static_cast<double>(bytes); // read + written
  const TimingStats memcpy_t = time_on_device(
      [&] { SE_CUDA_CHECK(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, stream.get())); },
      stream.get(), 2, repeats);
  c.rates.push_back(from_stats("copy.memcpy", "GB/s", memcpy_t, moved / 1e9,
                               "cudaMemcpyAsync device to device of " + std::to_string(bytes >> 20) +
                                   " MiB; bytes read + written"));
  const int copy_blocks = c.device.sm_count * 8;
  const TimingStats kernel_t = time_on_device(
      [&] {
        copy_kernel<<<copy_blocks, 256, 0, stream.get()>>>(src.get(), dst.get(),
                                                           static_cast<std::int64_t>(bytes / sizeof(int4)));
        SE_CUDA_CHECK_LAUNCH("copy_kernel");
      },
      stream.get(), 2, repeats);
  c.rates.push_back(from_stats("copy.kernel", "GB/s", kernel_t, moved / 1e9,
                               "grid-stride kernel, 16-byte loads and stores; bytes read + written"));
  c.copy_gbs = std::max(c.rates[0].median, c.rates[1].median);
  if (!include_mma) return c;

  const int blocks = c.device.sm_count * 4;
  DeviceBuffer<double> sink(static_cast<std::size_t>(blocks) * kWarpsPerBlock * 32, "MMA benchmark");
  const double warps = static_cast<double>(blocks) * kWarpsPerBlock;
  for (const ShapeInfo& s : kShapes) {
    if (s.needs_sm90 && c.device.cc_major < 9) {
      RateMeasurement m;
      m.name = s.name;
      m.unit = "TFLOP/s";
      m.supported = false;
      m.note = "needs sm_90 (Hopper); this GPU is sm_" + std::to_string(c.device.cc_major) + std::to_string(c.device.cc_minor);
      c.rates.push_back(m);
      continue;
    }
    const int iters = std::max(1, static_cast<int>(s.target_flops / (warps * kChains * s.flops)));
    const TimingStats t =
        time_on_device([&] { launch_shape(s.shape, blocks, iters, sink.get(), stream.get()); }, stream.get(), 1, repeats);
    const double work = warps * kChains * iters * s.flops / 1e12;
    c.rates.push_back(from_stats(s.name, "TFLOP/s", t, work,
                                 s.shape == Shape::F16_SP_M16N8K16 || s.shape == Shape::F16_SP_M16N8K32
                                     ? "dense-equivalent FLOPs (2 m n k per instruction) from mma.sp; 4 chains per warp"
                                     : "2 m n k FLOPs per instruction; 4 independent chains per warp"));
  }
  stream.synchronize();
  return c;
}

std::vector<SustainedWindow> measure_sustained_mma(double seconds, double window_s, const std::string& shape) {
  if (!(seconds > 0) || seconds > 600) throw InputError("the sustained MMA probe runs for more than 0 and at most 600 seconds");
  if (!(window_s > 0) || window_s > seconds) throw InputError("the sustained MMA probe's window must be in (0, seconds]");
  const auto& held = sustained_mma_shapes();
  const ShapeInfo* info =
      std::find_if(std::begin(kShapes), std::end(kShapes), [&](const ShapeInfo& s) { return shape == s.name; });
  if (info == std::end(kShapes) || std::find(held.begin(), held.end(), shape) == held.end())
    throw InputError("the sustained MMA probe holds mma.m16n8k4.f64, mma.m16n8k8.f64 or mma.m16n8k16.f64; got '" + shape +
                     "'");
  const DeviceInfo device = query_device(0);
  if (!device.available) throw InputError("no CUDA device: " + device.reason);
  if (device.cc_major < 9) throw InputError(shape + " needs a Hopper GPU (sm_90)");
  SE_CUDA_CHECK(cudaSetDevice(0));
  CudaStream stream;
  const int blocks = device.sm_count * 4;
  DeviceBuffer<double> sink(static_cast<std::size_t>(blocks) * kWarpsPerBlock * 32, "MMA benchmark");
  const double warps = static_cast<double>(blocks) * kWarpsPerBlock, flops = info->flops;
  // Launches of about 2 ms (at 66 TFLOP/s), so a window holds many and its events bracket whole launches.
  const int iters = std::max(1, static_cast<int>(1.3e11 / (warps * kChains * flops)));
  const double work = warps * kChains * iters * flops / 1e12; // TFLOP per launch
  const auto launch = [&] { launch_shape(info->shape, blocks, iters, sink.get(), stream.get()); };
  // Calibrate on one launch (after a warm-up), then queue every window's launches between two events.
  launch();
  CudaEvent c0, c1;
  c0.record(stream.get());
  launch();
  c1.record(stream.get());
  const double launch_s = std::max(1e-5, c1.seconds_since(c0));
  const int per_window = std::max(1, static_cast<int>(window_s / launch_s + 0.5));
  const int windows = std::max(1, static_cast<int>(seconds / (per_window * launch_s) + 0.5));
  std::vector<CudaEvent> marks(static_cast<std::size_t>(windows) + 1);
  marks[0].record(stream.get());
  for (int w = 0; w < windows; ++w) {
    for (int i = 0; i < per_window; ++i) launch();
    marks[static_cast<std::size_t>(w) + 1].record(stream.get());
  }
  std::vector<SustainedWindow> out;
  double t = 0;
  for (int w = 0; w < windows; ++w) {
    const double s = marks[static_cast<std::size_t>(w) + 1].seconds_since(marks[static_cast<std::size_t>(w)]);
    out.push_back({t, t + s, per_window * work / s});
    t += s;
  }
  return out;
}

double measure_mma_grid_tflops(int warps_per_sm, int chains, bool b_from_shared, int repeats) {
  const DeviceInfo device = query_device(0);
  if (!device.available) throw InputError("no CUDA device: " + device.reason);
  if (device.cc_major < 9) throw InputError("mma.m16n8k4.f64 needs a Hopper GPU (sm_90)");
  if (warps_per_sm < 1 || warps_per_sm > 16) throw InputError("the MMA grid probe runs 1 to 16 warps per SM");
  const auto pick = [&](auto in_register, auto from_shared) {
    return b_from_shared ? from_shared(device, warps_per_sm, repeats) : in_register(device, warps_per_sm, repeats);
  };
  switch (chains) {
  case 1: return pick(time_mma_grid<1, false>, time_mma_grid<1, true>);
  case 2: return pick(time_mma_grid<2, false>, time_mma_grid<2, true>);
  case 4: return pick(time_mma_grid<4, false>, time_mma_grid<4, true>);
  case 8: return pick(time_mma_grid<8, false>, time_mma_grid<8, true>);
  default: throw InputError("the MMA grid probe runs 1, 2, 4 or 8 chains per warp");
  }
}

} // namespace se
