// CUDA device query. cudart is linked statically and libcuda is loaded by cudart at run time, so on a
// machine without a driver cudaGetDeviceCount fails and we report that instead of failing to start.
// (No fmt here: nvcc rejects fmt's consteval format strings.)
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <string>

#include "kernels/device.hpp"

namespace se {

bool built_with_cuda() { return true; }

int cuda_device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError(); // clear the sticky error so later queries report cleanly
    return 0;
  }
  return count;
}

DeviceInfo query_device(int ordinal) {
  DeviceInfo info;
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    // CUDA's words ("CUDA driver version is insufficient for CUDA runtime version") are what it says when no
    // driver is installed at all; the person reading the status line is told that, and CUDA's words go to detail.
    info.detail = std::string(cudaGetErrorString(err)) + " (" + cudaGetErrorName(err) + ")";
    cudaGetLastError();
    void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (driver == nullptr) info.reason = "no NVIDIA driver found";
    else if (err == cudaErrorInsufficientDriver) info.reason = "the NVIDIA driver is older than this build's CUDA needs";
    else if (err == cudaErrorNoDevice) info.reason = "no NVIDIA GPU found";
    else info.reason = info.detail;
    if (driver != nullptr) dlclose(driver);
    return info;
  }
  if (count == 0) {
    info.reason = "no NVIDIA GPU found";
    info.detail = "the CUDA driver found no GPU";
    return info;
  }
  if (ordinal < 0 || ordinal >= count) {
    info.reason = "device " + std::to_string(ordinal) + " does not exist (" + std::to_string(count) + " found)";
    return info;
  }
  cudaDeviceProp p{};
  if (const cudaError_t e = cudaGetDeviceProperties(&p, ordinal); e != cudaSuccess) {
    info.reason = cudaGetErrorString(e);
    return info;
  }
  info.available = true;
  info.ordinal = ordinal;
  info.name = p.name;
  info.sm_count = p.multiProcessorCount;
  info.cc_major = p.major;
  info.cc_minor = p.minor;
  info.memory_bytes = p.totalGlobalMem;
  info.l2_bytes = p.l2CacheSize;
  info.shared_per_block_optin = static_cast<int>(p.sharedMemPerBlockOptin);
  int clock = 0, bus = 0;
  cudaDeviceGetAttribute(&clock, cudaDevAttrMemoryClockRate, ordinal);
  cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, ordinal);
  info.memory_clock_khz = clock;
  info.memory_bus_bits = bus;
  std::size_t free_b = 0, total_b = 0;
  if (cudaSetDevice(ordinal) == cudaSuccess && cudaMemGetInfo(&free_b, &total_b) == cudaSuccess) info.free_bytes = free_b;
  return info;
}

} // namespace se
