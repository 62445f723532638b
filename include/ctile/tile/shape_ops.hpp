// Shape ops: reshape, expand_dims, broadcast_to, permute, transpose, cat, extract, arange.
// Shapes and axes are compile-time values (ct::shape<...>{}, ct::axis<A>, ct::axes<...>), so
// every rule (element count, axis range, matching extents) is checked by the compiler.
#pragma once
#include <cstdint>
#include <cstring>

#include "ctile/tile/elementwise.hpp"
#include "ctile/tile/reduce.hpp"

namespace ct {

template <int... A>
struct axes_t {
  static constexpr int rank = sizeof...(A);
  CT_HD static constexpr int at(int i) {
    int r = 0, k = 0;
    ((r = (k++ == i ? A : r)), ...);
    return r;
  }
};
template <int... A>
inline constexpr axes_t<A...> axes{};

namespace detail {

template <class S, int A>
struct insert_axis_shape {
  template <int... I>
  static auto make(std::integer_sequence<int, I...>) -> shape<(I < A ? S::dim(I) : I == A ? 1 : S::dim(I - 1))...>;
  using type = decltype(make(std::make_integer_sequence<int, S::rank + 1>{}));
};

template <class S, class Axes>
struct permuted_shape {
  template <int... I>
  static auto make(std::integer_sequence<int, I...>) -> shape<S::dim(Axes::at(I))...>;
  using type = decltype(make(std::make_integer_sequence<int, S::rank>{}));
};

template <class S, int A, int Times>
struct scaled_axis_shape {
  template <int... I>
  static auto make(std::integer_sequence<int, I...>) -> shape<(I == A ? S::dim(I) * Times : S::dim(I))...>;
  using type = decltype(make(std::make_integer_sequence<int, S::rank>{}));
};

template <int Rank, class Axes>
constexpr bool valid_permutation() {
  if (Axes::rank != Rank) return false;
  bool seen[Rank == 0 ? 1 : Rank] = {};
  for (int i = 0; i < Rank; ++i) {
    const int a = Axes::at(i);
    if (a < 0 || a >= Rank || seen[a]) return false;
    seen[a] = true;
  }
  return true;
}

template <class A, class B, int Axis>
constexpr bool cat_compatible() {
  if (A::rank != B::rank) return false;
  for (int i = 0; i < A::rank; ++i)
    if (i != Axis && A::dim(i) != B::dim(i)) return false;
  return true;
}

}  // namespace detail

// The same elements in row-major order, with shape S2.
template <class T, class S, class P, int... D>
CT_HD auto reshape(const tile<T, S, P>& x, shape<D...>) {
  static_assert(check_tile_shape<D...>());
  static_assert(shape<D...>::size == S::size,
                "ct::reshape: the new shape holds a different number of elements than the tile");
  if constexpr (std::is_same_v<shape<D...>, S>) {
    return x;
  } else {
    return backend::reshape_exchange<shape<D...>>(x);
  }
}

// A new axis of extent 1 at position A.
template <class T, class S, class P, int A>
CT_HD auto expand_dims(const tile<T, S, P>& x, axis_t<A>) {
  static_assert(A >= 0 && A <= S::rank, "ct::expand_dims: axis is out of range (0 ... rank)");
  return backend::reshape_exchange<typename detail::insert_axis_shape<S, A>::type>(x);
}

// x stretched to shape S2 by NumPy rules. Free when x is a keepdims reduction of an S2 tile.
template <class T, class S, class P, int... D>
CT_HD auto broadcast_to(const tile<T, S, P>& x, shape<D...>) {
  using S2 = shape<D...>;
  static_assert(detail::broadcasts_to<S, S2>(),
                "ct::broadcast_to: the tile's shape does not broadcast to the target shape (NumPy "
                "rules: right-aligned, each dim equal or 1)");
  if constexpr (std::is_same_v<typename P::shape_type, S2> && S::rank == S2::rank) {
    tile<T, S2, P> r;
    CT_UNROLL
    for (int s = 0; s < P::slots; ++s) r.v[s] = x.v[s];
    return r;
  } else {
    return backend::broadcast_exchange<S2, backend::natural_layout<T, S2>>(x);
  }
}

// Axis i of the result is axis Axes[i] of x.
template <class T, class S, class P, int... A>
CT_HD auto permute(const tile<T, S, P>& x, axes_t<A...>) {
  using Axes = axes_t<A...>;
  static_assert(detail::valid_permutation<S::rank, Axes>(),
                "ct::permute: the axes must name each axis of the tile exactly once");
  using S2 = typename detail::permuted_shape<S, Axes>::type;
  return backend::exchange<S2, backend::natural_layout<T, S2>>(x, [](const coord<S2::rank>& c2) {
    coord<S::rank> c;
    for (int i = 0; i < S::rank; ++i) c[Axes::at(i)] = c2[i];
    return detail::flatten<S>(c);
  });
}

// The last two axes swapped.
template <class T, class S, class P>
CT_HD auto transpose(const tile<T, S, P>& x) {
  static_assert(S::rank >= 2, "ct::transpose: the tile needs at least two axes");
  if constexpr (S::rank == 2) return permute(x, axes<1, 0>);
  else if constexpr (S::rank == 3) return permute(x, axes<0, 2, 1>);
  else return permute(x, axes<0, 1, 3, 2>);
}

// a and b joined along axis A. As in cuTile, both have the same shape (so the result's extent
// along A stays a power of two).
template <class T, class S, class PA, class PB, int A>
CT_HD auto cat(const tile<T, S, PA>& a, const tile<T, S, PB>& b, axis_t<A>) {
  static_assert(A >= 0 && A < S::rank, "ct::cat: axis is out of range for the tiles' rank");
  using S2 = typename detail::scaled_axis_shape<S, A, 2>::type;
  tile<T, S2> r;
  auto from = [](bool second) {
    return [second](const coord<S2::rank>& c2) -> index_t {
      if ((c2[A] >= S::dim(A)) != second) return -1;
      coord<S::rank> c = c2;
      if (second) c[A] -= S::dim(A);
      return detail::flatten<S>(c);
    };
  };
  backend::exchange_into(r, a, from(false));
  backend::exchange_into(r, b, from(true));
  return r;
}
template <class TA, class SA, class PA, class TB, class SB, class PB, int A>
CT_HD auto cat(const tile<TA, SA, PA>&, const tile<TB, SB, PB>&, axis_t<A>) {
  static_assert(std::is_same_v<TA, TB>, "ct::cat: the tiles have different element types");
  static_assert(detail::cat_compatible<SA, SB, A>(),
                "ct::cat: the tiles' extents differ on an axis other than the cat axis");
  static_assert(std::is_same_v<SA, SB>,
                "ct::cat: the tiles must have the same shape (the result's extent along the axis "
                "must stay a power of two)");
}

// The sub-tile of shape S2 at tile index (i, j, ...) of x cut into S2 tiles.
template <class T, class S, class P, int... D, class... I>
CT_HD auto extract(const tile<T, S, P>& x, shape<D...>, I... index) {
  using S2 = shape<D...>;
  static_assert(S2::rank == S::rank && sizeof...(I) == S::rank,
                "ct::extract: give a sub-tile shape and one index per axis of the tile");
  static_assert(detail::legal_tile_dims<D...>(), "ct::extract: sub-tile dims must be powers of two");
  const index_t idx[S::rank] = {index_t(index)...};
  coord<S::rank> base;
  for (int i = 0; i < S::rank; ++i) base[i] = idx[i] * S2::dim(i);
  if constexpr (backend::band_is_local<S2, S, P>()) {
    // A band of each thread's slots: no data moves (with a constant index, or one an unrolled
    // loop makes constant; else the slots are picked at run time).
    using P2 = backend::blocked_layout<S2, P::vec, P::threads>;
    bool inside = true;
    for (int i = 0; i < S::rank; ++i) inside = inside && base[i] >= 0 && base[i] < S::dim(i);
    if (!inside) return tile<T, S2, P2>{};
    return backend::band_of<S2, P2>(x, detail::flatten<S>(base));
  } else {
    return backend::exchange<S2, backend::natural_layout<T, S2>>(x, [base](const coord<S2::rank>& c2) {
      coord<S::rank> c;
      for (int i = 0; i < S::rank; ++i) c[i] = base[i] + c2[i];
      for (int i = 0; i < S::rank; ++i)
        if (c[i] < 0 || c[i] >= S::dim(i)) return index_t(-1);
      return detail::flatten<S>(c);
    });
  }
}

// x with the sub-tile at tile index (i, j, ...) (in units of value's shape) replaced by value.
template <class T, class S, class P, class S2, class P2, class... I>
CT_HD auto insert(const tile<T, S, P>& x, const tile<T, S2, P2>& value, I... index) {
  static_assert(S2::rank == S::rank && sizeof...(I) == S::rank,
                "ct::insert: give a value tile of the same rank and one index per axis");
  const index_t idx[S::rank] = {index_t(index)...};
  coord<S::rank> base;
  for (int i = 0; i < S::rank; ++i) base[i] = idx[i] * S2::dim(i);
  tile<T, S> r = backend::relayout<backend::natural_layout<T, S>>(backend::align_to<S, P>(x));
  backend::exchange_into(r, value, [base](const coord<S::rank>& c) {
    coord<S2::rank> c2;
    for (int i = 0; i < S::rank; ++i) {
      c2[i] = c[i] - base[i];
      if (c2[i] < 0 || c2[i] >= S2::dim(i)) return index_t(-1);
    }
    return detail::flatten<S2>(c2);
  });
  return r;
}

// The bytes of x's elements in row-major order, as a 1-D uint8 tile (and back).
template <class T, class S, class P>
CT_HD auto pack_to_bytes(const tile<T, S, P>& x) {
  constexpr int n = int(S::size * index_t(sizeof(T)));
  using R = tile<std::uint8_t, shape<n>>;
  const auto flat = backend::reshape_exchange<shape<int(S::size)>>(backend::relayout<backend::natural_layout<T, S>>(x));
  using F = std::remove_cvref_t<decltype(flat)>;
  R r;
  // Publish whole elements through the arena, then read them back byte by byte.
  constexpr index_t capacity = index_t(config::arena_bytes) / index_t(sizeof(T));
  T* buf = reinterpret_cast<T*>(backend::arena());
  for (index_t lo = 0; lo < S::size; lo += capacity) {
    CT_UNROLL
    for (int s = 0; s < F::slots; ++s) {
      const index_t f = F::coord_of(s)[0] - lo;
      if (F::canonical(s) && f >= 0 && f < capacity) buf[f] = flat.v[s];
    }
    backend::sync_block();
    CT_UNROLL
    for (int s = 0; s < R::slots; ++s) {
      const index_t byte = R::coord_of(s)[0], e = byte / index_t(sizeof(T)) - lo;
      if (e >= 0 && e < capacity)
        r.v[s] = reinterpret_cast<const std::uint8_t*>(buf)[e * index_t(sizeof(T)) + byte % index_t(sizeof(T))];
    }
    backend::sync_block();
  }
  return r;
}
template <class T, int N, class P>
CT_HD auto unpack_from_bytes(const tile<std::uint8_t, shape<N>, P>& bytes) {
  static_assert(N % int(sizeof(T)) == 0, "ct::unpack_from_bytes: the byte count is not a multiple of the type's size");
  constexpr int n = N / int(sizeof(T));
  static_assert(detail::is_pow2(n), "ct::unpack_from_bytes: the element count must be a power of two");
  using R = tile<T, shape<n>>;
  R r;
  constexpr index_t capacity = index_t(config::arena_bytes) / index_t(sizeof(T)) * index_t(sizeof(T));
  std::uint8_t* buf = backend::arena();
  using B = tile<std::uint8_t, shape<N>, P>;
  for (index_t lo = 0; lo < N; lo += capacity) {
    CT_UNROLL
    for (int s = 0; s < B::slots; ++s) {
      const index_t f = B::coord_of(s)[0] - lo;
      if (B::canonical(s) && f >= 0 && f < capacity) buf[f] = bytes.v[s];
    }
    backend::sync_block();
    CT_UNROLL
    for (int s = 0; s < R::slots; ++s) {
      const index_t f = R::coord_of(s)[0] * index_t(sizeof(T)) - lo;
      if (f >= 0 && f < capacity) memcpy(&r.v[s], buf + f, sizeof(T));
    }
    backend::sync_block();
  }
  return r;
}

// 0, 1, ..., N-1.
template <class T, int N>
CT_HD tile<T, shape<N>> arange() {
  static_assert(check_tile_shape<N>());
  tile<T, shape<N>> r;
  CT_UNROLL
  for (int s = 0; s < tile<T, shape<N>>::slots; ++s) r.v[s] = convert<T>(tile<T, shape<N>>::coord_of(s)[0]);
  return r;
}

}  // namespace ct
