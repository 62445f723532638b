// ct::sum / ct::max / ct::min along axis 0 and axis 1, with and without ct::keepdims, over
// whole rows or columns of ragged tensors (a loop over the tiles of a tiled view), with zero
// and -inf padding: the padding takes part in the reduction, so it shows in the results.
// Inputs lie on a 1/8 grid, where f32 sums are exact in any order: results must match exactly.
#include <algorithm>
#include <numeric>

#include "common/test_util.hpp"

namespace {
using namespace ct_test;

// The shape left by reducing a (BM, BN) tile along Axis: that axis kept as 1, or dropped.
template <int Axis, int BM, int BN, bool Keep>
using reduced_shape =
    std::conditional_t<Keep, std::conditional_t<Axis == 0, ct::shape<1, BN>, ct::shape<BM, 1>>,
                       ct::shape<Axis == 0 ? BN : BM>>;

// Sum, maximum and minimum of each row (Axis 1) or column (Axis 0) of x. `Keep` is empty or
// ct::keepdims_t, passed straight on to the reductions.
template <int Axis, class Pad, int BM, int BN, class... Keep>
struct reduce_lines {
  using line_shape = reduced_shape<Axis, BM, BN, sizeof...(Keep) != 0>;
  CT_TILE void operator()(ct::out<float, line_shape> sum, ct::out<float, line_shape> max,
                          ct::out<float, line_shape> min, ct::in<float, 2> x) const {
    constexpr float inf = std::numeric_limits<float>::infinity();
    // This block's tile index along the axis that is not reduced.
    const ct::index_t j = sum.tile_index()[sizeof...(Keep) != 0 ? 1 - Axis : 0];
    const auto tiles = x.tiled(ct::shape<BM, BN>{}, Pad{});
    auto s = ct::full<float>(line_shape{}, 0.0f);
    auto hi = ct::full<float>(line_shape{}, -inf);
    auto lo = ct::full<float>(line_shape{}, inf);
    for (ct::index_t k = 0; k < ct::num_tiles(tiles, Axis); ++k) {
      const auto t = Axis == 1 ? tiles.load(j, k) : tiles.load(k, j);
      s = s + ct::sum(t, ct::axis<Axis>, Keep{}...);
      hi = ct::maximum(hi, ct::max(t, ct::axis<Axis>, Keep{}...));
      lo = ct::minimum(lo, ct::min(t, ct::axis<Axis>, Keep{}...));
    }
    sum.store(s);
    max.store(hi);
    min.store(lo);
  }
};

struct reduce : on_device {};

template <int Axis, bool Keep, class Pad, int BM, int BN>
void check_reduce(const ct::device& dev, ct::index_t rows, ct::index_t cols) {
  SCOPED_TRACE("axis " + std::to_string(Axis) + (Keep ? " keepdims" : "") + ", tile " + std::to_string(BM) +
               "x" + std::to_string(BN) + ", tensor " + std::to_string(rows) + "x" + std::to_string(cols));
  using kernel = std::conditional_t<Keep, reduce_lines<Axis, Pad, BM, BN, ct::keepdims_t>,
                                    reduce_lines<Axis, Pad, BM, BN>>;
  using line_shape = typename kernel::line_shape;
  const ct::index_t lines = Axis == 1 ? rows : cols, length = Axis == 1 ? cols : rows;
  const ct::extents_t out_extents = !Keep       ? ct::extents_t{lines}
                                    : Axis == 1 ? ct::extents_t{rows, 1}
                                                : ct::extents_t{1, cols};
  const auto x = random_grid({rows, cols}, dev);
  auto sum = poisoned<float>(out_extents, dev), max = poisoned<float>(out_extents, dev),
       min = poisoned<float>(out_extents, dev);
  ct::launch(kernel{}, sum.partition(line_shape{}), max.partition(line_shape{}), min.partition(line_shape{}),
             x)
      .wait();

  // Each line as the kernel sees it: its elements, then the padding that fills its last tile.
  const int tile_length = Axis == 1 ? BN : BM;
  const ct::index_t padded = (length + tile_length - 1) / tile_length * tile_length - length;
  const double pad = Pad::mode == ct::padding_mode::zero ? 0.0 : -INFINITY;
  const auto hx = host_f64(x);
  std::vector<double> ref_sum, ref_max, ref_min;
  for (ct::index_t j = 0; j < lines; ++j) {
    std::vector<double> line(std::size_t(padded), pad);
    for (ct::index_t k = 0; k < length; ++k)
      line.push_back(hx[std::size_t(Axis == 1 ? j * cols + k : k * cols + j)]);
    ref_sum.push_back(std::accumulate(line.begin(), line.end(), 0.0));
    ref_max.push_back(*std::max_element(line.begin(), line.end()));
    ref_min.push_back(*std::min_element(line.begin(), line.end()));
  }
  EXPECT_TRUE(all_equal(host_f64(sum), ref_sum)) << "sum";
  EXPECT_TRUE(all_equal(host_f64(max), ref_max)) << "max";
  EXPECT_TRUE(all_equal(host_f64(min), ref_min)) << "min";
}

using zero_pad = ct::padding_t<ct::padding_mode::zero>;
using neg_inf_pad = ct::padding_t<ct::padding_mode::neg_inf>;

// Tile shapes reach each GPU path: replicated tiles, rows within a warp, across warps and across
// the whole block, axis-0 reductions through shared memory, and an 8192-element result reshape
// that takes the shared-memory arena two rounds.
TEST_P(reduce, axis1_keepdims_zero_pad_small_tile) { check_reduce<1, true, zero_pad, 4, 8>(dev(), 37, 45); }
TEST_P(reduce, axis1_neg_inf_pad_no_padding_needed) {
  check_reduce<1, false, neg_inf_pad, 32, 256>(dev(), 70, 512);
}
TEST_P(reduce, axis1_keepdims_neg_inf_pad_wide_tile) {
  check_reduce<1, true, neg_inf_pad, 1, 8192>(dev(), 3, 10000);
}
TEST_P(reduce, axis1_zero_pad_tiny_tile) { check_reduce<1, false, zero_pad, 1, 4>(dev(), 5, 7); }
TEST_P(reduce, axis0_keepdims_zero_pad_square_tile) {
  check_reduce<0, true, zero_pad, 64, 64>(dev(), 130, 100);
}
TEST_P(reduce, axis0_neg_inf_pad_no_padding_needed) {
  check_reduce<0, false, neg_inf_pad, 16, 256>(dev(), 96, 300);
}
TEST_P(reduce, axis0_keepdims_neg_inf_pad_small_tile) {
  check_reduce<0, true, neg_inf_pad, 4, 8>(dev(), 37, 45);
}
TEST_P(reduce, axis0_zero_pad_one_row_tile) { check_reduce<0, false, zero_pad, 1, 8192>(dev(), 3, 9000); }

#if !defined(__CUDACC__)
// An axis-0 reduction too large for the arena in one round. Its GPU build alone takes nvcc
// minutes per architecture, so only the host binary has it; the round logic is shared code.
TEST_P(reduce, axis0_neg_inf_pad_two_arena_rounds) {
  check_reduce<0, false, neg_inf_pad, 32, 256>(dev(), 96, 300);
}
#endif

CT_INSTANTIATE_ON_DEVICES(reduce);

}  // namespace
