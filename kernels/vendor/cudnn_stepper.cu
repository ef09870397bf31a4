// cudnn, cudnn-fp32: one cuDNN forward convolution (cross-correlation, which is the stencil's orientation)
// per step. With a zero Dirichlet boundary cuDNN pads by itself and two packed grids ping-pong; otherwise the
// input is a packed grid with an r-wide halo (the boundary value, or periodic images) and a small kernel
// copies each result back into it. FMA math is forced so FP32 does not silently become TF32.
#include <cudnn.h>

#include <string>
#include <vector>

#include "core/error.hpp"
#include "kernels/common/device_grid.hpp"
#include "kernels/vendor/dynamic_library.hpp"
#include "kernels/vendor/vendor_libraries.hpp"
#include "kernels/vendor/vendor_steppers.hpp"

namespace se {

namespace {

struct CudnnApi {
  explicit CudnnApi(const DynamicLibrary& lib)
#define SE_CUDNN_FN(name) name(lib.function<decltype(&::name)>(#name))
      : SE_CUDNN_FN(cudnnGetErrorString), SE_CUDNN_FN(cudnnCreate), SE_CUDNN_FN(cudnnDestroy),
        SE_CUDNN_FN(cudnnSetStream), SE_CUDNN_FN(cudnnCreateTensorDescriptor),
        SE_CUDNN_FN(cudnnSetTensorNdDescriptor), SE_CUDNN_FN(cudnnDestroyTensorDescriptor),
        SE_CUDNN_FN(cudnnCreateFilterDescriptor), SE_CUDNN_FN(cudnnSetFilterNdDescriptor),
        SE_CUDNN_FN(cudnnDestroyFilterDescriptor), SE_CUDNN_FN(cudnnCreateConvolutionDescriptor),
        SE_CUDNN_FN(cudnnSetConvolutionNdDescriptor), SE_CUDNN_FN(cudnnSetConvolutionMathType),
        SE_CUDNN_FN(cudnnDestroyConvolutionDescriptor), SE_CUDNN_FN(cudnnGetConvolutionForwardAlgorithm_v7),
        SE_CUDNN_FN(cudnnGetConvolutionForwardWorkspaceSize), SE_CUDNN_FN(cudnnConvolutionForward) {}
#undef SE_CUDNN_FN
  decltype(&::cudnnGetErrorString) cudnnGetErrorString;
  decltype(&::cudnnCreate) cudnnCreate;
  decltype(&::cudnnDestroy) cudnnDestroy;
  decltype(&::cudnnSetStream) cudnnSetStream;
  decltype(&::cudnnCreateTensorDescriptor) cudnnCreateTensorDescriptor;
  decltype(&::cudnnSetTensorNdDescriptor) cudnnSetTensorNdDescriptor;
  decltype(&::cudnnDestroyTensorDescriptor) cudnnDestroyTensorDescriptor;
  decltype(&::cudnnCreateFilterDescriptor) cudnnCreateFilterDescriptor;
  decltype(&::cudnnSetFilterNdDescriptor) cudnnSetFilterNdDescriptor;
  decltype(&::cudnnDestroyFilterDescriptor) cudnnDestroyFilterDescriptor;
  decltype(&::cudnnCreateConvolutionDescriptor) cudnnCreateConvolutionDescriptor;
  decltype(&::cudnnSetConvolutionNdDescriptor) cudnnSetConvolutionNdDescriptor;
  decltype(&::cudnnSetConvolutionMathType) cudnnSetConvolutionMathType;
  decltype(&::cudnnDestroyConvolutionDescriptor) cudnnDestroyConvolutionDescriptor;
  decltype(&::cudnnGetConvolutionForwardAlgorithm_v7) cudnnGetConvolutionForwardAlgorithm_v7;
  decltype(&::cudnnGetConvolutionForwardWorkspaceSize) cudnnGetConvolutionForwardWorkspaceSize;
  decltype(&::cudnnConvolutionForward) cudnnConvolutionForward;
};

// Writes a packed result into the padded grid's interior (and its periodic images).
template <typename S>
__global__ void scatter_packed_kernel(const S* __restrict__ packed, S* __restrict__ padded, PaddedLayout L,
                                      bool periodic) {
  const std::int64_t count = L.n[0] * L.n[1] * L.n[2];
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    store_with_images(padded, L, periodic, i % L.n[0], (i / L.n[0]) % L.n[1], i / (L.n[0] * L.n[1]), packed[i]);
}

template <typename S> class CudnnStepper final : public GridStepper {
public:
  CudnnStepper(const Stencil& s, const Extent& e, const Boundary& b)
      : lib_(cudnn_search().display_name, cudnn_search().env_var, cudnn_search().candidates, cudnn_search().siblings),
        api_(lib_), boundary_(b), own_padding_(b.kind == BoundaryKind::Dirichlet && b.value == 0.0), dims_(s.dims),
        radius_(s.radius) {
    const std::string what = std::string("cudnn (") + (sizeof(S) == 8 ? "fp64" : "fp32") + ") on a " + e.to_string() + " grid";
    const int r = s.radius;
    // cuDNN pads by itself only with zeros; any other boundary reads an explicit halo.
    packed_ = make_packed_layout(e);
    input_ = own_padding_ ? packed_ : make_padded_layout(e, r, 1);
    const std::uint64_t bytes = (static_cast<std::uint64_t>(input_.total) + packed_.total) * sizeof(S);
    require_device_memory(bytes, what + " (input and output grids)");
    in_ = DeviceGrid<S>(input_, what);
    out_ = DeviceGrid<S>(packed_, what);
    check(api_.cudnnCreate(&handle_), "cudnnCreate");
    check(api_.cudnnSetStream(handle_, stream()), "cudnnSetStream");
    check(api_.cudnnCreateTensorDescriptor(&x_desc_), "cudnnCreateTensorDescriptor");
    check(api_.cudnnCreateTensorDescriptor(&y_desc_), "cudnnCreateTensorDescriptor");
    check(api_.cudnnCreateFilterDescriptor(&w_desc_), "cudnnCreateFilterDescriptor");
    check(api_.cudnnCreateConvolutionDescriptor(&conv_), "cudnnCreateConvolutionDescriptor");
    const cudnnDataType_t type = sizeof(S) == 8 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    // N, C, then the spatial axes slowest first; a 1D grid is a 2D image of height 1.
    const int nd = s.dims == 3 ? 5 : 4;
    std::vector<int> xdims{1, 1}, ydims{1, 1}, wdims{1, 1}, pad, stride, dilation;
    for (int d = (nd == 5 ? 2 : 1); d >= 0; --d) {
      const bool active = d < s.dims;
      xdims.push_back(static_cast<int>(input_.n[d] + 2 * input_.halo[d]));
      ydims.push_back(static_cast<int>(packed_.n[d]));
      wdims.push_back(active ? 2 * r + 1 : 1);
      pad.push_back(own_padding_ && active ? r : 0);
      stride.push_back(1);
      dilation.push_back(1);
    }
    const auto strides_of = [](const std::vector<int>& dims) {
      std::vector<int> st(dims.size(), 1);
      for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i) st[i] = st[i + 1] * dims[i + 1];
      return st;
    };
    check(api_.cudnnSetTensorNdDescriptor(x_desc_, type, nd, xdims.data(), strides_of(xdims).data()), "input descriptor");
    check(api_.cudnnSetTensorNdDescriptor(y_desc_, type, nd, ydims.data(), strides_of(ydims).data()), "output descriptor");
    check(api_.cudnnSetFilterNdDescriptor(w_desc_, type, CUDNN_TENSOR_NCHW, nd, wdims.data()), "filter descriptor");
    check(api_.cudnnSetConvolutionNdDescriptor(conv_, nd - 2, pad.data(), stride.data(), dilation.data(),
                                               CUDNN_CROSS_CORRELATION, type),
          "convolution descriptor");
    check(api_.cudnnSetConvolutionMathType(conv_, CUDNN_FMA_MATH), "cudnnSetConvolutionMathType");

    // The weights in the stencil's own order (z, y, x) are cuDNN's KCDHW filter with K = C = 1.
    std::vector<S> w(s.weights.begin(), s.weights.end());
    filter_ = DeviceBuffer<S>(w.size(), what + " (filter)");
    filter_.upload(w.data(), w.size(), stream());
    choose_algorithm(what);
  }

  ~CudnnStepper() override {
    if (conv_) api_.cudnnDestroyConvolutionDescriptor(conv_);
    if (w_desc_) api_.cudnnDestroyFilterDescriptor(w_desc_);
    if (y_desc_) api_.cudnnDestroyTensorDescriptor(y_desc_);
    if (x_desc_) api_.cudnnDestroyTensorDescriptor(x_desc_);
    if (handle_) api_.cudnnDestroy(handle_);
  }

  void upload(std::span<const double> values) override {
    clear_passes();
    in_.load(values, boundary_, stream());
    out_.fill(std::numeric_limits<double>::quiet_NaN(), stream());
    result_in_out_ = false;
    stream_.synchronize();
  }

  void advance(int steps) override {
    const bool periodic = boundary_.kind == BoundaryKind::Periodic;
    for (int i = 0; i < steps; ++i) {
      if (own_padding_) { // packed ping-pong: in -> out, then swap the roles
        S* x = result_in_out_ ? out_.data() : in_.data();
        S* y = result_in_out_ ? in_.data() : out_.data();
        forward(x, y);
        result_in_out_ = !result_in_out_;
      } else {
        forward(in_.data(), out_.data());
        const std::int64_t count = packed_.total;
        const unsigned blocks = static_cast<unsigned>(std::min<std::int64_t>((count + 255) / 256, 65536));
        scatter_packed_kernel<<<blocks, 256, 0, stream()>>>(out_.data(), in_.data(), input_, periodic);
        SE_CUDA_CHECK_LAUNCH("scatter_packed_kernel");
      }
      record_pass(1);
    }
  }

  // The filter's weights in place; another radius needs other descriptors and halo (a new stepper).
  bool set_stencil(const MethodPlan& plan) override {
    const Stencil& s = plan.stencil; // validated when the plan was built
    if (s.dims != dims_ || s.radius != radius_) return false;
    const std::vector<S> w(s.weights.begin(), s.weights.end());
    stream_.synchronize();
    filter_.upload(w.data(), w.size(), stream());
    stream_.synchronize();
    return true;
  }

  void download(std::span<double> values) override { current().download_interior(values, stream()); }
  DeviceGridView view() const override {
    const DeviceGrid<S>& g = current();
    return {g.data(), sizeof(S) == 8 ? Precision::FP64 : Precision::FP32, g.layout()};
  }
  int fused_steps() const override { return 1; }

private:
  const DeviceGrid<S>& current() const { return own_padding_ && result_in_out_ ? out_ : in_; }

  void check(cudnnStatus_t st, const char* what) const {
    if (st != CUDNN_STATUS_SUCCESS)
      throw CudaError(std::string("cuDNN: ") + what + " failed: " + api_.cudnnGetErrorString(st));
  }

  void forward(const S* x, S* y) {
    const S one = 1, zero = 0;
    check(api_.cudnnConvolutionForward(handle_, &one, x_desc_, x, w_desc_, filter_.get(), conv_, algo_,
                                       workspace_.get(), workspace_.bytes(), &zero, y_desc_, y),
          "cudnnConvolutionForward");
  }

  // cuDNN ranks its algorithms; take the first that accepts this precision and fits in memory.
  void choose_algorithm(const std::string& what) {
    cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int count = 0;
    check(api_.cudnnGetConvolutionForwardAlgorithm_v7(handle_, x_desc_, w_desc_, conv_, y_desc_,
                                                      CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &count, perf),
          "cudnnGetConvolutionForwardAlgorithm_v7");
    std::size_t free_b = 0, total_b = 0;
    SE_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    std::string rejected;
    for (int i = 0; i < count; ++i) {
      if (perf[i].status != CUDNN_STATUS_SUCCESS) continue;
      std::size_t ws = 0;
      if (api_.cudnnGetConvolutionForwardWorkspaceSize(handle_, x_desc_, w_desc_, conv_, y_desc_, perf[i].algo, &ws) !=
          CUDNN_STATUS_SUCCESS)
        continue;
      if (ws > free_b / 2) {
        rejected += " algorithm " + std::to_string(perf[i].algo) + " wants " + std::to_string(ws >> 20) + " MiB;";
        continue;
      }
      algo_ = perf[i].algo;
      workspace_ = DeviceBuffer<unsigned char>(ws, what + " (cuDNN workspace)");
      // Some engines refuse only at run time (strides, precision): try one forward before committing.
      if (api_.cudnnConvolutionForward(handle_, &one_, x_desc_, in_.data(), w_desc_, filter_.get(), conv_, algo_,
                                       workspace_.get(), workspace_.bytes(), &zero_, y_desc_, out_.data()) ==
          CUDNN_STATUS_SUCCESS) {
        stream_.synchronize();
        return;
      }
      rejected += " algorithm " + std::to_string(perf[i].algo) + " failed;";
    }
    throw InputError("cuDNN has no forward-convolution algorithm for this " + std::string(sizeof(S) == 8 ? "FP64" : "FP32") +
                     " stencil on this GPU (" + std::to_string(count) + " ranked;" + rejected + ")");
  }

  DynamicLibrary lib_;
  CudnnApi api_;
  Boundary boundary_;
  bool own_padding_;
  int dims_, radius_;
  PaddedLayout packed_{}, input_{};
  DeviceGrid<S> in_, out_;
  DeviceBuffer<S> filter_;
  DeviceBuffer<unsigned char> workspace_;
  bool result_in_out_ = false;
  const S one_ = 1, zero_ = 0;
  cudnnHandle_t handle_ = nullptr;
  cudnnTensorDescriptor_t x_desc_ = nullptr, y_desc_ = nullptr;
  cudnnFilterDescriptor_t w_desc_ = nullptr;
  cudnnConvolutionDescriptor_t conv_ = nullptr;
  cudnnConvolutionFwdAlgo_t algo_ = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
};

} // namespace

std::unique_ptr<GridStepper> make_cudnn_stepper(Precision precision, const Stencil& s, const Extent& e,
                                                const Boundary& b) {
  validate(s);
  check_extent_fits_stencil(e, s);
  if (precision == Precision::FP64) return std::make_unique<CudnnStepper<double>>(s, e, b);
  if (precision == Precision::FP32) return std::make_unique<CudnnStepper<float>>(s, e, b);
  throw InputError("cudnn runs FP64 or FP32");
}

} // namespace se
