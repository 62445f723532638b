// The one place tile code asks "which backend am I compiled for": thread index, barrier, arena,
// shuffles and block coordinates. Everything above this file is backend-neutral.
#pragma once
#include "ctile/backend/cpu/exec.hpp"
#include "ctile/backend/cuda/exec.hpp"

namespace ct::backend {

CT_HD inline int thread_index() {
#if defined(__CUDA_ARCH__)
  return int(threadIdx.x);
#else
  return 0;
#endif
}

// thread_index(), read anew where it is called (a volatile read) and known to lie below the
// block size: values computed from it (a tile store's addresses, an exchange's) stay where they
// are used, rather than being hoisted out of a persistent CTA's tile loop by ptxas and kept,
// spilled to local memory, across the main loop; and / and % on it become shifts and masks.
CT_HD inline int thread_index_here() {
#if defined(__CUDA_ARCH__)
  unsigned t;
  asm volatile("mov.u32 %0, %%tid.x;\n" : "=r"(t));
  __builtin_assume(t < unsigned(config::gpu_block_threads));
  return int(t);
#else
  return 0;
#endif
}

// A barrier of the tile block's threads: the whole CTA, or with co-scheduled tile blocks the
// block's own named barrier (1 + its slot; 0 stays the CTA's).
CT_HD inline void sync_block() {
#if defined(__CUDA_ARCH__)
  // Immediate barrier ids, so that a kernel reserves only the barriers it names (at most 2
  // co-scheduled tile blocks and a producer warpgroup).
  if (!cuda::co_scheduled()) __syncthreads();
  else if (cuda::slot() == 0) asm volatile("bar.sync 1, %0;\n" ::"n"(config::gpu_block_threads) : "memory");
  else if (cuda::slot() == 1) asm volatile("bar.sync 2, %0;\n" ::"n"(config::gpu_block_threads) : "memory");
  else asm volatile("bar.sync 3, %0;\n" ::"n"(config::gpu_block_threads) : "memory");
#endif
}

#if defined(__CUDA_ARCH__)
// Whether x holds in any thread of the tile block; a barrier of the tile block, like sync_block.
__device__ inline bool block_any(bool x) {
  if (!cuda::co_scheduled()) return __syncthreads_or(int(x)) != 0;
  unsigned any = 0;
#define CT_BLOCK_ANY(ID)                                                                                 \
  asm volatile("{\n.reg .pred p, q;\nsetp.ne.u32 p, %1, 0;\nbarrier.red.or.pred q, " #ID ", %2, p;\n" \
               "selp.u32 %0, 1, 0, q;\n}\n"                                                             \
               : "=r"(any)                                                                               \
               : "r"(unsigned(x)), "n"(config::gpu_block_threads)                                        \
               : "memory")
  if (cuda::slot() == 0) CT_BLOCK_ANY(1);
  else if (cuda::slot() == 1) CT_BLOCK_ANY(2);
  else CT_BLOCK_ANY(3);
#undef CT_BLOCK_ANY
  return any != 0;
}
#endif

CT_HD inline unsigned char* arena() {
#if defined(__CUDA_ARCH__)
  return cuda::arena();
#else
  return cpu::arena();
#endif
}

// XOR-shuffle within a warp. Only reached with lane groups wider than one thread, which exist
// only on the GPU; on the CPU (one thread per block) it is the identity.
template <class T>
CT_HD inline T shfl_xor(T x, [[maybe_unused]] int mask) {
#if defined(__CUDA_ARCH__)
  return cuda::shfl_xor(x, mask);
#else
  return x;
#endif
}

template <class T>
CT_HD inline T shfl_up(T x, [[maybe_unused]] int delta, [[maybe_unused]] int width) {
#if defined(__CUDA_ARCH__)
  return cuda::shfl_up(x, delta, width);
#else
  return x;
#endif
}

template <class T>
CT_HD inline T shfl_down(T x, [[maybe_unused]] int delta) {
#if defined(__CUDA_ARCH__)
  return cuda::shfl_down(x, delta);
#else
  return x;
#endif
}

template <class T>
CT_HD inline T shfl_idx(T x, [[maybe_unused]] int src, [[maybe_unused]] int width) {
#if defined(__CUDA_ARCH__)
  return cuda::shfl_idx(x, src, width);
#else
  return x;
#endif
}

CT_HD inline int block_id(int axis) {
#if defined(__CUDA_ARCH__)
  if (cuda::persistent()) {
    // A persistent grid: the tile block's current CTA (the entry's loop sets it); the producer
    // warpgroup sits past the partition's end. (A runtime test in every kernel: the entries'
    // __builtin_assume on blockDim.y does not fold it, nor the co_scheduled() tests below.)
    const cuda::cta_context& c = cuda::context();
    if (cuda::is_producer()) return axis == c.axis ? c.extent : 0;
    const int cta = c.current[cuda::slot()][axis];
    return axis == c.axis ? cta * cuda::tile_blocks() + cuda::slot() : cta;
  }
  const int cta = axis == 0 ? int(blockIdx.x) : axis == 1 ? int(blockIdx.y) : int(blockIdx.z);
  if (!cuda::co_scheduled() || axis != cuda::context().axis) return cta;
  // Written so that without a producer warpgroup (blockDim.y < 3, known to the compiler in
  // every entry) it is the plain cta * blocks + slot: a form the compiler folds for kernels of
  // one tile block a CTA (same code as before producers existed, bench/bandwidth.cpp's SASS).
  if (blockDim.y < 3) return cta * int(blockDim.y) + cuda::slot();
  // The producer warpgroup has no tile: it sits past the partition's end.
  return cuda::is_producer() ? cuda::context().extent : cta * cuda::tile_blocks() + cuda::slot();
#else
  return cpu::current_block().bid[axis];
#endif
}

CT_HD inline int grid_blocks(int axis) {
#if defined(__CUDA_ARCH__)
  if (cuda::co_scheduled() && axis == cuda::context().axis) return cuda::context().extent;
  if (cuda::persistent()) return cuda::context().ctas[axis];
  return axis == 0 ? int(gridDim.x) : axis == 1 ? int(gridDim.y) : int(gridDim.z);
#else
  return cpu::current_block().num_blocks[axis];
#endif
}

}  // namespace ct::backend
