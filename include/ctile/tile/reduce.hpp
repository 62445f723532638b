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
// For floats the identity of max / min is NaN, not -inf / inf: NaN is ignored by the op, so it
// is neutral, and a line of NaNs then reduces to NaN (an infinite seed would win over them).
struct max_op {
  template <class C>
  CT_HD C operator()(C a, C b) const { return nan_ignoring_max(a, b); }
  template <class C>
  CT_HD static constexpr C identity() {
    if constexpr (std::numeric_limits<C>::has_quiet_NaN) return std::numeric_limits<C>::quiet_NaN();
    else return std::numeric_limits<C>::lowest();
  }
};
struct min_op {
  template <class C>
  CT_HD C operator()(C a, C b) const { return nan_ignoring_min(a, b); }
  template <class C>
  CT_HD static constexpr C identity() {
    if constexpr (std::numeric_limits<C>::has_quiet_NaN) return std::numeric_limits<C>::quiet_NaN();
    else return std::numeric_limits<C>::max();
  }
};

struct prod_op {
  template <class C>
  CT_HD C operator()(C a, C b) const { return a * b; }
  template <class C>
  CT_HD static constexpr C identity() { return C(1); }
};

template <int A, class S>
constexpr bool reduce_axis_check() {
  static_assert(A >= 0 && A < S::rank,
                "ct reduction: axis is out of range for the tile's rank (axes count from 0)");
  return true;
}

// Reduces x along A with `op` (associative, `identity` its neutral element). The result keeps
// x's layout as a slice; without Keep the axis is then dropped.
template <int A, bool Keep, class C, class S, class P, class Op>
CT_HD auto reduce_values(const tile<C, S, P>& x, Op op, C identity) {
  static_assert(reduce_axis_check<A, S>());
  auto kept = [&] {
    if constexpr (S::dim(A) == 1) {
      return x;
    } else if constexpr (backend::last_axis_fast_path<S, P>(A)) {
      return backend::reduce_last_axis(x, op);
    } else {
      return backend::reduce_via_arena<A>(x, op, identity);
    }
  }();
  if constexpr (Keep) {
    return kept;
  } else {
    return backend::reshape_exchange<typename drop_axis_shape<S, A>::type>(kept);
  }
}

// The built-in reductions compute in compute_t<T> (f32 for the halves) and return T.
template <class Op, int A, bool Keep, class T, class S, class P>
CT_HD auto reduce(const tile<T, S, P>& x) {
  using C = compute_t<T>;
  const auto xc = map<C>(x, [](T a) { return convert<C>(a); });
  return astype<T>(reduce_values<A, Keep>(xc, Op{}, Op::template identity<C>()));
}

// (value, index) pairs for argmax / argmin: ties resolve to the lowest index; NaNs are ignored
// unless every value is NaN (cuTile's default, propagate_nan=False).
template <class C>
struct indexed {
  C value;
  std::int32_t index;
};
}  // namespace detail
template <class C>
struct tile_value<detail::indexed<C>> : std::true_type {};
namespace detail {

template <bool Max>
struct arg_op {
  template <class C>
  CT_HD indexed<C> operator()(indexed<C> a, indexed<C> b) const {
    const bool an = a.value != a.value, bn = b.value != b.value;
    if (an || bn) return (bn && (!an || a.index < b.index)) ? a : b;
    const bool a_wins = Max ? a.value > b.value : a.value < b.value;
    const bool b_wins = Max ? b.value > a.value : b.value < a.value;
    return a_wins ? a : b_wins ? b : (a.index < b.index ? a : b);
  }
};

template <bool Max, int A, bool Keep, class T, class S, class P>
CT_HD auto arg_reduce(const tile<T, S, P>& x) {
  static_assert(reduce_axis_check<A, S>());
  using C = compute_t<T>;
  using I = indexed<C>;
  tile<I, S, P> pairs;
  CT_UNROLL
  for (int s = 0; s < P::slots; ++s)
    pairs.v[s] = I{convert<C>(x.v[s]), std::int32_t(tile<T, S, P>::coord_of(s)[A])};
  const C worst = Max ? max_op::identity<C>() : min_op::identity<C>();
  const auto r = reduce_values<A, Keep>(pairs, arg_op<Max>{}, I{worst, 0x7fffffff});
  return map<std::int32_t>(r, [](I p) { return p.index; });
}

}  // namespace detail

#define CT_DEFINE_REDUCTION(NAME, OP)                                                        \
  template <class X, int A, class... K, std::enable_if_t<!is_tile_v<X>, int> = 0>            \
  CT_HD void NAME(const X&, axis_t<A>, K...) {                                               \
    static_assert(detail::always_false<X>, "ct::" #NAME ": the argument is not a tile");     \
  }                                                                                          \
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
CT_DEFINE_REDUCTION(prod, prod_op)
#undef CT_DEFINE_REDUCTION

// Index (int32) of the first maximum / minimum along the axis.
template <class T, class S, class P, int A>
CT_HD auto argmax(const tile<T, S, P>& x, axis_t<A>) { return detail::arg_reduce<true, A, false>(x); }
template <class T, class S, class P, int A>
CT_HD auto argmax(const tile<T, S, P>& x, axis_t<A>, keepdims_t) { return detail::arg_reduce<true, A, true>(x); }
template <class T, class S, class P, int A>
CT_HD auto argmin(const tile<T, S, P>& x, axis_t<A>) { return detail::arg_reduce<false, A, false>(x); }
template <class T, class S, class P, int A>
CT_HD auto argmin(const tile<T, S, P>& x, axis_t<A>, keepdims_t) { return detail::arg_reduce<false, A, true>(x); }

// A custom reduction: `f(a, b)` must be associative with `identity` as its neutral element.
// It runs on the element type itself (convert halves with ct::astype<float> first).
template <class T, class S, class P, int A, class V, class F>
CT_HD auto reduce(const tile<T, S, P>& x, axis_t<A>, V identity, F f) {
  return detail::reduce_values<A, false>(x, f, convert<T>(identity));
}
template <class T, class S, class P, int A, class V, class F>
CT_HD auto reduce(const tile<T, S, P>& x, axis_t<A>, V identity, F f, keepdims_t) {
  return detail::reduce_values<A, true>(x, f, convert<T>(identity));
}

}  // namespace ct
