// Hopper (sm_90a) asynchronous copies: mbarriers and TMA tensor loads into shared memory. The
// host encodes the tensor map (runtime/tma.hpp) and passes it as a __grid_constant__ kernel
// parameter; one thread arms a barrier with the bytes to expect and issues the load; every
// consumer waits on the barrier's phase. Facts from the PTX ISA (mbarrier, cp.async.bulk.tensor).
#pragma once
#include <cuda.h>

#include <cstdint>

#include "ctile/backend/sm90/wgmma.hpp"

namespace ct::backend::sm90 {

#if CTILE_HAS_WGMMA
// A barrier in shared memory that completes a phase when `count` threads have arrived and all
// the bytes announced with expect_tx have landed.
__device__ inline void mbarrier_init(std::uint64_t* bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_address(bar)), "r"(count) : "memory");
}
// Makes initialised barriers visible to the async proxy (TMA) and to other threads.
__device__ inline void fence_barrier_init() { asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory"); }

__device__ inline void mbarrier_arrive_expect_tx(std::uint64_t* bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_address(bar)), "r"(bytes)
               : "memory");
}
__device__ inline void mbarrier_arrive(std::uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem_address(bar)) : "memory");
}
// Waits until the phase with parity `parity` has completed (a fresh barrier is in phase 0, so
// the first wait is on parity 0). The braces keep the label local to this copy of the loop.
__device__ inline void mbarrier_wait(std::uint64_t* bar, unsigned parity) {
  asm volatile(
      "{\n"
      ".reg .pred done;\n"
      "wait_again:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra wait_again;\n"
      "}\n" ::"r"(smem_address(bar)),
      "r"(parity)
      : "memory");
}

// mbarrier_wait, acquiring at cluster scope: for barriers a peer CTA arrives on.
__device__ inline void mbarrier_wait_cluster(std::uint64_t* bar, unsigned parity) {
  asm volatile(
      "{\n"
      ".reg .pred done;\n"
      "wait_again:\n"
      "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra wait_again;\n"
      "}\n" ::"r"(smem_address(bar)),
      "r"(parity)
      : "memory");
}

// The box of `map` whose first element is at (col, row), into `dst` (1024-byte aligned for
// the 128B swizzle); completes on `bar`. Elements outside the tensor land as zero.
__device__ inline void tma_load_2d(void* dst, const CUtensorMap* map, int col, int row, std::uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::"r"(
          smem_address(dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(col), "r"(row), "r"(smem_address(bar))
      : "memory");
}

// The same for a rank-3 map: the box at (col, row, batch).
__device__ inline void tma_load_3d(void* dst, const CUtensorMap* map, int col, int row, int batch, std::uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];\n" ::"r"(
          smem_address(dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(col), "r"(row), "r"(batch), "r"(smem_address(bar))
      : "memory");
}

// Thread block clusters (ct::co_schedule's cluster): this CTA's rank in its cluster and the
// cluster's size (1 when the launch made none).
__device__ inline unsigned cluster_rank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
  return r;
}
__device__ inline unsigned cluster_size() {
  unsigned n;
  asm volatile("mov.u32 %0, %%cluster_nctarank;\n" : "=r"(n));
  return n;
}
// Every thread of every CTA of the cluster: what each wrote to shared memory (its own or a
// peer's) before is visible to all after.
__device__ inline void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}
// The word at `p` in this CTA's shared memory, read from the same place in CTA `cta`'s.
__device__ inline unsigned peer_shared_u32(const unsigned* p, unsigned cta) {
  unsigned remote, v;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(remote) : "r"(smem_address(p)), "r"(cta));
  asm volatile("ld.shared::cluster.u32 %0, [%1];\n" : "=r"(v) : "r"(remote) : "memory");
  return v;
}
// Arrives on the barrier at the same place as `bar` in CTA `cta`'s shared memory: a release at
// cluster scope when `ordered` (this thread's memory accesses before it are seen by the peer's
// threads that wait on it), else relaxed. A relaxed arrival serves to say that this warp's
// wgmmas have read a stage (done once wgmma.wait_group returns); a release costs a fence of
// the GPU's memory (MEMBAR.ALL.GPU).
__device__ inline void mbarrier_arrive_peer(std::uint64_t* bar, unsigned cta, bool ordered = true) {
  // The two differ only in the arrival's semantics, which must be spelled in the instruction.
#define CT_ARRIVE_PEER(SEM)                                                          \
  asm volatile("{\n"                                                                 \
               ".reg .b32 remote;\n"                                                 \
               "mapa.shared::cluster.u32 remote, %0, %1;\n"                          \
               "mbarrier.arrive." SEM ".cluster.shared::cluster.b64 _, [remote];\n" \
               "}\n" ::"r"(smem_address(bar)),                                       \
               "r"(cta)                                                              \
               : "memory")
  if (ordered) CT_ARRIVE_PEER("release");
  else CT_ARRIVE_PEER("relaxed");
#undef CT_ARRIVE_PEER
}
// tma_load_3d into every CTA of the cluster named by bit mask `ctas`: the box lands at `dst`'s
// offset in each one's shared memory and completes on the barrier at `bar`'s offset there.
__device__ inline void tma_load_3d_multicast(void* dst, const CUtensorMap* map, int col, int row, int batch,
                                             std::uint64_t* bar, std::uint16_t ctas) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%2, %3, %4}], [%5], %6;\n" ::"r"(smem_address(dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(col), "r"(row), "r"(batch), "r"(smem_address(bar)), "h"(ctas)
      : "memory");
}

// Ends a barrier's life, so that its word may be initialised again (by a later fold).
__device__ inline void mbarrier_inval(std::uint64_t* bar) {
  asm volatile("mbarrier.inval.shared::cta.b64 [%0];\n" ::"r"(smem_address(bar)) : "memory");
}
#endif

}  // namespace ct::backend::sm90
