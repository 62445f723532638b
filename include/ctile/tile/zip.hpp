// The machinery under every elementwise op: broadcasting operands to a common shape and layout
// (tile/zip.hpp's `zip`), slot-wise maps, and the type rules for mixing operands.
#pragma once
#include <cmath>

#include "ctile/backend/exchange.hpp"

namespace ct {

namespace detail {

// The parent layout an op's result uses: the first operand whose layout already covers the
// result shape keeps its elements where they are; otherwise all operands move to the natural
// layout of the result.
template <class R, class S, class... Tiles>
struct common_layout {
  using type = backend::natural_layout<R, S>;
};
template <class R, class S, class First, class... Rest>
struct common_layout<R, S, First, Rest...> {
  using P = typename First::layout_type;
  using type = std::conditional_t<std::is_same_v<typename P::shape_type, S>, P,
                                  typename common_layout<R, S, Rest...>::type>;
};

template <class A, class B>
constexpr bool same_element_check() {
  static_assert(std::is_same_v<A, B>,
                "ct: elementwise operands have different element types (for example f16 with "
                "bf16, or int32 with uint32); convert one with ct::astype<T>(x) first");
  return true;
}

template <class SA, class SB>
constexpr bool broadcast_check() {
  static_assert(broadcast_shape<SA, SB>::ok(),
                "ct: elementwise operand shapes do not broadcast (NumPy rules: right-aligned, "
                "each dim equal or 1); use ct::reshape or ct::broadcast_to to make them agree");
  return true;
}

template <class X>
using elem_t = typename std::remove_cvref_t<X>::element_type;

template <class... Tiles>
struct common_shape;
template <class T>
struct common_shape<T> {
  using type = typename T::shape_type;
};
template <class A, class B, class... Rest>
struct common_shape<A, B, Rest...> {
  static_assert(broadcast_check<typename A::shape_type, typename B::shape_type>());
  using AB = typename broadcast_shape<typename A::shape_type, typename B::shape_type>::type;
  using type = typename common_shape<tile<bool, AB>, Rest...>::type;
};

template <class Out, class F, class... Aligned>
CT_HD void zip_into(Out& r, F f, const Aligned&... xs) {
  CT_UNROLL
  for (int s = 0; s < Out::slots; ++s) r.v[s] = f(xs.v[s]...);
}

// Applies f slot by slot to tiles after broadcasting them to a common shape and layout.
template <class R, class F, class... Tiles>
CT_HD auto zip(F f, const Tiles&... xs) {
  using S = typename common_shape<Tiles...>::type;
  using P = typename common_layout<R, S, Tiles...>::type;
  tile<R, S, P> r;
  zip_into(r, f, backend::align_to<S, P>(xs)...);
  return r;
}

template <class R, class F, class T, class S, class P>
CT_HD tile<R, S, P> map(const tile<T, S, P>& x, F f) {
  tile<R, S, P> r;
  CT_UNROLL
  for (int s = 0; s < P::slots; ++s) r.v[s] = f(x.v[s]);
  return r;
}

// Lifts an op on compute types (f32 for the halves) to element types.
template <class T, class Op>
struct lifted {
  Op op;
  template <class... X>
  CT_HD T operator()(X... x) const {
    return convert<T>(op(convert<compute_t<T>>(x)...));
  }
};
template <class T, class Op>
CT_HD lifted<T, Op> lift(Op op) {
  return {op};
}

template <class T, class Scalar>
CT_HD tile<T, shape<>> scalar_tile(Scalar s) {
  static_assert(std::is_arithmetic_v<Scalar> || is_half_v<Scalar>,
                "ct: a non-tile operand of a tile op must be an arithmetic scalar");
  tile<T, shape<>> t;
  CT_UNROLL
  for (int i = 0; i < tile<T, shape<>>::slots; ++i) t.v[i] = convert<T>(s);
  return t;
}

template <class X, class T>
CT_HD decltype(auto) as_tile_of(const X& x) {
  if constexpr (is_tile_v<X>) {
    return x;
  } else {
    return scalar_tile<T>(x);
  }
}

template <class A, class B>
struct operand_type {
  using type = std::conditional_t<is_tile_v<A>, elem_t<std::conditional_t<is_tile_v<A>, A, B>>,
                                  elem_t<std::conditional_t<is_tile_v<B>, B, A>>>;
};

template <class A, class B>
inline constexpr bool tile_operands_v = (is_tile_v<A> || is_tile_v<B>);

// A binary op on tiles or a tile and a scalar; `R` is the result element type or void (= T).
template <class T>
constexpr bool arithmetic_type_check() {
  static_assert(!is_restricted_v<T>,
                "ct: tf32 and fp8 tiles have no arithmetic (they convert, load, store and feed "
                "ct::mma); convert with ct::astype<float>(x) first");
  return true;
}

template <class R, class A, class B, class Op>
CT_HD auto binary(const A& a, const B& b, Op op) {
  using T = typename operand_type<A, B>::type;
  static_assert(arithmetic_type_check<T>());
  if constexpr (is_tile_v<A> && is_tile_v<B>) static_assert(same_element_check<elem_t<A>, elem_t<B>>());
  using Out = std::conditional_t<std::is_void_v<R>, T, R>;
  const auto& ta = as_tile_of<A, T>(a);
  const auto& tb = as_tile_of<B, T>(b);
  return zip<Out>(
      [op](T x, T y) {
        using C = compute_t<T>;
        return convert<Out>(op(convert<C>(x), convert<C>(y)));
      },
      ta, tb);
}

}  // namespace detail

}  // namespace ct
