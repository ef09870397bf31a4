// The WMMA recorder: one warp loads a tile whose entries are their own index (row * cols + col) with
// wmma::load_matrix_sync and writes out, for every lane and fragment element x[i], the index it received. That
// is the register layout the hardware uses, which NVIDIA leaves unspecified. (No fmt here: nvcc rejects fmt's
// consteval format strings.)
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include <string>
#include <vector>

#include "core/error.hpp"
#include "kernels/common/device_buffer.hpp"
#include "kernels/device.hpp"
#include "kernels/fragment_probe/wmma_recording.hpp"

namespace se {
namespace {

using namespace nvcuda;

constexpr int kMaxElements = 64; // per lane; every WMMA fragment holds fewer

__device__ int tile_index(double v, int elements) {
  return v >= 0.0 && v < elements && v == static_cast<double>(static_cast<int>(v)) ? static_cast<int>(v) : -1;
}
__device__ int tile_index(float v, int elements) { return tile_index(static_cast<double>(v), elements); }
__device__ int tile_index(__half v, int elements) { return tile_index(static_cast<double>(__half2float(v)), elements); }

// out[lane * num_elements + i] = the tile index x[i] holds; count = num_elements (or more than the buffer takes).
template <typename Fragment, bool kAccumulator, typename T>
__global__ void record_fragment(const T* tile, unsigned ldm, int elements, int* out, int* count) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  Fragment f;
  if constexpr (kAccumulator)
    wmma::load_matrix_sync(f, tile, ldm, wmma::mem_row_major);
  else
    wmma::load_matrix_sync(f, tile, ldm);
  const int lane = static_cast<int>(threadIdx.x);
  if (lane == 0) *count = f.num_elements;
  if (f.num_elements > kMaxElements) return;
  for (int i = 0; i < f.num_elements; ++i) out[lane * f.num_elements + i] = tile_index(f.x[i], elements);
#endif
}

template <typename T> T from_index(int i);
template <> __half from_index<__half>(int i) { return __float2half(static_cast<float>(i)); }
template <> float from_index<float>(int i) { return static_cast<float>(i); }
template <> double from_index<double>(int i) { return static_cast<double>(i); }

// Loads the index tile into fragment type `Fragment` (column-major memory for kColMajor) and reads it back.
template <typename Fragment, bool kAccumulator, bool kColMajor, typename T>
void record(WmmaOperandRecording& r) {
  const int n = r.rows * r.cols;
  std::vector<T> host(static_cast<std::size_t>(n));
  for (int row = 0; row < r.rows; ++row)
    for (int col = 0; col < r.cols; ++col)
      host[static_cast<std::size_t>(kColMajor ? col * r.rows + row : row * r.cols + col)] = from_index<T>(row * r.cols + col);
  DeviceBuffer<T> tile(static_cast<std::size_t>(n), "the WMMA index tile");
  tile.upload(host.data(), host.size());
  DeviceBuffer<int> out(static_cast<std::size_t>(kWarpSize * kMaxElements), "the WMMA recording");
  DeviceBuffer<int> count(1, "the WMMA element count");
  record_fragment<Fragment, kAccumulator, T><<<1, kWarpSize>>>(tile.get(), static_cast<unsigned>(kColMajor ? r.rows : r.cols), n,
                                                                 out.get(), count.get());
  SE_CUDA_CHECK_LAUNCH("record_fragment");
  int elements = 0;
  count.download(&elements, 1);
  if (elements <= 0 || elements > kMaxElements)
    throw CudaError(r.fragment + ": the recorder read back " + std::to_string(elements) + " elements per lane");
  r.elements_per_lane = elements;
  r.element_index.resize(static_cast<std::size_t>(kWarpSize * elements));
  out.download(r.element_index.data(), r.element_index.size());
}

// The fragment types this file has kernels for; any other entry of the plan stays unrecorded (and its check
// says so).
void record_operand(WmmaOperandRecording& r) {
  using wmma::accumulator, wmma::col_major, wmma::matrix_a, wmma::matrix_b, wmma::row_major;
  if (r.shape == MmaShape::WMMA_M16N16K16_F16_F32) {
    if (r.operand == Operand::A) record<wmma::fragment<matrix_a, 16, 16, 16, __half, row_major>, false, false, __half>(r);
    if (r.operand == Operand::B) record<wmma::fragment<matrix_b, 16, 16, 16, __half, col_major>, false, true, __half>(r);
    if (r.operand == Operand::C) record<wmma::fragment<accumulator, 16, 16, 16, float>, true, false, float>(r);
  } else if (r.shape == MmaShape::M8N8K4_F64) {
    if (r.operand == Operand::A) record<wmma::fragment<matrix_a, 8, 8, 4, double, row_major>, false, false, double>(r);
    if (r.operand == Operand::B) record<wmma::fragment<matrix_b, 8, 8, 4, double, col_major>, false, true, double>(r);
    if (r.operand == Operand::C) record<wmma::fragment<accumulator, 8, 8, 4, double>, true, false, double>(r);
  }
}

} // namespace

WmmaRecordingReport record_wmma_layouts() {
  // The device count first: with cudart static and no driver this fails cleanly instead of at a launch.
  if (cuda_device_count() == 0) throw InputError("no CUDA device: " + query_device().reason);
  const DeviceInfo dev = query_device(0);
  if (!dev.available) throw InputError("no CUDA device: " + dev.reason);
  const std::string arch = "sm_" + std::to_string(dev.cc_major) + std::to_string(dev.cc_minor);
  if (dev.cc_major < 8)
    throw InputError("the WMMA recorder needs sm_80 or newer (f64 fragments, and the builds target sm_80/sm_90); " +
                     dev.name + " is " + arch);
  SE_CUDA_CHECK(cudaSetDevice(dev.ordinal));
  WmmaRecordingReport report;
  report.device = dev.name + " (" + arch + ")";
  for (WmmaOperandRecording& r : wmma_recording_plan()) {
    record_operand(r);
    report.checks.push_back(check_wmma_recording(r));
  }
  return report;
}

} // namespace se
