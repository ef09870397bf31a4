// IEEE 754 binary16 on the CPU, rounded exactly as the GPU's cvt.rn.f16 does (round to nearest even).
// Used by FP16 grids and by the fragment-level emulation of FP16 tensor-core methods.
#pragma once
#include <bit>
#include <cstdint>
#include <cstring>

namespace se {

constexpr std::uint16_t float_to_half_bits(float f) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t exp = (x >> 23) & 0xffu;
  std::uint32_t mant = x & 0x7fffffu;
  if (exp == 0xffu) // Inf or NaN (keep NaN quiet and non-zero)
    return static_cast<std::uint16_t>(sign | 0x7c00u | (mant ? 0x200u | (mant >> 13) : 0u));
  const int e = static_cast<int>(exp) - 127 + 15;
  if (e >= 31) return static_cast<std::uint16_t>(sign | 0x7c00u); // overflow to Inf
  if (e <= 0) {
    if (e < -10) return static_cast<std::uint16_t>(sign); // underflow to signed zero
    mant |= 0x800000u;                                   // make the implicit bit explicit
    const int shift = 14 - e;                            // 24-bit mantissa to subnormal
    std::uint32_t half = mant >> shift;
    const std::uint32_t rem = mant & ((1u << shift) - 1u);
    const std::uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (half & 1u))) ++half;
    return static_cast<std::uint16_t>(sign | half);
  }
  std::uint32_t half = (static_cast<std::uint32_t>(e) << 10) | (mant >> 13);
  const std::uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1u))) ++half; // may carry into the exponent: correct
  return static_cast<std::uint16_t>(sign | half);
}

constexpr float half_bits_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1fu;
  std::uint32_t mant = h & 0x3ffu;
  std::uint32_t bits = 0;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else { // subnormal: normalise
      int e = -1;
      do { ++e; mant <<= 1; } while ((mant & 0x400u) == 0);
      bits = sign | (static_cast<std::uint32_t>(127 - 15 - e) << 23) | ((mant & 0x3ffu) << 13);
    }
  } else if (exp == 0x1fu) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  return std::bit_cast<float>(bits);
}

// A half-precision value stored as its bits. Arithmetic happens after conversion to float,
// which is what the hardware does for FP16 loads feeding FP32 math.
struct Half {
  std::uint16_t bits = 0;
  constexpr Half() = default;
  constexpr explicit Half(float f) : bits(float_to_half_bits(f)) {}
  constexpr explicit Half(double d) : bits(float_to_half_bits(static_cast<float>(d))) {}
  constexpr operator float() const { return half_bits_to_float(bits); }
  static constexpr Half from_bits(std::uint16_t b) { Half h; h.bits = b; return h; }
};

// Round a double to FP16 through FP32, as CUDA's __double2half does on the GPU paths we emulate.
inline double round_to_half(double x) { return static_cast<float>(Half(static_cast<float>(x))); }

constexpr double kHalfMax = 65504.0;

} // namespace se
