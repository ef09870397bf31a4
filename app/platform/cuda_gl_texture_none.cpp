// Builds without CUDA: no texture can be shared with a GPU run, and registering one says why, so the
// Simulation window stays on its CPU path.
#include "app/platform/cuda_gl_texture.hpp"

#include "core/error.hpp"

namespace se {

bool cuda_gl_interop_built() { return false; }

struct CudaGlTexture::Registration {};

CudaGlTexture::CudaGlTexture(unsigned, int, int) {
  throw InputError("this build has no CUDA (configure with nvcc installed to run methods on the GPU)");
}
CudaGlTexture::~CudaGlTexture() = default;
ValueRange CudaGlTexture::store(const std::function<void(cudaArray_t)>&) {
  throw InputError("this build has no CUDA");
}

} // namespace se
