// Arithmetic on numbers a person gave (sizes, steps, seconds): products that would overflow are refused instead of
// wrapping, and a double that becomes a count is clamped before the conversion (which is undefined out of range).
#pragma once
#include <cstdint>
#include <limits>
#include <optional>

namespace se {

// a * b, or nullopt when it overflows (both non-negative).
inline std::optional<std::int64_t> checked_mul(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  if (a < 0 || b < 0 || __builtin_mul_overflow(a, b, &out)) return std::nullopt;
  return out;
}

// v as an int within [lo, hi]: NaN and anything below lo give lo, anything above hi gives hi.
inline int clamped_int(double v, int lo, int hi) {
  if (!(v >= lo)) return lo;
  if (v >= hi) return hi;
  return static_cast<int>(v);
}

} // namespace se
