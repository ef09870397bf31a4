// Checked CUDA runtime calls: a failure throws with the call, file and line; running out of device
// memory throws se::InputError ("out of device memory: needs X GiB, Y free") so the CLI exits 2.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace se {

// A CUDA call failed for a reason the user cannot fix by changing the input (a kernel fault, a driver error).
class CudaError : public std::runtime_error {
public:
  explicit CudaError(const std::string& what) : std::runtime_error(what) {}
};

[[noreturn]] void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line);

inline void check_cuda(cudaError_t err, const char* call, const char* file, int line) {
  if (err != cudaSuccess) throw_cuda_error(err, call, file, line);
}

// After a kernel launch: the launch configuration error, if any (asynchronous faults surface at the next sync).
inline void check_launch(const char* kernel, const char* file, int line) {
  check_cuda(cudaGetLastError(), kernel, file, line);
}

// Throws InputError when `bytes` more device memory would not fit in what is free now.
void require_device_memory(std::uint64_t bytes, const std::string& what);

} // namespace se

#define SE_CUDA_CHECK(call) ::se::check_cuda((call), #call, __FILE__, __LINE__)
#define SE_CUDA_CHECK_LAUNCH(kernel) ::se::check_launch(kernel, __FILE__, __LINE__)
