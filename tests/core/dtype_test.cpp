// The host conversions of f16 and bf16 against independent models: every bit pattern decodes
// to its IEEE value; encoding rounds to nearest with ties to even, checked exhaustively on the
// midpoints between neighbouring values (and just either side of them), and on random floats
// of every magnitude. The GPU's conversions are checked by cpu/astype_test.cpp.
#include <cstring>

#include "common/test_util.hpp"

namespace {
using namespace ct_test;

// The value of a binary16 (exp_bits 5, man_bits 10) or bfloat16 (8, 7) bit pattern.
double decode(std::uint16_t bits, int exp_bits, int man_bits) {
  const int bias = (1 << (exp_bits - 1)) - 1;
  const int e = (bits >> man_bits) & ((1 << exp_bits) - 1);
  const int m = bits & ((1 << man_bits) - 1);
  const double sign = bits & 0x8000 ? -1.0 : 1.0;
  if (e == (1 << exp_bits) - 1) return m ? NAN : sign * INFINITY;
  if (e == 0) return sign * std::ldexp(m, 1 - bias - man_bits);
  return sign * std::ldexp(m + (1 << man_bits), e - bias - man_bits);
}

template <class H>
struct format;
template <>
struct format<ct::f16> {
  static constexpr int exp_bits = 5, man_bits = 10;
};
template <>
struct format<ct::bf16> {
  static constexpr int exp_bits = 8, man_bits = 7;
};

template <class H>
double model(std::uint16_t bits) {
  return decode(bits, format<H>::exp_bits, format<H>::man_bits);
}

template <class H>
std::uint16_t encode(float x) {
  return H(x).bits;
}

template <class H>
void check_decode_all() {
  std::size_t bad = 0;
  for (unsigned b = 0; b < 65536; ++b) {
    const double want = model<H>(std::uint16_t(b));
    const double got = static_cast<float>(H::from_bits(std::uint16_t(b)));
    const bool ok =
        std::isnan(want) ? std::isnan(got) : got == want && std::signbit(got) == std::signbit(want);
    if (!ok && ++bad <= 5)
      ADD_FAILURE() << std::hex << "bits 0x" << b << ": got " << got << ", expected " << want;
  }
  EXPECT_EQ(bad, 0u);
}

// Between each pair of neighbouring finite values (and between the largest and the next power
// of two, where rounding overflows), the midpoint goes to the even pattern, and anything off
// the midpoint to the nearer one. Both signs.
template <class H>
void check_ties_all() {
  const unsigned inf_bits = ((1u << format<H>::exp_bits) - 1) << format<H>::man_bits;
  std::size_t bad = 0;
  for (unsigned b = 0; b < inf_bits; ++b) {
    const double lo = model<H>(std::uint16_t(b));
    const double hi = b + 1 < inf_bits ? model<H>(std::uint16_t(b + 1)) : std::ldexp(2.0, std::ilogb(lo));
    const float mid = float((lo + hi) / 2);  // exact: one bit more than H holds
    for (const unsigned sign : {0u, 0x8000u}) {
      const float s = sign ? -1.0f : 1.0f;
      const std::uint16_t even = std::uint16_t(sign | (b % 2 == 0 ? b : b + 1));
      const std::uint16_t below = std::uint16_t(sign | b), above = std::uint16_t(sign | (b + 1));
      const std::uint16_t got_mid = encode<H>(s * mid), got_below = encode<H>(s * std::nextafter(mid, 0.0f)),
                          got_above = encode<H>(s * std::nextafter(mid, INFINITY));
      if ((got_mid != even || got_below != below || got_above != above) && ++bad <= 5)
        ADD_FAILURE() << std::hex << "between 0x" << below << " and 0x" << above << ": midpoint -> 0x"
                      << got_mid << ", below it -> 0x" << got_below << ", above it -> 0x" << got_above;
    }
  }
  EXPECT_EQ(bad, 0u);
}

// Random bit patterns cover every magnitude: overflow, subnormals, underflow to zero, NaN.
template <class H>
void check_random_floats() {
  std::size_t bad = 0;
  for (std::uint64_t i = 0; i < 1000000; ++i) {
    const auto pattern = std::uint32_t(ct::detail::mix64(i) >> 32);
    float x;
    std::memcpy(&x, &pattern, 4);
    const double want = round_to<H>(x), got = model<H>(encode<H>(x));
    const bool ok = std::isnan(want) ? std::isnan(got) : got == want;
    if (!ok && ++bad <= 5) ADD_FAILURE() << x << " encoded as " << got << ", expected " << want;
  }
  EXPECT_EQ(bad, 0u);
}

TEST(dtype, f16_decodes_every_pattern) { check_decode_all<ct::f16>(); }
TEST(dtype, bf16_decodes_every_pattern) { check_decode_all<ct::bf16>(); }
TEST(dtype, f16_rounds_ties_to_even) { check_ties_all<ct::f16>(); }
TEST(dtype, bf16_rounds_ties_to_even) { check_ties_all<ct::bf16>(); }
TEST(dtype, f16_rounds_random_floats_to_nearest) { check_random_floats<ct::f16>(); }
TEST(dtype, bf16_rounds_random_floats_to_nearest) { check_random_floats<ct::bf16>(); }

TEST(dtype, names) {
  EXPECT_STREQ(ct::dtype_name<ct::f16>(), "f16");
  EXPECT_STREQ(ct::dtype_name<ct::bf16>(), "bf16");
  EXPECT_STREQ(ct::dtype_name<float>(), "f32");
  EXPECT_STREQ(ct::dtype_name<std::int32_t>(), "int32");
}

}  // namespace
