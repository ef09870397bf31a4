// The cube-symmetric radius-1 3D kernel (tb_3d_sym.cuh) for FP16 storage (float arithmetic), depth 1 only: single-step
// cuda-core-fp16 box-3d27p (step_3d.cu; no temporal-blocking method stores FP16). One file per precision so the
// three compile in parallel.
// H200, box-3d27p 512^3 Dirichlet, `suite --seconds 1`, alternated twice in one call with the general two-row kernel
// of step_3d.cu (session 49): 274.1 / 274.0 -> 617.4 / 617.8 GStencil/s (59% of the FP16 copy roof's 1050).
#include "kernels/cuda_core/tb_3d_sym.cuh"

namespace se {

template bool launch_tb_3d_sym<__half>(const TbLaunch&, const __half*, __half*, const PaddedLayout&,
                                       const std::vector<double>&, cudaStream_t);

} // namespace se
