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

template <class T>
__device__ inline T shfl_xor(T x, int mask) {
  static_assert(sizeof(T) <= 8, "shfl_xor: element wider than 8 bytes");
  if constexpr (sizeof(T) == 8) {
    unsigned long long u;
    memcpy(&u, &x, 8);
    u = __shfl_xor_sync(0xffffffffu, u, mask);
    memcpy(&x, &u, 8);
  } else {
    unsigned int u = 0;
    memcpy(&u, &x, sizeof(T));
    u = __shfl_xor_sync(0xffffffffu, u, mask);
    memcpy(&x, &u, sizeof(T));
  }
  return x;
}

}  // namespace ct::backend::cuda
#endif
