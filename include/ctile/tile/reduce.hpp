// Reductions along an axis: ct::sum, ct::max, ct::min. The axis is a compile-time constant
// (ct::axis<1>); the result drops that axis, as in cuTile, unless ct::keepdims is passed, which
// keeps it as 1 so the result broadcasts back against its input for free.
#pragma once
#include <limits>

#include "ctile/backend/reduce.hpp"
#include "ctile/tile/elementwise.hpp"

namespace ct {

template <int A>
struct axis_t {
  static constexpr int value = A;
};
template <int A>
inline constexpr axis_t<A> axis{};

struct keepdims_t {};
inline constexpr keepdims_t keepdims{};

namespace detail {

template <class S, int A>
struct drop_axis_shape {
  template <int... I>
  static auto make(std::integer_sequence<int, I...>) -> shape<S::dim(I < A ? I : I + 1)...>;
  using type = decltype(make(std::make_integer_sequence<int, S::rank - 1>{}));
};

struct sum_op {
  template <class C>
  CT_HD C operator()(C a, C b) const { return a + b; }
  template <class C>
  CT_HD static constexpr C identity() { return C(0); }
};
struct max_op {
  template <class C>
  CT_HD C operator()(C a, C b) const { return (a > b || a != a) ? a : b; }
  template <class C>
  CT_HD static constexpr C identity() {
    if constexpr (std::numeric_limits<C>::has_infinity) return -std::numeric_limits<C>::infinity();
    else return std::numeric_limits<C>::lowest();
  }
};
struct min_op {
  template <class C>
  CT_HD C operator()(C a, C b) const { return (a < b || a != a) ? a : b; }
  template <class C>
  CT_HD static constexpr C identity() {
    if constexpr (std::numeric_limits<C>::has_infinity) return std::numeric_limits<C>::infinity();
    else return std::numeric_limits<C>::max();
  }
};

template <class Op, int A, bool Keep, class T, class S, class P>
CT_HD auto reduce(const tile<T, S, P>& x) {
  static_assert(A >= 0 && A < S::rank,
                "ct reduction: axis is out of range for the tile's rank (axes count from 0)");
  using C = compute_t<T>;
  const auto xc = map<C>(x, [](T a) { return convert<C>(a); });
  auto kept = [&] {
    if constexpr (S::dim(A) == 1) {
      return xc;
    } else if constexpr (backend::last_axis_fast_path<S, P>(A)) {
      return backend::reduce_last_axis(xc, Op{});
    } else {
      return backend::reduce_via_arena<A>(xc, Op{}, Op::template identity<C>());
    }
  }();
  const auto r = astype<T>(kept);
  if constexpr (Keep) {
    return r;
  } else {
    return backend::reshape_exchange<typename drop_axis_shape<S, A>::type>(r);
  }
}

}  // namespace detail

#define CT_DEFINE_REDUCTION(NAME, OP)                                                        \
  template <class T, class S, class P, int A>                                                \
  CT_HD auto NAME(const tile<T, S, P>& x, axis_t<A>) {                                       \
    return detail::reduce<detail::OP, A, false>(x);                                          \
  }                                                                                          \
  template <class T, class S, class P, int A>                                                \
  CT_HD auto NAME(const tile<T, S, P>& x, axis_t<A>, keepdims_t) {                           \
    return detail::reduce<detail::OP, A, true>(x);                                           \
  }
CT_DEFINE_REDUCTION(sum, sum_op)
CT_DEFINE_REDUCTION(max, max_op)
CT_DEFINE_REDUCTION(min, min_op)
#undef CT_DEFINE_REDUCTION

}  // namespace ct
