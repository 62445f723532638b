// Shape and creation ops on tiles: ct::reshape, ct::transpose / ct::permute (rank 2 and 3),
// ct::expand_dims, ct::broadcast_to, ct::cat along each axis, ct::extract (of blocks and of row
// bands) and ct::insert at run-time indices, ct::pack_to_bytes / ct::unpack_from_bytes, and
// ct::arange, ct::full (including the 0-d tile that stands for cuTile's astile of a scalar),
// ct::zeros, ct::ones and ct::static_for. Each block transforms the zero-padded tile of a ragged
// tensor; the host model applies the same transformation to the same padded tile, and the
// results must match bit for bit (data movement). Types of each size (1, 2, 4, 8 bytes) and
// tiles from 2x2 (replicated over the GPU's threads) to 64x128 (larger than the shared-memory
// arena, so exchanges run in several rounds).
#include <map>

#include "ops/ops_util.hpp"

namespace {
using namespace ct_test;

template <class T, int BM, int BN>
struct shape_ops {
  static constexpr const char* name = "ops_shapes";
  using S = ct::shape<BM, BN>;
  using half = ct::shape<BM / 2, BN / 2>;
  static constexpr int bytes = BM * BN * int(sizeof(T));
  CT_TILE void operator()(ct::out<T, ct::shape<BN, BM>> reshaped, ct::out<T, ct::shape<BN, BM>> transposed,
                          ct::out<T, ct::shape<1, BM, BN>> expanded, ct::out<T, S> first_row,
                          ct::out<T, ct::shape<2 * BM, BN>> cat0, ct::out<T, ct::shape<BM, 2 * BN>> cat1,
                          ct::out<T, half> extracted, ct::out<T, S> inserted, ct::out<T, S> banded,
                          ct::out<std::uint8_t, ct::shape<1, bytes>> packed, ct::out<T, S> unpacked,
                          ct::out<std::int32_t, S> made, ct::in<T, 2> x, ct::in<T, 2> y) const {
    const auto i = ct::bid(0), j = ct::bid(1);
    const auto t = x.tiled(S{}).load(i, j), u = y.tiled(S{}).load(i, j);
    reshaped.store(ct::reshape(t, ct::shape<BN, BM>{}));
    transposed.store(ct::transpose(t));
    expanded.store(ct::expand_dims(t, ct::axis<0>));
    first_row.store(ct::broadcast_to(ct::extract(t, ct::shape<1, BN>{}, 0, 0), S{}));
    cat0.store(ct::cat(t, u, ct::axis<0>));
    cat1.store(ct::cat(t, u, ct::axis<1>));
    extracted.store(ct::extract(t, half{}, i % 2, j % 2));
    inserted.store(ct::insert(t, ct::extract(u, half{}, 1, 0), 0, 1));
    // Whole rows in two bands (a run of each thread's slots where the layout allows: no data
    // moves), swapped in odd block rows, stored band by band.
    const auto halves = banded.subtiles(ct::shape<BM / 2, BN>{});
    ct::static_for<2>([&](auto k) {
      constexpr int band = decltype(k)::value;
      halves.store({{band, 0}}, ct::extract(t, ct::shape<BM / 2, BN>{}, (band + i) % 2, 0));
    });
    const auto p = ct::pack_to_bytes(t);
    packed.store(ct::reshape(p, ct::shape<1, bytes>{}));
    unpacked.store(ct::reshape(ct::unpack_from_bytes<T>(p), S{}));
    // b + 1000 + 7 + (0 + 1 + 2 + 3) at (a, b).
    auto m = ct::broadcast_to(ct::arange<std::int32_t, BN>(), S{}) + ct::ones<std::int32_t, BM, 1>() * 1000 +
             ct::zeros<std::int32_t, BM, BN>() + ct::full<std::int32_t>(ct::shape<>{}, 7);
    ct::static_for<4>([&](auto k) { m = m + int(decltype(k)::value); });
    made.store(m);
  }
};

// Rank-3 permutations: axes (2, 0, 1) and ct::transpose (the last two axes).
template <class T>
struct permute_3d {
  static constexpr const char* name = "ops_permute_3d";
  using S = ct::shape<2, 4, 8>;
  CT_TILE void operator()(ct::out<T, ct::shape<8, 2, 4>> rotated, ct::out<T, ct::shape<2, 8, 4>> transposed,
                          ct::in<T, 3> x) const {
    const auto t = x.tiled(S{}).load(ct::bid(0), ct::bid(1), ct::bid(2));
    rotated.store(ct::permute(t, ct::axes<2, 0, 1>));
    transposed.store(ct::transpose(t));
  }
};

// out::with_subtiles: a block's tile stored in two bands of rows, through the sub-tiles that
// make no tests where the tile lies inside the tensor with 16-byte rows, the checked ones
// elsewhere; each block records which it was given, so a version that always took the checked
// ones (correct, but not what the GEMM's epilogue relies on) fails too.
template <class T, int BM, int BN>
struct whole_subtiles {
  static constexpr const char* name = "ops_whole_subtiles";
  CT_TILE void operator()(ct::out<T, ct::shape<BM, BN>> y, ct::out<std::int32_t, ct::shape<1, 1>> took_whole,
                          ct::in<T, 2> x) const {
    const auto t = x.tiled(ct::shape<BM, BN>{}).load(ct::bid(0), ct::bid(1));
    y.with_subtiles(ct::shape<BM / 2, BN>{}, [&](const auto& halves) {
      ct::static_for<2>([&](auto k) {
        constexpr int band = decltype(k)::value;
        halves.store({{band, 0}}, ct::extract(t, ct::shape<BM / 2, BN>{}, band, 0));
      });
      took_whole.store(ct::full<std::int32_t>(ct::shape<1, 1>{}, std::decay_t<decltype(halves)>::whole ? 1 : 0));
    });
  }
};

struct shape_ops_test : on_device {};

// A tile on the host: its dims and its values in row-major order.
template <class T>
struct host_tile {
  std::vector<int> dims;
  std::vector<T> v;
  std::size_t flat(const std::vector<int>& c) const {
    std::size_t f = 0;
    for (std::size_t i = 0; i < dims.size(); ++i) f = f * std::size_t(dims[i]) + std::size_t(c[i]);
    return f;
  }
  T at(const std::vector<int>& c) const { return v[flat(c)]; }
  // The tile of `dims` with value f(coordinate) everywhere.
  template <class F>
  static host_tile make(const std::vector<int>& dims, F f) {
    host_tile r{dims, {}};
    std::vector<int> c(dims.size(), 0);
    for (std::size_t n = element_count(ct::extents_t(dims.begin(), dims.end())); n > 0; --n) {
      r.v.push_back(f(c));
      for (int i = int(dims.size()) - 1; i >= 0 && ++c[std::size_t(i)] == dims[std::size_t(i)]; --i) c[std::size_t(i)] = 0;
    }
    return r;
  }
};

// Element c of the tensor (row-major values `v` of `extents`), zero outside it.
template <class T>
T padded_at(const std::vector<T>& v, const ct::extents_t& extents, const std::vector<ct::index_t>& c) {
  std::size_t f = 0;
  for (std::size_t i = 0; i < extents.size(); ++i) {
    if (c[i] < 0 || c[i] >= extents[i]) return T(0);
    f = f * std::size_t(extents[i]) + std::size_t(c[i]);
  }
  return v[f];
}

// The zero-padded tile of `dims` at tile index `block`.
template <class T>
host_tile<T> tile_of(const std::vector<T>& v, const ct::extents_t& extents, const std::vector<int>& block,
                     const std::vector<int>& dims) {
  return host_tile<T>::make(dims, [&](const std::vector<int>& c) {
    std::vector<ct::index_t> at;
    for (std::size_t i = 0; i < dims.size(); ++i) at.push_back(ct::index_t(block[i]) * dims[i] + c[i]);
    return padded_at(v, extents, at);
  });
}

// A tensor made of one tile per block of `grid`, as f(block) gives them (row-major values).
template <class T, class F>
std::vector<T> assemble(const std::vector<int>& grid, const std::vector<int>& dims, F f) {
  ct::extents_t extents;
  for (std::size_t i = 0; i < grid.size(); ++i) extents.push_back(ct::index_t(grid[i]) * dims[i]);
  std::vector<T> r(element_count(extents));
  host_tile<int>::make(grid, [&](const std::vector<int>& block) {
    const host_tile<T> t = f(block);
    host_tile<int>::make(dims, [&](const std::vector<int>& c) {
      std::size_t flat = 0;
      for (std::size_t i = 0; i < grid.size(); ++i) flat = flat * std::size_t(extents[i]) + std::size_t(block[i] * dims[i] + c[i]);
      r[flat] = t.at(c);
      return 0;
    });
    return 0;
  });
  return r;
}

template <class T>
std::vector<T> shape_input(std::size_t n) {
  if constexpr (ct::is_floating_v<T>) return random_floats<T>(n, 4.0, true);
  else return random_ints<T>(n, true);
}

template <class T, int BM, int BN>
void check_shape_ops(const ct::device& dev, const ct::extents_t& extents) {
  SCOPED_TRACE((case_name<T, ct::shape<BM, BN>>(extents)));
  const auto vx = shape_input<T>(element_count(extents)), vy = shape_input<T>(element_count(extents));
  const auto x = tensor_of(vx, extents, dev), y = tensor_of(vy, extents, dev);
  const int gm = int((extents[0] + BM - 1) / BM), gn = int((extents[1] + BN - 1) / BN);
  const std::vector<int> grid = {gm, gn}, grid3 = {gm, gn, 1};
  const auto sized = [](const std::vector<int>& g, const std::vector<int>& d) {
    ct::extents_t e;
    for (std::size_t i = 0; i < g.size(); ++i) e.push_back(ct::index_t(g[i]) * d[i]);
    return e;
  };
  constexpr int bytes = BM * BN * int(sizeof(T));
  auto reshaped = poisoned<T>(sized(grid, {BN, BM}), dev), transposed = poisoned<T>(sized(grid, {BN, BM}), dev);
  auto expanded = poisoned<T>(sized(grid3, {1, BM, BN}), dev), first_row = poisoned<T>(sized(grid, {BM, BN}), dev);
  auto cat0 = poisoned<T>(sized(grid, {2 * BM, BN}), dev), cat1 = poisoned<T>(sized(grid, {BM, 2 * BN}), dev);
  auto extracted = poisoned<T>(sized(grid, {BM / 2, BN / 2}), dev), inserted = poisoned<T>(sized(grid, {BM, BN}), dev);
  auto banded = poisoned<T>(sized(grid, {BM, BN}), dev);
  auto packed = ct::full<std::uint8_t>(sized(grid, {1, bytes}), 0xa5, dev);
  auto unpacked = poisoned<T>(sized(grid, {BM, BN}), dev);
  auto made = poisoned<std::int32_t>(sized(grid, {BM, BN}), dev);
  ct::launch(shape_ops<T, BM, BN>{}, reshaped.partition(ct::shape<BN, BM>{}), transposed.partition(ct::shape<BN, BM>{}),
             expanded.partition(ct::shape<1, BM, BN>{}), first_row.partition(ct::shape<BM, BN>{}),
             cat0.partition(ct::shape<2 * BM, BN>{}), cat1.partition(ct::shape<BM, 2 * BN>{}),
             extracted.partition(ct::shape<BM / 2, BN / 2>{}), inserted.partition(ct::shape<BM, BN>{}),
             banded.partition(ct::shape<BM, BN>{}),
             packed.partition(ct::shape<1, bytes>{}), unpacked.partition(ct::shape<BM, BN>{}),
             made.partition(ct::shape<BM, BN>{}), x, y)
      .wait();

  // The expected tiles are looked up once per element, so each block's input tile is built once.
  std::map<std::vector<int>, host_tile<T>> x_tiles, y_tiles;
  const auto cached = [&](auto& tiles, const std::vector<T>& v, const std::vector<int>& b) -> const host_tile<T>& {
    auto it = tiles.find(b);
    if (it == tiles.end()) it = tiles.emplace(b, tile_of(v, extents, b, {BM, BN})).first;
    return it->second;
  };
  const auto t = [&](const std::vector<int>& b) -> const host_tile<T>& { return cached(x_tiles, vx, b); };
  const auto u = [&](const std::vector<int>& b) -> const host_tile<T>& { return cached(y_tiles, vy, b); };
  using tile = host_tile<T>;
  using pos = const std::vector<int>&;
  const auto expect = [&](const auto& got, const std::vector<int>& g, const std::vector<int>& dims, auto f,
                          const char* what) {
    using E = typename std::decay_t<decltype(got)>::element_type;
    EXPECT_TRUE(all_same(got.to_host(), assemble<E>(g, dims, f), true)) << what;
  };
  expect(reshaped, grid, {BN, BM}, [&](pos b) { return tile{{BN, BM}, t(b).v}; }, "reshape");
  expect(transposed, grid, {BN, BM}, [&](pos b) { return tile::make({BN, BM}, [&](pos c) { return t(b).at({c[1], c[0]}); }); },
         "transpose");
  expect(expanded, grid3, {1, BM, BN}, [&](pos b) { return tile{{1, BM, BN}, t({b[0], b[1]}).v}; }, "expand_dims");
  expect(first_row, grid, {BM, BN}, [&](pos b) { return tile::make({BM, BN}, [&](pos c) { return t(b).at({0, c[1]}); }); },
         "broadcast_to of the first row");
  expect(cat0, grid, {2 * BM, BN}, [&](pos b) {
    return tile::make({2 * BM, BN}, [&](pos c) { return c[0] < BM ? t(b).at(c) : u(b).at({c[0] - BM, c[1]}); });
  }, "cat axis 0");
  expect(cat1, grid, {BM, 2 * BN}, [&](pos b) {
    return tile::make({BM, 2 * BN}, [&](pos c) { return c[1] < BN ? t(b).at(c) : u(b).at({c[0], c[1] - BN}); });
  }, "cat axis 1");
  expect(extracted, grid, {BM / 2, BN / 2}, [&](pos b) {
    return tile::make({BM / 2, BN / 2}, [&](pos c) { return t(b).at({b[0] % 2 * BM / 2 + c[0], b[1] % 2 * BN / 2 + c[1]}); });
  }, "extract at (i % 2, j % 2)");
  expect(inserted, grid, {BM, BN}, [&](pos b) {
    return tile::make({BM, BN}, [&](pos c) {
      const bool inside = c[0] < BM / 2 && c[1] >= BN / 2;
      return inside ? u(b).at({BM / 2 + c[0], c[1] - BN / 2}) : t(b).at(c);
    });
  }, "insert at (0, 1)");
  expect(banded, grid, {BM, BN}, [&](pos b) {
    return tile::make({BM, BN}, [&](pos c) {
      const int band = (c[0] / (BM / 2) + b[0]) % 2;
      return t(b).at({band * BM / 2 + c[0] % (BM / 2), c[1]});
    });
  }, "row bands extracted at (band + i) % 2 and stored by out::subtiles");
  expect(packed, grid, {1, bytes}, [&](pos b) {
    const auto v = t(b).v;
    host_tile<std::uint8_t> r{{1, bytes}, std::vector<std::uint8_t>(std::size_t(bytes))};
    std::memcpy(r.v.data(), v.data(), r.v.size());
    return r;
  }, "pack_to_bytes");
  expect(unpacked, grid, {BM, BN}, t, "unpack_from_bytes(pack_to_bytes(x))");
  expect(made, grid, {BM, BN}, [&](pos) { return host_tile<std::int32_t>::make({BM, BN}, [](pos c) { return c[1] + 1013; }); },
         "arange + ones * 1000 + zeros + full + static_for");
}

TEST_P(shape_ops_test, f32_tiny_tile) { check_shape_ops<float, 2, 2>(dev(), {5, 7}); }
TEST_P(shape_ops_test, f16_medium_tile) { check_shape_ops<ct::f16, 16, 16>(dev(), {31, 45}); }
TEST_P(shape_ops_test, int8_wide_tile) { check_shape_ops<std::int8_t, 8, 128>(dev(), {17, 257}); }
TEST_P(shape_ops_test, f64_wide_tile) { check_shape_ops<double, 8, 128>(dev(), {9, 130}); }
TEST_P(shape_ops_test, uint16_tile_larger_than_the_arena) {
  check_shape_ops<std::uint16_t, 64, 128>(dev(), {67, 257});
}

template <class T>
void check_permute_3d(const ct::device& dev, const ct::extents_t& extents) {
  SCOPED_TRACE((case_name<T, ct::shape<2, 4, 8>>(extents)));
  const auto vx = shape_input<T>(element_count(extents));
  const auto x = tensor_of(vx, extents, dev);
  const std::vector<int> grid = {int((extents[0] + 1) / 2), int((extents[1] + 3) / 4), int((extents[2] + 7) / 8)};
  auto rotated = poisoned<T>({grid[0] * 8, grid[1] * 2, grid[2] * 4}, dev);
  auto transposed = poisoned<T>({grid[0] * 2, grid[1] * 8, grid[2] * 4}, dev);
  ct::launch(permute_3d<T>{}, rotated.partition(ct::shape<8, 2, 4>{}), transposed.partition(ct::shape<2, 8, 4>{}), x).wait();
  using pos = const std::vector<int>&;
  const auto t = [&](pos b) { return tile_of(vx, extents, b, {2, 4, 8}); };
  EXPECT_TRUE(all_same(rotated.to_host(), assemble<T>(grid, {8, 2, 4}, [&](pos b) {
    return host_tile<T>::make({8, 2, 4}, [&](pos c) { return t(b).at({c[1], c[2], c[0]}); });
  }), true)) << "permute (2, 0, 1)";
  EXPECT_TRUE(all_same(transposed.to_host(), assemble<T>(grid, {2, 8, 4}, [&](pos b) {
    return host_tile<T>::make({2, 8, 4}, [&](pos c) { return t(b).at({c[0], c[2], c[1]}); });
  }), true)) << "transpose of a rank-3 tile";
}

TEST_P(shape_ops_test, permute_rank3_f32) { check_permute_3d<float>(dev(), {3, 7, 9}); }
TEST_P(shape_ops_test, permute_rank3_int64) { check_permute_3d<std::int64_t>(dev(), {5, 4, 17}); }

// y, of x's extents, must equal x wherever its tiles are whole or not; the blocks whose tile lies
// inside the tensor with rows on 16-byte boundaries took the untested sub-tiles.
template <class T, int BM, int BN>
void check_whole_subtiles(const ct::device& dev, const ct::extents_t& extents) {
  SCOPED_TRACE((case_name<T, ct::shape<BM, BN>>(extents)));
  const auto vx = shape_input<T>(element_count(extents));
  const auto x = tensor_of(vx, extents, dev);
  const int gm = int((extents[0] + BM - 1) / BM), gn = int((extents[1] + BN - 1) / BN);
  auto y = poisoned<T>(extents, dev);
  auto took_whole = poisoned<std::int32_t>({gm, gn}, dev);
  ct::launch(whole_subtiles<T, BM, BN>{}, y.partition(ct::shape<BM, BN>{}), took_whole.partition(ct::shape<1, 1>{}), x)
      .wait();
  EXPECT_TRUE(all_same(y.to_host(), vx, true)) << "stored through out::with_subtiles";
  const bool rows_aligned = extents[1] * ct::index_t(sizeof(T)) % 16 == 0;
  std::vector<std::int32_t> expected;
  for (int i = 0; i < gm; ++i)
    for (int j = 0; j < gn; ++j)
      expected.push_back((i + 1) * BM <= extents[0] && (j + 1) * BN <= extents[1] && rows_aligned ? 1 : 0);
  EXPECT_EQ(took_whole.to_host(), expected) << "which blocks took the untested sub-tiles";
}

TEST_P(shape_ops_test, whole_subtiles_where_tiles_are_inside_and_aligned) {
  check_whole_subtiles<ct::f16, 64, 128>(dev(), {67, 264});   // whole, cut rows and cut columns
  check_whole_subtiles<ct::f16, 64, 128>(dev(), {128, 256});  // every tile whole
  check_whole_subtiles<ct::f16, 64, 128>(dev(), {128, 257});  // rows off 16-byte boundaries
  check_whole_subtiles<float, 16, 64>(dev(), {40, 132});
  check_whole_subtiles<std::int8_t, 8, 32>(dev(), {17, 96});
}

CT_INSTANTIATE_ON_DEVICES(shape_ops_test);

}  // namespace
