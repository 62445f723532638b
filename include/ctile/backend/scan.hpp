// Block-wide inclusive scans along the last axis of a tile (other axes and reverse scans are
// permutations around this one, in tile/scan.hpp). Same structure as the reductions: a scan
// inside each 16-byte chunk, then an exclusive scan of the chunk totals across the lanes that
// share a row (warp shuffles, then shared memory across warps), then the prefix is folded in.
#pragma once
#include "ctile/backend/reduce.hpp"

namespace ct::backend {

namespace detail {

// For each of N independent items: replaces vals[n] by the exclusive prefix (under op, from
// identity) over the `group` consecutive threads that share it, and sets total[n] to the
// group's total. Groups are aligned runs of `group` threads (a power of two <= Threads).
template <int N, int Threads, class C, class Op>
CT_HD void group_exclusive_scan(C (&vals)[N], C (&total)[N], int group, Op op, C identity) {
  const int t = thread_index();
  const int width = group < 32 ? group : 32;
  const int lane = t % width;
  C warp_total[N];
  CT_UNROLL
  for (int n = 0; n < N; ++n) {
    C incl = vals[n];
    for (int d = 1; d < width; d *= 2) {
      const C y = shfl_up(incl, d, width);
      if (lane >= d) incl = op(y, incl);
    }
    const C excl = shfl_up(incl, 1, width);
    vals[n] = lane == 0 ? identity : excl;
    warp_total[n] = shfl_idx(incl, width - 1, width);
  }
  if (group <= 32) {
    CT_UNROLL
    for (int n = 0; n < N; ++n) total[n] = warp_total[n];
    return;
  }
  // Rows span several warps: each warp adds the totals of the warps before it in its group.
  constexpr int warps = Threads / 32;
  constexpr int fit = int(config::arena_bytes / (sizeof(C) * (warps > 0 ? warps : 1)));
  constexpr int batch = N < fit ? N : fit;
  static_assert(batch >= 1, "group_exclusive_scan: arena too small for one batch");
  C* buf = reinterpret_cast<C*>(arena());
  const int w = t / 32, group_warps = group / 32, w0 = (w / group_warps) * group_warps;
  for (int base = 0; base < N; base += batch) {
    CT_UNROLL
    for (int i = 0; i < batch; ++i)
      if (base + i < N && t % 32 == 0) buf[i * warps + w] = warp_total[base + i];
    sync_block();
    CT_UNROLL
    for (int i = 0; i < batch; ++i) {
      if (base + i >= N) continue;
      C before = identity, all = identity;
      for (int j = w0; j < w0 + group_warps; ++j) {
        if (j < w) before = op(before, buf[i * warps + j]);
        all = op(all, buf[i * warps + j]);
      }
      vals[base + i] = op(before, vals[base + i]);
      total[base + i] = all;
    }
    sync_block();
  }
}

}  // namespace detail

// Inclusive scan of x along its last axis (which must be its layout's own, not collapsed).
template <class C, class S, class P, class Op>
CT_HD tile<C, S, P> scan_last_axis(const tile<C, S, P>& x, Op op, C identity) {
  static_assert(last_axis_fast_path<S, P>(S::rank - 1), "scan_last_axis: axis is not the layout's last");
  constexpr int V = P::vec, K = P::chunks_per_thread, T = P::threads;
  constexpr int g = S::dim(S::rank - 1) / V;  // chunks per row
  tile<C, S, P> r;
  C prefix[K], total[K];
  CT_UNROLL
  for (int k = 0; k < K; ++k) {
    C acc = x.v[k * V];
    r.v[k * V] = acc;
    CT_UNROLL
    for (int v = 1; v < V; ++v) r.v[k * V + v] = acc = op(acc, x.v[k * V + v]);
    prefix[k] = acc;
  }
  if constexpr (P::replicated || g <= T) {
    // Chunk k of each thread is one piece of its own row, spread over g consecutive lanes.
    detail::group_exclusive_scan<K, T>(prefix, total, g, op, identity);
  } else {
    // A row's chunks are dealt over all threads m times: chunk i*T + t of the row is this
    // thread's chunk i. Scan each round of T chunks across the block, then carry the rounds.
    constexpr int m = g / T;
    detail::group_exclusive_scan<K, T>(prefix, total, T, op, identity);
    CT_UNROLL
    for (int j = 0; j < K / m; ++j) {
      C carry = identity;
      CT_UNROLL
      for (int i = 0; i < m; ++i) {
        prefix[j * m + i] = op(carry, prefix[j * m + i]);
        carry = op(carry, total[j * m + i]);
      }
    }
  }
  CT_UNROLL
  for (int s = 0; s < P::slots; ++s) r.v[s] = op(prefix[s / V], r.v[s]);
  return r;
}

}  // namespace ct::backend
