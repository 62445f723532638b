// Gather and scatter with index tiles: ct::gather on 1-D tensors (bounds-checked, negative and
// too-large indices reading 0; with a mask; with a mask and a padding value; ct::unchecked with
// in-range indices) and on 2-D tensors with broadcasting index tiles ((BM, 1) rows x (1, BN)
// columns, of different integer types), ct::load_advanced_indexing; ct::scatter through a
// ct::unsafe::global (checked: out-of-range indices are skipped; masked; unchecked), 2-D scatter
// with broadcasting indices and ct::store_advanced_indexing. Indices come from host-made
// permutations with out-of-range entries planted; scatter destinations are poisoned, so elements
// that must not be written show. Results must match bit for bit.
#include <numeric>

#include "ops/ops_util.hpp"

namespace {
using namespace ct_test;

template <class T, class I, int N>
struct gathers {
  static constexpr const char* name = "ops_gathers";
  using S = ct::shape<N>;
  CT_TILE void operator()(ct::out<T, S> plain, ct::out<T, S> masked, ct::out<T, S> padded, ct::out<T, S> unchecked,
                          ct::in<T, 1> src, ct::in<I, 1> idx, ct::in<bool, 1> mask, ct::in<I, 1> in_range,
                          double padding) const {
    const auto i = idx.load_like(plain);
    const auto m = mask.load_like(plain);
    plain.store(ct::gather(src, i));
    masked.store(ct::gather(src, i, m));
    padded.store(ct::gather(src, ct::indices(i), m, padding));
    unchecked.store(ct::gather(src, in_range.load_like(plain), ct::unchecked));
  }
};

template <class T, int BM, int BN>
struct gathers_2d {
  static constexpr const char* name = "ops_gathers_2d";
  using S = ct::shape<BM, BN>;
  CT_TILE void operator()(ct::out<T, S> crossed, ct::out<T, S> advanced, ct::in<T, 2> src, ct::in<std::int64_t, 2> rows,
                          ct::in<std::int32_t, 2> cols, ct::in<std::int16_t, 1> picks) const {
    const auto [i, j] = crossed.tile_index();
    const auto r = ct::load(rows, {i, 0}, ct::shape<BM, 1>{});
    const auto c = ct::load(cols, {0, j}, ct::shape<1, BN>{});
    crossed.store(ct::gather(src, ct::indices(r, c), r >= std::int64_t(0)));
    advanced.store(ct::load_advanced_indexing(src, ct::slice<BM>(i * BM), ct::load(picks, {j}, ct::shape<BN>{})));
  }
};

// Index tile t of `idx` (whose length is a multiple of N) scatters values[t] into the dsts.
template <class T, class I, int N>
struct scatters {
  static constexpr const char* name = "ops_scatters";
  using S = ct::shape<N>;
  CT_TILE void operator()(ct::unsafe::global<T, 1> plain, ct::unsafe::global<T, 1> masked,
                          ct::unsafe::global<T, 1> unchecked, ct::in<T, 1> values, ct::in<I, 1> idx,
                          ct::in<bool, 1> mask, ct::in<I, 1> in_range) const {
    const ct::index_t t = ct::bid(0);
    const auto v = ct::load(values, {t}, S{});
    const auto i = ct::load(idx, {t}, S{});
    ct::scatter(plain, i, v);
    ct::scatter(masked, ct::indices(i), v, ct::load(mask, {t}, S{}));
    ct::scatter(unchecked, ct::load(in_range, {t}, S{}), v, ct::unchecked);
  }
};

template <class T, int BM, int BN>
struct scatters_2d {
  static constexpr const char* name = "ops_scatters_2d";
  using S = ct::shape<BM, BN>;
  CT_TILE void operator()(ct::unsafe::global<T, 2> crossed, ct::unsafe::global<T, 2> advanced, ct::in<T, 2> values,
                          ct::in<std::int64_t, 2> rows, ct::in<std::int32_t, 2> cols, ct::in<std::int16_t, 1> picks) const {
    const ct::index_t i = ct::bid(0), j = ct::bid(1);
    const auto v = values.tiled(S{}).load(i, j);
    const auto r = ct::load(rows, {i, 0}, ct::shape<BM, 1>{});
    const auto c = ct::load(cols, {0, j}, ct::shape<1, BN>{});
    ct::scatter(crossed, ct::indices(r, c), v);
    ct::store_advanced_indexing(advanced, v, ct::slice<BM>(i * BM), ct::load(picks, {j}, ct::shape<BN>{}));
  }
};

struct gather_scatter : on_device {};

template <class T>
std::vector<T> payload(std::size_t n) {
  if constexpr (ct::is_floating_v<T>) return random_floats<T>(n, 4.0, true);
  else return random_ints<T>(n, true);
}

// n indices into [0, extent): a shuffled permutation of [0, extent) repeated as needed, every
// seventh replaced by an out-of-range one (negative where I is signed, extent + k otherwise).
template <class I>
std::vector<I> indices_into(std::size_t n, ct::index_t extent, bool out_of_range) {
  auto gen = rng();
  std::vector<I> perm(static_cast<std::size_t>(extent));
  std::iota(perm.begin(), perm.end(), I(0));
  std::shuffle(perm.begin(), perm.end(), gen);
  std::vector<I> v(n);
  for (std::size_t k = 0; k < n; ++k) {
    v[k] = perm[k % perm.size()];
    if (out_of_range && k % 7 == 3) v[k] = std::is_signed_v<I> && k % 2 ? I(-1 - I(gen() % 5)) : I(extent + I(gen() % 5));
  }
  return v;
}

std::vector<bool> random_mask(std::size_t n) {
  auto gen = rng();
  std::vector<bool> m(n);
  for (std::size_t k = 0; k < n; ++k) m[k] = gen() % 3 != 0;
  return m;
}

template <class I>
bool inside(I i, ct::index_t extent) {
  return (!std::is_signed_v<I> || i >= I(0)) && ct::index_t(i) < extent;
}

template <class T, class I, int N>
void check_gather(const ct::device& dev, ct::index_t src_len, ct::index_t n) {
  SCOPED_TRACE(cat(case_name<T, ct::shape<N>>({n}), " indices ", ct::dtype_name<I>(), " into ", src_len));
  const auto vs = payload<T>(std::size_t(src_len));
  const auto vi = indices_into<I>(std::size_t(n), src_len, true), vr = indices_into<I>(std::size_t(n), src_len, false);
  const auto vm = random_mask(std::size_t(n));
  const auto src = tensor_of(vs, {src_len}, dev);
  const auto idx = tensor_of(vi, {n}, dev), in_range = tensor_of(vr, {n}, dev);
  const auto mask = tensor_of(vm, {n}, dev);
  std::vector<ct::tensor<T>> r;
  for (int k = 0; k < 4; ++k) r.push_back(poisoned<T>({n}, dev));
  const double padding = 99;  // representable in every payload type
  ct::launch(gathers<T, I, N>{}, r[0].partition(ct::shape<N>{}), r[1].partition(ct::shape<N>{}),
             r[2].partition(ct::shape<N>{}), r[3].partition(ct::shape<N>{}), src, idx, mask, in_range, padding)
      .wait();
  const auto read = [&](I i, bool active, T pad) { return active && inside(i, src_len) ? vs[std::size_t(i)] : pad; };
  const std::size_t m = std::size_t(n);
  const T zero = T(0), pad = ct::convert<T>(padding);
  EXPECT_TRUE(all_same(r[0].to_host(), reference_of<T>(m, [&](std::size_t k) { return read(vi[k], true, zero); }), true)) << "gather";
  EXPECT_TRUE(all_same(r[1].to_host(), reference_of<T>(m, [&](std::size_t k) { return read(vi[k], vm[k], zero); }), true))
      << "gather with a mask";
  EXPECT_TRUE(all_same(r[2].to_host(), reference_of<T>(m, [&](std::size_t k) { return read(vi[k], vm[k], pad); }), true))
      << "gather with a mask and a padding value";
  EXPECT_TRUE(all_same(r[3].to_host(), reference_of<T>(m, [&](std::size_t k) { return read(vr[k], true, zero); }), true))
      << "unchecked gather";
}

TEST_P(gather_scatter, gather_1d) {
  check_gather<float, std::int32_t, 1024>(dev(), 257, 3001);
  check_gather<ct::bf16, std::int64_t, 4>(dev(), 31, 37);
  check_gather<std::int64_t, std::uint16_t, 256>(dev(), 1000, 257);
  check_gather<std::uint8_t, std::int8_t, 1>(dev(), 100, 7);
}

template <class T, class I, int N>
void check_scatter(const ct::device& dev, ct::index_t dst_len, ct::index_t tiles) {
  SCOPED_TRACE(cat(case_name<T, ct::shape<N>>({tiles * N}), " indices ", ct::dtype_name<I>(), " into ", dst_len));
  const std::size_t n = std::size_t(tiles * N);
  ASSERT_LE(n, std::size_t(dst_len)) << "each destination element must be hit at most once";
  const auto vv = payload<T>(n);
  const auto vi = indices_into<I>(n, dst_len, true), vr = indices_into<I>(n, dst_len, false);
  const auto vm = random_mask(n);
  const auto values = tensor_of(vv, {ct::index_t(n)}, dev);
  const auto idx = tensor_of(vi, {ct::index_t(n)}, dev);
  const auto in_range = tensor_of(vr, {ct::index_t(n)}, dev);
  const auto mask = tensor_of(vm, {ct::index_t(n)}, dev);
  auto plain = poisoned<T>({dst_len}, dev), masked = poisoned<T>({dst_len}, dev), unchecked = poisoned<T>({dst_len}, dev);
  ct::launch(ct::grid(tiles), scatters<T, I, N>{}, ct::unsafe::shared(plain), ct::unsafe::shared(masked),
             ct::unsafe::shared(unchecked), values, idx, mask, in_range)
      .wait();
  const auto expected = [&](const std::vector<I>& at, const std::vector<bool>* active) {
    std::vector<T> r(std::size_t(dst_len), poison_value<T>());
    for (std::size_t k = 0; k < n; ++k)
      if ((!active || (*active)[k]) && inside(at[k], dst_len)) r[std::size_t(at[k])] = vv[k];
    return r;
  };
  EXPECT_TRUE(all_same(plain.to_host(), expected(vi, nullptr), true)) << "scatter";
  EXPECT_TRUE(all_same(masked.to_host(), expected(vi, &vm), true)) << "scatter with a mask";
  EXPECT_TRUE(all_same(unchecked.to_host(), expected(vr, nullptr), true)) << "unchecked scatter";
}

TEST_P(gather_scatter, scatter_1d) {
  check_scatter<float, std::int32_t, 1024>(dev(), 4099, 3);
  check_scatter<ct::f16, std::int64_t, 4>(dev(), 31, 7);
  check_scatter<std::int32_t, std::uint16_t, 256>(dev(), 1031, 4);
  check_scatter<bool, std::int8_t, 1>(dev(), 13, 7);
}

// Rows, columns and picks for the 2-D cases: rows a permutation of [0, rows) with a few -1
// (masked off in the gather, skipped by the scatter), columns and picks permutations of
// [0, cols). The index tensors cover whole tiles: entries past the tensor are -1, so the lanes
// of a partial tile are skipped by the scatters instead of reading index 0 from the padding.
struct indices_2d {
  std::vector<std::int64_t> rows;
  std::vector<std::int32_t> cols;
  std::vector<std::int16_t> picks;
};

template <class I>
std::vector<I> padded_permutation(ct::index_t extent, ct::index_t whole) {
  auto v = indices_into<I>(std::size_t(extent), extent, false);
  v.resize(std::size_t(whole), I(-1));
  return v;
}

template <class T, int BM, int BN>
void check_2d(const ct::device& dev, ct::index_t rows, ct::index_t cols) {
  SCOPED_TRACE((case_name<T, ct::shape<BM, BN>>({rows, cols})));
  const std::size_t n = std::size_t(rows * cols);
  const ct::index_t gm = (rows + BM - 1) / BM, gn = (cols + BN - 1) / BN;
  indices_2d ix{padded_permutation<std::int64_t>(rows, gm * BM), padded_permutation<std::int32_t>(cols, gn * BN),
                padded_permutation<std::int16_t>(cols, gn * BN)};
  for (std::size_t k = 2; k < std::size_t(rows); k += 5) ix.rows[k] = -1;
  const auto vs = payload<T>(n);
  const auto src = tensor_of(vs, {rows, cols}, dev);
  const auto trows = tensor_of(ix.rows, {gm * BM, 1}, dev);
  const auto tcols = tensor_of(ix.cols, {1, gn * BN}, dev);
  const auto tpicks = tensor_of(ix.picks, {gn * BN}, dev);
  using S = ct::shape<BM, BN>;

  // Gathers: crossed(a, b) = src[rows[a], cols[b]] (0 where rows[a] < 0); advanced(a, b) = src[a, picks[b]].
  auto crossed = poisoned<T>({rows, cols}, dev), advanced = poisoned<T>({rows, cols}, dev);
  ct::launch(gathers_2d<T, BM, BN>{}, crossed.partition(S{}), advanced.partition(S{}), src, trows, tcols, tpicks).wait();
  const auto at = [&](std::int64_t a, std::int64_t b) { return vs[std::size_t(a * cols + b)]; };
  EXPECT_TRUE(all_same(crossed.to_host(), reference_of<T>(n, [&](std::size_t f) {
    const std::int64_t a = ix.rows[f / std::size_t(cols)];
    return a < 0 ? T(0) : at(a, ix.cols[f % std::size_t(cols)]);
  }), true)) << "gather with (BM, 1) x (1, BN) indices and a mask";
  EXPECT_TRUE(all_same(advanced.to_host(), reference_of<T>(n, [&](std::size_t f) {
    return at(std::int64_t(f / std::size_t(cols)), ix.picks[f % std::size_t(cols)]);
  }), true)) << "load_advanced_indexing";

  // Scatters, the inverse: dst[rows[a], cols[b]] = v(a, b); dst[a, picks[b]] = v(a, b).
  auto dst = poisoned<T>({rows, cols}, dev), dst_advanced = poisoned<T>({rows, cols}, dev);
  ct::launch(ct::grid(gm, gn), scatters_2d<T, BM, BN>{}, ct::unsafe::shared(dst),
             ct::unsafe::shared(dst_advanced), src, trows, tcols, tpicks)
      .wait();
  std::vector<T> want(n, poison_value<T>()), want_advanced(n, poison_value<T>());
  for (std::size_t f = 0; f < n; ++f) {
    const std::size_t a = f / std::size_t(cols), b = f % std::size_t(cols);
    if (ix.rows[a] >= 0) want[std::size_t(ix.rows[a] * cols + ix.cols[b])] = vs[f];
    want_advanced[a * std::size_t(cols) + std::size_t(ix.picks[b])] = vs[f];
  }
  EXPECT_TRUE(all_same(dst.to_host(), want, true)) << "scatter with (BM, 1) x (1, BN) indices";
  EXPECT_TRUE(all_same(dst_advanced.to_host(), want_advanced, true)) << "store_advanced_indexing";
}

TEST_P(gather_scatter, two_dimensional) {
  check_2d<float, 16, 16>(dev(), 31, 37);
  check_2d<std::int16_t, 2, 2>(dev(), 5, 7);
  check_2d<double, 8, 128>(dev(), 17, 257);
}

CT_INSTANTIATE_ON_DEVICES(gather_scatter);

}  // namespace
