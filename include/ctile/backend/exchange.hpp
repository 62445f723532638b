// Moving tile elements between threads through the shared-memory arena: layout conversions,
// broadcasts to a larger shape, and reshapes. Canonical copies publish their elements by flat
// index; every thread then reads the elements its target slots need. Tiles larger than the
// arena go in rounds, so any size works.
#pragma once
#include <type_traits>

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

// Which of its own slots each thread reads a target slot from, when that works without moving
// data between threads: the element target slot s needs sits, in every thread, in that thread's
// slot from[s] (the same s -> from[s] for all threads). Then an exchange is a register copy.
// (A row vector broadcast over a tile whose rows span a multiple of the block's chunks is such
// a case; so is every exchange on the CPU backend, where a block is one thread.)
template <int N>
struct local_slots {
  bool local = false;
  int from[N];
};

// The slot of thread t holding the canonical copy of x's element at flat index f (x of shape S
// laid out by P), or -1 if another thread holds it.
template <class S, class P>
constexpr int canonical_slot(int t, index_t f) {
  const index_t pf = detail::flatten<typename P::shape_type>(detail::unflatten<S>(f));  // collapsed dims at 0
  const index_t chunk = pf / P::vec;
  const int in_chunk = int(pf % P::vec);
  if constexpr (P::replicated) return index_t(t) % P::chunks == chunk ? in_chunk : -1;
  else return chunk % P::threads == t ? int(chunk / P::threads) * P::vec + in_chunk : -1;
}

template <class S2, class P2, class S, class P, class SourceFlat>
constexpr local_slots<P2::slots> find_local_slots() {
  local_slots<P2::slots> m{};
  if constexpr (P::threads != P2::threads) {
    return m;
  } else {
    for (int s = 0; s < P2::slots; ++s) {
      const index_t want = SourceFlat{}(slot_coord<S2, P2>(0, s));
      int found = canonical_slot<S, P>(0, want);
      // Another copy (a replicated tile, or a slice's collapsed dims) may sit in thread 0; look
      // for one where the search is cheap.
      if constexpr (P::slots <= 256)
        for (int k = 0; k < P::slots && found < 0; ++k)
          if (detail::flatten<S>(slot_coord<S, P>(0, k)) == want) found = k;
      if (found < 0) return m;
      for (int t = 1; t < P2::threads; ++t)
        if (detail::flatten<S>(slot_coord<S, P>(t, found)) != SourceFlat{}(slot_coord<S2, P2>(t, s))) return m;
      m.from[s] = found;
    }
    m.local = true;
    return m;
  }
}

// The search above costs slots x threads compile-time steps; past this many the compiler's
// constexpr limits bite, and the exchange goes through the arena (or a rule below applies).
inline constexpr int local_search_limit = 2048;

template <class S2, class P2, class S, class P, class SourceFlat>
constexpr local_slots<P2::slots> local_slots_of() {
  if constexpr (std::is_empty_v<SourceFlat> && std::is_default_constructible_v<SourceFlat> &&
                P2::slots * P2::threads <= local_search_limit)
    return find_local_slots<S2, P2, S, P, SourceFlat>();
  else
    return {};
}

// x rearranged into shape S2 and layout P2: target slot at coordinate c gets x's element at flat
// index source_flat(c). In registers when find_local_slots allows (source_flat must then be a
// captureless function object), through the arena otherwise.
template <class S2, class P2, class T, class S, class P, class SourceFlat>
CT_HD tile<T, S2, P2> exchange(const tile<T, S, P>& x, SourceFlat source_flat) {
  tile<T, S2, P2> r;
  if constexpr (local_slots_of<S2, P2, S, P, SourceFlat>().local) {
    constexpr auto map = local_slots_of<S2, P2, S, P, SourceFlat>();
    CT_UNROLL
    for (int s = 0; s < P2::slots; ++s) r.v[s] = x.v[map.from[s]];
  } else {
    exchange_into(r, x, source_flat);
  }
  return r;
}

// Whether broadcasting x (shape S, plain blocked layout P) to S2 (layout P2) keeps every element
// in its thread, by the layouts' arithmetic: S without its leading 1s is the trailing dims of S2
// and of P2's own shape (P2 may be a slice layout, of a shape larger than S2), the chunks are
// alike, and x's chunk count C and the thread count T divide one another. Target chunk k*T + t
// needs x's chunk (k*T + t) mod C, which thread t holds. (Checked against S2 alone, a [4, 1, 4]
// tile laid out as a [4, 2, 4] one took chunk k mod 4 where it needed chunk k / 2.)
template <class S2, class P2, class S, class P>
constexpr bool row_broadcast_is_local() {
  using PS2 = typename P2::shape_type;
  if constexpr (!std::is_same_v<typename P::shape_type, S> || P::vec != P2::vec || P::threads != P2::threads ||
                P2::replicated || S::rank > S2::rank || S2::rank != PS2::rank) {
    return false;
  } else {
    int lead = 0;
    while (lead < S::rank && S::dim(lead) == 1) ++lead;
    for (int i = lead; i < S::rank; ++i)
      if (S::dim(i) != S2::dim(i + S2::rank - S::rank) || S::dim(i) != PS2::dim(i + S2::rank - S::rank)) return false;
    return P::chunks % P::threads == 0 || P::threads % P::chunks == 0;
  }
}

// x broadcast (NumPy rules) to shape S2, laid out by P2.
template <class S2, class P2, class T, class S, class P>
CT_HD tile<T, S2, P2> broadcast_exchange(const tile<T, S, P>& x) {
  if constexpr (S::size == 1) {
    // One element (a scalar operand, or a reduction's result in a slice of its input's layout),
    // which every thread holds in slot 0. (The general search below gives up on large targets,
    // 16 slots a thread of 128 threads, and an arena exchange took two barriers: a scalar added
    // to a [4096] tile, or alpha times a GEMM's band.)
    tile<T, S2, P2> r;
    CT_UNROLL
    for (int s = 0; s < P2::slots; ++s) r.v[s] = x.v[0];
    return r;
  } else if constexpr (row_broadcast_is_local<S2, P2, S, P>()) {
    tile<T, S2, P2> r;
    CT_UNROLL
    for (int s = 0; s < P2::slots; ++s) {
      const int k = s / P2::vec, v = s % P2::vec;
      const int from = P::replicated ? v : int((index_t(k) * P::threads) % P::chunks / P::threads) * P::vec + v;
      r.v[s] = x.v[from];
    }
    return r;
  } else {
    return exchange<S2, P2>(x, [](const coord<S2::rank>& c2) {
      coord<S::rank> c;
      for (int i = 0; i < S::rank; ++i) c[i] = S::dim(i) == 1 ? 0 : c2[i + S2::rank - S::rank];
      return detail::flatten<S>(c);
    });
  }
}

// Whether every sub-tile of shape S2 of x (shape S, plain blocked layout P) is a band of x's
// slots: it spans a contiguous range of x's flat order (S2 is 1 before some axis a and equals S
// after it), and its chunks fill whole rounds of the threads. Then each thread holds the
// band's elements in a run of its own slots, in the same order as in layout P2 (blocked, with
// P's chunk width): extracting the band moves nothing. (A GEMM's epilogue works on the rows of
// its accumulator band by band this way.)
template <class S2, class S, class P>
constexpr bool band_is_local() {
  if constexpr (!std::is_same_v<typename P::shape_type, S> || P::replicated || S2::rank != S::rank) {
    return false;
  } else {
    int a = 0;  // S2's first axis of extent above 1 (its last if none)
    while (a < S::rank - 1 && S2::dim(a) == 1) ++a;
    if (S2::dim(a) > S::dim(a)) return false;
    for (int i = a + 1; i < S::rank; ++i)
      if (S2::dim(i) != S::dim(i)) return false;
    return S2::size % (index_t(P::vec) * P::threads) == 0;
  }
}

// The band of x (band_is_local) whose first element is x's flat element `first`, laid out by P2:
// slot s is x's slot s + first / threads (with an index known at compile time, as in an
// unrolled loop, a register copy).
template <class S2, class P2, class T, class S, class P>
CT_HD tile<T, S2, P2> band_of(const tile<T, S, P>& x, index_t first) {
  static_assert(band_is_local<S2, S, P>() && P2::vec == P::vec && P2::threads == P::threads);
  const int from = int(first / P::threads);
  tile<T, S2, P2> r;
  CT_UNROLL
  for (int s = 0; s < P2::slots; ++s) r.v[s] = x.v[from + s];
  return r;
}

// x with shape S2 (same element count), row-major order preserved.
// (Free when both layouts deal the same chunks to the same threads: the flat order, vector
// width and chunk count agree.)
template <class S2, class T, class S, class P>
CT_HD tile<T, S2, natural_layout<T, S2>> reshape_exchange(const tile<T, S, P>& x) {
  using P2 = natural_layout<T, S2>;
  if constexpr (std::is_same_v<typename P::shape_type, S> && P::vec == P2::vec && P::threads == P2::threads &&
                !P::replicated && !P2::replicated) {
    tile<T, S2, P2> r;
    CT_UNROLL
    for (int s = 0; s < P2::slots; ++s) r.v[s] = x.v[s];
    return r;
  } else {
    return exchange<S2, P2>(x, [](const coord<S2::rank>& c2) { return detail::flatten<S2>(c2); });
  }
}

namespace detail {
template <class S>
struct same_place {
  constexpr index_t operator()(const coord<S::rank>& c) const { return ct::detail::flatten<S>(c); }
};
}  // namespace detail

// Whether relayout<P2> of a tile of shape S in layout P moves no data between threads (on the
// CPU backend, where a block is one thread, always).
template <class P2, class S, class P>
constexpr bool relayout_is_local() {
  return (P::threads == 1 && P2::threads == 1) || std::is_same_v<P, P2> || S::size == 1 ||
         row_broadcast_is_local<S, P2, S, P>() || local_slots_of<S, P2, S, P, detail::same_place<S>>().local;
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
