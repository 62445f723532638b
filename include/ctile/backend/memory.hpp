// Tile loads and stores between global memory and registers. Each thread moves its 16-byte
// chunks with one vector access when the chunk is inside the tensor, contiguous and aligned, and
// element by element (predicated) otherwise, so ragged edges and odd strides stay correct.
// Out-of-range elements load as the padding value and are never stored.
//
// Rows that start off a 16-byte boundary (a bf16 tensor of 8191 columns: 7 rows in 8) would
// leave every chunk misaligned, and element-by-element access by each thread of its own chunk
// makes a warp's accesses 16 bytes apart: 8x the memory transactions. With CTILE_WARP_SEGMENTS
// (off by default until verified on a GPU), where a warp's 32 chunks are consecutive in one row,
// the warp instead moves the row segment element by element with consecutive lanes on
// consecutive elements (coalesced) and transposes it to the chunked layout through a per-warp
// staging buffer in shared memory.
#pragma once
#include <cstdint>
#include <cstring>

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

// Whether the warp-cooperative path serves tiles of shape S laid out by P: on the GPU, with
// 16-byte chunks dealt so that each warp's 32 chunks of one slot are consecutive in one row.
template <class S, class P>
constexpr bool warp_rows() {
#if defined(__CUDA_ARCH__)
  return config::warp_segments && !P::replicated && P::vec > 1 && P::threads % 32 == 0 && S::rank >= 1 &&
         S::dim(S::rank - 1) % (32 * P::vec) == 0;
#else
  return false;
#endif
}
}  // namespace detail

// Where one chunk of a tile lands in a tensor: its first element's offset, and which of its
// elements are inside the tensor.
template <int R>
struct chunk_place {
  index_t offset = 0;      // element offset of the chunk's first element
  bool row_inside = true;  // every axis but the last is in range
  index_t last = 0;        // index along the last axis of the chunk's first element
};

namespace detail {
// The warp's row segment: 32 chunks of V elements from lane 0's chunk, which starts `lane * V`
// elements before this lane's. Lane l holds elements l, 32 + l, ... of it in slots 0..V-1.
// Only reached on the GPU (warp_rows is false elsewhere); declared everywhere for name lookup.
template <class T, int V, bool Checked, class Place>
CT_HD inline void load_segment([[maybe_unused]] T* slots, [[maybe_unused]] const T* src,
                               [[maybe_unused]] const Place& p, [[maybe_unused]] index_t n_last,
                               [[maybe_unused]] T pad) {
#if defined(__CUDA_ARCH__)
  const int lane = int(threadIdx.x % 32);
  const T* seg = src - lane * V;
  const index_t first = p.last - lane * V;
  CT_UNROLL
  for (int j = 0; j < V; ++j) {
    const index_t e = j * 32 + lane, col = first + e;
    slots[j] = (!Checked || (p.row_inside && col >= 0 && col < n_last)) ? seg[e] : pad;
  }
#endif
}

// Segment order (load_segment's) to chunk order: lane l then holds elements l*V .. l*V+V-1.
template <class T, int V>
CT_HD inline void segment_to_chunk([[maybe_unused]] T* slots) {
#if defined(__CUDA_ARCH__)
  T* st = reinterpret_cast<T*>(cuda::staging()) + (threadIdx.x / 32) * 32 * V;
  const int lane = int(threadIdx.x % 32);
  CT_UNROLL
  for (int j = 0; j < V; ++j) st[j * 32 + lane] = slots[j];
  __syncwarp();
  memcpy(slots, st + lane * V, V * sizeof(T));
  __syncwarp();  // before the next use of the staging buffer overwrites it
#endif
}

// The inverse for stores: the warp writes its chunks' row segment with consecutive lanes on
// consecutive elements.
template <class T, int V, bool Checked, class Place>
CT_HD inline void store_segment([[maybe_unused]] T* dst, [[maybe_unused]] const Place& p,
                                [[maybe_unused]] index_t n_last, [[maybe_unused]] const T* slots) {
#if defined(__CUDA_ARCH__)
  T* st = reinterpret_cast<T*>(cuda::staging()) + (threadIdx.x / 32) * 32 * V;
  const int lane = int(threadIdx.x % 32);
  memcpy(st + lane * V, slots, V * sizeof(T));
  __syncwarp();
  T* seg = dst - lane * V;
  const index_t first = p.last - lane * V;
  CT_UNROLL
  for (int j = 0; j < V; ++j) {
    const index_t e = j * 32 + lane, col = first + e;
    if (!Checked || (p.row_inside && col >= 0 && col < n_last)) seg[e] = st[e];
  }
  __syncwarp();
#endif
}
}  // namespace detail

template <int R>
struct global_view {
  index_t extent[R];
  index_t stride[R];
};

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

// Loads the tile of shape S whose element (0, ..., 0) sits at `origin` in the tensor. Unchecked
// (the caller promises the whole tile is inside) skips the bounds tests, not the alignment test.
template <class T, class S, int R, bool Checked = true>
CT_HD tile<T, S> load_tile(const T* base, const global_view<R>& g, const coord<R>& origin, T pad) {
  using out = tile<T, S>;
  using P = typename out::layout_type;
  constexpr int V = P::vec, bytes = V * int(sizeof(T));
  const index_t n_last = g.extent[R - 1], s_last = g.stride[R - 1];
  out r;
  [[maybe_unused]] bool by_warp[P::chunks_per_thread] = {};
  CT_UNROLL
  for (int k = 0; k < P::chunks_per_thread; ++k) {
    const auto p = place_chunk<S, R>(g, origin, out::coord_of(k * V));
    const T* src = base + p.offset;
    const bool whole = !Checked || (p.row_inside && p.last >= 0 && p.last + V <= n_last);
    if constexpr (detail::warp_rows<S, P>()) {
      // Uniform over the warp: its chunks' addresses are 16 bytes apart.
      by_warp[k] = s_last == 1 && !detail::aligned<bytes>(src);
      if (by_warp[k]) {
        detail::load_segment<T, V, Checked>(&r.v[k * V], src, p, n_last, pad);
        continue;
      }
    }
    if (whole && (V == 1 || s_last == 1) && detail::aligned<bytes>(src)) {
      detail::copy_vector<bytes>(&r.v[k * V], src);
    } else {
      CT_UNROLL
      for (int v = 0; v < V; ++v) {
        const index_t j = p.last + v;
        r.v[k * V + v] = (!Checked || (p.row_inside && j >= 0 && j < n_last)) ? src[v * s_last] : pad;
      }
    }
  }
  // Separate from the loads above, so that all of them are in flight before the first waits.
  if constexpr (detail::warp_rows<S, P>()) {
    CT_UNROLL
    for (int k = 0; k < P::chunks_per_thread; ++k)
      if (by_warp[k]) detail::segment_to_chunk<T, V>(&r.v[k * V]);
  }
  return r;
}

// Stores x (natural layout) as the tile at `origin`; elements outside the tensor are dropped
// (unless unchecked: then the caller promises there are none).
template <class T, class S, int R, bool Checked = true>
CT_HD void store_tile(T* base, const global_view<R>& g, const coord<R>& origin, const tile<T, S>& x) {
  using in = tile<T, S>;
  using P = typename in::layout_type;
  constexpr int V = P::vec, bytes = V * int(sizeof(T));
  const index_t n_last = g.extent[R - 1], s_last = g.stride[R - 1];
  CT_UNROLL
  for (int k = 0; k < P::chunks_per_thread; ++k) {
    if (!in::canonical(k * V)) continue;
    const auto p = place_chunk<S, R>(g, origin, in::coord_of(k * V));
    T* dst = base + p.offset;
    const bool whole = !Checked || (p.row_inside && p.last >= 0 && p.last + V <= n_last);
    if constexpr (detail::warp_rows<S, P>()) {
      if (s_last == 1 && !detail::aligned<bytes>(dst)) {  // uniform over the warp, as in load_tile
        detail::store_segment<T, V, Checked>(dst, p, n_last, &x.v[k * V]);
        continue;
      }
    }
    if (whole && (V == 1 || s_last == 1) && detail::aligned<bytes>(dst)) {
      detail::store_vector<bytes>(dst, &x.v[k * V]);
    } else {
      CT_UNROLL
      for (int v = 0; v < V; ++v) {
        const index_t j = p.last + v;
        if (!Checked || (p.row_inside && j >= 0 && j < n_last)) dst[v * s_last] = x.v[k * V + v];
      }
    }
  }
}

}  // namespace ct::backend
