// The sm_80 way to run ct::pipelined (any GPU from sm_80 on; on sm_90a, the shapes the wgmma fold
// does not take): the tile block's 128 threads copy each trip's operand tiles by cp.async into a
// ring of 128B-swizzled shared-memory stages (backend/sm80/staging.hpp), S - 1 trips ahead of
// the trip being multiplied; each warp multiplies its quarter of the tile from there, with
// ldmatrix and mma.sync m16n8k16, into an accumulator that stays in mma's fragment layout in
// registers until the loop ends. tile/pipeline.hpp runs the loop (run_mma_sync_fold).
//
// The geometry below (which rows and columns a lane's ldmatrix addresses and accumulator
// registers stand for) is plain constexpr arithmetic, so that a host test
// (tests/backend/mma_sync_fold_test.cpp) runs it through the PTX fragment rules.
#pragma once
#include <cstdint>
#include <type_traits>

#include "ctile/backend/mma_operands.hpp"
#include "ctile/backend/sm80/mma_sync.hpp"
#include "ctile/backend/sm80/staging.hpp"

namespace ct::backend::sm80 {

// A BM x BN tile block's four warps as a 2 x 2 grid: warp w multiplies rows
// [(w / 2) tm, (w / 2 + 1) tm) and columns [(w % 2) tn, (w % 2 + 1) tn), as frags_m x frags_n
// fragments of 16 x 8.
template <int BM, int BN>
struct mma_sync_tiling {
  static constexpr int tm = BM / 2, tn = BN / 2;
  static constexpr int frags_m = tm / 16, frags_n = tn / 8;
};

// The accumulator of a BM x BN fold: each thread's four f32 registers of each of its warp's
// fragments (mma_c_row, mma_c_col).
template <int BM, int BN>
struct mma_sync_accumulator {
  static constexpr int rows = BM, cols = BN;
  float d[mma_sync_tiling<BM, BN>::frags_m][mma_sync_tiling<BM, BN>::frags_n][4] = {};
};

// Whether a fold with accumulator tile (TAcc, SAcc) over operand tiles (T, SA), (T, SB) has an
// mma.sync path: 16-bit inputs, an f32 accumulator of 64 or 128 rows by 64 or 128 columns, or
// of 64 by 256 (the GEMM's wide tiles, which without this path would compile a plain loop of
// register products into every sm_80 build: a minute of ptxas and 10 KB of spills), K tiles of
// 64 or 128 (whole panels), at least two stages in ct::pipeline_shared_bytes, and the result's
// exchange buffer (BM x BN floats) within the ring.
template <class TAcc, class SAcc, class T, class SA, class SB>
constexpr bool mma_sync_fold_eligible() {
  if constexpr (!std::is_same_v<TAcc, float> || !tensor_core_16bit_v<T>) return false;
  else if constexpr (SAcc::rank != SA::rank || SAcc::rank != SB::rank || !unit_batch<SAcc>() ||
                     !unit_batch<SA>() || !unit_batch<SB>())
    return false;
  else {
    constexpr int BM = rows_of<SAcc>(), BN = cols_of<SAcc>(), BK = cols_of<SA>();
    constexpr std::size_t stage = std::size_t(BM + BN) * BK * 2, stages = pipeline_shared_bytes / stage;
    return (((BM == 64 || BM == 128) && (BN == 64 || BN == 128)) || (BM == 64 && BN == 256)) &&
           (BK == 64 || BK == 128) &&
           rows_of<SA>() == BM && rows_of<SB>() == BK && cols_of<SB>() == BN && stages >= 2 &&
           std::size_t(BM) * BN * 4 <= (stages > 4 ? 4 : stages) * stage;  // as ring<SA, SB, 1>
  }
}

// Byte offset, in a staged [BM, BK] A tile, of the row lane `lane` of warp `warp` gives ldmatrix
// (x4) for its fm-th A fragment at K step ks (16 columns a step): fragment rows
// ldmatrix_a_row(lane), columns 8 (lane / 16), so that the four matrices are the fragment's
// four registers in order.
template <int BM, int BN>
CT_HD constexpr std::uint32_t a_fragment_offset(int warp, int lane, int fm, int ks) {
  const int row = (warp / 2) * mma_sync_tiling<BM, BN>::tm + fm * 16 + ldmatrix_a_row(lane);
  return staged_offset<BM>(row, ks * 16 + ldmatrix_a_col(lane));
}

// The same in a staged [BK, BN] B tile for the fp-th pair of its B fragments (x4.trans: k rows
// lane % 8 + 8 ((lane / 8) % 2), the pair's second fragment from lane 16 on).
template <int BM, int BN, int BK>
CT_HD constexpr std::uint32_t b_fragment_offset(int warp, int lane, int fp, int ks) {
  const int k = ks * 16 + lane % 8 + 8 * ((lane / 8) % 2);
  const int n = (warp % 2) * mma_sync_tiling<BM, BN>::tn + fp * 16 + 8 * (lane / 16);
  return staged_offset<BK>(k, n);
}

// Where register j of the x4.trans load of B fragment pair fp goes: fragment 2 fp + j / 2 (its
// first of two from matrices 0, 1, its second from 2, 3), register j % 2.
CT_HD constexpr int b_pair_fragment(int fp, int j) { return 2 * fp + j / 2; }
CT_HD constexpr int b_pair_register(int j) { return j % 2; }

// Tile row and column of register i of fragment (fm, fn) in lane `lane` of warp `warp`.
template <int BM, int BN>
CT_HD constexpr int accumulator_row(int warp, int lane, int fm, int i) {
  return (warp / 2) * mma_sync_tiling<BM, BN>::tm + fm * 16 + mma_c_row(lane, i);
}
template <int BM, int BN>
CT_HD constexpr int accumulator_col(int warp, int lane, int fn, int i) {
  return (warp % 2) * mma_sync_tiling<BM, BN>::tn + fn * 8 + mma_c_col(lane, i);
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
// One trip: acc += a @ b, a [BM, BK] and b [BK, BN] staged (smem_tile), by thread t of the tile
// block. For each K step of 16, the warp's A fragments and B fragment pairs are loaded first,
// then every product of them issued.
template <class T, class SA, class SB, int BM, int BN>
__device__ inline void mma_sync_trip(mma_sync_accumulator<BM, BN>& acc, const smem_tile<T, SA>& a,
                                     const smem_tile<T, SB>& b, int t) {
  using W = mma_sync_tiling<BM, BN>;
  constexpr int BK = cols_of<SA>();
  const int lane = t % 32, warp = t / 32;
  CT_UNROLL
  for (int ks = 0; ks < BK / 16; ++ks) {
    std::uint32_t fa[W::frags_m][4], fb[W::frags_n][2];
    CT_UNROLL
    for (int fm = 0; fm < W::frags_m; ++fm)
      ldmatrix_x4(fa[fm], a.addr + a_fragment_offset<BM, BN>(warp, lane, fm, ks));
    CT_UNROLL
    for (int fp = 0; fp < W::frags_n / 2; ++fp) {
      std::uint32_t r[4];
      ldmatrix_x4_trans(r, b.addr + b_fragment_offset<BM, BN, BK>(warp, lane, fp, ks));
      CT_UNROLL
      for (int j = 0; j < 4; ++j) fb[b_pair_fragment(fp, j)][b_pair_register(j)] = r[j];
    }
    CT_UNROLL
    for (int fm = 0; fm < W::frags_m; ++fm)
      CT_UNROLL
      for (int fn = 0; fn < W::frags_n; ++fn) mma_m16n8k16_f32<T>(acc.d[fm][fn], fa[fm], fb[fn]);
  }
}
#endif

}  // namespace ct::backend::sm80
