// The sm_90a way to run ct::pipelined: operand tiles staged into a ring of 128B-swizzled
// shared-memory stages, consumed by wgmma straight from shared memory with one batch kept in
// flight, the accumulator in wgmma's register layout until the loop ends.
//
// One tile block = one warpgroup (128 threads). The stages are filled one of two ways
// (tile/pipeline.hpp runs the loop):
// - by TMA, when both operands are views of kernel inputs with a TMA map (tma_table.hpp): thread
//   0 of each tile block issues 64 x 64 boxes for trip k + S - 2 during trip k, once the stage's
//   `empty` barrier says every warp is done with it; consumers wait on the stage's `full`
//   barrier, and after trip k's batch lane 0 of each warp arrives on the previous stage's `empty`.
//   No CTA barrier in the loop.
// - by the threads otherwise: cp.async of 16-byte chunks (zero filled past the tensor's edge) or,
//   for column-major, odd-stride or misaligned views, element by element; per trip k:
//   cp.async.wait_group S-2, fence to the async proxy, barrier; trip k's wgmmas, commit;
//   wait until only trip k's batch is pending, barrier; copies of trip k+S-1 into stage k-1.
// The ring lives in the kernel's dynamic shared memory (ct::pipeline_shared_bytes, declared by
// the kernel as `static constexpr std::size_t shared_bytes`); without it the launch traps.
//
// Staged tiles are stored with their last axis (the one contiguous in memory for row-major
// tensors) as the swizzled axis: an [R, C] tile is C/64 panels of R rows x 128 bytes. So an A
// tile [BM, BK] is K-major and a B tile [BK, BN] is MN-major, the layouts wgmma reads with
// transpose flags 0 and 1.
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "ctile/backend/cuda/exec.hpp"
#include "ctile/backend/memory.hpp"
#include "ctile/backend/mma_operands.hpp"
#include "ctile/backend/sm80/mma_sync.hpp"
#include "ctile/backend/sm90/wgmma.hpp"
#if defined(__CUDACC__)
#include "ctile/backend/sm90/tma.hpp"
#include "ctile/backend/sm90/tma_table.hpp"
#endif

namespace ct {
// Dynamic shared memory a kernel declares (static constexpr std::size_t shared_bytes) for the
// staged operand ring of its ct::pipelined loop on sm_90a: 96 KiB, so that two tile blocks fit
// on one SM next to their 16 KiB arenas.
inline constexpr std::size_t pipeline_shared_bytes = 96 * 1024;
}  // namespace ct

namespace ct::backend::sm90 {

// A staged operand tile in shared memory: the 2-D part [R, C] of shape S (a leading batch axis of
// extent 1 is allowed) as C/64 panels of R rows x 128 bytes, 128B-swizzled, panel p at
// addr + p * R * 128.
template <class T, class S>
struct smem_tile {
  std::uint32_t addr;
};

// The accumulator of a BM x BN wgmma fold: BM/64 row halves of 64 x BN f32 in wgmma's layout.
template <int BM, int BN>
struct wgmma_accumulator {
  float d[BM / 64][BN / 2];
};

template <class S>
constexpr int rows_of() { return S::dim(S::rank - 2); }
template <class S>
constexpr int cols_of() { return S::dim(S::rank - 1); }

// Whether a fold with accumulator tile Acc over operand tiles (T, SA) and (T, SB) has a wgmma
// path: 16-bit inputs, f32 accumulator of 64 or 128 rows by 128 columns, K tiles of 64.
template <class TAcc, class SAcc, class T, class SA, class SB>
constexpr bool fold_eligible() {
  if constexpr (!std::is_same_v<TAcc, float> || !tensor_core_16bit_v<T>) return false;
  else if constexpr (SAcc::rank != SA::rank || SAcc::rank != SB::rank || !unit_batch<SAcc>() || !unit_batch<SA>() ||
                     !unit_batch<SB>())
    return false;
  else
    return (rows_of<SAcc>() == 64 || rows_of<SAcc>() == 128) && cols_of<SAcc>() == 128 &&
           rows_of<SA>() == rows_of<SAcc>() && cols_of<SA>() == 64 && rows_of<SB>() == 64 &&
           cols_of<SB>() == cols_of<SAcc>();
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
  static_assert(stages >= 2, "wgmma fold: two stages must fit ct::pipeline_shared_bytes");
};

#if CTILE_HAS_WGMMA

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
  return have >= need && smem_address(base) % 1024u == 0 ? base : nullptr;
}

// Whether the tile at `origin` of a view can go by 16-byte cp.async chunks: unit stride on the
// last axis, 16-byte aligned base, rows and the tile's first column on 8-element boundaries.
template <class T, int R>
__device__ inline bool copies_by_chunks(const T* data, const global_view<R>& g, const coord<R>& origin) {
  bool ok = g.stride[R - 1] == 1 && reinterpret_cast<std::uintptr_t>(data) % 16 == 0 && origin[R - 1] % 8 == 0 &&
            origin[R - 2] >= 0 && origin[R - 1] >= 0;
  for (int i = 0; i < R - 1; ++i) ok = ok && g.stride[i] % 8 == 0;
  return ok;
}

// Stages the [R, C] tile of a view at `origin` into shared memory at `dst` (the layout of
// smem_tile), by threads t = 0 .. Threads-1. Elements outside the tensor become zero. By
// cp.async when `chunks` (the caller waits), else by plain loads and stores (complete on return).
//
// Thread t moves chunk column t % (C/8) of rows t / (C/8) + j * (Threads / (C/8)): a fixed column,
// rows a fixed distance apart, and (that distance being a multiple of 8) a fixed swizzle, so
// each further chunk is one pointer step and one shared-memory offset step.
template <class T, class S, int Threads, int R>
__device__ inline void stage_tile(unsigned char* dst, const T* data, const global_view<R>& g, const coord<R>& origin,
                                  bool chunks, int t) {
  constexpr int rows = rows_of<S>(), cols = cols_of<S>(), chunks_per_row = cols / 8;
  static_assert(chunks_per_row <= Threads && Threads % chunks_per_row == 0 && rows % (Threads / chunks_per_row) == 0,
                "wgmma fold: the tile's 16-byte chunks must spread evenly over the threads");
  constexpr int row_step = Threads / chunks_per_row, passes = rows / row_step;
  static_assert(row_step % 8 == 0, "wgmma fold: rows a thread moves must share one swizzle phase");
  const int chunk = t % chunks_per_row, row0 = t / chunks_per_row;
  unsigned char* to = dst + (chunk / 8) * rows * 128 + swizzle128_offset(unsigned(row0), unsigned(chunk % 8) * 16u);
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
      sm80::cp_async_16(to + j * row_step * 128, inside ? static_cast<const void*>(from + j * row_step * row_stride) : data,
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
      memcpy(to + j * row_step * 128, v, 16);
    }
  }
}

// Stages the [R, C] tile of a view at `origin` into shared memory at `dst` (the layout of
// smem_tile) by TMA: its 64 x 64 boxes, each 8 KiB of one panel, all completing on `bar`.
// Elements outside the tensor land as zero.
// With a nonzero `multicast` (a mask of cluster CTAs), the boxes land in each of those CTAs.
template <class S, int R>
__device__ inline void tma_stage_tile(unsigned char* dst, const CUtensorMap* map, const coord<R>& origin,
                                      std::uint64_t* bar, std::uint16_t multicast = 0) {
  constexpr int rows = rows_of<S>(), cols = cols_of<S>(), box = tma_box_extent;
  static_assert(rows % box == 0 && cols % box == 0, "wgmma fold: a TMA-staged tile is made of 64 x 64 boxes");
  const int batch = R == 3 ? int(origin[0]) : 0, row = int(origin[R - 2]), col = int(origin[R - 1]);
  CT_UNROLL
  for (int p = 0; p < cols / box; ++p)
    CT_UNROLL
    for (int q = 0; q < rows / box; ++q)
      if (multicast != 0)
        tma_load_3d_multicast(dst + (p * rows + q * box) * 128, map, col + p * box, row + q * box, batch, bar, multicast);
      else
        tma_load_3d(dst + (p * rows + q * box) * 128, map, col + p * box, row + q * box, batch, bar);
}
template <class S>
inline constexpr std::uint32_t tma_tile_bytes = std::uint32_t(rows_of<S>() * cols_of<S>() * 2);

// The ring's barriers when TMA fills it: full[s] (stage s has landed) and empty[s] (every warp
// is done reading it), for up to 4 stages; one set per co-scheduled tile block, for folds that
// do not share a stage.
struct ring_barriers {
  std::uint64_t full[4];
  std::uint64_t empty[4];
  std::uint64_t ready;  // with a producer warpgroup: it has published the tiles' trip count
  unsigned trips;  // the fold's trip count, for the peer CTA of a cluster to compare with its own
};
__device__ inline ring_barriers& fold_barriers(int slot) {
  __shared__ alignas(8) ring_barriers bars[2];
  return bars[slot];
}

#if CTILE_HAS_WGMMA
// The barriers of the ring a producer warpgroup fills for `blocks` tile blocks (run_fed_fold in
// tile/pipeline.hpp), set by the kernel's entry before its first __syncthreads, which every
// thread reaches at the same instruction: so that barrier alone orders them before any use,
// for the compiler, the hardware and compute-sanitizer's racecheck alike. In a cluster of
// `ctas`, a stage is free once every warp of every tile block of each CTA has released it.
__device__ inline void init_fed_ring(int blocks, int ctas) {
  ring_barriers& bars = fold_barriers(0);
  for (std::uint64_t& full : bars.full) mbarrier_init(&full, 1);
  for (std::uint64_t& empty : bars.empty)
    mbarrier_init(&empty, unsigned(ctas * blocks) * config::gpu_block_threads / 32);
  mbarrier_init(&bars.ready, 1);
  fence_barrier_init();
}
#endif

// One trip's wgmmas: acc += a @ b with a [BM, BK] K-major and b [BK, BN] MN-major in shared
// memory (smem_tile layout). K steps of 16: +32 bytes along a's panel row, +16 rows of b.
template <class T, class SA, class SB, int BM, int BN>
__device__ inline void wgmma_trip(wgmma_accumulator<BM, BN>& acc, const smem_tile<T, SA>& a, const smem_tile<T, SB>& b) {
  constexpr int BK = cols_of<SA>();
  constexpr std::uint32_t b_panel_bytes = std::uint32_t(rows_of<SB>()) * 128u;
  CT_UNROLL
  for (int s = 0; s < BK / 16; ++s) {
    const std::uint32_t a_k = std::uint32_t((s * 16) / 64) * BM * 128u + std::uint32_t((s * 16) % 64) * 2u;
    const std::uint64_t db = smem_descriptor(b.addr + std::uint32_t(s) * 16u * 128u, b_panel_bytes, 1024,
                                             smem_swizzle::b128);
    CT_UNROLL
    for (int h = 0; h < BM / 64; ++h)
      wgmma_m64n128k16_f32<T, 1>(acc.d[h], kmajor_b128_descriptor(a.addr + std::uint32_t(h) * 64u * 128u + a_k), db, 1);
  }
}

#endif  // CTILE_HAS_WGMMA

}  // namespace ct::backend::sm90
