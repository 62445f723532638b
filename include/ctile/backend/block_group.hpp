// Combining a tile across the tile blocks of a ct::block_group (core/schedule.hpp): every member
// gets op(x of rank 0, x of rank 1, ...), element by element, folded in rank order, so every
// member computes the same bits.
// - GPU: a group is a thread-block cluster. Each CTA publishes its canonical copies by flat index
//   in its shared-memory arena; after a cluster barrier (release / acquire) every thread reads
//   the elements of its slots from each CTA's arena (distributed shared memory, mapa); a second
//   barrier keeps any CTA from reusing its arena (or exiting) while a peer may still read it.
// - CPU: each member runs on a host thread; each publishes its tile's bytes, then all meet at a
//   barrier, read, and meet again.
// Every member of a group must reach each combine, in the same order, as with a barrier.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "ctile/backend/exec.hpp"
#include "ctile/core/error.hpp"
#include "ctile/tile/tile.hpp"

namespace ct::backend {

#if defined(__CUDA_ARCH__)
namespace detail {
// The value at `p` in this CTA's shared memory, read from the same place in cluster CTA `rank`'s.
template <class T>
__device__ inline T peer_shared(const T* p, unsigned rank) {
#if __CUDA_ARCH__ >= 900
  std::uint64_t remote;
  asm volatile("mapa.u64 %0, %1, %2;\n" : "=l"(remote) : "l"(p), "r"(rank));
  return *reinterpret_cast<const T*>(remote);
#else
  (void)rank;
  return *p;
#endif
}
}  // namespace detail
#endif

template <class Op, class T, class S, class P>
CT_HD tile<T, S, P> combine_across_group(const tile<T, S, P>& x, Op op) {
  using X = tile<T, S, P>;
  tile<T, S, P> r;
#if defined(__CUDA_ARCH__)
  static_assert(S::size * index_t(sizeof(T)) <= index_t(config::arena_bytes),
                "ct::*_across_blocks: the tile must fit the arena (config::arena_bytes)");
#if __CUDA_ARCH__ >= 900
  unsigned explicit_cluster, members;
  asm volatile("{\n.reg .pred q;\nmov.pred q, %%is_explicit_cluster;\nselp.u32 %0, 1, 0, q;\n}\n"
               : "=r"(explicit_cluster));
  asm volatile("mov.u32 %0, %%cluster_nctarank;\n" : "=r"(members));
  if (!explicit_cluster) {
    if (thread_index() == 0)
      printf("ctile: ct::*_across_blocks in a kernel launched without ct::block_group\n");
    __trap();
  }
  T* buf = reinterpret_cast<T*>(arena());
  CT_UNROLL
  for (int s = 0; s < X::slots; ++s)
    if (X::canonical(s)) buf[ct::detail::flatten<S>(X::coord_of(s))] = x.v[s];
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;\n" ::: "memory");
  CT_UNROLL
  for (int s = 0; s < X::slots; ++s) {
    const T* at = buf + ct::detail::flatten<S>(X::coord_of(s));
    T acc = detail::peer_shared(at, 0);
    for (unsigned rank = 1; rank < members; ++rank) acc = op(acc, detail::peer_shared(at, rank));
    r.v[s] = acc;
  }
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;\n" ::: "memory");
#else
  (void)op;
  r = x;  // (never used: the trap ends the launch)
  if (thread_index() == 0) printf("ctile: ct::block_group needs a GPU with thread-block clusters (sm_90 or later)\n");
  __trap();
#endif
#else
  cpu::block_context& ctx = cpu::current_block();
  ct::detail::require(ctx.group != nullptr,
                      "ct::*_across_blocks: the kernel declares no ct::block_group, so its "
                      "tile blocks form no group to combine across");
  cpu::block_group_state& g = *ctx.group;
  auto& mine = g.published[std::size_t(ctx.group_rank)];
  mine.resize(sizeof(x.v));
  std::memcpy(mine.data(), x.v, sizeof(x.v));
  g.meet.arrive_and_wait();
  r = x;  // (overwritten: its own bytes are among the published)
  bool first = true;
  for (const auto& bytes : g.published) {
    if (bytes.size() != sizeof(x.v)) continue;  // a member that failed (the launch rethrows its error)
    X peer;
    std::memcpy(peer.v, bytes.data(), sizeof(x.v));
    for (int s = 0; s < X::slots; ++s) r.v[s] = first ? peer.v[s] : op(r.v[s], peer.v[s]);
    first = false;
  }
  g.meet.arrive_and_wait();
#endif
  return r;
}

}  // namespace ct::backend
