// How a tile's elements are spread over the threads of a block.
//
// A `blocked_layout` of a power-of-two shape cuts the row-major element order into chunks of
// `vec` elements (16 bytes, contiguous along the last axis, so one vector load each) and deals
// the chunks round-robin over the threads: chunk k*threads + t lives in thread t's slots
// [k*vec, (k+1)*vec). Consecutive threads thus touch consecutive 16-byte pieces (coalesced).
// A tile with fewer chunks than threads is replicated: every thread holds a copy, and only the
// first copy of each element is "canonical" (the one that stores and publishes it).
//
// A tile's type pairs its shape S with a parent layout P whose shape equals S except that some
// dims of S may be 1 where P's are not: a *slice* layout. A reduction along an axis returns a
// slice of its input's layout, so every thread already holds the reduced value next to the
// elements it will be combined with, and broadcasting it back costs nothing.
#pragma once
#include "ctile/core/shape.hpp"

namespace ct::backend {

template <class Shape, int Vec, int Threads>
struct blocked_layout {
  using shape_type = Shape;
  static constexpr int vec = Vec;
  static constexpr int threads = Threads;
  static constexpr index_t chunks = Shape::size / Vec;
  static constexpr bool replicated = chunks < Threads;
  static constexpr int chunks_per_thread = replicated ? 1 : int(chunks / Threads);
  static constexpr int slots = chunks_per_thread * Vec;

  static_assert(Shape::size % Vec == 0, "blocked_layout: vector width must divide the tile");

  // The chunk index held by thread t in its k-th chunk slot.
  CT_HD static constexpr index_t chunk(int t, int k) {
    return replicated ? index_t(t) % chunks : index_t(k) * Threads + t;
  }
  CT_HD static constexpr index_t flat(int t, int s) { return chunk(t, s / Vec) * Vec + s % Vec; }
  CT_HD static constexpr bool canonical(int t, int /*s*/) { return !replicated || t < chunks; }
};

// 16-byte chunks along the last axis (or the whole last axis, if narrower).
template <class T, class S>
constexpr int vector_width() {
  constexpr int last = S::rank == 0 ? 1 : S::dim(S::rank - 1);
  constexpr int by_bytes = sizeof(T) >= 16 ? 1 : int(16 / sizeof(T));
  return last < by_bytes ? last : by_bytes;
}

template <class T, class S>
using natural_layout = blocked_layout<S, vector_width<T, S>(), config::block_threads>;

// Slot s of the calling thread, as a coordinate of tile shape S laid out by parent P: the
// parent's coordinate with the dims that S collapses (S_i == 1) pinned to 0.
template <class S, class P>
CT_HD constexpr coord<S::rank> slot_coord(int t, int s) {
  coord<S::rank> c = detail::unflatten<typename P::shape_type>(P::flat(t, s));
  for (int i = 0; i < S::rank; ++i)
    if (S::dim(i) == 1) c[i] = 0;
  return c;
}

// Whether thread t's slot s is the one copy of its element that publishes it.
template <class S, class P>
CT_HD constexpr bool slot_canonical(int t, int s) {
  if (!P::canonical(t, s)) return false;
  coord<S::rank> c = detail::unflatten<typename P::shape_type>(P::flat(t, s));
  for (int i = 0; i < S::rank; ++i)
    if (S::dim(i) == 1 && c[i] != 0) return false;
  return true;
}

template <class S, class P>
constexpr bool fits_layout() {
  using PS = typename P::shape_type;
  if (S::rank != PS::rank) return false;
  for (int i = 0; i < S::rank; ++i)
    if (S::dim(i) != PS::dim(i) && S::dim(i) != 1) return false;
  return true;
}

}  // namespace ct::backend
