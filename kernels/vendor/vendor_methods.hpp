// The vendor baselines as descriptors (GPU only, libraries loaded at run time): the stencil as a cuDNN convolution
// and as a cuFFT round trip.
#pragma once
#include "core/method.hpp"

namespace se {

DescriptorPtr cudnn_descriptor(Precision precision); // "cudnn" (FP64), "cudnn-fp32"
DescriptorPtr cufft_descriptor();                    // "cufft" (FP64): 6 steps per round trip on periodic grids

} // namespace se
