// Operand tiles staged in shared memory for ct::pipelined, on every tensor-core path (sm_80's
// mma.sync fold, backend/sm80/mma_sync_fold.hpp, and Hopper's wgmma fold, backend/sm90/
// wgmma_fold.hpp): the 128-byte-swizzled panel layout that TMA writes and wgmma and ldmatrix
// read, the ring of stages in the kernel's dynamic shared memory, and the copies by which a tile
// block's threads fill a stage (cp.async, or element by element where cp.async cannot serve).
#pragma once
#include <cstddef>
#include <cstdint>

#include "ctile/backend/cuda/exec.hpp"
#include "ctile/backend/memory.hpp"
#include "ctile/backend/sm80/mma_sync.hpp"
#include "ctile/core/config.hpp"

namespace ct {
// Dynamic shared memory a kernel declares (static constexpr std::size_t shared_bytes) for the
// staged operand ring of its ct::pipelined loop: 96 KiB, so that two tile blocks fit on one
// Hopper SM next to their 16 KiB arenas (an sm_80 SM holds one such CTA).
inline constexpr std::size_t pipeline_shared_bytes = 96 * 1024;
}  // namespace ct

namespace ct::backend::sm80 {

// The 128B swizzle: a panel row is 128 bytes; within each group of 8 rows (a 1024-byte atom) the
// eight 16-byte pieces of row r are permuted by XOR with r % 8. Byte offset of byte `col_byte`
// (< 128) of row `row` in a panel whose base is 1024-byte aligned. Eight rows' pieces of one
// column fall in eight different bank groups, which is what ldmatrix reads at once.
CT_HD constexpr std::uint32_t swizzle128_offset(std::uint32_t row, std::uint32_t col_byte) {
  return row * 128u + (((col_byte / 16u) ^ (row % 8u)) * 16u) + col_byte % 16u;
}

// A staged operand tile in shared memory: the 2-D part [R, C] of shape S (a leading batch axis of
// extent 1 is allowed) as C/64 panels of R rows x 128 bytes, 128B-swizzled, panel p at
// addr + p * R * 128.
template <class T, class S>
struct smem_tile {
  std::uint32_t addr;
};

template <class S>
constexpr int rows_of() {
  return S::dim(S::rank - 2);
}
template <class S>
constexpr int cols_of() {
  return S::dim(S::rank - 1);
}

// Byte offset of element (row, col) of a staged [R, C] tile of 16-bit elements (smem_tile).
template <int R>
CT_HD constexpr std::uint32_t staged_offset(int row, int col) {
  return std::uint32_t(col / 64) * R * 128u + swizzle128_offset(std::uint32_t(row), std::uint32_t(col % 64) * 2u);
}

// Ring geometry of a fold over operand tiles SA and SB of 16-bit elements, run by `Blocks`
// co-scheduled tile blocks (ct::co_schedule) that share the B tile: a stage holds each block's
// A tile, then the one B tile. Blocks x ct::pipeline_shared_bytes of ring, at most 4 stages.
template <class SA, class SB, int Blocks>
struct ring {
  static constexpr std::uint32_t bytes_a = rows_of<SA>() * cols_of<SA>() * 2;
  static constexpr std::uint32_t bytes_b = rows_of<SB>() * cols_of<SB>() * 2;
  static constexpr std::uint32_t b_offset = Blocks * bytes_a;
  static constexpr std::uint32_t stage_bytes = Blocks * bytes_a + bytes_b;
  static constexpr std::uint32_t ring_bytes = std::uint32_t(Blocks * pipeline_shared_bytes);
  static constexpr int stages = int(ring_bytes / stage_bytes) > 4 ? 4 : int(ring_bytes / stage_bytes);
  static_assert(stages >= 2, "ct::pipelined: two stages must fit ct::pipeline_shared_bytes");
};

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800

__device__ inline std::uint32_t dynamic_smem_size() {
  std::uint32_t n;
  asm volatile("mov.u32 %0, %%dynamic_smem_size;\n" : "=r"(n));
  return n;
}

// The shared memory the kernel declared (its shared_bytes), if this launch gave it at least
// `need` bytes, 1024-byte aligned (the swizzle atoms); else null.
__device__ inline unsigned char* declared_smem(std::uint32_t need) {
  unsigned char* base = cuda::kernel_smem();
  const std::uint32_t have = cuda::co_scheduled() ? cuda::context().ring_bytes : dynamic_smem_size();
  return have >= need && smem_u32(base) % 1024u == 0 ? base : nullptr;
}

// Whether the tile at `origin` of a view can go by 16-byte cp.async chunks: unit stride on the
// last axis, 16-byte aligned base, rows and the tile's first column on 8-element boundaries.
template <class T, int R>
__device__ inline bool copies_by_chunks(const T* data, const global_view<R>& g, const coord<R>& origin) {
  bool ok = g.stride[R - 1] == 1 && reinterpret_cast<std::uintptr_t>(data) % 16 == 0 &&
            origin[R - 1] % 8 == 0 && origin[R - 2] >= 0 && origin[R - 1] >= 0;
  for (int i = 0; i < R - 1; ++i) ok = ok && g.stride[i] % 8 == 0;
  return ok;
}

// Stages the [R, C] tile of a view at `origin` into shared memory at `dst` (the layout of
// smem_tile), by threads t = 0 .. Threads-1. Elements outside the tensor become zero. By
// cp.async when `chunks` (the caller waits), else by plain loads and stores (complete on return).
//
// Thread t moves chunk column t % (C/8) of rows t / (C/8) + j * (Threads / (C/8)): a fixed column,
// rows a fixed distance apart, and (where that distance is a multiple of 8) a fixed swizzle, so
// each further chunk is one pointer step and one shared-memory offset step. (Rows of 256
// columns over 128 threads are 4 apart: two swizzle phases, each chunk's offset computed.)
template <class T, class S, int Threads, int R>
__device__ inline void stage_tile(unsigned char* dst, const T* data, const global_view<R>& g,
                                  const coord<R>& origin, bool chunks, int t) {
  constexpr int rows = rows_of<S>(), cols = cols_of<S>(), chunks_per_row = cols / 8;
  static_assert(
      chunks_per_row <= Threads && Threads % chunks_per_row == 0 && rows % (Threads / chunks_per_row) == 0,
      "ct::pipelined: the tile's 16-byte chunks must spread evenly over the threads");
  constexpr int row_step = Threads / chunks_per_row, passes = rows / row_step;
  const int chunk = t % chunks_per_row, row0 = t / chunks_per_row;
  // staged_offset<rows>(row0, chunk * 8), in the arithmetic the H200 measured (staged_offset's
  // own adds instructions to the wgmma fold's staging).
  unsigned char* const panel = dst + (chunk / 8) * rows * 128;
  unsigned char* const to = panel + swizzle128_offset(unsigned(row0), unsigned(chunk % 8) * 16u);
  // Where this thread's chunk of pass j goes.
  const auto to_pass = [&](int j) {
    if constexpr (row_step % 8 == 0) return to + j * row_step * 128;
    else return panel + swizzle128_offset(unsigned(row0 + j * row_step), unsigned(chunk % 8) * 16u);
  };
  const T* base = data;
  bool batch_inside = true;
  if constexpr (R == 3) {
    batch_inside = origin[0] >= 0 && origin[0] < g.extent[0];
    base += origin[0] * g.stride[0];
  }
  const index_t row_stride = g.stride[R - 2], col_stride = g.stride[R - 1];
  const index_t first_row = origin[R - 2] + row0, gc = origin[R - 1] + chunk * 8;
  // Rows of this thread inside the tensor: first_row + j * row_step for j < rows_inside.
  const index_t rows_left = batch_inside ? g.extent[R - 2] - first_row : 0;
  if (chunks) {
    const index_t cols_left = g.extent[R - 1] - gc;
    const int bytes = cols_left <= 0 ? 0 : cols_left >= 8 ? 16 : int(cols_left) * 2;
    const T* from = base + first_row * row_stride + gc;
    CT_UNROLL
    for (int j = 0; j < passes; ++j) {
      const bool inside = bytes > 0 && index_t(j) * row_step < rows_left;
      cp_async_16(to_pass(j),
                  inside ? static_cast<const void*>(from + j * row_step * row_stride) : data,
                  inside ? bytes : 0);
    }
  } else {
    CT_NO_UNROLL
    for (int j = 0; j < passes; ++j) {
      const index_t gr = first_row + index_t(j) * row_step;
      const bool row_inside = gr >= 0 && index_t(j) * row_step < rows_left;
      T v[8];
      CT_UNROLL
      for (int e = 0; e < 8; ++e) {
        const index_t c = gc + e;
        v[e] = row_inside && c >= 0 && c < g.extent[R - 1] ? base[gr * row_stride + c * col_stride] : T(0.0f);
      }
      memcpy(to_pass(j), v, 16);
    }
  }
}

#endif

}  // namespace ct::backend::sm80
