// TMA maps of a pipelined kernel's inputs. A kernel's ct::pipelined loop names its operands
// only inside device code (views of its ct::in parameters), but a TMA map has to be encoded on
// the host. So the launcher encodes one for every 16-bit rank-2 or rank-3 input of a kernel that
// declares shared_bytes (backend/cuda/launch.hpp), with a box of 64 x 64 elements and the 128B
// swizzle: the unit every staged tile of the sm_90a fold is made of, whatever the kernel's tile
// shape. The table is a __grid_constant__ kernel parameter; the kernel entry publishes its
// address in shared memory, and the fold looks up the map of a view by its data pointer and
// extents. A view with no usable map (misaligned, odd strides, a permuted view) is staged by
// the tile block's threads instead.
#pragma once
#include <cuda.h>

#include "ctile/backend/memory.hpp"
#include "ctile/core/config.hpp"

namespace ct::backend::sm90 {

inline constexpr int tma_box_extent = 64;  // rows and columns of every box

struct tma_operand {
  CUtensorMap map;          // rank 3: (col, row, batch); a rank-2 input is one batch
  const void* base;         // the input's first element
  index_t extent[3];        // [batch, rows, cols] as the view has them
  index_t stride[3];        // in elements
  int usable;               // 0: TMA cannot describe this input; the fold stages it by threads
};

template <int N>
struct tma_table {
  tma_operand op[N];
};
struct no_tma_table {};

#if defined(__CUDACC__)
// Where the entry publishes the table: a pointer and a count in shared memory, written by one
// thread before the CTA's first barrier. Only kernels that declare shared_bytes publish one,
// and only those can reach the fold that reads it.
struct published_tma {
  const tma_operand* op;
  int count;
};
__device__ inline published_tma& tma_slot() {
  __shared__ published_tma slot;
  return slot;
}

template <int N>
__device__ inline void publish(const tma_table<N>& table) {
  tma_slot() = published_tma{table.op, N};
}
__device__ inline void publish(const no_tma_table&) { tma_slot() = published_tma{nullptr, 0}; }

// The map of the rank-R view (data, g), or null when the launch has none for it.
template <class T, int R>
__device__ inline const CUtensorMap* find_tma(const T* data, const global_view<R>& g) {
  static_assert(R == 2 || R == 3, "TMA maps describe rank-2 and rank-3 views");
  const published_tma p = tma_slot();
  for (int i = 0; i < p.count; ++i) {
    const tma_operand& o = p.op[i];
    // Every field compared, without short-circuits: the entry's loads then go out together
    // rather than one after another's test (a persistent GEMM's tile blocks look up both
    // operands at every tile).
    bool same = (o.usable != 0) & (o.base == static_cast<const void*>(data));
    for (int a = 0; a < R; ++a)
      same = same & (o.extent[3 - R + a] == g.extent[a]) & (o.stride[3 - R + a] == g.stride[a]);
    if (same) return &o.map;
  }
  return nullptr;
}
#endif

}  // namespace ct::backend::sm90
