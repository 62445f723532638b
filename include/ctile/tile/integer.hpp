// Integer division rules and bitwise ops.
//   ct::floordiv, ct::mod   Python rules, like cuTile's // and %: round toward -inf; the
//                           remainder takes the divisor's sign. (floordiv also works on floats.)
//   ct::truncdiv, ct::rem   C rules: round toward zero; the remainder takes the dividend's sign.
//   ct::truediv             float result (f32 for integers), as cuTile's /.
//   ct::cdiv                ceil(x / y) for integers.
// Defined everywhere, identically on both backends: division by zero gives 0 (and x % 0 gives 0),
// INT_MIN / -1 wraps, shifts by a negative count or >= the bit width give 0 (or -1 for a right
// shift of a negative signed value) instead of the undefined behaviour of C++.
#pragma once
#include <limits>

#include "ctile/tile/operators.hpp"

namespace ct {

namespace detail {

template <class T>
constexpr bool integer_check() {
  static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>,
                "ct: this integer op needs an integer tile (use the float ops for floats)");
  return true;
}

template <class T>
CT_HD T trunc_div(T x, T y) {
  if (y == 0) return T(0);
  if constexpr (std::is_signed_v<T>) {
    using U = std::make_unsigned_t<T>;
    if (y == T(-1)) return T(U(0) - U(x));  // wraps for the minimum value instead of trapping
  }
  return T(x / y);
}
template <class T>
CT_HD T trunc_rem(T x, T y) {
  if (y == 0) return T(0);
  if constexpr (std::is_signed_v<T>) {
    if (y == T(-1)) return T(0);
  }
  return T(x % y);
}
template <class T>
CT_HD T floor_div(T x, T y) {
  const T q = trunc_div(x, y);
  if constexpr (std::is_signed_v<T>) {
    if (y != 0 && trunc_rem(x, y) != 0 && ((x < 0) != (y < 0))) return T(q - 1);
  }
  return q;
}
template <class T>
CT_HD T floor_mod(T x, T y) {
  const T r = trunc_rem(x, y);
  if constexpr (std::is_signed_v<T>) {
    if (r != 0 && ((r < 0) != (y < 0))) return T(r + y);
  }
  return r;
}

// x < 0, spelled so that unsigned T compiles without nvcc's "pointless comparison" warning.
template <class T>
CT_HD constexpr bool negative(T x) {
  if constexpr (std::is_signed_v<T>) return x < T(0);
  else return false;
}
template <class T>
CT_HD T shift_left(T x, T n) {
  constexpr int bits = int(sizeof(T) * 8);
  if (negative(n) || n >= T(bits)) return T(0);
  return T(std::make_unsigned_t<T>(x) << int(n));
}
template <class T>
CT_HD T shift_right(T x, T n) {
  constexpr int bits = int(sizeof(T) * 8);
  if (negative(n) || n >= T(bits)) return negative(x) ? T(-1) : T(0);
  return T(x >> int(n));
}

// A binary integer op under the rules above.
template <class A, class B, class F>
CT_HD auto integer_binary(const A& a, const B& b, F f) {
  using T = typename operand_type<A, B>::type;
  static_assert(integer_check<T>());
  return binary<void>(a, b, [f](T x, T y) { return f(x, y); });
}

}  // namespace detail

#define CT_DEFINE_INTEGER_OP(NAME, FN)                                                 \
  template <class A, class B, std::enable_if_t<detail::tile_operands_v<A, B>, int> = 0> \
  CT_HD auto NAME(const A& a, const B& b) {                                             \
    return detail::integer_binary(a, b, [](auto x, auto y) { return detail::FN(x, y); }); \
  }
CT_DEFINE_INTEGER_OP(truncdiv, trunc_div)
CT_DEFINE_INTEGER_OP(rem, trunc_rem)
CT_DEFINE_INTEGER_OP(mod, floor_mod)
CT_DEFINE_INTEGER_OP(operator<<, shift_left)
CT_DEFINE_INTEGER_OP(operator>>, shift_right)
#undef CT_DEFINE_INTEGER_OP

// Python's //: integers round toward -inf; floats give floor(x / y).
template <class A, class B, std::enable_if_t<detail::tile_operands_v<A, B>, int> = 0>
CT_HD auto floordiv(const A& a, const B& b) {
  using T = typename detail::operand_type<A, B>::type;
  if constexpr (is_floating_v<T>) {
    return detail::binary<void>(a, b, [](auto x, auto y) { return std::floor(x / y); });
  } else {
    return detail::integer_binary(a, b, [](auto x, auto y) { return detail::floor_div(x, y); });
  }
}

// ceil(x / y) for integer tiles (cdiv(x, 0) = 0).
template <class A, class B, std::enable_if_t<detail::tile_operands_v<A, B>, int> = 0>
CT_HD auto cdiv(const A& a, const B& b) {
  return detail::integer_binary(a, b, [](auto x, auto y) {
    using T = decltype(x);
    const T q = detail::trunc_div(x, y), r = detail::trunc_rem(x, y);
    return (r != T(0) && ((r > T(0)) == (y > T(0)))) ? T(q + 1) : q;
  });
}

// (floordiv(x, y), mod(x, y)) for integer tiles, as Python's divmod.
template <class A, class B, std::enable_if_t<detail::tile_operands_v<A, B>, int> = 0>
CT_HD auto divmod(const A& a, const B& b) {
  struct result {
    decltype(floordiv(a, b)) quotient;
    decltype(mod(a, b)) remainder;
  };
  return result{floordiv(a, b), mod(a, b)};
}

// True division with a float result: integers divide in f32, as cuTile's `/`.
template <class A, class B, std::enable_if_t<detail::tile_operands_v<A, B>, int> = 0>
CT_HD auto truediv(const A& a, const B& b) {
  using T = typename detail::operand_type<A, B>::type;
  if constexpr (is_floating_v<T>) {
    return a / b;
  } else {
    return detail::binary<float>(a, b, [](auto x, auto y) { return float(x) / float(y); });
  }
}

// Bitwise and, or, xor on integer or bool tiles (on bool tiles: logical and, or, xor).
#define CT_DEFINE_BITWISE(SYM)                                                                    \
  template <class A, class B, std::enable_if_t<detail::tile_operands_v<A, B>, int> = 0>            \
  CT_HD auto operator SYM(const A& a, const B& b) {                                                \
    using T = typename detail::operand_type<A, B>::type;                                          \
    static_assert(std::is_integral_v<T>, "ct: bitwise ops need integer or bool tiles");            \
    return detail::binary<void>(a, b, [](auto x, auto y) { return decltype(x)(x SYM y); });        \
  }
CT_DEFINE_BITWISE(&)
CT_DEFINE_BITWISE(|)
CT_DEFINE_BITWISE(^)
#undef CT_DEFINE_BITWISE

// Bitwise not; on bool tiles, logical not.
template <class T, class S, class P>
CT_HD tile<T, S, P> operator~(const tile<T, S, P>& x) {
  static_assert(std::is_integral_v<T>, "ct: '~' needs an integer or bool tile");
  return detail::map<T>(x, [](T a) {
    if constexpr (std::is_same_v<T, bool>) return !a;
    else return T(~a);
  });
}
template <class S, class P>
CT_HD tile<bool, S, P> operator!(const tile<bool, S, P>& x) {
  return ~x;
}

}  // namespace ct
