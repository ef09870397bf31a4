// The vendor baselines as GridSteppers: the stencil as a cuDNN convolution (FP64 or FP32) and the
// FFT stencil through cuFFT (FP64), both loaded at run time.
#pragma once
#include <memory>

#include "core/grid.hpp"
#include "core/stencil.hpp"
#include "kernels/common/grid_stepper.hpp"

namespace se {

// Throws InputError when cuDNN cannot be loaded or has no algorithm for this convolution.
std::unique_ptr<GridStepper> make_cudnn_stepper(Precision precision, const Stencil& s, const Extent& e,
                                                const Boundary& b);

// Periodic grids fuse `fused` steps per FFT round trip (the spectrum raised to that power); Dirichlet grids
// run one step per round trip on a zero-extended grid, because a fused kernel would reach past the faces.
std::unique_ptr<GridStepper> make_cufft_stepper(const Stencil& s, const Extent& e, const Boundary& b, int fused);

} // namespace se
