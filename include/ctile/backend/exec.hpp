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

CT_HD inline void sync_block() {
#if defined(__CUDA_ARCH__)
  __syncthreads();
#endif
}

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
CT_HD inline T shfl_idx(T x, [[maybe_unused]] int src, [[maybe_unused]] int width) {
#if defined(__CUDA_ARCH__)
  return cuda::shfl_idx(x, src, width);
#else
  return x;
#endif
}

CT_HD inline int block_id(int axis) {
#if defined(__CUDA_ARCH__)
  return axis == 0 ? int(blockIdx.x) : axis == 1 ? int(blockIdx.y) : int(blockIdx.z);
#else
  return cpu::current_block().bid[axis];
#endif
}

CT_HD inline int grid_blocks(int axis) {
#if defined(__CUDA_ARCH__)
  return axis == 0 ? int(gridDim.x) : axis == 1 ? int(gridDim.y) : int(gridDim.z);
#else
  return cpu::current_block().num_blocks[axis];
#endif
}

}  // namespace ct::backend
