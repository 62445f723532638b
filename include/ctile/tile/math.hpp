// Math functions on float tiles (computed in f32 for f16/bf16, rounded back).
#pragma once
#include <cmath>

#include "ctile/tile/zip.hpp"

namespace ct {

// ---- Math -------------------------------------------------------------------------------------

namespace detail {
template <class T>
constexpr bool float_math_check(const char*) {
  static_assert(is_floating_v<T>, "ct: this math function needs a floating-point tile; convert "
                                  "integer tiles with ct::astype<float>(x)");
  static_assert(arithmetic_type_check<T>());
  return true;
}
}  // namespace detail

#define CT_DEFINE_FLOAT_UNARY(NAME, EXPR)                                                    \
  template <class T, class S, class P>                                                       \
  CT_HD tile<T, S, P> NAME(const tile<T, S, P>& x) {                                         \
    static_assert(detail::float_math_check<T>(#NAME));                                       \
    return detail::map<T>(x, detail::lift<T>([](auto a) { return EXPR; }));                  \
  }                                                                                          \
  template <class X, std::enable_if_t<!is_tile_v<X>, int> = 0>                               \
  CT_HD void NAME(const X&) {                                                                \
    static_assert(detail::always_false<X>, "ct::" #NAME ": the argument is not a tile; ct ops " \
                                           "take tiles (use std::" #NAME " for scalars)");   \
  }
CT_DEFINE_FLOAT_UNARY(exp, std::exp(a))
CT_DEFINE_FLOAT_UNARY(exp2, std::exp2(a))
CT_DEFINE_FLOAT_UNARY(log, std::log(a))
CT_DEFINE_FLOAT_UNARY(log2, std::log2(a))
CT_DEFINE_FLOAT_UNARY(sqrt, std::sqrt(a))
CT_DEFINE_FLOAT_UNARY(rsqrt, decltype(a)(1) / std::sqrt(a))
CT_DEFINE_FLOAT_UNARY(tanh, std::tanh(a))
CT_DEFINE_FLOAT_UNARY(sin, std::sin(a))
CT_DEFINE_FLOAT_UNARY(cos, std::cos(a))
CT_DEFINE_FLOAT_UNARY(floor, std::floor(a))
CT_DEFINE_FLOAT_UNARY(tan, std::tan(a))
CT_DEFINE_FLOAT_UNARY(sinh, std::sinh(a))
CT_DEFINE_FLOAT_UNARY(cosh, std::cosh(a))
CT_DEFINE_FLOAT_UNARY(ceil, std::ceil(a))
#undef CT_DEFINE_FLOAT_UNARY

// ct::approx as the last argument of exp, exp2 or truediv (cuTile's RoundingMode.APPROX): on the
// GPU, the special-function unit's approximations (ex2.approx, div.approx) in f32, several times
// fewer instructions than the accurate functions. Errors in f32: exp2 2 ulps; exp 8 ulps for
// |x| <= 8 (the scaling by log2(e) adds |x| ulps or so beyond); division 2 ulps for divisors of
// magnitude in [2^-126, 2^126] (larger ones give 0). That is far below one rounding of a bf16
// or f16 result, which is what the bandwidth-bound kernels store. NaN and infinities behave as
// in the accurate functions; the exponentials flush subnormal inputs and results to zero. f64
// tiles, and the CPU backend, compute accurately.
struct approx_t {};
inline constexpr approx_t approx{};

namespace detail {
CT_HD inline float exp2_approx(float a) {
#if defined(__CUDA_ARCH__)
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(a));
  return r;
#else
  return std::exp2(a);
#endif
}
CT_HD inline float div_approx(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fdividef(a, b);
#else
  return a / b;
#endif
}
template <class C>
CT_HD C exp_approx(C a) {
  if constexpr (std::is_same_v<C, float>) return exp2_approx(a * 1.44269504088896341f);
  else return std::exp(a);
}
template <class C>
CT_HD C exp2_approx_of(C a) {
  if constexpr (std::is_same_v<C, float>) return exp2_approx(a);
  else return std::exp2(a);
}
}  // namespace detail

template <class T, class S, class P>
CT_HD tile<T, S, P> exp(const tile<T, S, P>& x, approx_t) {
  static_assert(detail::float_math_check<T>("exp"));
  return detail::map<T>(x, detail::lift<T>([](auto a) { return detail::exp_approx(a); }));
}
template <class T, class S, class P>
CT_HD tile<T, S, P> exp2(const tile<T, S, P>& x, approx_t) {
  static_assert(detail::float_math_check<T>("exp2"));
  return detail::map<T>(x, detail::lift<T>([](auto a) { return detail::exp2_approx_of(a); }));
}
// True division of float tiles (ct::truediv(a, b) is a / b there), approximately.
template <class A, class B, std::enable_if_t<detail::tile_operands_v<A, B>, int> = 0>
CT_HD auto truediv(const A& a, const B& b, approx_t) {
  static_assert(is_floating_v<typename detail::operand_type<A, B>::type>,
                "ct::truediv(a, b, ct::approx): the operands must be float tiles (or a float tile and a scalar)");
  return detail::binary<void>(a, b, [](auto x, auto y) {
    if constexpr (std::is_same_v<decltype(x), float>) return detail::div_approx(x, y);
    else return x / y;
  });
}

template <class T, class S, class P>
CT_HD tile<T, S, P> abs(const tile<T, S, P>& x) {
  // Unsigned values are their own magnitude (and `a < 0` on them is an nvcc warning).
  if constexpr (std::is_unsigned_v<T>) return x;
  else return detail::map<T>(x, detail::lift<T>([](auto a) { return a < decltype(a)(0) ? -a : a; }));
}

// Binary float math with broadcasting: pow(x, y), atan2(y, x).
#define CT_DEFINE_FLOAT_BINARY(NAME, EXPR)                                                      \
  template <class A, class B, std::enable_if_t<detail::tile_operands_v<A, B>, int> = 0>          \
  CT_HD auto NAME(const A& a, const B& b) {                                                      \
    static_assert(detail::float_math_check<typename detail::operand_type<A, B>::type>(#NAME));   \
    return detail::binary<void>(a, b, [](auto x, auto y) { return EXPR; });                      \
  }
CT_DEFINE_FLOAT_BINARY(pow, std::pow(x, y))
CT_DEFINE_FLOAT_BINARY(atan2, std::atan2(x, y))
#undef CT_DEFINE_FLOAT_BINARY

// x * y + z with one rounding (computed in f32 for the halves, then rounded once more).
template <class X, class Y, class Z>
CT_HD auto fma(const X& x, const Y& y, const Z& z) {
  using T = typename detail::operand_type<X, typename detail::operand_type<Y, Z>::type>::type;
  static_assert(detail::float_math_check<T>("fma"));
  using C = compute_t<T>;
  return detail::zip<T>([](T a, T b, T c) { return convert<T>(std::fma(convert<C>(a), convert<C>(b), convert<C>(c))); },
                        detail::as_tile_of<X, T>(x), detail::as_tile_of<Y, T>(y), detail::as_tile_of<Z, T>(z));
}

// True where x is NaN.
template <class T, class S, class P>
CT_HD tile<bool, S, P> isnan(const tile<T, S, P>& x) {
  static_assert(detail::float_math_check<T>("isnan"));
  return detail::map<bool>(x, [](T a) {
    const auto c = convert<compute_t<T>>(a);
    return c != c;
  });
}

}  // namespace ct
