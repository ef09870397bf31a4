// FP16 conversion: exact values, rounding to nearest even, overflow, subnormals.
#include <catch2/catch.hpp>

#include <cmath>

#include "core/half.hpp"

using se::Half;

TEST_CASE("half round-trips every finite FP16 value exactly") {
  for (std::uint32_t bits = 0; bits < 0x10000u; ++bits) {
    const auto h = static_cast<std::uint16_t>(bits);
    if ((h & 0x7c00u) == 0x7c00u) continue; // Inf/NaN checked below
    const float f = se::half_bits_to_float(h);
    REQUIRE(se::float_to_half_bits(f) == h);
  }
}

TEST_CASE("half rounds to nearest, ties to even") {
  CHECK(float(Half(1.0f)) == 1.0f);
  CHECK(float(Half(65504.0f)) == 65504.0f);
  CHECK(std::isinf(float(Half(65520.0f))));          // rounds up past the largest finite value
  CHECK(float(Half(65519.0f)) == 65504.0f);
  CHECK(float(Half(1.0f + 1.0f / 2048)) == 1.0f);     // tie between 1 and 1+2^-10 goes to even (1)
  CHECK(float(Half(1.0f + 3.0f / 2048)) == 1.0f + 2.0f / 1024); // tie goes to the even mantissa
  CHECK(float(Half(0.1f)) == Approx(0.0999755859375f).epsilon(0));
  CHECK(float(Half(5.9604644775390625e-08f)) == 5.9604644775390625e-08f); // smallest subnormal
  CHECK(float(Half(2.9e-08f)) == 0.0f);
  CHECK(std::isnan(float(Half(NAN))));
  CHECK(float(Half(-2.5f)) == -2.5f);
}
