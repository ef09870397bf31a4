#include "core/fp16_range.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/half.hpp"

namespace se {

void check_fp16_range(const Stencil& s, std::span<const double> values, int steps, const std::string& method_id) {
  double max_in = 0, l2 = 0, gain = 0;
  for (const double v : values) {
    max_in = std::max(max_in, std::abs(v));
    l2 += v * v;
  }
  l2 = std::sqrt(l2);
  for (const double w : s.weights) gain += std::abs(w);
  if (!(max_in <= kHalfMax))
    throw InputError(fmt::format("{} stores FP16: the input holds {:.4g}, beyond its largest finite value {}", method_id,
                                 max_in, kHalfMax));
  // Two bounds on the largest value after `steps` steps, in logs (they overflow doubles): a step grows the
  // largest magnitude by at most sum |w|, and the L2 norm (which bounds every value) by at most max |K|.
  const double log_max = std::log(kHalfMax);
  const double by_sum = std::log(std::max(max_in, 1e-300)) + steps * std::log(std::max(1.0, gain));
  if (by_sum <= log_max) return;
  const double peak = fourier_symbol_peak(s);
  const double by_symbol = std::log(std::max(l2, 1e-300)) + steps * std::log(std::max(peak, 1e-300));
  if (by_symbol <= log_max) return;
  throw InputError(fmt::format(
      "{} stores FP16 (largest finite value {}): after {} steps the values could reach {:.3g} and overflow (max |input| {:.4g}, "
      "sum |w| = {:.4g}; L2 norm {:.4g}, max |K| = {:.4g} per step); use fewer steps, a stencil that does not "
      "amplify, or an FP32/FP64 method",
      method_id, kHalfMax, steps, std::exp(std::min(by_sum, by_symbol)), max_in, gain, l2, peak));
}

} // namespace se
