// Block-wide reductions along one axis. The result keeps the input's layout as a slice (the
// reduced axis becomes 1), so each thread ends up holding the reduced value for exactly the
// elements it owns.
//
// Along the last axis (the common case: row sums, row maxima) the work is in-thread over each
// 16-byte chunk, then warp shuffles across the lanes that share a row, then shared memory across
// warps only when a row spans more than one warp. Other axes go through the shared-memory arena.
#pragma once
#include "ctile/backend/exchange.hpp"

namespace ct::backend {

namespace detail {

template <class C, class Op>
CT_HD C warp_combine(C x, int lanes, Op op) {
  for (int off = lanes / 2; off >= 1; off /= 2) x = op(x, shfl_xor(x, off));
  return x;
}

// Combines, for each of the N values per thread, the per-warp partials of the `group_warps`
// consecutive warps that share it. Batched so the partials fit the arena.
template <int N, int Threads, class C, class Op>
CT_HD void cross_warp_combine(C (&part)[N], int group_warps, Op op) {
  constexpr int warps = Threads / 32;
  constexpr int fit = int(config::arena_bytes / (sizeof(C) * warps));
  constexpr int batch = N < fit ? N : fit;
  static_assert(batch >= 1, "cross_warp_combine: arena too small for one batch");
  C* buf = reinterpret_cast<C*>(arena());
  const int t = thread_index(), w = t / 32, lane = t % 32;
  const int w0 = (w / group_warps) * group_warps;
  for (int base = 0; base < N; base += batch) {
    CT_UNROLL
    for (int i = 0; i < batch; ++i)
      if (base + i < N && lane == 0) buf[i * warps + w] = part[base + i];
    sync_block();
    CT_UNROLL
    for (int i = 0; i < batch; ++i) {
      if (base + i >= N) continue;
      C acc = buf[i * warps + w0];
      for (int j = 1; j < group_warps; ++j) acc = op(acc, buf[i * warps + w0 + j]);
      part[base + i] = acc;
    }
    sync_block();
  }
}

}  // namespace detail

template <class S, class P>
constexpr bool last_axis_fast_path(int axis) {
  return axis == S::rank - 1 && S::dim(axis) == P::shape_type::dim(axis);
}

// Reduction of x (already in its compute type C) along the last axis.
template <class C, class S, class P, class Op>
CT_HD auto reduce_last_axis(const tile<C, S, P>& x, Op op) {
  constexpr int axis = S::rank - 1;
  using R = tile<C, typename ct::detail::keep_dims_shape<S, axis>::type, P>;
  constexpr int V = P::vec, K = P::chunks_per_thread, T = P::threads;
  constexpr int g = S::dim(axis) / V;  // chunks per row
  C part[K];
  CT_UNROLL
  for (int k = 0; k < K; ++k) {
    C acc = x.v[k * V];
    CT_UNROLL
    for (int v = 1; v < V; ++v) acc = op(acc, x.v[k * V + v]);
    part[k] = acc;
  }
  R r;
  if constexpr (P::replicated || g <= T) {
    // Chunk k of every thread is a row of its own, shared with the g lanes around it.
    CT_UNROLL
    for (int k = 0; k < K; ++k) part[k] = detail::warp_combine(part[k], g < 32 ? g : 32, op);
    if constexpr (g > 32) detail::cross_warp_combine<K, T>(part, g / 32, op);
    CT_UNROLL
    for (int s = 0; s < P::slots; ++s) r.v[s] = part[s / V];
  } else {
    // A row spans every thread: m consecutive chunks per thread, then the whole block.
    constexpr int m = g / T, rows = K / m;
    C row[rows];
    CT_UNROLL
    for (int j = 0; j < rows; ++j) {
      C acc = part[j * m];
      CT_UNROLL
      for (int i = 1; i < m; ++i) acc = op(acc, part[j * m + i]);
      row[j] = detail::warp_combine(acc, T < 32 ? T : 32, op);
    }
    if constexpr (T > 32) detail::cross_warp_combine<rows, T>(row, T / 32, op);
    CT_UNROLL
    for (int s = 0; s < P::slots; ++s) r.v[s] = row[(s / V) / m];
  }
  return r;
}

// For each slot, an earlier slot of the same thread whose coordinates agree off `Axis` in every
// thread (so its reduction is the same value), or -1. Searched only for the GPU's small slot
// counts (at most 64 a thread; a 16K-element f32 tile, 128 a thread, made the search too long a
// constant evaluation for nvcc, and the kernel failed to compile); larger tiles, and the CPU
// backend, compute every slot.
template <int N>
struct same_line_slots {
  int from[N];
};

template <class S, class P, int Axis>
constexpr same_line_slots<P::slots> find_same_line_slots() {
  same_line_slots<P::slots> m{};
  auto line = [](int t, int s) {
    coord<S::rank> c = slot_coord<S, P>(t, s);
    c[Axis] = 0;
    return ct::detail::flatten<S>(c);
  };
  for (int s = 0; s < P::slots; ++s) {
    m.from[s] = -1;
    if constexpr (P::slots <= 64) {
      for (int e = 0; e < s && m.from[s] < 0; ++e) {
        bool same = true;
        for (int t = 0; t < P::threads && same; ++t) same = line(t, e) == line(t, s);
        if (same) m.from[s] = e;
      }
    }
  }
  return m;
}

// Reduction along any axis through the arena; `identity` seeds each result.
template <int Axis, class C, class S, class P, class Op>
CT_HD auto reduce_via_arena(const tile<C, S, P>& x, Op op, C identity) {
  using SR = typename ct::detail::keep_dims_shape<S, Axis>::type;
  using R = tile<C, SR, P>;
  constexpr index_t capacity = index_t(config::arena_bytes) / index_t(sizeof(C));
  constexpr index_t rounds = (S::size + capacity - 1) / capacity;
  C* buf = reinterpret_cast<C*>(arena());
  constexpr auto same_line = find_same_line_slots<S, P, Axis>();
  R r;
  CT_UNROLL
  for (int s = 0; s < R::slots; ++s) r.v[s] = identity;
  for (index_t round = 0; round < rounds; ++round) {
    const index_t lo = round * capacity;
    CT_UNROLL
    for (int s = 0; s < tile<C, S, P>::slots; ++s) {
      if (!tile<C, S, P>::canonical(s)) continue;
      const index_t f = ct::detail::flatten<S>(tile<C, S, P>::coord_of(s)) - lo;
      if (rounds == 1 || (f >= 0 && f < capacity)) buf[f] = x.v[s];
    }
    sync_block();
    CT_UNROLL
    for (int s = 0; s < R::slots; ++s) {
      if (same_line.from[s] >= 0) continue;  // copied below
      coord<S::rank> c = R::coord_of(s);
      // Not unrolled: unrolling slots x extent iterations made nvcc take minutes per kernel,
      // and this loop waits on shared memory anyway.
      CT_NO_UNROLL
      for (int j = 0; j < S::dim(Axis); ++j) {
        c[Axis] = j;
        const index_t f = ct::detail::flatten<S>(c) - lo;
        if (rounds == 1 || (f >= 0 && f < capacity)) r.v[s] = op(r.v[s], buf[f]);
      }
    }
    sync_block();
  }
  CT_UNROLL
  for (int s = 0; s < R::slots; ++s)
    if (same_line.from[s] >= 0) r.v[s] = r.v[same_line.from[s]];
  return r;
}

}  // namespace ct::backend
