// Tiles combined across a group of tile blocks (ct::block_group; ct::sum_across_blocks,
// ct::max_across_blocks, ct::min_across_blocks): every block of a group gets the same combined
// tile, for groups along grid axis 1 and axis 0, of 1, 3, 7 and 16 blocks (16: past the portable
// cluster size on a GPU), checked against sums and extremes computed here; inputs on a grid of
// 1/8 (sums exact in any order) and a NaN. Groups of more than 16 blocks are refused with a
// message that names the limit, and a kernel that combines without declaring a group fails on
// the CPU with a message that says so.
#include "ops/ops_util.hpp"

namespace {
using namespace ct_test;

constexpr int tile_cols = 4;

// Block (i, j) of x [rows, groups * 4] (axis 1) loads its [1, 4] tile t, and stores combinations
// across the blocks of its group (the max of t, the sum of 2t, the min of t minus 1): with
// Axis = 1 the blocks of row i, so the result at (i, 4j + c) combines x[i, 4j' + c] over j'.
// With Axis = 0 the tensors are transposed ([groups, rows * 4]: the group is a column of blocks).
template <int Axis>
struct combine_across {
  static constexpr const char* name = "ops_combine_across_blocks";
  static constexpr ct::block_group block_group{Axis};
  CT_TILE void operator()(ct::out<float, ct::shape<1, tile_cols>> sum, ct::out<float, ct::shape<1, tile_cols>> max,
                          ct::out<float, ct::shape<1, tile_cols>> min, ct::in<float, 2> x) const {
    const auto t = x.load_like(sum);
    // Four combines in a row, each of values unlike the one before: a combine that read what the
    // previous one published (a stale arena) gives a wrong result.
    max.store(ct::max_across_blocks(t));
    sum.store(ct::sum_across_blocks(t * 2.0f));
    min.store(ct::min_across_blocks(ct::min_across_blocks(t) - 1.0f));
  }
};

// The same combination without ct::block_group.
struct combine_without_group {
  static constexpr const char* name = "ops_combine_without_group";
  CT_TILE void operator()(ct::out<float, ct::shape<1, tile_cols>> y, ct::in<float, 2> x) const {
    y.store(ct::sum_across_blocks(x.load_like(y)));
  }
};

struct block_group_ops : on_device {};

template <int Axis>
void check_groups(const ct::device& dev, ct::index_t members, ct::index_t others) {
  SCOPED_TRACE(cat("groups of ", members, " along axis ", Axis, ", ", others, " groups"));
  // Axis 1: rows = others, tile columns = members. Axis 0: rows = members, tile columns = others.
  const ct::index_t rows = Axis == 1 ? others : members, cols = (Axis == 1 ? members : others) * tile_cols;
  auto x = random_grid({rows, cols}, dev);
  const auto hx = x.to_host();
  // A NaN, which max / min ignore (and the sum keeps).
  auto planted = hx;
  if (rows > 1) planted[std::size_t(cols + 1)] = std::nanf("");
  x.copy_from_host(planted);
  // The outputs start at a finite wrong value, not the NaN poison: the planted NaN's column sums
  // to NaN (and in a group of one its max and min are NaN), which an unwritten NaN would match.
  auto sum = ct::full<float>({rows, cols}, -1e30f, dev), max = ct::full<float>({rows, cols}, -1e30f, dev),
       min = ct::full<float>({rows, cols}, -1e30f, dev);
  const auto part = ct::shape<1, tile_cols>{};
  ct::launch(ct::default_stream(dev), combine_across<Axis>{}, sum.partition(part), max.partition(part),
             min.partition(part), x)
      .wait();
  std::vector<double> want_sum(planted.size()), want_max(planted.size()), want_min(planted.size());
  for (ct::index_t r = 0; r < rows; ++r)
    for (ct::index_t c = 0; c < cols; ++c) {
      // The members of this element's group hold the same column in their tiles.
      double s = 0, hi = NAN, lo = NAN;
      for (ct::index_t k = 0; k < members; ++k) {
        const ct::index_t rr = Axis == 1 ? r : k, cc = Axis == 1 ? k * tile_cols + c % tile_cols : c;
        const double v = planted[std::size_t(rr * cols + cc)];
        s += v;
        if (!std::isnan(v)) hi = std::isnan(hi) ? v : std::max(hi, v), lo = std::isnan(lo) ? v : std::min(lo, v);
      }
      const std::size_t at = std::size_t(r * cols + c);
      want_sum[at] = 2 * s, want_max[at] = hi, want_min[at] = lo - 1;
    }
  EXPECT_TRUE(all_close(host_f64(sum), want_sum, {0, 0}));
  EXPECT_TRUE(all_close(host_f64(max), want_max, {0, 0}));
  EXPECT_TRUE(all_close(host_f64(min), want_min, {0, 0}));
}

TEST_P(block_group_ops, combine_across_the_blocks_of_each_group) {
  // Groups run on the CPU and on GPUs with clusters (this binary's device code is for sm_90+).
  EXPECT_EQ(ct::block_groups_run(ct::default_stream(dev()), combine_across<1>{}),
            dev().is_cpu() || dev().compute_capability() >= 90);
  for (ct::index_t members : {1, 3, 7, 16}) {
    check_groups<1>(dev(), members, 5);
    check_groups<0>(dev(), members, 3);
  }
}

TEST_P(block_group_ops, refuse_groups_of_more_than_sixteen) {
  auto x = ct::zeros<float>({2, 17 * tile_cols}, dev());
  auto a = ct::empty<float>({2, 17 * tile_cols}, dev()), b = ct::empty<float>({2, 17 * tile_cols}, dev()),
       c = ct::empty<float>({2, 17 * tile_cols}, dev());
  const auto part = ct::shape<1, tile_cols>{};
  EXPECT_THAT([&] {
    ct::launch(ct::default_stream(dev()), combine_across<1>{}, a.partition(part), b.partition(part), c.partition(part), x)
        .wait();
  },
              ThrowsMessage<ct::error>(AllOf(HasSubstr("ct::block_group"), HasSubstr("17"), HasSubstr("at most 16"))));
}

TEST_P(block_group_ops, combining_without_a_group_fails_on_the_cpu) {
  // On a GPU the kernel traps (the launch is not a cluster), which ends the process's context:
  // not tested there.
  if (dev().is_cuda()) GTEST_SKIP() << "a GPU traps instead (not recoverable in-process)";
  auto x = ct::zeros<float>({2, 3 * tile_cols}, dev());
  auto y = ct::empty<float>({2, 3 * tile_cols}, dev());
  EXPECT_THAT([&] {
    ct::launch(ct::default_stream(dev()), combine_without_group{}, y.partition(ct::shape<1, tile_cols>{}), x).wait();
  },
              ThrowsMessage<ct::error>(HasSubstr("declares no ct::block_group")));
}

}  // namespace

CT_INSTANTIATE_ON_DEVICES(block_group_ops);
