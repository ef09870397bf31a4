// cuTensorMapEncodeTiled through cudaGetDriverEntryPointByVersion (no link against libcuda).
#include "kernels/common/tensor_map.hpp"

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdlib>

namespace se {
namespace {

using EncodeTiled = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                 const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                                 CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

// Null if the driver has no encoder.
EncodeTiled tensor_map_encoder() {
  static const EncodeTiled encode = [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found) !=
            cudaSuccess ||
        found != cudaDriverEntryPointSuccess) {
      cudaGetLastError();
      fn = nullptr;
    }
    return reinterpret_cast<EncodeTiled>(fn);
  }();
  return encode;
}

} // namespace

bool tma_supported() {
  int device = 0, major = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return major >= 9 && tensor_map_encoder() != nullptr;
}

bool tma_wanted(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr || std::atoi(v) != 0;
}

bool encode_tensor_map(void* map, const void* base, int elem_bytes, int rank, const std::uint64_t* dims,
                       const std::uint64_t* strides, const std::uint32_t* box) {
  if (!tma_supported() || rank < 1 || rank > 3 || (reinterpret_cast<std::uintptr_t>(base) & 15) != 0) return false;
  const EncodeTiled encode = tensor_map_encoder();
  CUtensorMapDataType type = CU_TENSOR_MAP_DATA_TYPE_FLOAT64;
  if (elem_bytes == 4) type = CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  else if (elem_bytes == 2) type = CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  else if (elem_bytes != 8) return false;
  cuuint64_t d[3] = {1, 1, 1}, s[2] = {0, 0};
  cuuint32_t b[3] = {1, 1, 1};
  for (int i = 0; i < rank; ++i) {
    if (box[i] < 1 || box[i] > 256) return false;
    d[i] = dims[i];
    b[i] = box[i];
    if (i > 0) {
      if (strides[i - 1] % 16 != 0) return false;
      s[i - 1] = strides[i - 1];
    }
  }
  if ((b[0] * static_cast<cuuint32_t>(elem_bytes)) % 16 != 0) return false;
  const cuuint32_t unit[3] = {1, 1, 1};
  return encode(static_cast<CUtensorMap*>(map), type, static_cast<cuuint32_t>(rank), const_cast<void*>(base), d, s, b,
                unit, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

} // namespace se
