// ConvStencil 3D pass kernels, one instance per fused-kernel width (kernels/convstencil/cs_kernel.cuh).
#include "kernels/convstencil/cs_kernel.cuh"
#include "kernels/convstencil/cs_launch.hpp"

namespace se::conv_gpu {

bool launch_pass_3d(const CsPassArgs& a, const CsBlockShape& s, cudaStream_t stream) {
  switch (a.k) {
  case 1: cs_launch<1, 3>(a, s, stream); return true;
  case 3: cs_launch<3, 3>(a, s, stream); return true;
  case 5: cs_launch<5, 3>(a, s, stream); return true;
  case 7: cs_launch<7, 3>(a, s, stream); return true;
  default: return false;
  }
}

} // namespace se::conv_gpu
