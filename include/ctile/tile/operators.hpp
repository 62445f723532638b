// Arithmetic and comparison operators on tiles, with NumPy broadcasting; maximum, minimum, where.
// Operands share an element type (f16 with bf16, or signed with unsigned, needs ct::astype).
#pragma once
#include "ctile/tile/zip.hpp"

namespace ct {

// ---- Arithmetic and comparison operators ------------------------------------------------------

#define CT_DEFINE_BINARY_OPERATOR(SYM, RESULT)                                                   \
  template <class A, class B, std::enable_if_t<detail::tile_operands_v<A, B>, int> = 0>          \
  CT_HD auto operator SYM(const A& a, const B& b) {                                              \
    return detail::binary<RESULT>(a, b, [](auto x, auto y) { return x SYM y; });                  \
  }
CT_DEFINE_BINARY_OPERATOR(+, void)
CT_DEFINE_BINARY_OPERATOR(-, void)
CT_DEFINE_BINARY_OPERATOR(*, void)
CT_DEFINE_BINARY_OPERATOR(<, bool)
CT_DEFINE_BINARY_OPERATOR(<=, bool)
CT_DEFINE_BINARY_OPERATOR(>, bool)
CT_DEFINE_BINARY_OPERATOR(>=, bool)
CT_DEFINE_BINARY_OPERATOR(==, bool)
CT_DEFINE_BINARY_OPERATOR(!=, bool)
#undef CT_DEFINE_BINARY_OPERATOR

// `/` is true division on float tiles. On integer tiles C and Python (cuTile) disagree on
// rounding, so `/` and `%` are not defined there: say ct::floordiv / ct::mod (Python rules, as
// cuTile's // and %) or ct::truncdiv / ct::rem (C rules). See tile/integer.hpp.
template <class A, class B, std::enable_if_t<detail::tile_operands_v<A, B>, int> = 0>
CT_HD auto operator/(const A& a, const B& b) {
  static_assert(is_floating_v<typename detail::operand_type<A, B>::type>,
                "ct: '/' on integer tiles is ambiguous; use ct::floordiv or ct::mod (Python rules, like "
                "cuTile's // and %), ct::truncdiv or ct::rem (C rules), or ct::truediv for a float result");
  return detail::binary<void>(a, b, [](auto x, auto y) { return x / y; });
}

template <class T, class S, class P>
CT_HD tile<T, S, P> operator-(const tile<T, S, P>& x) {
  return detail::map<T>(x, detail::lift<T>([](auto a) { return -a; }));
}

namespace detail {
// max / min under cuTile's NaN rule: a NaN operand is ignored unless both are NaN. That is IEEE
// maxNum / minNum, which f32 and f64 have as fmax / fmin: one FMNMX on the GPU, where the
// compare-and-select below takes three (row_max ran 0.73 of the copy ceiling to row_sum's 0.88
// on the H200 with it; with fmaxf 0.98 on an H100, where it had read 0.94). Other types (the
// integers, 16-bit storage) keep the compare.
template <class C>
CT_HD C nan_ignoring_max(C a, C b) {
  if constexpr (std::is_same_v<C, float>) return fmaxf(a, b);
  else if constexpr (std::is_same_v<C, double>) return fmax(a, b);
  else return (a > b || b != b) ? a : b;
}
template <class C>
CT_HD C nan_ignoring_min(C a, C b) {
  if constexpr (std::is_same_v<C, float>) return fminf(a, b);
  else if constexpr (std::is_same_v<C, double>) return fmin(a, b);
  else return (a < b || b != b) ? a : b;
}
}  // namespace detail

// Elementwise maximum / minimum; a NaN operand is ignored unless both are NaN (cuTile's default).
template <class A, class B, std::enable_if_t<detail::tile_operands_v<A, B>, int> = 0>
CT_HD auto maximum(const A& a, const B& b) {
  return detail::binary<void>(a, b, [](auto x, auto y) { return detail::nan_ignoring_max(x, y); });
}
template <class A, class B, std::enable_if_t<detail::tile_operands_v<A, B>, int> = 0>
CT_HD auto minimum(const A& a, const B& b) {
  return detail::binary<void>(a, b, [](auto x, auto y) { return detail::nan_ignoring_min(x, y); });
}

// where(cond, x, y): x where cond is true, else y; all three broadcast together.
template <class SC, class PC, class X, class Y>
CT_HD auto where(const tile<bool, SC, PC>& cond, const X& x, const Y& y) {
  using T = typename detail::operand_type<X, Y>::type;
  if constexpr (is_tile_v<X> && is_tile_v<Y>) static_assert(detail::same_element_check<detail::elem_t<X>, detail::elem_t<Y>>());
  const auto& tx = detail::as_tile_of<X, T>(x);
  const auto& ty = detail::as_tile_of<Y, T>(y);
  return detail::zip<T>([](bool c, T a, T b) { return c ? a : b; }, cond, tx, ty);
}

}  // namespace ct
