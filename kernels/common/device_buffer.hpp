// An owning, move-only device allocation (RAII) that checks free memory before it allocates, so an
// oversized grid ends as "out of device memory: ..." (exit code 2) rather than as a crash.
#pragma once
#include <cstddef>
#include <string>
#include <utility>

#include "kernels/common/cuda_check.hpp"

namespace se {

template <typename T> class DeviceBuffer {
public:
  DeviceBuffer() = default;
  DeviceBuffer(std::size_t count, const std::string& what) : count_(count) {
    if (count == 0) return;
    require_device_memory(count * sizeof(T), what);
    SE_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&ptr_), count * sizeof(T)));
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      release();
      ptr_ = std::exchange(o.ptr_, nullptr);
      count_ = std::exchange(o.count_, 0);
    }
    return *this;
  }
  ~DeviceBuffer() { release(); }

  T* get() const { return ptr_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

  void upload(const T* host, std::size_t count, cudaStream_t stream = nullptr) {
    SE_CUDA_CHECK(cudaMemcpyAsync(ptr_, host, count * sizeof(T), cudaMemcpyHostToDevice, stream));
  }
  void download(T* host, std::size_t count, cudaStream_t stream = nullptr) const {
    SE_CUDA_CHECK(cudaMemcpyAsync(host, ptr_, count * sizeof(T), cudaMemcpyDeviceToHost, stream));
    SE_CUDA_CHECK(cudaStreamSynchronize(stream));
  }

private:
  void release() noexcept {
    if (ptr_) cudaFree(ptr_); // no throw from a destructor; a failed free leaves nothing to recover
    ptr_ = nullptr;
  }
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

// A stream and two events the owner destroys: what every stepper times its launches with.
class CudaStream {
public:
  CudaStream() { SE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;
  ~CudaStream() {
    if (stream_) cudaStreamDestroy(stream_);
  }
  cudaStream_t get() const { return stream_; }
  void synchronize() const { SE_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

private:
  cudaStream_t stream_ = nullptr;
};

class CudaEvent {
public:
  CudaEvent() { SE_CUDA_CHECK(cudaEventCreate(&event_)); }
  CudaEvent(const CudaEvent&) = delete;
  CudaEvent& operator=(const CudaEvent&) = delete;
  ~CudaEvent() {
    if (event_) cudaEventDestroy(event_);
  }
  void record(cudaStream_t s) { SE_CUDA_CHECK(cudaEventRecord(event_, s)); }
  // Seconds from `start` to this event; waits for this event.
  double seconds_since(const CudaEvent& start) const {
    SE_CUDA_CHECK(cudaEventSynchronize(event_));
    float ms = 0;
    SE_CUDA_CHECK(cudaEventElapsedTime(&ms, start.event_, event_));
    return ms * 1e-3;
  }

private:
  cudaEvent_t event_ = nullptr;
};

} // namespace se
