// ct::mma on ordinary tiles with the sm_80 tensor cores (mma.sync; also Hopper's): bf16 or f16
// operands, an f32 accumulator. The operands go through the shared-memory arena in slices along
// K, as on the portable path (backend/mma_simt.hpp), but each warp then multiplies 16 x 8 output
// fragments with mma.m16n8k16 fed by ldmatrix, and the products land in the accumulator's layout
// through the arena at the end. The geometry below is plain arithmetic, so the host test
// (tests/backend/mma_tile_test.cpp) replays it lane by lane against the PTX fragment rules.
#pragma once
#include <type_traits>

#include "ctile/backend/memory.hpp"
#include "ctile/backend/mma_operands.hpp"
#include "ctile/backend/sm80/mma_sync.hpp"

namespace ct::backend::sm80 {

// The staging of an M x N x K product: K columns of A and K rows of B per round (KC), in rows
// padded by one 16-byte unit so that the 8 rows an ldmatrix reads fall in different banks.
template <int M, int N, int K, int ArenaBytes>
struct mma_tile_geometry {
  static constexpr int bytes_for(int kc) { return (M * (kc + 8) + kc * (N + 8)) * 2; }
  static constexpr int kc = K % 64 == 0 && bytes_for(64) <= ArenaBytes   ? 64
                            : K % 32 == 0 && bytes_for(32) <= ArenaBytes ? 32
                            : K % 16 == 0 && bytes_for(16) <= ArenaBytes ? 16
                                                                         : 0;
  static constexpr int lda = kc + 8, ldb = N + 8;  // elements
  static constexpr int b_offset = M * lda;         // elements: B's slice follows A's
  static constexpr int frags_m = M / 16, frags_n = N / 8, frags = frags_m * frags_n;
  // The accumulators go out through the arena as f32 rows, `rows_out` at a time.
  static constexpr int rows_fit = ArenaBytes / (N * 4);
  static constexpr int rows_out = [] {
    int r = 1;  // the largest power of two that fits, at most M (a power of two too)
    while (2 * r <= rows_fit && 2 * r <= M) r *= 2;
    return r;
  }();
  // Each thread holds its warp's fragments' products beside the accumulator tile until the end:
  // at most 16 fragments (64 registers) a warp of 4. (A 128 x 128 tile would hold 128 more
  // registers; it stays on the portable path.)
  static constexpr bool fits = kc >= 16 && rows_fit >= 1 && frags <= 64;
};

// Warp w's f-th output fragment of a product of geometry G: warp w takes fragments w, w + warps,
// ... of the 16 x 8 grid, row-major; `fm`, `fn` its place there, `valid` false past the last.
struct fragment_place {
  bool valid;
  int fm, fn;
};
template <class G>
CT_HD constexpr fragment_place fragment_of(int warp, int f, int warps) {
  const int frag = warp + f * warps;
  return {frag < G::frags, frag / G::frags_n, frag % G::frags_n};
}

// Whether ct::mma(a, b, acc) runs on mma.sync: 16-bit operands laid out naturally in 16-byte
// chunks (as loaded), an f32 accumulator, M, N, K multiples of 16, 8, 16, one batch, a K slice
// of 16 that fits the arena, and at most 64 output fragments (64 x 128 elements). Everything
// else takes the portable path.
template <class TA, class SA, class PA, class TB, class SB, class PB, class C, class SC>
constexpr bool mma_tile_eligible() {
  if constexpr (!tensor_core_16bit_v<TA> || !std::is_same_v<TA, TB> || !std::is_same_v<C, float> ||
                !unit_batch<SA>() || !unit_batch<SB>() || !unit_batch<SC>()) {
    return false;
  } else {
    constexpr int R = SC::rank;
    constexpr int M = SC::dim(R - 2), N = SC::dim(R - 1), K = SA::dim(R - 1);
    return std::is_same_v<PA, natural_layout<TA, SA>> && std::is_same_v<PB, natural_layout<TB, SB>> && PA::vec == 8 &&
           PB::vec == 8 && !PA::replicated && !PB::replicated && PA::threads % 32 == 0 && M % 16 == 0 &&
           N % 8 == 0 && K % 16 == 0 && mma_tile_geometry<M, N, K, config::arena_bytes>::fits;
  }
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800

// acc + a @ b (mma_tile_eligible).
template <class T, class SA, class PA, class SB, class PB, class SC, class PC>
__device__ tile<float, SC, PC> mma_tile(const tile<T, SA, PA>& a, const tile<T, SB, PB>& b,
                                        const tile<float, SC, PC>& acc) {
  constexpr int R = SC::rank;
  constexpr int M = SC::dim(R - 2), N = SC::dim(R - 1), K = SA::dim(R - 1);
  using G = mma_tile_geometry<M, N, K, config::arena_bytes>;
  constexpr int warps = PA::threads / 32, per_warp = (G::frags + warps - 1) / warps;
  T* const slice_a = reinterpret_cast<T*>(arena());
  T* const slice_b = slice_a + G::b_offset;
  const int t = thread_index_here(), lane = t % 32, warp = t / 32;
  float d[per_warp][4] = {};
  for (int k0 = 0; k0 < K; k0 += G::kc) {
    // A's chunks (8 consecutive k of one row) and B's (8 consecutive n of one k row) in this slice.
    CT_UNROLL
    for (int k = 0; k < PA::chunks_per_thread; ++k) {
      const auto c = slot_coord<SA, PA>(t, k * 8);
      const int row = int(c[R - 2]), col = int(c[R - 1]) - k0;
      if (col >= 0 && col < G::kc) detail::store_vector<16>(slice_a + row * G::lda + col, &a.v[k * 8]);
    }
    CT_UNROLL
    for (int k = 0; k < PB::chunks_per_thread; ++k) {
      const auto c = slot_coord<SB, PB>(t, k * 8);
      const int row = int(c[R - 2]) - k0, col = int(c[R - 1]);
      if (row >= 0 && row < G::kc) detail::store_vector<16>(slice_b + row * G::ldb + col, &b.v[k * 8]);
    }
    sync_block();
    CT_UNROLL
    for (int ks = 0; ks < G::kc; ks += 16) {
      CT_UNROLL
      for (int f = 0; f < per_warp; ++f) {
        const auto [valid, fm, fn] = fragment_of<G>(warp, f, warps);
        if (G::frags % warps != 0 && !valid) continue;
        std::uint32_t fa[4], fb[2];
        ldmatrix_x4(fa, slice_a + (fm * 16 + ldmatrix_a_row(lane)) * G::lda + ks + ldmatrix_a_col(lane));
        ldmatrix_x2_trans(fb, slice_b + (ks + ldmatrix_b_row(lane)) * G::ldb + fn * 8);
        mma_m16n8k16_f32<T>(d[f], fa, fb);
      }
    }
    sync_block();  // the slices are read out before the next round (or the result) overwrites them
  }
  // The products into acc's layout: the fragments as f32 rows of the arena, `rows_out` at a time.
  float* const out = reinterpret_cast<float*>(arena());
  tile<float, SC, PC> r;
  for (int r0 = 0; r0 < M; r0 += G::rows_out) {
    CT_UNROLL
    for (int f = 0; f < per_warp; ++f) {
      const auto [valid, fm, fn] = fragment_of<G>(warp, f, warps);
      if (G::frags % warps != 0 && !valid) continue;
      CT_UNROLL
      for (int i = 0; i < 4; ++i) {
        const int row = fm * 16 + mma_c_row(lane, i) - r0;
        if (G::rows_out == M || (row >= 0 && row < G::rows_out)) out[row * N + fn * 8 + mma_c_col(lane, i)] = d[f][i];
      }
    }
    sync_block();
    CT_UNROLL
    for (int s = 0; s < PC::slots; ++s) {
      const auto c = slot_coord<SC, PC>(t, s);
      const int row = int(c[R - 2]) - r0;
      if (G::rows_out == M || (row >= 0 && row < G::rows_out)) r.v[s] = acc.v[s] + out[row * N + int(c[R - 1])];
    }
    sync_block();
  }
  return r;
}

#endif

}  // namespace ct::backend::sm80
