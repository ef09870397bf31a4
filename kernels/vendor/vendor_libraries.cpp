// The search lists: the soname through the loader's path, the CUDA toolkit's folder, the distribution's
// folder, and the wheels a Python environment may carry (nvidia-cudnn-cu13, nvidia-cufft).
#include "kernels/vendor/vendor_libraries.hpp"

#include "core/error.hpp"
#include "kernels/vendor/dynamic_library.hpp"
#include "kernels/vendor/vendor_steppers.hpp"

namespace se {

namespace {

std::vector<std::string> candidates_for(const std::string& soname, const std::string& wheel_folder) {
  return {soname,
          "/usr/local/cuda/lib64/" + soname,
          "/usr/local/cuda/targets/x86_64-linux/lib/" + soname,
          "/usr/lib/x86_64-linux-gnu/" + soname,
          "/opt/*/.venv/lib/python3*/site-packages/nvidia/" + wheel_folder + "/lib/" + soname,
          "/opt/*/.venv/lib/python3*/site-packages/nvidia/cu13/lib/" + soname,
          "/usr/local/lib/python3*/dist-packages/nvidia/" + wheel_folder + "/lib/" + soname,
          "/usr/local/lib/python3*/dist-packages/nvidia/cu13/lib/" + soname};
}

std::string reason_for(const VendorLibrarySearch& s) {
  const DynamicLibrary lib(s.display_name, s.env_var, s.candidates, s.siblings);
  return lib.loaded() ? std::string() : lib.failure();
}

} // namespace

const VendorLibrarySearch& cudnn_search() {
  static const VendorLibrarySearch s{"cuDNN 9 (libcudnn.so.9)", "SE_CUDNN_PATH", candidates_for("libcudnn.so.9", "cudnn"),
                                     {"libcudnn_graph.so.9", "libcudnn_ops.so.9", "libcudnn_cnn.so.9",
                                      "libcudnn_engines_precompiled.so.9", "libcudnn_heuristic.so.9"}};
  return s;
}

const VendorLibrarySearch& cufft_search() {
  static const VendorLibrarySearch s{"cuFFT (libcufft.so.12)", "SE_CUFFT_PATH", candidates_for("libcufft.so.12", "cufft"),
                                     {}};
  return s;
}

const VendorLibrarySearch& nvrtc_search() {
  static const VendorLibrarySearch s{"NVRTC (libnvrtc.so.13)", "SE_NVRTC_PATH", candidates_for("libnvrtc.so.13", "cuda_nvrtc"),
                                     {}};
  return s;
}

#if defined(SE_WITHOUT_CUDNN_HEADER)
constexpr const char* kNoCudnnHeader = "cuDNN: this build found no cudnn.h, so it cannot call cuDNN even where the library exists";
std::string cudnn_unavailable_reason() { return kNoCudnnHeader; }
std::unique_ptr<GridStepper> make_cudnn_stepper(Precision, const Stencil&, const Extent&, const Boundary&) {
  throw InputError(kNoCudnnHeader);
}
#else
std::string cudnn_unavailable_reason() { return reason_for(cudnn_search()); }
#endif
std::string cufft_unavailable_reason() { return reason_for(cufft_search()); }
std::string nvrtc_unavailable_reason() { return reason_for(nvrtc_search()); }

} // namespace se
