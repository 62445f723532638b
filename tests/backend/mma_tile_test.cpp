// backend/sm80/mma_tile.hpp's geometry, replayed on the host lane by lane: the operands staged
// from their GPU layouts (16-byte chunks over 128 threads) into the padded slices, each warp's
// ldmatrix and mma.m16n8k16 emulated by the PTX ISA's rules (backend/ptx_fragments.hpp),
// and the products moved into the accumulator's layout through the arena in rounds of rows.
// The result must be acc + a @ b exactly (small integers), and every slice access must stay in
// the arena, aligned.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "backend/ptx_fragments.hpp"
#include "ctile/backend/sm80/mma_tile.hpp"

namespace {

namespace sm80 = ct::backend::sm80;
using ct::backend::blocked_layout;
using ct::backend::slot_coord;

constexpr int threads = 128, warps = threads / 32, arena_bytes = 16384;

template <int M, int N, int K>
void replay(std::mt19937& rng) {
  SCOPED_TRACE(::testing::Message() << M << " x " << N << " x " << K);
  using G = sm80::mma_tile_geometry<M, N, K, arena_bytes>;
  static_assert(G::fits);
  using SA = ct::shape<M, K>;
  using SB = ct::shape<K, N>;
  using SC = ct::shape<M, N>;
  using PA = blocked_layout<SA, 8, threads>;  // bf16 tiles as loaded on the GPU
  using PB = blocked_layout<SB, 8, threads>;
  using PC = blocked_layout<SC, 4, threads>;  // an f32 accumulator as loaded on the GPU
  std::uniform_int_distribution<int> small(-4, 4);
  std::vector<double> a(M * K), b(K * N), acc(M * N);
  for (auto& x : a) x = small(rng);
  for (auto& x : b) x = small(rng);
  for (auto& x : acc) x = small(rng);

  const int arena_elements = arena_bytes / 2;  // 16-bit elements
  std::vector<double> slices(arena_elements, 0.0);
  std::vector<double> d(std::size_t(threads) * 64 * 4, 0.0);  // [thread][fragment][register]
  const int per_warp = (G::frags + warps - 1) / warps;
  ASSERT_LE(per_warp, 64);
  const auto at = [&](int index) -> double& {
    EXPECT_GE(index, 0);
    EXPECT_LT(index, arena_elements);
    return slices[std::size_t(index < 0 || index >= arena_elements ? 0 : index)];
  };
  for (int k0 = 0; k0 < K; k0 += G::kc) {
    for (int t = 0; t < threads; ++t) {
      for (int k = 0; k < PA::chunks_per_thread; ++k) {
        const auto c = slot_coord<SA, PA>(t, k * 8);
        const int row = int(c[0]), col = int(c[1]) - k0;
        if (col < 0 || col >= G::kc) continue;
        const int dst = row * G::lda + col;
        EXPECT_EQ(dst % 8, 0) << "A chunk not 16-byte aligned";
        for (int e = 0; e < 8; ++e) at(dst + e) = a[std::size_t(row * K + col + k0 + e)];
      }
      for (int k = 0; k < PB::chunks_per_thread; ++k) {
        const auto c = slot_coord<SB, PB>(t, k * 8);
        const int row = int(c[0]) - k0, col = int(c[1]);
        if (row < 0 || row >= G::kc) continue;
        const int dst = G::b_offset + row * G::ldb + col;
        EXPECT_EQ(dst % 8, 0) << "B chunk not 16-byte aligned";
        EXPECT_GE(dst, G::b_offset);
        for (int e = 0; e < 8; ++e) at(dst + e) = b[std::size_t((row + k0) * N + col + e)];
      }
    }
    for (int ks = 0; ks < G::kc; ks += 16)
      for (int w = 0; w < warps; ++w)
        for (int f = 0; f < per_warp; ++f) {
          const auto [valid, fm, fn] = sm80::fragment_of<G>(w, f, warps);
          if (!valid) continue;
          int address_a[32], address_b[32];
          for (int l = 0; l < 32; ++l) {
            address_a[l] = (fm * 16 + sm80::ldmatrix_a_row(l)) * G::lda + ks + sm80::ldmatrix_a_col(l);
            address_b[l] = G::b_offset + (ks + sm80::ldmatrix_b_row(l)) * G::ldb + fn * 8;
            EXPECT_EQ(address_a[l] % 8, 0) << "ldmatrix row address not 16-byte aligned";
            EXPECT_EQ(address_b[l] % 8, 0) << "ldmatrix row address not 16-byte aligned";
          }
          // The fragments as the PTX rules deliver them.
          const auto element = [&](int offset) { return at(offset); };
          ct_test::warp_registers<4> fa;
          ct_test::warp_registers<2> fb;
          ct_test::ldmatrix<4>(element, address_a, false, fa);
          ct_test::ldmatrix<2>(element, address_b, true, fb);
          double product[32][4] = {};
          ct_test::mma_m16n8k16(fa, fb, product);
          for (int l = 0; l < 32; ++l)
            for (int i = 0; i < 4; ++i) d[(std::size_t(w * 32 + l) * 64 + std::size_t(f)) * 4 + std::size_t(i)] += product[l][i];
        }
  }
  // Out through the arena as f32 rows, rows_out at a time: every slot (copies of a replicated
  // accumulator too) gets acc + a @ b, and each element's canonical slot is written once.
  const auto want = [&](int i, int j) {
    double w = acc[std::size_t(i * N + j)];
    for (int k = 0; k < K; ++k) w += a[std::size_t(i * K + k)] * b[std::size_t(k * N + j)];
    return w;
  };
  std::vector<int> writes(M * N, 0);
  ASSERT_LE(G::rows_out * N * 4, arena_bytes);
  for (int r0 = 0; r0 < M; r0 += G::rows_out) {
    std::vector<double> out(std::size_t(G::rows_out) * N, 1e300);
    for (int t = 0; t < threads; ++t) {
      const int w = t / 32, l = t % 32;
      for (int f = 0; f < per_warp; ++f) {
        const auto [valid, fm, fn] = sm80::fragment_of<G>(w, f, warps);
        if (!valid) continue;
        for (int i = 0; i < 4; ++i) {
          const int row = fm * 16 + sm80::mma_c_row(l, i) - r0;
          if (row >= 0 && row < G::rows_out)
            out[std::size_t(row * N + fn * 8 + sm80::mma_c_col(l, i))] =
                d[(std::size_t(t) * 64 + std::size_t(f)) * 4 + std::size_t(i)];
        }
      }
    }
    for (int t = 0; t < threads; ++t)
      for (int s = 0; s < PC::slots; ++s) {
        const auto c = slot_coord<SC, PC>(t, s);
        const int i = int(c[0]), j = int(c[1]), row = i - r0;
        if (row < 0 || row >= G::rows_out) continue;
        const double got = acc[std::size_t(i * N + j)] + out[std::size_t(row * N + j)];
        ASSERT_EQ(got, want(i, j)) << "element (" << i << ", " << j << "), thread " << t << ", slot " << s;
        if (ct::backend::slot_canonical<SC, PC>(t, s)) ++writes[std::size_t(i * N + j)];
      }
  }
  for (int e = 0; e < M * N; ++e) ASSERT_EQ(writes[std::size_t(e)], 1) << "element " << e;
}

TEST(mma_tile, geometry_follows_the_arena) {
  using square = sm80::mma_tile_geometry<64, 64, 32, arena_bytes>;
  static_assert(square::kc == 32 && square::lda == 40 && square::ldb == 72 && square::rows_out == 64);
  using wide = sm80::mma_tile_geometry<64, 128, 64, arena_bytes>;
  static_assert(wide::kc == 32 && wide::rows_out == 32);  // 64 columns would need 26 KiB
  static_assert(!sm80::mma_tile_geometry<128, 128, 64, arena_bytes>::fits);  // 128 fragments: spills
  static_assert(!sm80::mma_tile_geometry<64, 64, 8, arena_bytes>::fits);    // K below one step
  static_assert(!sm80::mma_tile_geometry<512, 64, 16, arena_bytes>::fits);  // even one step is too large
  SUCCEED();
}

TEST(mma_tile, replayed_lanes_give_acc_plus_a_times_b) {
  std::mt19937 rng(2026);
  replay<16, 8, 16>(rng);     // one fragment: three warps idle; a replicated accumulator
  replay<16, 16, 16>(rng);    // two fragments
  replay<64, 64, 32>(rng);    // the SIMT GEMM's tile: one K slice
  replay<16, 64, 64>(rng);    // the short-M tile
  replay<64, 128, 64>(rng);   // two K slices of 32; the products in two rounds of 32 rows
  replay<32, 256, 32>(rng);   // 64 fragments, 16 a warp; two K slices of 16
}

}  // namespace
