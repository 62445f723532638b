// backend/sm80/mma_sync_fold.hpp's geometry, replayed on the host lane by lane: the operand
// tiles placed in shared memory where the staging puts them (staged_offset, the 128B-swizzled
// panels), each warp's ldmatrix and mma.m16n8k16 emulated by the PTX ISA's rules
// (backend/ptx_fragments.hpp) at the addresses the fold gives, and the accumulators read back
// at the rows and columns the fold says they hold. The result must be a @ b exactly (small
// integers), with every element held by one register; the ldmatrix addresses must be aligned
// and free of bank conflicts, and the exchange buffer's float pairs distinct and inside it.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <vector>

#include "backend/ptx_fragments.hpp"
#include "ctile/backend/sm80/mma_sync_fold.hpp"
#include "ctile/tile/fold_result.hpp"

namespace {

namespace sm80 = ct::backend::sm80;

constexpr int warps = 4;

// The staged layout of an [R, C] tile: every element at its own 2-byte place inside the tile's
// R x C x 2 bytes, 8 consecutive columns from a multiple of 8 in one 16-byte unit.
template <int R, int C>
void check_staged_layout() {
  std::vector<int> seen(std::size_t(R * C), 0);
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) {
      const std::uint32_t at = sm80::staged_offset<R>(r, c);
      ASSERT_LT(at, std::uint32_t(R * C * 2));
      ASSERT_EQ(at % 2, 0u);
      ++seen[at / 2];
      if (c % 8 != 0) {
        ASSERT_EQ(at, sm80::staged_offset<R>(r, c - 1) + 2) << "row " << r << ", column " << c;
      }
    }
  for (int n : seen) ASSERT_EQ(n, 1);
}

// The 8 row addresses of each matrix of one ldmatrix: 16-byte aligned, and in 8 different
// 16-byte bank groups (one wavefront).
void check_ldmatrix_rows(const std::uint32_t (&byte_address)[32], const char* what) {
  for (int j = 0; j < 4; ++j) {
    std::set<std::uint32_t> groups;
    for (int l = 8 * j; l < 8 * j + 8; ++l) {
      ASSERT_EQ(byte_address[l] % 16, 0u) << what << ": lane " << l;
      groups.insert(byte_address[l] / 16 % 8);
    }
    ASSERT_EQ(groups.size(), 8u) << what << ": matrix " << j << " conflicts on banks";
  }
}

template <int BM, int BN, int BK>
void replay(std::mt19937& rng) {
  SCOPED_TRACE(::testing::Message() << BM << " x " << BN << " x " << BK);
  using W = sm80::mma_sync_tiling<BM, BN>;
  std::uniform_int_distribution<int> small(-4, 4);
  std::vector<double> a(BM * BK), b(BK * BN);
  for (auto& x : a) x = small(rng);
  for (auto& x : b) x = small(rng);
  // Shared memory as the staging leaves it: A's tile, then B's, by element (2-byte) offsets.
  std::vector<double> smem_a(BM * BK), smem_b(BK * BN);
  for (int r = 0; r < BM; ++r)
    for (int c = 0; c < BK; ++c) smem_a[sm80::staged_offset<BM>(r, c) / 2] = a[std::size_t(r * BK + c)];
  for (int r = 0; r < BK; ++r)
    for (int c = 0; c < BN; ++c) smem_b[sm80::staged_offset<BK>(r, c) / 2] = b[std::size_t(r * BN + c)];
  const auto element_a = [&](int offset) { return smem_a.at(std::size_t(offset)); };
  const auto element_b = [&](int offset) { return smem_b.at(std::size_t(offset)); };

  // Each warp's fragments' accumulators, as mma_sync_trip runs them.
  struct lanes {
    double r[32][4] = {};
  };
  std::vector<lanes> d(std::size_t(warps * W::frags_m * W::frags_n));
  const auto acc = [&](int w, int fm, int fn) -> double(&)[32][4] {
    return d[std::size_t((w * W::frags_m + fm) * W::frags_n + fn)].r;
  };
  for (int ks = 0; ks < BK / 16; ++ks)
    for (int w = 0; w < warps; ++w) {
      ct_test::warp_registers<4> fa[W::frags_m];
      ct_test::warp_registers<2> fb[W::frags_n];
      for (int fm = 0; fm < W::frags_m; ++fm) {
        std::uint32_t bytes[32];
        int elements[32];
        for (int l = 0; l < 32; ++l) {
          bytes[l] = sm80::a_fragment_offset<BM, BN>(w, l, fm, ks);
          elements[l] = int(bytes[l] / 2);
        }
        check_ldmatrix_rows(bytes, "A");
        ct_test::ldmatrix<4>(element_a, elements, false, fa[fm]);
      }
      for (int fp = 0; fp < W::frags_n / 2; ++fp) {
        std::uint32_t bytes[32];
        int elements[32];
        for (int l = 0; l < 32; ++l) {
          bytes[l] = sm80::b_fragment_offset<BM, BN, BK>(w, l, fp, ks);
          elements[l] = int(bytes[l] / 2);
        }
        check_ldmatrix_rows(bytes, "B");
        ct_test::warp_registers<4> pair;
        ct_test::ldmatrix<4>(element_b, elements, true, pair);
        for (int l = 0; l < 32; ++l)  // as mma_sync_trip splits the pair
          for (int j = 0; j < 4; ++j)
            for (int h = 0; h < 2; ++h) fb[sm80::b_pair_fragment(fp, j)][l][sm80::b_pair_register(j)][h] = pair[l][j][h];
      }
      for (int fm = 0; fm < W::frags_m; ++fm)
        for (int fn = 0; fn < W::frags_n; ++fn) ct_test::mma_m16n8k16(fa[fm], fb[fn], acc(w, fm, fn));
    }

  // Every element of the tile in one register, equal to the product; and the exchange buffer's
  // float pairs (put_pair: registers 0, 1 and 2, 3 of a fragment) distinct and inside it.
  std::vector<int> held(BM * BN, 0);
  std::set<int> pairs;
  for (int w = 0; w < warps; ++w)
    for (int fm = 0; fm < W::frags_m; ++fm)
      for (int fn = 0; fn < W::frags_n; ++fn)
        for (int l = 0; l < 32; ++l)
          for (int i = 0; i < 4; ++i) {
            const int row = sm80::accumulator_row<BM, BN>(w, l, fm, i),
                      col = sm80::accumulator_col<BM, BN>(w, l, fn, i);
            ASSERT_TRUE(row >= 0 && row < BM && col >= 0 && col < BN);
            double want = 0;
            for (int k = 0; k < BK; ++k) want += a[std::size_t(row * BK + k)] * b[std::size_t(k * BN + col)];
            ASSERT_EQ(acc(w, fm, fn)[l][i], want) << "element (" << row << ", " << col << ")";
            ++held[std::size_t(row * BN + col)];
            if (i % 2 == 0) {
              ASSERT_EQ((sm80::accumulator_col<BM, BN>(w, l, fn, i + 1)), col + 1);
              ASSERT_EQ((sm80::accumulator_row<BM, BN>(w, l, fm, i + 1)), row);
              const int at = ct::detail::exchange_plan<BN, 0>::offset(row, col);
              ASSERT_TRUE(at % 2 == 0 && at >= 0 && at + 1 < BM * BN);
              ASSERT_TRUE(pairs.insert(at).second) << "two pairs at float " << at;
            }
          }
  for (int n : held) ASSERT_EQ(n, 1);
}

TEST(mma_sync_fold, staged_tiles_are_whole_swizzled_panels) {
  check_staged_layout<128, 64>();
  check_staged_layout<64, 128>();
  check_staged_layout<64, 64>();
}

TEST(mma_sync_fold, which_folds_it_takes) {
  using ct::bf16;
  using ct::f16;
  using ct::shape;
  static_assert(sm80::mma_sync_fold_eligible<float, shape<128, 128>, bf16, shape<128, 64>, shape<64, 128>>());
  static_assert(
      sm80::mma_sync_fold_eligible<float, shape<1, 64, 64>, f16, shape<1, 64, 64>, shape<1, 64, 64>>());
  static_assert(sm80::mma_sync_fold_eligible<float, shape<64, 128>, bf16, shape<64, 128>, shape<128, 128>>());
  static_assert(sm80::mma_sync_fold_eligible<float, shape<64, 256>, bf16, shape<64, 64>, shape<64, 256>>());
  static_assert(!sm80::mma_sync_fold_eligible<float, shape<128, 256>, bf16, shape<128, 64>, shape<64, 256>>(),
                "256 columns only with 64 rows (128 accumulator registers a thread)");
  static_assert(
      !sm80::mma_sync_fold_eligible<float, shape<128, 128>, bf16, shape<128, 128>, shape<128, 128>>(),
      "two stages of 64 KiB do not fit the ring");
  static_assert(!sm80::mma_sync_fold_eligible<float, shape<128, 128>, bf16, shape<128, 32>, shape<32, 128>>(),
                "K tiles are whole 64-column panels");
  static_assert(!sm80::mma_sync_fold_eligible<float, shape<32, 64>, bf16, shape<32, 64>, shape<64, 64>>());
  static_assert(
      !sm80::mma_sync_fold_eligible<float, shape<128, 128>, float, shape<128, 64>, shape<64, 128>>());
  static_assert(
      !sm80::mma_sync_fold_eligible<ct::f16, shape<128, 128>, f16, shape<128, 64>, shape<64, 128>>());
  static_assert(
      !sm80::mma_sync_fold_eligible<float, shape<2, 64, 64>, bf16, shape<2, 64, 64>, shape<2, 64, 64>>());
  SUCCEED();
}

TEST(mma_sync_fold, replayed_lanes_give_a_times_b) {
  std::mt19937 rng(2027);
  replay<128, 128, 64>(rng);  // the GEMM's tile: 4 x 8 fragments a warp
  replay<128, 64, 64>(rng);
  replay<64, 64, 64>(rng);    // 2 x 4 fragments a warp
  replay<64, 128, 128>(rng);  // two panels of A along K
  replay<64, 256, 64>(rng);   // the wide GEMM tile: 2 x 16 fragments a warp
}

}  // namespace
