// Scans along an axis: ct::cumsum, ct::cumprod and ct::scan (custom op), inclusive, forward or
// with ct::reverse. The backend scans the last axis of the natural layout; other axes and the
// reverse direction are permutations (through the arena) around it.
#pragma once
#include "ctile/backend/scan.hpp"
#include "ctile/tile/reduce.hpp"
#include "ctile/tile/shape_ops.hpp"

namespace ct {

struct reverse_t {};
inline constexpr reverse_t reverse{};

namespace detail {

// The permutation that swaps axis A with the last axis (its own inverse).
template <int Rank, int A>
struct swap_last {
  template <int... I>
  static auto make(std::integer_sequence<int, I...>)
      -> axes_t<(I == A ? Rank - 1 : I == Rank - 1 ? A : I)...>;
  using type = decltype(make(std::make_integer_sequence<int, Rank>{}));
};

template <int A, class T, class S, class P>
CT_HD tile<T, S> flip(const tile<T, S, P>& x) {
  return backend::exchange<S, backend::natural_layout<T, S>>(x, [](coord<S::rank> c) {
    c[A] = S::dim(A) - 1 - c[A];
    return detail::flatten<S>(c);
  });
}

template <int A, bool Reverse, class C, class S, class P, class Op>
CT_HD auto scan_values(const tile<C, S, P>& x, Op op, C identity) {
  static_assert(A >= 0 && A < S::rank, "ct scan: axis is out of range for the tile's rank (axes count from 0)");
  if constexpr (Reverse) {
    return flip<A>(scan_values<A, false>(flip<A>(x), op, identity));
  } else if constexpr (A == S::rank - 1) {
    return backend::scan_last_axis(backend::relayout<backend::natural_layout<C, S>>(x), op, identity);
  } else {
    constexpr auto swap = typename swap_last<S::rank, A>::type{};
    return permute(scan_values<S::rank - 1, false>(permute(x, swap), op, identity), swap);
  }
}

template <class Op, int A, bool Reverse, class T, class S, class P>
CT_HD auto builtin_scan(const tile<T, S, P>& x) {
  using C = compute_t<T>;
  const auto xc = map<C>(x, [](T a) { return convert<C>(a); });
  return astype<T>(scan_values<A, Reverse>(xc, Op{}, Op::template identity<C>()));
}

}  // namespace detail

#define CT_DEFINE_SCAN(NAME, OP)                                                              \
  template <class T, class S, class P, int A>                                                 \
  CT_HD auto NAME(const tile<T, S, P>& x, axis_t<A>) {                                        \
    return detail::builtin_scan<detail::OP, A, false>(x);                                     \
  }                                                                                           \
  template <class T, class S, class P, int A>                                                 \
  CT_HD auto NAME(const tile<T, S, P>& x, axis_t<A>, reverse_t) {                             \
    return detail::builtin_scan<detail::OP, A, true>(x);                                      \
  }
CT_DEFINE_SCAN(cumsum, sum_op)
CT_DEFINE_SCAN(cumprod, prod_op)
#undef CT_DEFINE_SCAN

// A custom inclusive scan: `f(earlier, later)` must be associative with `identity` neutral.
template <class T, class S, class P, int A, class V, class F>
CT_HD auto scan(const tile<T, S, P>& x, axis_t<A>, V identity, F f) {
  return detail::scan_values<A, false>(x, f, convert<T>(identity));
}
template <class T, class S, class P, int A, class V, class F>
CT_HD auto scan(const tile<T, S, P>& x, axis_t<A>, V identity, F f, reverse_t) {
  return detail::scan_values<A, true>(x, f, convert<T>(identity));
}

}  // namespace ct
