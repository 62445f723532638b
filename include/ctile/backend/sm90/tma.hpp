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

// Ends a barrier's life, so that its word may be initialised again (by a later fold).
__device__ inline void mbarrier_inval(std::uint64_t* bar) {
  asm volatile("mbarrier.inval.shared::cta.b64 [%0];\n" ::"r"(smem_address(bar)) : "memory");
}
#endif

}  // namespace ct::backend::sm90
