// The GPU method registry's entry for LoRAStencil ("lorastencil", FP64 tensor cores): its spec, and the
// device-resident stepper behind it (CUDA builds).
#pragma once
#include <memory>

#include "kernels/registry.hpp"

namespace se {

GpuMethodSpec lorastencil_gpu_spec();

#if defined(SE_HAVE_CUDA)
std::unique_ptr<GridStepper> make_lorastencil_stepper(const Stencil& s, const Extent& e, const Boundary& b);
#endif

} // namespace se
