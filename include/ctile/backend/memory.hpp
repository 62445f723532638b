// Tile loads and stores between global memory and registers. Each thread moves its 16-byte
// chunks with one vector access when the chunk is inside the tensor, contiguous and aligned, and
// element by element (predicated) otherwise, so ragged edges and odd strides stay correct.
// Out-of-range elements load as the padding value and are never stored.
//
// Rows that start off a 16-byte boundary (a bf16 tensor of 8191 columns: 7 rows in 8) leave
// every chunk misaligned, and element by element a warp's accesses land 16 bytes apart: 8x the
// memory transactions. With config::straddle_rows (CTILE_STRADDLE_ROWS, on by default) a whole
// contiguous chunk off the boundary moves in aligned pieces (backend/straddle.hpp), and whole
// aligned tiles skip the per-chunk tests. Built with it off, the code below compiles to what it
// was before the option existed (same SASS for bench/bandwidth.cpp as on 2026-12-03).
#pragma once
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "ctile/backend/exchange.hpp"
#include "ctile/backend/straddle.hpp"
#include "ctile/tile/tile.hpp"

namespace ct::backend {

namespace detail {
template <int Bytes>
CT_HD inline void copy_vector(void* dst, const void* src) {
#if defined(__CUDA_ARCH__)
  if constexpr (Bytes == 16) {
    const uint4 x = *static_cast<const uint4*>(src);
    memcpy(dst, &x, 16);
  } else if constexpr (Bytes == 8) {
    const uint2 x = *static_cast<const uint2*>(src);
    memcpy(dst, &x, 8);
  } else if constexpr (Bytes == 4) {
    const unsigned x = *static_cast<const unsigned*>(src);
    memcpy(dst, &x, 4);
  } else {
    memcpy(dst, src, Bytes);
  }
#else
  std::memcpy(dst, src, Bytes);
#endif
}

template <int Bytes>
CT_HD inline void store_vector(void* dst, const void* src) {
#if defined(__CUDA_ARCH__)
  if constexpr (Bytes == 16) {
    uint4 x;
    memcpy(&x, src, 16);
    *static_cast<uint4*>(dst) = x;
  } else if constexpr (Bytes == 8) {
    uint2 x;
    memcpy(&x, src, 8);
    *static_cast<uint2*>(dst) = x;
  } else if constexpr (Bytes == 4) {
    unsigned x;
    memcpy(&x, src, 4);
    *static_cast<unsigned*>(dst) = x;
  } else {
    memcpy(dst, src, Bytes);
  }
#else
  std::memcpy(dst, src, Bytes);
#endif
}

template <int Bytes>
CT_HD inline bool aligned(const void* p) {
  return (reinterpret_cast<std::uintptr_t>(p) % Bytes) == 0;
}

}  // namespace detail

// Where one chunk of a tile lands in a tensor: its first element's offset, and which of its
// elements are inside the tensor.
template <int R>
struct chunk_place {
  index_t offset = 0;      // element offset of the chunk's first element
  bool row_inside = true;  // every axis but the last is in range
  index_t last = 0;        // index along the last axis of the chunk's first element

  // Whether all V elements of the chunk are inside the tensor.
  template <int V>
  CT_HD bool whole(index_t n_last) const {
    return row_inside && last >= 0 && last + V <= n_last;
  }
};

template <int R>
struct global_view {
  index_t extent[R];
  index_t stride[R];
};

namespace detail {
// One past the tensor's highest element offset: the end of the memory it spans.
template <int R>
CT_HD index_t span_of(const global_view<R>& g) {
  index_t last = 0;
  CT_UNROLL
  for (int i = 0; i < R; ++i) {
    if (g.extent[i] <= 0) return 0;
    if (g.stride[i] > 0) last += (g.extent[i] - 1) * g.stride[i];
  }
  return last + 1;
}

// Element offset of coordinate c.
template <int R>
CT_HD index_t offset_of(const global_view<R>& g, const coord<R>& c) {
  index_t o = 0;
  CT_UNROLL
  for (int i = 0; i < R; ++i) o += c[i] * g.stride[i];
  return o;
}

// Whether the whole tile of shape S at `origin` is inside the tensor with its rows contiguous
// (its chunks may still start off a 16-byte boundary).
template <class S, int V, bool Checked, int R>
CT_HD bool whole_and_contiguous(const global_view<R>& g, const coord<R>& origin) {
  if (V > 1 && g.stride[R - 1] != 1) return false;
  bool ok = true;
  CT_UNROLL
  for (int i = 0; i < R; ++i)
    if (Checked) ok = ok && origin[i] >= 0 && origin[i] + S::dim(i) <= g.extent[i];
  return ok;
}

// Whether, besides, every chunk is aligned (the tile's first element at `first`): then the tile
// moves with one vector access a chunk and no test per chunk. Chunks start at multiples of V
// along the last axis, so aligned rows suffice, and a tile one row tall needs only its own row
// aligned (a row written from the 16-byte boundary before it: out::store_shifted). (It repeats
// whole_and_contiguous's tests in its own loop: calling it changed the code nvcc made for the
// kernels measured and sanitized on the H200, 2026-12-04.)
template <class S, int V, bool Checked, class T, int R>
CT_HD bool whole_and_aligned(const T* first, const global_view<R>& g, const coord<R>& origin) {
  if (V > 1 && g.stride[R - 1] != 1) return false;
  if (!aligned<V * int(sizeof(T))>(first)) return false;
  bool ok = true;
  CT_UNROLL
  for (int i = 0; i < R; ++i) {
    if (Checked) ok = ok && origin[i] >= 0 && origin[i] + S::dim(i) <= g.extent[i];
    if (i < R - 1 && S::dim(i) > 1) ok = ok && g.stride[i] % V == 0;
  }
  return ok;
}

// Whether every chunk of the tile of shape S at `origin` may come from the two aligned 16-byte
// blocks it straddles, with no test of the chunk's own: rows contiguous and inside the tensor,
// the tile's first column inside its rows, and the blocks around the last element the tile
// holds inside the tensor's span (every other chunk lies before it). Chunks past a row's end are
// padded, not read from the next row (load_tile).
template <class S, int V, bool Checked, class T, int R>
CT_HD bool rows_straddle_readable(const T* base, const global_view<R>& g, const coord<R>& origin, const T* span_end) {
  if (V == 1 || g.stride[R - 1] != 1) return false;
  bool ok = origin[R - 1] >= 0 && origin[R - 1] < g.extent[R - 1];
  coord<R> last = origin;
  CT_UNROLL
  for (int i = 0; i < R - 1; ++i) {
    if (Checked) ok = ok && origin[i] >= 0 && origin[i] + S::dim(i) <= g.extent[i];
    ok = ok && g.stride[i] >= 0;
    last[i] = origin[i] + S::dim(i) - 1;
  }
  const index_t end = origin[R - 1] + S::dim(R - 1);
  last[R - 1] = (end < g.extent[R - 1] ? end : g.extent[R - 1]) - 1;
  return ok && straddle_readable(base + offset_of(g, last), span_end);
}

// Brings a warp's threads back together after per-chunk branches. A block barrier that follows
// (a layout exchange's bar.sync) must not meet a diverged warp, and ptxas did not always
// reconverge it there (compute-sanitizer synccheck: "Divergent thread(s) in warp"). Tile loads
// and stores are block-collective, so every thread of the warp reaches this.
CT_HD inline void reconverge() {
#if defined(__CUDA_ARCH__)
  __syncwarp();
#endif
}
}  // namespace detail

template <class S, int R>
CT_HD chunk_place<R> place_chunk(const global_view<R>& g, const coord<R>& origin, const coord<R>& c) {
  chunk_place<R> p;
  CT_UNROLL
  for (int i = 0; i < R; ++i) {
    const index_t gi = origin[i] + c[i];
    p.offset += gi * g.stride[i];
    if (i < R - 1) p.row_inside = p.row_inside && gi >= 0 && gi < g.extent[i];
    else p.last = gi;
  }
  return p;
}

// One chunk's V elements, one access each; checked, those outside the tensor become `pad`.
template <int V, bool Checked, class T, int R>
CT_HD void load_elements(T* dst, const T* src, const chunk_place<R>& p, index_t n_last, index_t s_last, T pad) {
  CT_UNROLL
  for (int v = 0; v < V; ++v) {
    const index_t j = p.last + v;
    dst[v] = (!Checked || (p.row_inside && j >= 0 && j < n_last)) ? src[v * s_last] : pad;
  }
}

// Loads the tile of shape S whose element (0, ..., 0) sits at `origin` in the tensor. Unchecked
// (the caller promises the whole tile is inside) skips the bounds tests, not the alignment test.
// Without Straddle the code for chunks off a 16-byte boundary is left out (they load element by
// element): for windows that start on the boundary (ct::aligned_window), where that code only
// costs registers (a row window of softmax: 130 registers with it, 95 without).
template <class T, class S, int R, bool Checked = true, bool Straddle = true>
CT_HD tile<T, S> load_tile(const T* base, const global_view<R>& g, const coord<R>& origin, T pad) {
  using out = tile<T, S>;
  using P = typename out::layout_type;
  constexpr int V = P::vec, bytes = V * int(sizeof(T));
  const index_t n_last = g.extent[R - 1], s_last = g.stride[R - 1];
  out r;
  // Experimental (config::load_index_here): the chunks' coordinates from the thread index read
  // here, as in store_tile. Off, this is the code the H200 measured.
  const int t = config::load_index_here ? thread_index_here() : 0;
  const auto coord_of = [t](int s) {
    if constexpr (config::load_index_here) return slot_coord<S, P>(t, s);
    else return out::coord_of(s);
  };
  if constexpr (config::straddle_rows && Straddle && bytes == 16) {
    // Every path fills packed 16-byte chunks; the tile is made of them once, after the paths
    // meet. (Unpacked on each path, the elements were waited for before the paths met, which
    // kept the next tile's loads from being issued: row_sum 0.68x, bench/results/2026-12-04-straddle.md.)
    detail::chunk16 c[P::chunks_per_thread];
    const T* first = base + detail::offset_of(g, origin);
    // Used only off the aligned path; computing it there instead changed the code of 104 of 107
    // bandwidth kernels (not measured), so it stays where the measured build had it.
    const T* span_end = base + detail::span_of(g);
    if (detail::whole_and_aligned<S, V, Checked>(first, g, origin)) {
      CT_UNROLL
      for (int k = 0; k < P::chunks_per_thread; ++k)
        detail::copy_vector<16>(&c[k], first + detail::offset_of(g, coord_of(k * V)));
    } else if (detail::rows_straddle_readable<S, V, Checked>(base, g, origin, span_end)) {
      // Rows off the boundary (or cut by their end): every chunk from its two aligned blocks, its
      // elements past the row's end padded. No chunk waits on another's test, so all of a
      // thread's loads go out before the first is used (a scratch kernel on an H100 with this
      // shape of loop: row sums of 32767 x 8191 bf16 at 0.92 of the copy ceiling).
      CT_UNROLL
      for (int k = 0; k < P::chunks_per_thread; ++k) {
        const auto p = place_chunk<S, R>(g, origin, coord_of(k * V));
        const index_t inside = n_last - p.last;  // the chunk's elements inside its row, if < V
        detail::load_straddling(reinterpret_cast<T*>(&c[k]), inside > 0 ? base + p.offset : first);
        if (inside < V) {
          T e[V];
          memcpy(static_cast<void*>(e), &c[k], 16);
          CT_UNROLL
          for (int v = 0; v < V; ++v) e[v] = v < inside ? e[v] : pad;
          memcpy(&c[k], e, 16);
        }
      }
    } else {
      CT_UNROLL
      for (int k = 0; k < P::chunks_per_thread; ++k) {
        const auto p = place_chunk<S, R>(g, origin, coord_of(k * V));
        const T* src = base + p.offset;
        const bool contiguous = (!Checked || p.template whole<V>(n_last)) && s_last == 1;
        if (contiguous && detail::aligned<16>(src)) {
          detail::copy_vector<16>(&c[k], src);
        } else if (contiguous && detail::straddle_readable(src, span_end)) {
          detail::load_straddling(reinterpret_cast<T*>(&c[k]), src);
        } else {  // edges, odd strides, and the tensor's last bytes (the next aligned block may be
                  // past its allocation)
          T e[V];
          load_elements<V, Checked>(e, src, p, n_last, s_last, pad);
          memcpy(&c[k], e, 16);
        }
      }
      detail::reconverge();
    }
    memcpy(r.v, c, sizeof(c));
  } else {
    CT_UNROLL
    for (int k = 0; k < P::chunks_per_thread; ++k) {
      const auto p = place_chunk<S, R>(g, origin, coord_of(k * V));
      const T* src = base + p.offset;
      const bool whole = !Checked || p.template whole<V>(n_last);
      if (whole && (V == 1 || s_last == 1)) {
        if (detail::aligned<bytes>(src)) {
          detail::copy_vector<bytes>(&r.v[k * V], src);
          continue;
        }
      }
      load_elements<V, Checked>(&r.v[k * V], src, p, n_last, s_last, pad);
    }
  }
  return r;
}

// Stores x (natural layout) as the tile at `origin`; elements outside the tensor are dropped
// (unless unchecked: then the caller promises there are none). Straddle as for load_tile.
template <class T, class S, int R, bool Checked = true, bool Straddle = true>
CT_HD void store_tile(T* base, const global_view<R>& g, const coord<R>& origin, const tile<T, S>& x) {
  using in = tile<T, S>;
  using P = typename in::layout_type;
  constexpr int V = P::vec, bytes = V * int(sizeof(T));
  const index_t n_last = g.extent[R - 1], s_last = g.stride[R - 1];
  // The chunks' coordinates from the thread index read here: a persistent GEMM's epilogue
  // otherwise reloads them, hoisted out of its tile loop and spilled, from local memory
  // (in L2: the L1 is small beside the ring's shared memory) before every store.
  const int t = thread_index_here();
  const auto canonical = [t](int s) { return slot_canonical<S, P>(t, s); };
  const auto coord_of = [t](int s) { return slot_coord<S, P>(t, s); };
  if constexpr (config::straddle_rows && Straddle) {
    T* first = base + detail::offset_of(g, origin);
    if (detail::whole_and_aligned<S, V, Checked>(first, g, origin)) {
      CT_UNROLL
      for (int k = 0; k < P::chunks_per_thread; ++k)
        if (canonical(k * V)) detail::store_vector<bytes>(first + detail::offset_of(g, coord_of(k * V)), &x.v[k * V]);
      return;
    }
    if constexpr (bytes == 16) {
      if (detail::whole_and_contiguous<S, V, Checked>(g, origin)) {
        CT_UNROLL
        for (int k = 0; k < P::chunks_per_thread; ++k) {
          if (!canonical(k * V)) continue;
          T* dst = first + detail::offset_of(g, coord_of(k * V));
          if (detail::aligned<bytes>(dst)) detail::store_vector<bytes>(dst, &x.v[k * V]);
          else detail::store_straddling<int(alignof(T))>(dst, &x.v[k * V]);
        }
        detail::reconverge();
        return;
      }
    }
  }
  CT_UNROLL
  for (int k = 0; k < P::chunks_per_thread; ++k) {
    if (!canonical(k * V)) continue;
    const auto p = place_chunk<S, R>(g, origin, coord_of(k * V));
    T* dst = base + p.offset;
    const bool whole = !Checked || p.template whole<V>(n_last);
    if (whole && (V == 1 || s_last == 1)) {
      if (detail::aligned<bytes>(dst)) {
        detail::store_vector<bytes>(dst, &x.v[k * V]);
        continue;
      }
      if constexpr (config::straddle_rows && Straddle && bytes == 16) {
        detail::store_straddling<int(alignof(T))>(dst, &x.v[k * V]);
        continue;
      }
    }
    CT_UNROLL
    for (int v = 0; v < V; ++v) {
      const index_t j = p.last + v;
      if (!Checked || (p.row_inside && j >= 0 && j < n_last)) dst[v * s_last] = x.v[k * V + v];
    }
  }
  if constexpr (config::straddle_rows && Straddle && bytes == 16) detail::reconverge();
}

// Whether tile layout P of shape S deals chunks of several 16-byte pieces: an f32 tile in the
// 8-element chunks of a 16-bit tile's layout, as ct::pipelined returns a GEMM's accumulator.
template <class T, class S, class P>
constexpr bool wide_chunks() {
  return std::is_same_v<P, blocked_layout<S, P::vec, P::threads>> && !P::replicated &&
         P::vec * int(sizeof(T)) > 16 && P::vec * int(sizeof(T)) % 16 == 0;
}

// Stores x, whose layout has wide_chunks, as the tile at `origin`, a 16-byte piece of a chunk at
// a time: one vector access where the piece lies in the tensor with its elements contiguous,
// element by element otherwise; elements outside the tensor are dropped. (Moving x into the
// natural layout first, 16-byte chunks, would take an exchange through shared memory.)
template <class T, class S, class P, int R>
CT_HD void store_wide_tile(T* base, const global_view<R>& g, const coord<R>& origin, const tile<T, S, P>& x) {
  static_assert(wide_chunks<T, S, P>());
  constexpr int V = P::vec, piece = int(16 / sizeof(T));
  const index_t n_last = g.extent[R - 1], s_last = g.stride[R - 1];
  const int t = thread_index_here();  // as in store_tile
  CT_UNROLL
  for (int k = 0; k < P::chunks_per_thread; ++k) {
    const auto p = place_chunk<S, R>(g, origin, slot_coord<S, P>(t, k * V));
    CT_UNROLL
    for (int q = 0; q < V; q += piece) {
      T* dst = base + p.offset + q * s_last;
      const T* src = &x.v[k * V + q];
      const bool contiguous = p.row_inside && p.last + q >= 0 && p.last + q + piece <= n_last && s_last == 1;
      if (contiguous && detail::aligned<16>(dst)) {
        detail::store_vector<16>(dst, src);
      } else if (config::straddle_rows && contiguous) {
        detail::store_straddling<int(alignof(T))>(dst, src);
      } else {
        CT_UNROLL
        for (int v = 0; v < piece; ++v) {
          const index_t j = p.last + q + v;
          if (p.row_inside && j >= 0 && j < n_last) dst[v * s_last] = src[v];
        }
      }
    }
  }
  detail::reconverge();
}

// Loads the tile of shape S at `origin` in layout P: P's shape is S's or S is a slice of it
// (dims of 1 where P's are larger: a [1, N] row laid out as a [M, N] tile's rows are), and its
// chunks may be of any width. So a load can put its elements in the threads and slots where
// the tile it will be combined with holds the same places (ct::layout_of), instead of an
// exchange through shared memory after a load in the natural layout. Each chunk a 16-byte piece
// at a time, as store_wide_tile stores them: one vector access where the piece lies in the
// tensor with its elements contiguous, a straddling one off a 16-byte boundary, element by
// element otherwise (elements outside the tensor become `pad`). The natural layout takes
// load_tile's code.
namespace detail {
// For each chunk slot k of layout P over a tile of shape S, the first slot holding the same
// elements as k in every thread (a slice layout repeats a row's chunks over the rows it
// collapses), or k itself: the later ones are copies, not loads.
template <class S, class P>
struct repeated_chunks {
  int first[P::chunks_per_thread];
  constexpr repeated_chunks() : first() {
    for (int k = 0; k < P::chunks_per_thread; ++k) {
      first[k] = k;
      for (int j = 0; j < k && first[k] == k; ++j) {
        bool same = true;
        for (int t = 0; t < P::threads && same; ++t) {
          const auto a = slot_coord<S, P>(t, j * P::vec), b = slot_coord<S, P>(t, k * P::vec);
          for (int i = 0; i < S::rank; ++i) same = same && a[i] == b[i];
        }
        if (same) first[k] = j;
      }
    }
  }
};
}  // namespace detail

template <class T, class S, class P, int R>
CT_HD tile<T, S, P> load_laid_out(const T* base, const global_view<R>& g, const coord<R>& origin, T pad) {
  if constexpr (relayout_is_local<P, S, natural_layout<T, S>>()) {
    // A natural tile reaches P in registers (P itself, or a broadcast whose chunks the threads
    // already hold): load_tile's code, and copies.
    return relayout<P>(load_tile<T, S, R>(base, g, origin, pad));
  } else {
    static_assert(std::is_same_v<P, blocked_layout<typename P::shape_type, P::vec, P::threads>>,
                  "load_laid_out: a blocked layout");
    constexpr int V = P::vec, piece = V * int(sizeof(T)) < 16 ? V : int(16 / sizeof(T));
    static_assert(V % piece == 0, "load_laid_out: chunks of whole 16-byte pieces, or one smaller piece");
    constexpr int piece_bytes = piece * int(sizeof(T));
    const index_t n_last = g.extent[R - 1], s_last = g.stride[R - 1];
    const T* span_end = base + detail::span_of(g);
    const int t = thread_index_here();  // as in store_tile
    constexpr detail::repeated_chunks<S, P> repeats{};
    tile<T, S, P> r;
    CT_UNROLL
    for (int k = 0; k < P::chunks_per_thread; ++k) {
      if (repeats.first[k] != k) {
        CT_UNROLL
        for (int v = 0; v < V; ++v) r.v[k * V + v] = r.v[repeats.first[k] * V + v];
      } else {
        const auto p = place_chunk<S, R>(g, origin, slot_coord<S, P>(t, k * V));
        CT_UNROLL
        for (int q = 0; q < V; q += piece) {
          const T* src = base + p.offset + q * s_last;
          T* dst = &r.v[k * V + q];
          const bool contiguous = p.row_inside && p.last + q >= 0 && p.last + q + piece <= n_last && s_last == 1;
          if (contiguous && detail::aligned<piece_bytes>(src)) {
            detail::copy_vector<piece_bytes>(dst, src);
          } else if (config::straddle_rows && piece_bytes == 16 && contiguous &&
                     detail::straddle_readable(src, span_end)) {
            detail::load_straddling(dst, src);
          } else {
            CT_UNROLL
            for (int v = 0; v < piece; ++v) {
              const index_t j = p.last + q + v;
              dst[v] = p.row_inside && j >= 0 && j < n_last ? src[v * s_last] : pad;
            }
          }
        }
      }
    }
    if constexpr (config::straddle_rows) detail::reconverge();
    return r;
  }
}

// Stores x as the tile at `origin`, which the caller has found inside the tensor with its rows
// on boundaries of the natural layout's chunk (whole_and_aligned<S, natural vec, true>, once for
// a tile cut into sub-tiles): one vector access a chunk (a 16-byte piece of a wide chunk) and no
// test at all, so no edge code lies among the stores.
template <class T, class S, int R, class P>
CT_HD void store_whole_tile(T* base, const global_view<R>& g, const coord<R>& origin, const tile<T, S, P>& x) {
  if constexpr (!wide_chunks<T, S, P>() && !std::is_same_v<P, natural_layout<T, S>>) {
    store_whole_tile(base, g, origin, relayout<natural_layout<T, S>>(x));
  } else {
    constexpr int V = P::vec, piece = V * int(sizeof(T)) > 16 ? int(16 / sizeof(T)) : V;
    T* first = base + detail::offset_of(g, origin);
    const int t = thread_index_here();  // as in store_tile
    CT_UNROLL
    for (int k = 0; k < P::chunks_per_thread; ++k) {
      if (!slot_canonical<S, P>(t, k * V)) continue;
      T* dst = first + detail::offset_of(g, slot_coord<S, P>(t, k * V));
      CT_UNROLL
      for (int q = 0; q < V; q += piece) detail::store_vector<piece * int(sizeof(T))>(dst + q, &x.v[k * V + q]);
    }
  }
}

// Stores x (any layout) as the tile at `origin`: in its own layout where that has wide_chunks
// (bounds-checked even when not Checked), else moved into the natural layout (free when it is in
// it already).
template <class T, class S, int R, bool Checked = true, bool Straddle = true, class P>
CT_HD void store_laid_out(T* base, const global_view<R>& g, const coord<R>& origin, const tile<T, S, P>& x) {
  if constexpr (wide_chunks<T, S, P>()) store_wide_tile(base, g, origin, x);
  else store_tile<T, S, R, Checked, Straddle>(base, g, origin, relayout<natural_layout<T, S>>(x));
}

}  // namespace ct::backend
