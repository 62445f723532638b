// The CUDA backend's execution context: thread index, barriers, warp shuffles and the per-CTA
// shared-memory arena. Only device code includes the intrinsics; the host pass sees none of it.
#pragma once
#include "ctile/core/config.hpp"

#if defined(__CUDACC__)
namespace ct::backend::cuda {

__device__ inline unsigned char* arena() {
  __shared__ alignas(16) unsigned char buf[config::arena_bytes];
  return buf;
}

// 16 bytes per thread for the warp-cooperative loads and stores of misaligned rows
// (backend/memory.hpp). Apart from the arena, so that each warp may use its own 512 bytes with
// only warp-level synchronisation while other warps exchange through the arena.
__device__ inline unsigned char* staging() {
  __shared__ alignas(16) unsigned char buf[config::gpu_block_threads * 16];
  return buf;
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

}  // namespace ct::backend::cuda
#endif
