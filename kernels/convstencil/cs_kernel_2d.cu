// ConvStencil 2D pass kernels, one instance per fused-kernel width (kernels/convstencil/cs_kernel.cuh).
#include "kernels/convstencil/cs_kernel.cuh"
#include "kernels/convstencil/cs_launch.hpp"

namespace se::conv_gpu {

bool launch_pass_2d(const CsPassArgs& a, const CsBlockShape& s, cudaStream_t stream) {
  switch (a.k) {
  case 1: cs_launch<1, 2>(a, s, stream); return true;
  case 3: cs_launch<3, 2>(a, s, stream); return true;
  case 5: cs_launch<5, 2>(a, s, stream); return true;
  case 7: cs_launch<7, 2>(a, s, stream); return true;
  case 9: cs_launch<9, 2>(a, s, stream); return true;
  case 11: cs_launch<11, 2>(a, s, stream); return true;
  case 13: cs_launch<13, 2>(a, s, stream); return true;
  case 15: cs_launch<15, 2>(a, s, stream); return true;
  default: return false;
  }
}

} // namespace se::conv_gpu
