// Whether values stored in FP16 (largest finite value 65504) can overflow over a run: the check every FP16
// method (cuda-core-fp16, SPIDER, TCStencil) runs before it starts, on the CPU and the GPU alike.
#pragma once
#include <span>
#include <string>

#include "core/stencil.hpp"

namespace se {

// Throws InputError when the values could exceed FP16's range after `steps` steps, by both bounds on the
// largest value: max|input| (sum |w|)^steps and ||input||_2 (max |K|)^steps, K the stencil's Fourier symbol
// (sampled). The message names the method, the figures and what to do instead.
void check_fp16_range(const Stencil& s, std::span<const double> values, int steps, const std::string& method_id);

} // namespace se
