// Kernel views and block coordinates: ct::bid / ct::num_blocks over a 3-D grid, 3-D loads and
// stores through a permuted (non-contiguous) input, and loads of other blocks' tiles by explicit
// index (tiled(...).load(i, j) with ct::num_tiles, and ct::load), including tiles that lie
// partly or wholly outside the tensor and so read the padding value; and a block writing its own
// tile in sub-tiles (ct::out::subtiles).
#include "common/test_util.hpp"

namespace {
using namespace ct_test;

// Every element of a block's tile holds that block's coordinates and the grid's extents, one
// decimal digit each.
struct block_coords {
  using tile_shape = ct::shape<2, 2, 8>;
  CT_TILE void operator()(ct::out<std::int32_t, tile_shape> y) const {
    const int code = ct::bid(0) + 10 * ct::bid(1) + 100 * ct::bid(2) + 1000 * ct::num_blocks(0) +
                     10000 * ct::num_blocks(1) + 100000 * ct::num_blocks(2);
    y.store(ct::full<std::int32_t>(tile_shape{}, code));
  }
};

struct double_3d {
  using tile_shape = ct::shape<2, 4, 8>;
  CT_TILE void operator()(ct::out<float, tile_shape> y, ct::in<float, 3> x) const {
    y.store(x.load_like(y) * 2.0f);
  }
};

// `next` gets the tile one to the right (wrapping around), `prev` the tile one to the left,
// which for the first column of tiles lies wholly outside the tensor.
template <int BM, int BN>
struct neighbours {
  using tile_shape = ct::shape<BM, BN>;
  CT_TILE void operator()(ct::out<float, tile_shape> next, ct::out<float, tile_shape> prev,
                          ct::in<float, 2> x) const {
    const auto [m, n] = next.tile_index();
    const auto tiles = x.tiled(tile_shape{});
    next.store(tiles.load(m, (n + 1) % ct::num_tiles(tiles, 1)));
    prev.store(ct::load(x, {m, n - 1}, tile_shape{}, ct::pad::pos_inf));
  }
};

struct views : on_device {};

TEST_P(views, block_coordinates_on_a_3d_grid) {
  const ct::index_t e0 = 5, e1 = 3, e2 = 20;  // a grid of 3 x 2 x 3 tiles of 2 x 2 x 8
  const ct::index_t grid_code = 1000 * 3 + 10000 * 2 + 100000 * 3;
  auto y = poisoned<std::int32_t>({e0, e1, e2}, dev());
  ct::launch(block_coords{}, y.partition(block_coords::tile_shape{})).wait();
  std::vector<double> ref;
  for (ct::index_t i = 0; i < e0; ++i)
    for (ct::index_t j = 0; j < e1; ++j)
      for (ct::index_t k = 0; k < e2; ++k)
        ref.push_back(double(i / 2 + 10 * (j / 2) + 100 * (k / 8) + grid_code));
  EXPECT_TRUE(all_equal(host_f64(y), ref));
}

TEST_P(views, loads_and_stores_3d_through_strides) {
  const auto base = ct::randn<float>({20, 9, 7}, fresh_seed(), 1.0, dev());
  const auto x = base.transpose(0, 2);  // extents 7 x 9 x 20, innermost stride 63
  auto y = poisoned<float>(x.extents(), dev());
  ct::launch(double_3d{}, y.partition(double_3d::tile_shape{}), x).wait();
  const auto hx = host_f64(x);
  EXPECT_TRUE(all_equal(host_f64(y), reference(hx.size(), [&](std::size_t i) { return 2 * hx[i]; })));
}

template <int BM, int BN>
void check_neighbours(const ct::device& dev, ct::index_t rows, ct::index_t cols) {
  SCOPED_TRACE("tile " + std::to_string(BM) + "x" + std::to_string(BN));
  const auto x = ct::randn<float>({rows, cols}, fresh_seed(), 1.0, dev);
  auto next = poisoned<float>({rows, cols}, dev), prev = poisoned<float>({rows, cols}, dev);
  using tile_shape = ct::shape<BM, BN>;
  ct::launch(neighbours<BM, BN>{}, next.partition(tile_shape{}), prev.partition(tile_shape{}), x).wait();

  const auto hx = host_f64(x);
  const ct::index_t tiles = (cols + BN - 1) / BN;
  // Element (i, j) of x as a load of the padded tensor sees it (zero padding).
  const auto at = [&](ct::index_t i, ct::index_t j) {
    return j < cols ? hx[std::size_t(i * cols + j)] : 0.0;
  };
  std::vector<double> ref_next, ref_prev;
  for (ct::index_t i = 0; i < rows; ++i)
    for (ct::index_t j = 0; j < cols; ++j) {
      ref_next.push_back(at(i, (j / BN + 1) % tiles * BN + j % BN));
      ref_prev.push_back(j < BN ? INFINITY : at(i, j - BN));
    }
  EXPECT_TRUE(all_equal(host_f64(next), ref_next)) << "tiled(...).load(m, n + 1)";
  EXPECT_TRUE(all_equal(host_f64(prev), ref_prev)) << "ct::load(x, {m, n - 1}, ...)";
}

TEST_P(views, tiles_by_explicit_index_tiny_tile) { check_neighbours<1, 4>(dev(), 5, 7); }
TEST_P(views, tiles_by_explicit_index_small_tile) { check_neighbours<4, 8>(dev(), 37, 45); }

// A block writing its own tile in pieces: sub-tile k of block (i, j) holds 100 * k + 10 * i + j.
// Sub-tiles -1 and 4 lie outside the block's 1 x 64 tile, so storing them must change nothing
// (block (i, 1)'s sub-tile -1 would otherwise overwrite the end of block (i, 0)'s tile).
struct write_in_pieces {
  CT_TILE void operator()(ct::out<std::int32_t, ct::shape<1, 64>> y) const {
    const auto [i, j] = y.tile_index();
    const auto pieces = y.subtiles(ct::shape<1, 16>{});
    for (int k = -1; k <= 4; ++k)
      pieces.store({0, k}, ct::full<std::int32_t>(ct::shape<1, 16>{}, std::int32_t(100 * k + 10 * i + j)));
  }
};

TEST_P(views, subtiles_write_only_the_blocks_own_tile) {
  const ct::index_t rows = 3, cols = 70;  // the second column of tiles holds 6 columns
  auto y = poisoned<std::int32_t>({rows, cols}, dev());
  ct::launch(write_in_pieces{}, y.partition(ct::shape<1, 64>{})).wait();
  const auto got = y.to_host();
  std::size_t bad = 0;
  for (ct::index_t r = 0; r < rows; ++r)
    for (ct::index_t c = 0; c < cols; ++c) {
      const ct::index_t j = c / 64, k = c % 64 / 16;
      bad += got[std::size_t(r * cols + c)] != std::int32_t(100 * k + 10 * r + j);
    }
  EXPECT_EQ(bad, 0u);
}

CT_INSTANTIATE_ON_DEVICES(views);

}  // namespace
