// Host entry points of the ConvStencil pass kernels: one launch per pass on the caller's stream, no waiting.
// Each returns false when no kernel instance exists for args.k (the GPU plan never asks for one).
#pragma once
#include <cuda_runtime.h>

#include "kernels/convstencil/cs_pass_args.hpp"

namespace se::conv_gpu {

bool launch_pass_1d(const CsPassArgs& args, const CsBlockShape& shape, cudaStream_t stream);
bool launch_pass_2d(const CsPassArgs& args, const CsBlockShape& shape, cudaStream_t stream);
bool launch_pass_3d(const CsPassArgs& args, const CsBlockShape& shape, cudaStream_t stream);

} // namespace se::conv_gpu
