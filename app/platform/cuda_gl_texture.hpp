// A GL texture registered with CUDA (CUDA-GL interop): a GPU run maps it and stores the grid's values through
// a surface object, so a live frame never goes through the host. Plain C++: no CUDA or GL headers needed.
#pragma once
#include <functional>
#include <memory>
#include <string>

#include "app/sim/grid_slice.hpp"

struct cudaArray;                      // as CUDA's driver_types.h declares it
typedef struct cudaArray* cudaArray_t; // identical redeclaration of CUDA's typedef

namespace se {

// True in builds with CUDA, where the interop path exists (a device may still be missing at run time).
bool cuda_gl_interop_built();

class CudaGlTexture {
public:
  // Registers the allocated GL_TEXTURE_2D `gl_texture` (R32F, width x height) for surface stores. Needs the GL
  // context current and on the CUDA device; throws InputError saying why not (no CUDA in the build, no device,
  // the GL context on another GPU or on a software renderer).
  CudaGlTexture(unsigned gl_texture, int width, int height);
  ~CudaGlTexture();
  CudaGlTexture(const CudaGlTexture&) = delete;
  CudaGlTexture& operator=(const CudaGlTexture&) = delete;

  // Maps the texture, lets `store` write its level-0 array (on the GPU, finished when it returns), computes the
  // finite range of what was stored (on the GPU too: the live colour range needs no copy of the grid), unmaps.
  ValueRange store(const std::function<void(cudaArray_t)>& store);

  unsigned texture() const { return texture_; }
  int width() const { return width_; }
  int height() const { return height_; }

private:
  struct Registration;
  std::unique_ptr<Registration> registration_;
  unsigned texture_ = 0;
  int width_ = 0, height_ = 0;
};

} // namespace se
