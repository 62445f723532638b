// How a wgmma fold's accumulator leaves through the exchange buffer (tile/fold_result.hpp),
// replayed on the host thread by thread for each exchange plan the folds use: every element
// of the tile is written exactly once, in the pass its row belongs to, inside the pass's buffer
// and apart from the pass's other pairs; and the result tile's threads read, in each pass,
// exactly the places written in it. The writers are chosen as for_each_accumulator_pair
// (tile/pipeline.hpp) chooses them: by the pass of warp 0's pair, plus the plan's writer_pair
// (which also skips the other warps of a 16-row pass). (That the fed fold's passes fit its
// buffers is run_fed_fold's static_assert.)
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <utility>
#include <vector>

#include "ctile/backend/sm90/wgmma.hpp"
#include "ctile/tile/pipeline.hpp"

namespace {

namespace sm90 = ct::backend::sm90;

template <int BM, int BN, int Rows>
void check_exchange() {
  using plan = ct::detail::exchange_plan<BN, Rows>;
  using S = ct::shape<1, BM, BN>;
  // The result tile's layout on the GPU (fold_result_t: a 16-bit tile's, over a warpgroup);
  // this host build's own natural layout has the CPU backend's thread count.
  using P = ct::backend::blocked_layout<S, 8, 128>;
  using result = ct::tile<float, S, P>;
  constexpr int passes = plan::template passes<BM>, threads = 128;
  constexpr int buffer_floats = (Rows == 0 ? BM : Rows) * BN;
  static_assert(ct::detail::passes_are_fixed<result, Rows>());
  std::vector<int> written(BM * BN, 0);
  for (int p = 0; p < passes; ++p) {
    SCOPED_TRACE(::testing::Message() << "pass " << p);
    std::map<int, std::pair<int, int>> places;  // buffer float -> tile element written there
    for (int t = 0; t < threads; ++t) {
      const int pair = plan::writer_pair(p);
      if (Rows == 16 && t / 64 != pair) continue;
      for (int h = 0; h < BM / 64; ++h)
        for (int i = 0; i < BN / 2; i += 2) {
          if (plan::pass(64 * h + 8 * ((i / 2) % 2)) + pair != p) continue;
          const int row = 64 * h + sm90::wgmma_acc_row(t, i), col = sm90::wgmma_acc_col(t, i);
          ASSERT_EQ(plan::pass(row), p) << "thread " << t << " writes row " << row << " in another row's pass";
          ASSERT_EQ(sm90::wgmma_acc_col(t, i + 1), col + 1);
          const int at = plan::offset(row, col);
          ASSERT_TRUE(at >= 0 && at % 2 == 0 && at + 1 < buffer_floats) << "row " << row << ", column " << col;
          ASSERT_TRUE(places.emplace(at, std::make_pair(row, col)).second) << "two pairs at float " << at;
          ASSERT_TRUE(places.emplace(at + 1, std::make_pair(row, col + 1)).second);
          ++written[row * BN + col];
          ++written[row * BN + col + 1];
        }
    }
    // The result's side: each thread's chunks of this pass (by thread 0's slot, as fold_result
    // asks) are read from where their elements were written in it.
    int read = 0;
    for (int t = 0; t < threads; ++t)
      for (int k = 0; k < P::chunks_per_thread; ++k) {
        const auto c = ct::backend::slot_coord<S, P>(t, k * 8);
        const int row = int(c[1]), col = int(c[2]);
        ASSERT_EQ((ct::detail::slot_pass<plan, result>(k * 8) == p), plan::pass(row) == p) << "thread " << t;
        if (plan::pass(row) != p) continue;
        for (int e = 0; e < 8; ++e) {
          const auto it = places.find(plan::offset(row, col + e));
          ASSERT_TRUE(it != places.end()) << "thread " << t << " reads an unwritten float";
          ASSERT_EQ(it->second, std::make_pair(row, col + e));
          ++read;
        }
      }
    EXPECT_EQ(read, int(places.size())) << "the pass's writes are read once each";
  }
  for (int n : written) ASSERT_EQ(n, 1);
}

TEST(wgmma_exchange, every_element_crosses_once_in_its_pass) {
  check_exchange<128, 128, 0>();   // all at once (a fold that stages its own operands)
  check_exchange<128, 128, 32>();  // 32-row passes over a 128 x 64 A tile (16 KiB)
  check_exchange<64, 128, 32>();
  check_exchange<64, 256, 0>();
  check_exchange<64, 256, 16>();   // 16-row passes over half of a 64 x 256 B tile (16 KiB)
}

}  // namespace
