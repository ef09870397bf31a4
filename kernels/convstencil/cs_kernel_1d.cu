// ConvStencil 1D pass kernels, one instance per fused-kernel width (kernels/convstencil/cs_kernel.cuh).
#include "kernels/convstencil/cs_kernel.cuh"
#include "kernels/convstencil/cs_launch.hpp"

namespace se::conv_gpu {

bool launch_pass_1d(const CsPassArgs& a, const CsBlockShape& s, cudaStream_t stream) {
  switch (a.k) {
  case 1: s.twice ? cs_launch<1, 1, kPassesPerLaunch1d>(a, s, stream) : cs_launch<1, 1>(a, s, stream); return true;
  case 3: s.twice ? cs_launch<3, 1, kPassesPerLaunch1d>(a, s, stream) : cs_launch<3, 1>(a, s, stream); return true;
  case 5: s.twice ? cs_launch<5, 1, kPassesPerLaunch1d>(a, s, stream) : cs_launch<5, 1>(a, s, stream); return true;
  case 7: s.twice ? cs_launch<7, 1, kPassesPerLaunch1d>(a, s, stream) : cs_launch<7, 1>(a, s, stream); return true;
  case 9: s.twice ? cs_launch<9, 1, kPassesPerLaunch1d>(a, s, stream) : cs_launch<9, 1>(a, s, stream); return true;
  case 11: s.twice ? cs_launch<11, 1, kPassesPerLaunch1d>(a, s, stream) : cs_launch<11, 1>(a, s, stream); return true;
  case 13: s.twice ? cs_launch<13, 1, kPassesPerLaunch1d>(a, s, stream) : cs_launch<13, 1>(a, s, stream); return true;
  case 15: s.twice ? cs_launch<15, 1, kPassesPerLaunch1d>(a, s, stream) : cs_launch<15, 1>(a, s, stream); return true;
  default: return false;
  }
}

} // namespace se::conv_gpu
