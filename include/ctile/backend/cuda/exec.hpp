// The CUDA backend's execution context: thread index, barriers, warp shuffles and the per-CTA
// shared-memory arena. Only device code includes the intrinsics; the host pass sees none of it.
#pragma once
#include "ctile/core/config.hpp"

#if defined(__CUDACC__)
namespace ct::backend::cuda {

// A CTA runs blockDim.y warpgroups (ct::co_schedule), warpgroup y on threads (0..127, y): the
// tile blocks, then the producer warpgroup if the kernel asks for one.
__device__ inline int slot() { return int(threadIdx.y); }
__device__ inline bool co_scheduled() { return blockDim.y > 1; }

// The kernel's dynamic shared memory. With co-scheduled tile blocks it starts with the CTA's
// context (1 KiB, so that what follows stays 1024-byte aligned), then the kernel's own
// shared_bytes (the pipeline ring), then the arenas of tile blocks 1, 2, ...
__device__ inline unsigned char* dynamic_smem() {
  extern __shared__ __align__(1024) unsigned char ctile_dynamic_smem[];
  return ctile_dynamic_smem;
}
struct cta_context {
  int axis;              // the co-scheduled grid axis
  int extent;            // tile blocks along it (the partition's count; the grid is rounded up)
  unsigned ring_bytes;   // the kernel's shared_bytes
  int cluster_axis;      // the grid axis along which CTAs pair into clusters, if the launch made them
  int cluster;           // CTAs per cluster the launch made (1: none)
  // A persistent grid (with a producer warpgroup, ct::co_schedule): the CTAs a plain launch
  // would have had along each axis, and each tile block's current CTA (its coordinates there).
  int ctas[3];
  int current[2][3];
  // The ring a producer fills: trips each tile block has consumed (~0u until its barriers are
  // set), and the trip count of every tile (the producer's, for the tile blocks to compare).
  unsigned ring_trips[2];
  unsigned tile_trips;
  // wgmma folds each tile block has begun in its current tile (thread 0's count).
  int tile_folds[2];
};
inline constexpr unsigned cta_context_bytes = 1024;
__device__ inline cta_context& context() { return *reinterpret_cast<cta_context*>(dynamic_smem()); }

// The part of dynamic shared memory the kernel declared (shared_bytes), for ct::pipelined.
__device__ inline unsigned char* kernel_smem() { return dynamic_smem() + (co_scheduled() ? cta_context_bytes : 0); }

// The CTA's tile blocks, and whether this thread is in its producer warpgroup. A producer comes
// only with two tile blocks (ct::co_schedule), so a third warpgroup is one. Derived from blockDim
// and threadIdx, not read from the context, so that kernels with one tile block a CTA (whose
// entry assumes blockDim.y == 1) fold every co-scheduling test away.
__device__ inline int tile_blocks() { return blockDim.y == 3 ? 2 : int(blockDim.y); }
__device__ inline bool is_producer() { return blockDim.y == 3 && threadIdx.y == 2; }
// A CTA with a producer warpgroup is one of a persistent grid (ct::co_schedule).
__device__ inline bool persistent() { return blockDim.y == 3; }

// How many CTAs along the co-scheduled axis a persistent grid's order takes before moving on:
// 8 CTAs of two 128-row tiles cover 2048 rows of a GEMM's A, which with the ~16 columns of B
// that the rest of 132 SMs then run stays within the H200's 50 MB of L2 up to K of 4-8 K.
inline constexpr unsigned persistent_group = 8;

// The persistent grid's sequence: the plain grid's CTAs, which CTA blockIdx.x runs at positions
// blockIdx.x, blockIdx.x + gridDim.x, ... With clusters of two (then gridDim.x is even, and a
// cluster's CTAs are blockIdx.x 2u and 2u + 1), the sequence runs over the plain grid with its
// cluster axis rounded up to even, so that positions 2u and 2u + 1 are neighbours along that
// axis: a cluster's CTAs run neighbouring tiles (where the count along the axis is odd, the
// last one's second CTA runs a tile past the partition's end: padding in, nothing out). The
// launch sizes the grid by the same count (clusters_along).
__host__ __device__ inline unsigned clusters_along(unsigned ctas, unsigned cluster) {
  return (ctas + cluster - 1) / cluster;
}

// The CTAs of a persistent grid's sequence over a plain grid of `ctas` (clusters of `cluster`
// along `cluster_axis`: that axis rounded up to whole clusters).
__host__ __device__ inline unsigned persistent_ctas(const int (&ctas)[3], int cluster_axis, int cluster) {
  unsigned total = 1;
  for (int i = 0; i < 3; ++i)
    total *= i == cluster_axis && cluster == 2 ? clusters_along(unsigned(ctas[i]), 2) * 2 : unsigned(ctas[i]);
  return total;
}
__device__ inline unsigned persistent_ctas() {
  const cta_context& c = context();
  return persistent_ctas(c.ctas, c.cluster_axis, c.cluster);
}

// The persistent grid's order: the CTA that position v of the sequence runs, as coordinates in
// the plain grid of `ctas`. Along `axis` (the co-scheduled one) in groups of persistent_group,
// then along the next axis (2, or 1 when `axis` is 2), then the remaining one: CTAs that run at
// the same time cover a few rows of A and a few columns of B of a GEMM, which stay in L2. With
// clusters of two, the same order over pairs of CTAs along `cluster_axis`.
// The axes are run-time values, so the three-element arrays are only indexed by the unrolled
// loops' constants: an index known only at run time puts an array in local memory.
__host__ __device__ inline void persistent_order(unsigned v, const int (&ctas)[3], int axis, int cluster_axis,
                                                 int cluster, int (&cta)[3]) {
  const bool pairs = cluster == 2;
  const unsigned rank = pairs ? v % 2 : 0;
  if (pairs) v /= 2;
  const int next = axis == 2 ? 1 : 2;
  unsigned n_along = 0, n_next = 0;
  for (int i = 0; i < 3; ++i) {
    const unsigned n = pairs && i == cluster_axis ? clusters_along(unsigned(ctas[i]), 2) : unsigned(ctas[i]);
    if (i == axis) n_along = n;
    if (i == next) n_next = n;
  }
  const unsigned plane = n_along * n_next;
  const unsigned o = v / plane, r = v % plane, band = persistent_group * n_next;
  const unsigned first = r / band * persistent_group, in_band = r % band;
  const unsigned width = n_along - first < persistent_group ? n_along - first : persistent_group;
  for (int i = 0; i < 3; ++i) {
    const unsigned at = i == axis ? first + in_band % width : i == next ? in_band / width : o;
    cta[i] = int(pairs && i == cluster_axis ? 2 * at + rank : at);
  }
}
__device__ inline void persistent_cta(unsigned v, int (&cta)[3]) {
  const cta_context& c = context();
  persistent_order(v, c.ctas, c.axis, c.cluster_axis, c.cluster, cta);
}

// Ends this thread: a producer warpgroup once its loads are issued. Its registers were given
// away (setmaxnreg), so it must not run the kernel's code after that; and ptxas honours the
// register split only where the producer's code never joins the tile blocks' again.
__device__ inline void leave() {
  asm volatile("exit;\n" ::: "memory");
  __builtin_unreachable();
}

__device__ inline unsigned char* arena() {
  __shared__ alignas(16) unsigned char buf[config::arena_bytes];
  if (threadIdx.y == 0) return buf;
  if (is_producer()) __trap();  // it has none (ct::co_schedule)
  return kernel_smem() + context().ring_bytes + (threadIdx.y - 1) * unsigned(config::arena_bytes);
}

// Shuffles any trivially copyable value, one 32-bit word at a time.
template <class T, class Shuffle>
__device__ inline T shuffle_words(T x, Shuffle shuffle) {
  constexpr int words = int((sizeof(T) + 3) / 4);
  unsigned w[words] = {};
  memcpy(w, &x, sizeof(T));
#pragma unroll
  for (int i = 0; i < words; ++i) w[i] = shuffle(w[i]);
  memcpy(&x, w, sizeof(T));
  return x;
}

template <class T>
__device__ inline T shfl_xor(T x, int mask) {
  return shuffle_words(x, [mask](unsigned u) { return __shfl_xor_sync(0xffffffffu, u, mask); });
}

// Value of lane `src` within aligned groups of `width` lanes.
template <class T>
__device__ inline T shfl_idx(T x, int src, int width) {
  return shuffle_words(x, [=](unsigned u) { return __shfl_sync(0xffffffffu, u, src, width); });
}

// Value from the lane `delta` below within aligned groups of `width` lanes (own value at the
// bottom of a group).
template <class T>
__device__ inline T shfl_up(T x, int delta, int width) {
  return shuffle_words(x, [=](unsigned u) { return __shfl_up_sync(0xffffffffu, u, delta, width); });
}

// Value from the lane `delta` above within the warp (own value at the top).
template <class T>
__device__ inline T shfl_down(T x, int delta) {
  return shuffle_words(x, [=](unsigned u) { return __shfl_down_sync(0xffffffffu, u, delta); });
}

}  // namespace ct::backend::cuda
#endif
