// CUDA-GL interop for the heat map's R32F texture: register, map, hand the array to the writer, reduce the
// stored values to their finite range with one small kernel, unmap. Only built with CUDA.
#include "app/platform/cuda_gl_texture.hpp"

#include <cuda_runtime.h>
// cuda_gl_interop.h brings <GL/gl.h>; this file uses no other GL, so it stays apart from glad's loader.
#include <cuda_gl_interop.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/error.hpp"
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/device_buffer.hpp"
#include "kernels/registry.hpp"

namespace se {

namespace {

// Floats compared as ordered integers, so atomicMin/atomicMax on int work for every finite float.
__device__ inline int ordered_bits(float v) {
  const int b = __float_as_int(v);
  return b >= 0 ? b : b ^ 0x7fffffff;
}
inline float float_of_ordered(int b) {
  const int raw = b >= 0 ? b : b ^ 0x7fffffff;
  float v;
  std::memcpy(&v, &raw, sizeof v);
  return v;
}

struct RangeBits {
  int min_bits, max_bits;
  unsigned long long not_finite;
};

__global__ void finite_range_kernel(cudaSurfaceObject_t surface, int width, int height, RangeBits* out) {
  int lo = 0x7fffffff, hi = static_cast<int>(0x80000000u);
  unsigned long long bad = 0;
  for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < height; y += gridDim.y * blockDim.y)
    for (int x = blockIdx.x * blockDim.x + threadIdx.x; x < width; x += gridDim.x * blockDim.x) {
      const float v = surf2Dread<float>(surface, x * static_cast<int>(sizeof(float)), y);
      if (!isfinite(v)) {
        ++bad;
        continue;
      }
      const int b = ordered_bits(v);
      lo = min(lo, b);
      hi = max(hi, b);
    }
  // One atomic per warp after a shuffle reduction keeps 16M-texel frames at a few microseconds.
  for (int offset = 16; offset > 0; offset /= 2) {
    lo = min(lo, __shfl_down_sync(0xffffffffu, lo, offset));
    hi = max(hi, __shfl_down_sync(0xffffffffu, hi, offset));
    bad += __shfl_down_sync(0xffffffffu, bad, offset);
  }
  if ((threadIdx.x + threadIdx.y * blockDim.x) % 32 == 0) {
    atomicMin(&out->min_bits, lo);
    atomicMax(&out->max_bits, hi);
    if (bad) atomicAdd(&out->not_finite, bad);
  }
}

std::string interop_error(cudaError_t err) {
  return std::string(cudaGetErrorName(err)) + ": " + cudaGetErrorString(err);
}

} // namespace

bool cuda_gl_interop_built() { return true; }

struct CudaGlTexture::Registration {
  cudaGraphicsResource_t resource = nullptr;
  DeviceBuffer<RangeBits> range{1, "live view range"};
};

CudaGlTexture::CudaGlTexture(unsigned gl_texture, int width, int height)
    : texture_(gl_texture), width_(width), height_(height) {
  if (const std::string why = gpu_unavailable_reason(); !why.empty()) throw InputError(why);
  if (gl_texture == 0 || width <= 0 || height <= 0) throw InputError("CUDA-GL interop needs an allocated texture");
  auto r = std::make_unique<Registration>();
  const cudaError_t err = cudaGraphicsGLRegisterImage(&r->resource, gl_texture, GL_TEXTURE_2D,
                                                      cudaGraphicsRegisterFlagsSurfaceLoadStore);
  if (err != cudaSuccess) {
    cudaGetLastError(); // clear it: the CPU path goes on with this device
    throw InputError("the GL texture cannot be shared with CUDA (" + interop_error(err) +
                     "); the OpenGL context is probably not on the CUDA device (a software renderer, or another GPU)");
  }
  registration_ = std::move(r);
}

CudaGlTexture::~CudaGlTexture() {
  if (registration_ && registration_->resource) cudaGraphicsUnregisterResource(registration_->resource);
}

ValueRange CudaGlTexture::store(const std::function<void(cudaArray_t)>& store) {
  cudaGraphicsResource_t resource = registration_->resource;
  SE_CUDA_CHECK(cudaGraphicsMapResources(1, &resource, nullptr));
  ValueRange range;
  try {
    cudaArray_t array = nullptr;
    SE_CUDA_CHECK(cudaGraphicsSubResourceGetMappedArray(&array, resource, 0, 0));
    // The writer uses its own non-blocking stream: the map on the legacy stream must be complete first.
    SE_CUDA_CHECK(cudaStreamSynchronize(nullptr));
    store(array);

    cudaResourceDesc desc{};
    desc.resType = cudaResourceTypeArray;
    desc.res.array.array = array;
    cudaSurfaceObject_t surface = 0;
    SE_CUDA_CHECK(cudaCreateSurfaceObject(&surface, &desc));
    const RangeBits init{0x7fffffff, static_cast<int>(0x80000000u), 0};
    RangeBits bits{};
    cudaError_t err = cudaMemcpy(registration_->range.get(), &init, sizeof init, cudaMemcpyHostToDevice);
    if (err == cudaSuccess) {
      const dim3 block(32, 8);
      const dim3 grid(static_cast<unsigned>(std::min((width_ + 31) / 32, 64)),
                      static_cast<unsigned>(std::min((height_ + 7) / 8, 256)));
      finite_range_kernel<<<grid, block>>>(surface, width_, height_, registration_->range.get());
      err = cudaGetLastError();
      if (err == cudaSuccess) err = cudaMemcpy(&bits, registration_->range.get(), sizeof bits, cudaMemcpyDeviceToHost);
    }
    cudaDestroySurfaceObject(surface);
    check_cuda(err, "finite_range_kernel", __FILE__, __LINE__);
    range.not_finite = static_cast<std::int64_t>(bits.not_finite);
    if (bits.min_bits > bits.max_bits) { // no finite value: the empty range of finite_range()
      range.min = std::numeric_limits<double>::infinity();
      range.max = -std::numeric_limits<double>::infinity();
    } else {
      range.min = float_of_ordered(bits.min_bits);
      range.max = float_of_ordered(bits.max_bits);
    }
  } catch (...) {
    cudaGraphicsUnmapResources(1, &resource, nullptr);
    throw;
  }
  SE_CUDA_CHECK(cudaGraphicsUnmapResources(1, &resource, nullptr));
  return range;
}

} // namespace se
