// Moving tile elements between threads through the shared-memory arena: layout conversions,
// broadcasts to a larger shape, and reshapes. Canonical copies publish their elements by flat
// index; every thread then reads the elements its target slots need. Tiles larger than the
// arena go in rounds, so any size works.
#pragma once
#include "ctile/tile/tile.hpp"

namespace ct::backend {

// Fills the slots of `r` whose source (`source_flat(coord)`, the flat index in x's shape of the
// element a target slot at `coord` needs) is in x; a negative source leaves the slot as it was.
// Canonical copies publish x's elements by flat index in rounds of the arena's size.
template <class R, class T, class S, class P, class SourceFlat>
CT_HD void exchange_into(R& r, const tile<T, S, P>& x, SourceFlat source_flat) {
  using src = tile<T, S, P>;
  constexpr index_t capacity = index_t(config::arena_bytes) / index_t(sizeof(T));
  constexpr index_t rounds = (S::size + capacity - 1) / capacity;
  T* buf = reinterpret_cast<T*>(arena());
  for (index_t round = 0; round < rounds; ++round) {
    const index_t lo = round * capacity;
    CT_UNROLL
    for (int s = 0; s < src::slots; ++s) {
      if (!src::canonical(s)) continue;
      const index_t f = detail::flatten<S>(src::coord_of(s)) - lo;
      if (rounds == 1 || (f >= 0 && f < capacity)) buf[f] = x.v[s];
    }
    sync_block();
    CT_UNROLL
    for (int s = 0; s < R::slots; ++s) {
      const index_t from = source_flat(R::coord_of(s));
      const index_t f = from - lo;
      if (from >= 0 && (rounds == 1 || (f >= 0 && f < capacity))) r.v[s] = buf[f];
    }
    sync_block();
  }
}

template <class S2, class P2, class T, class S, class P, class SourceFlat>
CT_HD tile<T, S2, P2> exchange(const tile<T, S, P>& x, SourceFlat source_flat) {
  tile<T, S2, P2> r;
  exchange_into(r, x, source_flat);
  return r;
}

// x broadcast (NumPy rules) to shape S2, laid out by P2.
template <class S2, class P2, class T, class S, class P>
CT_HD tile<T, S2, P2> broadcast_exchange(const tile<T, S, P>& x) {
  return exchange<S2, P2>(x, [](const coord<S2::rank>& c2) {
    coord<S::rank> c;
    for (int i = 0; i < S::rank; ++i) c[i] = S::dim(i) == 1 ? 0 : c2[i + S2::rank - S::rank];
    return detail::flatten<S>(c);
  });
}

// x with shape S2 (same element count), row-major order preserved.
template <class S2, class T, class S, class P>
CT_HD tile<T, S2, natural_layout<T, S2>> reshape_exchange(const tile<T, S, P>& x) {
  return exchange<S2, natural_layout<T, S2>>(
      x, [](const coord<S2::rank>& c2) { return detail::flatten<S2>(c2); });
}

// x in the layout P2 (same shape); free when it already is.
template <class P2, class T, class S, class P>
CT_HD tile<T, S, P2> relayout(const tile<T, S, P>& x) {
  if constexpr (std::is_same_v<P, P2>) {
    return x;
  } else {
    return broadcast_exchange<S, P2>(x);
  }
}

// x as a tile of shape S2 laid out by P2, where S2 is x's shape broadcast (same rank when x
// already uses P2: then the slots already hold the broadcast values and nothing moves).
template <class S2, class P2, class T, class S, class P>
CT_HD auto align_to(const tile<T, S, P>& x) {
  if constexpr (std::is_same_v<P, P2> && S::rank == S2::rank) {
    return x;
  } else {
    return broadcast_exchange<S2, P2>(x);
  }
}

}  // namespace ct::backend
