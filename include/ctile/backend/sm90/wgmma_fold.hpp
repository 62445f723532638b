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
#include "ctile/backend/sm80/staging.hpp"
#include "ctile/backend/sm90/wgmma.hpp"
#if defined(__CUDACC__)
#include "ctile/backend/sm90/tma.hpp"
#include "ctile/backend/sm90/tma_table.hpp"
#endif

namespace ct::backend::sm90 {

// The staged tiles and their ring are sm_80's (backend/sm80/staging.hpp); TMA fills them too.
using sm80::cols_of;
using sm80::ring;
using sm80::rows_of;
using sm80::smem_tile;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
using sm80::copies_by_chunks;
using sm80::declared_smem;
using sm80::stage_tile;
#endif

// The accumulator of a BM x BN wgmma fold: BM/64 row halves of 64 x BN f32 in wgmma's layout.
template <int BM, int BN>
struct wgmma_accumulator {
  static constexpr int rows = BM, cols = BN;
  float d[BM / 64][BN / 2];
};

// Whether a fold with accumulator tile Acc over operand tiles (T, SA) and (T, SB) has a wgmma
// path: 16-bit inputs, f32 accumulator of 64 or 128 rows by 128 columns or of 64 rows by 256
// (128 registers a thread either way), K tiles of 64.
template <class TAcc, class SAcc, class T, class SA, class SB>
constexpr bool fold_eligible() {
  if constexpr (!std::is_same_v<TAcc, float> || !tensor_core_16bit_v<T>) return false;
  else if constexpr (SAcc::rank != SA::rank || SAcc::rank != SB::rank || !unit_batch<SAcc>() || !unit_batch<SA>() ||
                     !unit_batch<SB>())
    return false;
  else
    return (((rows_of<SAcc>() == 64 || rows_of<SAcc>() == 128) && cols_of<SAcc>() == 128) ||
            (rows_of<SAcc>() == 64 && cols_of<SAcc>() == 256)) &&
           rows_of<SA>() == rows_of<SAcc>() && cols_of<SA>() == 64 && rows_of<SB>() == 64 &&
           cols_of<SB>() == cols_of<SAcc>();
}

#if CTILE_HAS_WGMMA

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

// One trip's wgmmas: acc += a @ b with a [BM, BK] K-major and b [BK, BN] MN-major in shared
// memory (smem_tile layout). K steps of 16: +32 bytes along a's panel row, +16 rows of b.
template <class T, class SA, class SB, int BM, int BN>
__device__ inline void wgmma_trip(wgmma_accumulator<BM, BN>& acc, const smem_tile<T, SA>& a, const smem_tile<T, SB>& b) {
  constexpr int BK = cols_of<SA>();
  constexpr std::uint32_t b_panel_bytes = std::uint32_t(rows_of<SB>()) * 128u;
  // The stage's two descriptors once; each step's by a constant offset (advance_descriptor).
  const std::uint64_t a0 = kmajor_b128_descriptor(a.addr);
  const std::uint64_t b0 = smem_descriptor(b.addr, b_panel_bytes, 1024, smem_swizzle::b128);
  CT_UNROLL
  for (int s = 0; s < BK / 16; ++s) {
    const std::uint32_t a_k = std::uint32_t((s * 16) / 64) * BM * 128u + std::uint32_t((s * 16) % 64) * 2u;
    const std::uint64_t db = advance_descriptor(b0, std::uint32_t(s) * 16u * 128u);
    CT_UNROLL
    for (int h = 0; h < BM / 64; ++h) {
      const std::uint64_t da = advance_descriptor(a0, std::uint32_t(h) * 64u * 128u + a_k);
      if constexpr (BN == 256) wgmma_m64n256k16_f32<T, 1>(acc.d[h], da, db, 1);
      else wgmma_m64n128k16_f32<T, 1>(acc.d[h], da, db, 1);
    }
  }
}

#endif  // CTILE_HAS_WGMMA

}  // namespace ct::backend::sm90
