// Static tile shapes and the compile-time arithmetic on them (sizes, broadcasting, flat indices).
#pragma once
#include <cstdint>
#include <type_traits>
#include <utility>

#include "ctile/core/config.hpp"

namespace ct {

using index_t = std::int64_t;

template <int... D>
struct shape {
  static constexpr int rank = sizeof...(D);
  static constexpr index_t size = (index_t(1) * ... * index_t(D));
  // No array member: device code cannot index a host constexpr array at run time.
  CT_HD static constexpr int dim(int i) {
    int r = 1, k = 0;
    ((r = (k++ == i ? D : r)), ...);
    return r;
  }
};

template <class S>
struct is_shape : std::false_type {};
template <int... D>
struct is_shape<shape<D...>> : std::true_type {};

// A small fixed-size coordinate usable in device code (std::array is not, without flags).
template <int R>
struct coord {
  index_t v[R == 0 ? 1 : R] = {};
  CT_HD constexpr index_t& operator[](int i) { return v[i]; }
  CT_HD constexpr index_t operator[](int i) const { return v[i]; }
  template <std::size_t I>
  CT_HD constexpr index_t get() const { return v[I]; }
};

namespace detail {

constexpr bool is_pow2(long long x) { return x > 0 && (x & (x - 1)) == 0; }

template <int... D>
constexpr bool legal_tile_dims() { return (true && ... && is_pow2(D)); }

// Row-major flat index <-> coordinate within a static shape.
template <class S>
CT_HD constexpr coord<S::rank> unflatten(index_t f) {
  coord<S::rank> c;
  for (int i = S::rank - 1; i >= 0; --i) {
    c[i] = f % S::dim(i);
    f /= S::dim(i);
  }
  return c;
}
template <class S>
CT_HD constexpr index_t flatten(const coord<S::rank>& c) {
  index_t f = 0;
  for (int i = 0; i < S::rank; ++i) f = f * S::dim(i) + c[i];
  return f;
}

// NumPy broadcasting of two shapes: right-aligned; each dim pair equal or one of them 1.
template <class A, class B>
struct broadcast_shape {
  static constexpr int rank = A::rank > B::rank ? A::rank : B::rank;
  static constexpr int dim_a(int i) { return i < rank - A::rank ? 1 : A::dim(i - (rank - A::rank)); }
  static constexpr int dim_b(int i) { return i < rank - B::rank ? 1 : B::dim(i - (rank - B::rank)); }
  static constexpr bool ok() {
    for (int i = 0; i < rank; ++i)
      if (dim_a(i) != dim_b(i) && dim_a(i) != 1 && dim_b(i) != 1) return false;
    return true;
  }
  static constexpr int out_dim(int i) { return dim_a(i) == 1 ? dim_b(i) : dim_a(i); }
  template <int... I>
  static auto make(std::integer_sequence<int, I...>) -> shape<out_dim(I)...>;
  using type = decltype(make(std::make_integer_sequence<int, rank>{}));
};

// Whether `From` broadcasts to `To` (NumPy rules, `To` fixed).
template <class From, class To>
constexpr bool broadcasts_to() {
  if (From::rank > To::rank) return false;
  for (int i = 0; i < From::rank; ++i) {
    int f = From::dim(i), t = To::dim(i + To::rank - From::rank);
    if (f != t && f != 1) return false;
  }
  return true;
}

// Shape S with axis A set to 1 (the shape of a reduction along A that keeps dims).
template <class S, int A>
struct keep_dims_shape {
  template <int... I>
  static auto make(std::integer_sequence<int, I...>) -> shape<(I == A ? 1 : S::dim(I))...>;
  using type = decltype(make(std::make_integer_sequence<int, S::rank>{}));
};

}  // namespace detail
}  // namespace ct

namespace std {
template <int R>
struct tuple_size<ct::coord<R>> : std::integral_constant<std::size_t, R> {};
template <std::size_t I, int R>
struct tuple_element<I, ct::coord<R>> {
  using type = ct::index_t;
};
}  // namespace std
