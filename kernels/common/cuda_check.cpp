// Error messages for failed CUDA calls and the device-memory check behind every allocation.
#include "kernels/common/cuda_check.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace se {

namespace {

std::string gib(std::uint64_t bytes) { return fmt::format("{:.2f} GiB", bytes / 1073741824.0); }

std::uint64_t free_device_bytes() {
  std::size_t free_b = 0, total_b = 0;
  if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return free_b;
}

} // namespace

void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line) {
  cudaGetLastError(); // clear a non-sticky error so the next call reports its own
  if (err == cudaErrorMemoryAllocation)
    throw InputError(fmt::format("out of device memory: {} failed with {} free ({}:{})", call,
                                 gib(free_device_bytes()), file, line));
  if (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver)
    throw InputError(fmt::format("no CUDA device: {} ({})", cudaGetErrorString(err), cudaGetErrorName(err)));
  throw CudaError(fmt::format("{}:{}: {} failed: {} ({})", file, line, call, cudaGetErrorString(err),
                              cudaGetErrorName(err)));
}

void require_device_memory(std::uint64_t bytes, const std::string& what) {
  std::size_t free_b = 0, total_b = 0;
  SE_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  if (bytes > free_b)
    throw InputError(fmt::format("out of device memory: {} needs {}, {} free (of {})", what, gib(bytes), gib(free_b),
                                 gib(total_b)));
}

} // namespace se
