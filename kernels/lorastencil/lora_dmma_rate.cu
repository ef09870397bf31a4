// Measures the FP64 tensor-core rate of each mma shape the kernels could use: every warp of a full grid
// runs 8 independent accumulator chains, so the number is the issue-limited peak of that instruction.
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "core/error.hpp"
#include "kernels/lorastencil/lora_launch.hpp"

namespace se::lora_gpu {
namespace {

constexpr int kChains = 8;

template <int M, int K> struct Shape;
template <> struct Shape<8, 4> {
  static constexpr int a = 1, b = 1, c = 2, flops = 2 * 8 * 8 * 4;
  __device__ static void mma(double* d, const double* x, const double* y) {
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};"
                 : "+d"(d[0]), "+d"(d[1]) : "d"(x[0]), "d"(y[0]));
  }
};
template <> struct Shape<16, 4> {
  static constexpr int a = 2, b = 1, c = 4, flops = 2 * 16 * 8 * 4;
  __device__ static void mma(double* d, const double* x, const double* y) {
#if __CUDA_ARCH__ >= 900 // the m16n8kK f64 shapes are Hopper instructions
    asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
                 : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3]) : "d"(x[0]), "d"(x[1]), "d"(y[0]));
#else
    __trap();
#endif
  }
};
template <> struct Shape<16, 8> {
  static constexpr int a = 4, b = 2, c = 4, flops = 2 * 16 * 8 * 8;
  __device__ static void mma(double* d, const double* x, const double* y) {
#if __CUDA_ARCH__ >= 900 // the m16n8kK f64 shapes are Hopper instructions
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};"
                 : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
                 : "d"(x[0]), "d"(x[1]), "d"(x[2]), "d"(x[3]), "d"(y[0]), "d"(y[1]));
#else
    __trap();
#endif
  }
};
template <> struct Shape<16, 16> {
  static constexpr int a = 8, b = 4, c = 4, flops = 2 * 16 * 8 * 16;
  __device__ static void mma(double* d, const double* x, const double* y) {
#if __CUDA_ARCH__ >= 900 // the m16n8kK f64 shapes are Hopper instructions
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7,%8,%9,%10,%11}, "
                 "{%12,%13,%14,%15}, {%0,%1,%2,%3};"
                 : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
                 : "d"(x[0]), "d"(x[1]), "d"(x[2]), "d"(x[3]), "d"(x[4]), "d"(x[5]), "d"(x[6]), "d"(x[7]),
                   "d"(y[0]), "d"(y[1]), "d"(y[2]), "d"(y[3]));
#else
    __trap();
#endif
  }
};

template <int M, int K> __global__ void __launch_bounds__(256) dmma_probe(double* sink, int iterations) {
  using S = Shape<M, K>;
  double a[S::a], b[S::b], c[kChains][S::c];
  const double seed = 1.0 + 1e-3 * threadIdx.x;
  for (int i = 0; i < S::a; ++i) a[i] = seed + i;
  for (int i = 0; i < S::b; ++i) b[i] = 1e-6 * (seed - i);
  for (int k = 0; k < kChains; ++k)
    for (int i = 0; i < S::c; ++i) c[k][i] = 0.0;
  for (int it = 0; it < iterations; ++it)
#pragma unroll
    for (int k = 0; k < kChains; ++k) S::mma(c[k], a, b);
  double s = 0;
  for (int k = 0; k < kChains; ++k)
    for (int i = 0; i < S::c; ++i) s += c[k][i];
  if (s == 12345.678) sink[threadIdx.x] = s; // keeps the chains alive without a store per thread
}

// Latency and occupancy of mma.m16n8k4.f64: `Chains` independent accumulators per warp, `warps` warps per block,
// one block per SM (so warps / 4 per SM sub-partition); B either in a register or loaded from shared memory
// right before each MMA (as the kernels' gathers do).
template <int Chains, bool FromShared> __global__ void __launch_bounds__(512) dmma_grid_probe(double* sink, int iterations) {
  __shared__ double b_values[256];
  for (int i = threadIdx.x; i < 256; i += blockDim.x) b_values[i] = 1e-6 * (i + 1);
  __syncthreads();
  const int lane = threadIdx.x & 31;
  const double a[2] = {1.0 + 1e-3 * threadIdx.x, 2.0 + 1e-3 * threadIdx.x}, b = 1e-6 * a[0];
  double c[Chains][4];
  for (int k = 0; k < Chains; ++k) c[k][0] = c[k][1] = c[k][2] = c[k][3] = 0.0;
  const double* bp = b_values + lane;
  for (int it = 0; it < iterations; ++it)
#pragma unroll
    for (int k = 0; k < Chains; ++k) {
      const double bk = FromShared ? bp[32 * ((it + k) & 7)] : b;
      Shape<16, 4>::mma(c[k], a, &bk);
    }
  double s = 0;
  for (int k = 0; k < Chains; ++k) s += c[k][0] + c[k][1] + c[k][2] + c[k][3];
  if (s == 12345.678) sink[threadIdx.x] = s;
}

// Milliseconds of launch(sink, iterations), after a warm-up launch(sink, 64), timed with events on a sink of
// 1024 doubles that the probes never write in practice; throws on a failed allocation or launch.
template <typename Launch> float time_launches(Launch launch, int iterations, const char* what) {
  double* sink = nullptr;
  if (cudaMalloc(&sink, 1024 * sizeof(double)) != cudaSuccess) throw InputError("dmma probe: cudaMalloc failed");
  launch(sink, 64);
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start);
  launch(sink, iterations);
  cudaEventRecord(stop);
  cudaEventSynchronize(stop);
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  const cudaError_t err = cudaGetLastError();
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaFree(sink);
  if (err != cudaSuccess) throw InputError(std::string(what) + " failed: " + cudaGetErrorString(err));
  return ms;
}

int multiprocessors() {
  int device = 0, sms = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  return sms;
}

template <int Chains, bool FromShared> double time_grid_probe(int warps) {
  const int sms = multiprocessors(), iterations = 2048;
  const float ms = time_launches(
      [&](double* sink, int n) { dmma_grid_probe<Chains, FromShared><<<sms, warps * 32>>>(sink, n); }, iterations,
      "dmma grid probe");
  const double mmas = static_cast<double>(sms) * warps * iterations * Chains;
  return mmas * Shape<16, 4>::flops / (ms * 1e-3) / 1e12;
}

template <int M, int K> double time_probe() {
  const int blocks = multiprocessors() * 4, iterations = 4096;
  const float ms = time_launches([&](double* sink, int n) { dmma_probe<M, K><<<blocks, 256>>>(sink, n); }, iterations,
                                 "dmma probe");
  const double mmas = static_cast<double>(blocks) * 8 * iterations * kChains; // 8 warps per block
  return mmas * Shape<M, K>::flops / (ms * 1e-3) / 1e12;
}

} // namespace

const std::vector<std::string>& dmma_shapes() {
  static const std::vector<std::string> shapes = {"m8n8k4", "m16n8k4", "m16n8k8", "m16n8k16"};
  return shapes;
}

double measure_dmma_grid_tflops(int warps_per_sm, int chains, bool b_from_shared) {
  const auto pick = [&](auto reg, auto shm) { return b_from_shared ? shm(warps_per_sm) : reg(warps_per_sm); };
  switch (chains) {
  case 1: return pick(time_grid_probe<1, false>, time_grid_probe<1, true>);
  case 2: return pick(time_grid_probe<2, false>, time_grid_probe<2, true>);
  case 4: return pick(time_grid_probe<4, false>, time_grid_probe<4, true>);
  case 8: return pick(time_grid_probe<8, false>, time_grid_probe<8, true>);
  default: throw InputError("dmma grid probe: chains 1, 2, 4 or 8");
  }
}

double measure_dmma_tflops(const std::string& shape) {
  if (shape == "m8n8k4") return time_probe<8, 4>();
  int device = 0, major = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
  if (major < 9 && (shape == "m16n8k4" || shape == "m16n8k8" || shape == "m16n8k16"))
    throw InputError("mma." + shape + ".f64 needs a Hopper GPU (sm_90)");
  if (shape == "m16n8k4") return time_probe<16, 4>();
  if (shape == "m16n8k8") return time_probe<16, 8>();
  if (shape == "m16n8k16") return time_probe<16, 16>();
  throw InputError("unknown FP64 mma shape '" + shape + "' (m8n8k4, m16n8k4, m16n8k8, m16n8k16)");
}

} // namespace se::lora_gpu
