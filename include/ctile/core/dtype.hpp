// Element types. f16 and bf16 are 2-byte storage types with the same layout on host and device;
// arithmetic on them happens in f32 and is rounded back (round to nearest even), which gives the
// correctly rounded result for a single op, as native half arithmetic would.
#pragma once
#include <cstdint>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "ctile/core/config.hpp"

#if defined(__CUDACC__)
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#endif

namespace ct {

namespace detail {
CT_HD inline std::uint32_t float_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
CT_HD inline float bits_float(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

CT_HD inline std::uint16_t float_to_bf16_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __bfloat16_as_ushort(__float2bfloat16_rn(f));
#else
  std::uint32_t u = float_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return std::uint16_t((u >> 16) | 0x40u);  // quiet NaN
  u += 0x7fffu + ((u >> 16) & 1u);
  return std::uint16_t(u >> 16);
#endif
}
CT_HD inline float bf16_bits_to_float(std::uint16_t b) { return bits_float(std::uint32_t(b) << 16); }

CT_HD inline std::uint16_t float_to_f16_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __half_as_ushort(__float2half_rn(f));
#else
  std::uint32_t u = float_bits(f);
  std::uint32_t sign = (u >> 16) & 0x8000u;
  std::uint32_t mag = u & 0x7fffffffu;
  if (mag > 0x7f800000u) return std::uint16_t(sign | 0x7e00u);  // NaN
  if (mag >= 0x477ff000u) return std::uint16_t(sign | 0x7c00u);  // rounds to infinity
  if (mag < 0x38800000u) {                                        // subnormal or zero in f16
    // Scale by 2^24 so the f16 subnormal grid becomes the integers, then round to even.
    float scaled = bits_float(mag) * 16777216.0f;
    std::uint32_t q = std::uint32_t(scaled);
    float rem = scaled - float(q);
    if (rem > 0.5f || (rem == 0.5f && (q & 1u))) ++q;
    return std::uint16_t(sign | q);
  }
  std::uint32_t exp = (mag >> 23) - 112u;  // rebias 127 -> 15
  std::uint32_t mant = mag & 0x7fffffu;
  std::uint32_t h = (exp << 10) | (mant >> 13);
  std::uint32_t rest = mant & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;  // carry may bump the exponent
  return std::uint16_t(sign | h);
#endif
}
CT_HD inline float f16_bits_to_float(std::uint16_t h) {
#if defined(__CUDA_ARCH__)
  return __half2float(__ushort_as_half(h));
#else
  std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
  std::uint32_t exp = (h >> 10) & 0x1fu;
  std::uint32_t mant = h & 0x3ffu;
  if (exp == 0) {
    float v = float(mant) * (1.0f / 16777216.0f);  // subnormal: mant * 2^-24
    return sign ? -v : v;
  }
  if (exp == 31) return bits_float(sign | 0x7f800000u | (mant << 13));
  return bits_float(sign | ((exp + 112u) << 23) | (mant << 13));
#endif
}
}  // namespace detail

// A 16-bit float storage type; `Tag` keeps f16 and bf16 distinct types that never mix silently.
template <class Tag>
struct half_storage {
  std::uint16_t bits = 0;
  half_storage() = default;
  CT_HD explicit half_storage(float f) : bits(Tag::encode(f)) {}
  CT_HD explicit operator float() const { return Tag::decode(bits); }
  CT_HD static half_storage from_bits(std::uint16_t b) {
    half_storage h;
    h.bits = b;
    return h;
  }
};

struct bf16_tag {
  CT_HD static std::uint16_t encode(float f) { return detail::float_to_bf16_bits(f); }
  CT_HD static float decode(std::uint16_t b) { return detail::bf16_bits_to_float(b); }
};
struct f16_tag {
  CT_HD static std::uint16_t encode(float f) { return detail::float_to_f16_bits(f); }
  CT_HD static float decode(std::uint16_t b) { return detail::f16_bits_to_float(b); }
};

using bf16 = half_storage<bf16_tag>;
using f16 = half_storage<f16_tag>;
using f32 = float;
using f64 = double;

namespace detail {
// Round-to-nearest-even encoding of f into a small float format with E exponent bits, M mantissa
// bits and bias 2^(E-1)-1, saturating to the largest finite value (as the GPU's cvt.satfinite
// does); NaN stays NaN. `max_bits` is the largest finite magnitude's encoding.
template <int E, int M>
CT_HD inline std::uint8_t encode_small_float(float f, std::uint8_t max_bits, std::uint8_t nan_bits) {
  const std::uint8_t sign = (float_bits(f) >> 24) & 0x80u;
  if (f != f) return std::uint8_t(sign | nan_bits);
  constexpr int bias = (1 << (E - 1)) - 1;
  float a = f < 0 ? -f : f;
  const int max_exp = (max_bits >> M) - bias;
  const float max_value = ldexpf(1.0f + float(max_bits & ((1 << M) - 1)) / float(1 << M), max_exp);
  if (a >= max_value) return std::uint8_t(sign | max_bits);
  int e;
  frexpf(a, &e);  // a = m * 2^e, m in [0.5, 1)
  e -= 1;         // a in [2^e, 2^(e+1))
  if (e < 1 - bias) e = 1 - bias;  // subnormals share the smallest exponent
  const float quantum = ldexpf(1.0f, e - M);
  a = rintf(a / quantum) * quantum;  // round to nearest even on the format's grid
  if (a >= max_value) return std::uint8_t(sign | max_bits);
  if (a == 0.0f) return sign;
  frexpf(a, &e);
  e -= 1;
  if (e < 1 - bias) return std::uint8_t(sign | std::uint8_t(a / ldexpf(1.0f, 1 - bias - M)));
  const int mant = int(a / ldexpf(1.0f, e - M)) - (1 << M);
  return std::uint8_t(sign | ((e + bias) << M) | mant);
}
template <int E, int M>
CT_HD inline float decode_small_float(std::uint8_t b, bool has_inf) {
  constexpr int bias = (1 << (E - 1)) - 1;
  const int exp = (b >> M) & ((1 << E) - 1), mant = b & ((1 << M) - 1);
  const float sign = (b & 0x80u) ? -1.0f : 1.0f;
  if (exp == (1 << E) - 1) {
    if (has_inf) return mant == 0 ? sign * __builtin_huge_valf() : __builtin_nanf("");
    if (mant == (1 << M) - 1) return __builtin_nanf("");  // e4m3fn: only S.1111.111 is NaN
  }
  if (exp == 0) return sign * ldexpf(float(mant), 1 - bias - M);
  return sign * ldexpf(1.0f + float(mant) / float(1 << M), exp - bias);
}
}  // namespace detail

// fp8 storage types: "restricted" (they convert, load, store and feed ct::mma, but have no
// arithmetic; convert to f32 first). Conversion from f32 rounds to nearest even and saturates.
struct e4m3 {  // float8_e4m3fn: no infinities, max 448
  std::uint8_t bits = 0;
  e4m3() = default;
  CT_HD explicit e4m3(float f) : bits(detail::encode_small_float<4, 3>(f, 0x7e, 0x7f)) {}
  CT_HD explicit operator float() const { return detail::decode_small_float<4, 3>(bits, false); }
};
struct e5m2 {  // float8_e5m2: max 57344
  std::uint8_t bits = 0;
  e5m2() = default;
  CT_HD explicit e5m2(float f) : bits(detail::encode_small_float<5, 2>(f, 0x7b, 0x7e)) {}
  CT_HD explicit operator float() const { return detail::decode_small_float<5, 2>(bits, true); }
};

// tf32: an f32 whose mantissa is rounded to 10 bits (nearest, ties away from zero, as the GPU's
// cvt.rna.tf32.f32). Restricted like fp8: it exists to feed ct::mma with f32 data.
struct tf32 {
  float value = 0.0f;
  tf32() = default;
  CT_HD explicit tf32(float f) {
    std::uint32_t u = detail::float_bits(f);
    if ((u & 0x7f800000u) != 0x7f800000u) u = (u + 0x1000u) & 0xffffe000u;  // finite: round the 13 low bits
    value = detail::bits_float(u);
  }
  CT_HD explicit operator float() const { return value; }
};

// Restricted types: storage and conversion only.
template <class T>
inline constexpr bool is_restricted_v =
    std::is_same_v<T, e4m3> || std::is_same_v<T, e5m2> || std::is_same_v<T, tf32>;

template <class T>
inline constexpr bool is_half_v = std::is_same_v<T, bf16> || std::is_same_v<T, f16>;

// Types a tile may hold.
template <class T>
inline constexpr bool is_element_v =
    is_half_v<T> || is_restricted_v<T> || std::is_same_v<T, float> || std::is_same_v<T, double> ||
    std::is_same_v<T, bool> || (std::is_integral_v<T> && sizeof(T) <= 8);

template <class T>
inline constexpr bool is_floating_v = is_half_v<T> || is_restricted_v<T> || std::is_floating_point_v<T>;

// Types stored in a few bits and widened to f32 for any computation.
template <class T>
inline constexpr bool is_narrow_float_v = is_half_v<T> || is_restricted_v<T>;

// The type arithmetic on T is carried out in: halves (and conversions of fp8/tf32) use f32.
template <class T>
using compute_t = std::conditional_t<is_narrow_float_v<T>, float, T>;

namespace detail {
// x as an f32 rounded to odd (truncated, with the last bit set if anything was dropped). Rounding
// that once more to a format of at most 22 significant bits gives the correctly rounded value of
// x (Boldo & Melquiond), so f64 and wide integers reach the narrow floats in one rounding, not
// two (rounding to nearest f32 first can land exactly on a tie of the narrow format).
CT_HD inline float round_odd_float(double x) {
  const float f = static_cast<float>(x);
  if (!(f - f == 0) || static_cast<double>(f) == x) return f;  // NaN, infinite, or exact
  std::uint32_t u = float_bits(f);
  if ((u & 1u) == 0) u = (f < 0 ? -static_cast<double>(f) : static_cast<double>(f)) > (x < 0 ? -x : x) ? u - 1 : u + 1;
  return bits_float(u);
}
template <class I>
CT_HD inline float round_odd_float_int(I x) {
  using U = std::make_unsigned_t<I>;
  bool negative = false;
  U m = U(x);
  if constexpr (std::is_signed_v<I>) {
    negative = x < I(0);
    if (negative) m = U(U(0) - m);
  }
  int shift = 0;
  while ((m >> shift) >= (U(1) << 24)) ++shift;  // keep 24 significant bits
  U kept = m >> shift;
  if (shift > 0 && (m & ((U(1) << shift) - 1)) != 0) kept |= 1;  // sticky: anything dropped makes it odd
  const float f = ldexpf(static_cast<float>(kept), shift);
  return negative ? -f : f;
}
}  // namespace detail

// Conversion between element types, routed through f32 for the narrow floats (rounded to odd
// from f64 and 32- and 64-bit integers, so the result is rounded once).
template <class To, class From>
CT_HD inline To convert(From x) {
  if constexpr (std::is_same_v<To, From>) {
    return x;
  } else if constexpr (is_narrow_float_v<From>) {
    return convert<To>(static_cast<float>(x));
  } else if constexpr (is_narrow_float_v<To>) {
    if constexpr (std::is_same_v<From, double>) return To(detail::round_odd_float(x));
    else if constexpr (std::is_integral_v<From> && sizeof(From) >= 4) return To(detail::round_odd_float_int(x));
    else return To(static_cast<float>(x));
  } else {
    return static_cast<To>(x);
  }
}

template <class T>
constexpr const char* dtype_name() {
  if constexpr (std::is_same_v<T, bf16>) return "bf16";
  else if constexpr (std::is_same_v<T, f16>) return "f16";
  else if constexpr (std::is_same_v<T, e4m3>) return "e4m3";
  else if constexpr (std::is_same_v<T, e5m2>) return "e5m2";
  else if constexpr (std::is_same_v<T, tf32>) return "tf32";
  else if constexpr (std::is_same_v<T, float>) return "f32";
  else if constexpr (std::is_same_v<T, double>) return "f64";
  else if constexpr (std::is_same_v<T, bool>) return "bool";
  else if constexpr (std::is_same_v<T, std::int8_t>) return "int8";
  else if constexpr (std::is_same_v<T, std::int16_t>) return "int16";
  else if constexpr (std::is_same_v<T, std::int32_t>) return "int32";
  else if constexpr (std::is_same_v<T, std::int64_t>) return "int64";
  else if constexpr (std::is_same_v<T, std::uint8_t>) return "uint8";
  else if constexpr (std::is_same_v<T, std::uint16_t>) return "uint16";
  else if constexpr (std::is_same_v<T, std::uint32_t>) return "uint32";
  else if constexpr (std::is_same_v<T, std::uint64_t>) return "uint64";
  else return "unknown";
}

}  // namespace ct
