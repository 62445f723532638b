// Atomics through a ct::unsafe::global, under contention (many blocks and many lanes of one
// tile updating the same few elements): ct::atomic_add / max / min / and / or / xor / xchg with
// every memory order and scope, masks, out-of-range indices (not touched, old value 0) and
// ct::unchecked, for int32, uint32, int64, uint64, f32 and f64 (and/or/xor on integers);
// the old values they return (atomic_add tickets are unique, atomic_xchg's old values and the
// final value are exactly the initial value and every value written, atomic_cas lets exactly
// one block win); the tile-wise ct::atomic_store_{add,max,min,and,or,xor}; and a spin lock
// built from atomic_cas (acquire) and atomic_xchg (release) guarding plain tile loads and stores.
// Final values must match the host's fold of all updates exactly (float updates are small
// integers, so any order of additions is exact).
#include <map>

#include "ops/ops_util.hpp"

namespace {
using namespace ct_test;

// Block b applies lanes [b * N, (b + 1) * N) of (idx, values) to the destinations; `in_range`
// holds indices without out-of-range ones, for the unchecked update.
template <class T, int N>
struct rmw_all {
  static constexpr const char* name = "ops_atomic_rmw";
  using S = ct::shape<N>;
  using dst = ct::unsafe::global<T, 1>;
  CT_TILE void operator()(ct::out<T, S> old_add, ct::out<T, S> old_xchg, dst add, dst max, dst min, dst xchg,
                          dst bit_and, dst bit_or, dst bit_xor, dst own, ct::in<std::int64_t, 1> idx,
                          ct::in<std::int64_t, 1> in_range, ct::in<T, 1> values, ct::in<bool, 1> mask) const {
    const auto i = idx.load_like(old_add);
    const auto v = values.load_like(old_add);
    const auto m = mask.load_like(old_add);
    old_add.store(ct::atomic_add(add, i, v));
    (void)ct::atomic_max(max, ct::indices(i), v, ct::relaxed, m);
    (void)ct::atomic_min(min, i, v, ct::acquire, ct::device_scope);
    old_xchg.store(ct::atomic_xchg(xchg, i, v, ct::release, ct::system_scope));
    if constexpr (std::is_integral_v<T>) {
      const auto r = in_range.load_like(old_add);
      (void)ct::atomic_and(bit_and, r, v, ct::unchecked, ct::acq_rel);
      (void)ct::atomic_or(bit_or, i, v, m);
      (void)ct::atomic_xor(bit_xor, i, v);
    }
    // No contention here: each block owns its lanes, so block scope suffices.
    const auto mine = ct::arange<std::int64_t, N>() + std::int64_t(ct::bid(0)) * N;
    (void)ct::atomic_add(own, mine, v, ct::block_scope, ct::relaxed);
  }
};

// Each lane takes a ticket from counter idx[lane]. The lanes of a partial last tile are masked
// off: their index is the load's padding, 0, a real counter.
template <class T, int N>
struct tickets {
  static constexpr const char* name = "ops_atomic_tickets";
  CT_TILE void operator()(ct::out<T, ct::shape<N>> ticket, ct::unsafe::global<T, 1> counters,
                          ct::in<std::int64_t, 1> idx) const {
    const auto lane = ct::arange<std::int64_t, N>() + std::int64_t(ct::bid(0)) * N;
    ticket.store(ct::atomic_add(counters, idx.load_like(ticket), T(1), lane < idx.extent(0)));
  }
};

// Every block tries to swap its id + 1 into each of the N elements, which start at 0.
template <class T, int N>
struct cas_race {
  static constexpr const char* name = "ops_atomic_cas";
  CT_TILE void operator()(ct::out<T, ct::shape<1, N>> seen, ct::unsafe::global<T, 1> dst) const {
    const auto old = ct::atomic_cas(dst, ct::arange<std::int32_t, N>(), T(0), T(ct::bid(0) + 1), ct::acq_rel);
    seen.store(ct::reshape(old, ct::shape<1, N>{}));
  }
};

// Block b updates tile (b % t0, b % t1) of each destination with its tile of values.
template <class T, class S>
struct tile_atomics {
  static constexpr const char* name = "ops_atomic_store";
  using dst = ct::unsafe::global<T, 2>;
  CT_TILE void operator()(dst add, dst max, dst min, dst bit_and, dst bit_or, dst bit_xor, ct::in<T, 2> values,
                          ct::index_t t0, ct::index_t t1) const {
    const ct::index_t b = ct::bid(0);
    const auto v = values.tiled(S{}).load(b, 0);
    const ct::coord<2> at = {b % t0, b % t1};
    ct::atomic_store_add(add, at, v);
    ct::atomic_store_max(max, at, v);
    ct::atomic_store_min(min, at, v);
    if constexpr (std::is_integral_v<T>) {
      ct::atomic_store_and(bit_and, at, v);
      ct::atomic_store_or(bit_or, at, v);
      ct::atomic_store_xor(bit_xor, at, v);
    }
  }
};

// Each block increments every element of `data` with a plain load and store, inside a spin lock.
struct locked_increment {
  static constexpr const char* name = "ops_atomic_lock";
  using S = ct::shape<32, 32>;
  CT_TILE void operator()(ct::unsafe::global<std::int32_t, 1> lock, ct::unsafe::global<std::int32_t, 2> data) const {
    const auto zero = ct::zeros<std::int32_t, 1>();
    while (ct::sum(ct::atomic_cas(lock, zero, 0, 1, ct::acquire), ct::axis<0>).v[0] != 0) {
    }
    ct::store(data, {0, 0}, data.as_in().tiled(S{}).load(0, 0) + 1);
    (void)ct::atomic_xchg(lock, zero, 0, ct::release);
  }
};

struct atomic_ops : on_device {};

// Host fold of one op over the updates an element received.
template <class T>
struct fold {
  static T add(T a, T b) {
    if constexpr (is_int_v<T>) return wrapping_add(a, b);
    else return a + b;
  }
  static T max(T a, T b) { return b > a ? b : a; }
  static T min(T a, T b) { return b < a ? b : a; }
};

// Update values: arbitrary integers, or small integers as floats (sums exact in any order).
template <class T>
std::vector<T> update_values(std::size_t n) {
  if constexpr (is_int_v<T>) return random_ints<T>(n, true);
  auto gen = rng();
  std::vector<T> v(n);
  for (auto& x : v) x = T(int(gen() % 33) - 16);
  return v;
}

template <class T, int N>
void check_rmw(const ct::device& dev, ct::index_t blocks, ct::index_t elements) {
  SCOPED_TRACE(cat(case_name<T, ct::shape<N>>({blocks * N}), " onto ", elements, " elements"));
  const std::size_t n = std::size_t(blocks * N), k = std::size_t(elements);
  auto gen = rng();
  std::vector<std::int64_t> vi(n), vr(n);
  for (std::size_t l = 0; l < n; ++l) {
    vr[l] = std::int64_t(gen() % k);
    vi[l] = l % 9 == 4 ? (l % 2 ? -1 - std::int64_t(gen() % 3) : elements + std::int64_t(gen() % 3)) : vr[l];
  }
  const auto vv = update_values<T>(n);
  std::vector<bool> vm(n);
  for (std::size_t l = 0; l < n; ++l) vm[l] = gen() % 4 != 0;
  const auto init = update_values<T>(k);
  const auto idx = tensor_of(vi, {ct::index_t(n)}, dev), in_range = tensor_of(vr, {ct::index_t(n)}, dev);
  const auto values = tensor_of(vv, {ct::index_t(n)}, dev);
  const auto mask = tensor_of(vm, {ct::index_t(n)}, dev);
  std::vector<ct::tensor<T>> d;
  for (int o = 0; o < 7; ++o) d.push_back(tensor_of(init, {elements}, dev));
  auto own = ct::zeros<T>({ct::index_t(n)}, dev);
  auto old_add = poisoned<T>({ct::index_t(n)}, dev), old_xchg = poisoned<T>({ct::index_t(n)}, dev);
  ct::launch(rmw_all<T, N>{}, old_add.partition(ct::shape<N>{}), old_xchg.partition(ct::shape<N>{}),
             ct::unsafe::shared(d[0]), ct::unsafe::shared(d[1]), ct::unsafe::shared(d[2]), ct::unsafe::shared(d[3]),
             ct::unsafe::shared(d[4]), ct::unsafe::shared(d[5]), ct::unsafe::shared(d[6]), ct::unsafe::shared(own), idx,
             in_range, values, mask)
      .wait();

  // want[o][e]: the initial value folded with every update that reaches e.
  const auto folded = [&](const std::vector<std::int64_t>& at, const std::vector<bool>* active, T (*op)(T, T)) {
    auto r = init;
    for (std::size_t l = 0; l < n; ++l)
      if ((!active || (*active)[l]) && at[l] >= 0 && at[l] < elements) r[std::size_t(at[l])] = op(r[std::size_t(at[l])], vv[l]);
    return r;
  };
  EXPECT_TRUE(all_same(d[0].to_host(), folded(vi, nullptr, fold<T>::add))) << "atomic_add";
  EXPECT_TRUE(all_same(d[1].to_host(), folded(vi, &vm, fold<T>::max))) << "atomic_max with a mask";
  EXPECT_TRUE(all_same(d[2].to_host(), folded(vi, nullptr, fold<T>::min))) << "atomic_min";
  if constexpr (is_int_v<T>) {
    EXPECT_TRUE(all_same(d[4].to_host(), folded(vr, nullptr, [](T a, T b) { return T(a & b); }))) << "unchecked atomic_and";
    EXPECT_TRUE(all_same(d[5].to_host(), folded(vi, &vm, [](T a, T b) { return T(a | b); }))) << "atomic_or with a mask";
    EXPECT_TRUE(all_same(d[6].to_host(), folded(vi, nullptr, [](T a, T b) { return T(a ^ b); }))) << "atomic_xor";
  }
  EXPECT_TRUE(all_same(own.to_host(), vv)) << "block-scope atomic_add on elements a block owns";

  // Old values: 0 where the index is out of range; for xchg, per element, the old values and the
  // final value are exactly the initial value and the values written.
  const auto ha = old_add.to_host(), hx = old_xchg.to_host(), final_x = d[3].to_host();
  std::map<std::int64_t, std::vector<double>> seen, put;
  for (std::size_t l = 0; l < n; ++l) {
    const bool inside = vi[l] >= 0 && vi[l] < elements;
    if (!inside) {
      EXPECT_TRUE(same_value(ha[l], T(0)) && same_value(hx[l], T(0))) << "lane " << l << " (index " << vi[l] << ")";
      continue;
    }
    seen[vi[l]].push_back(to_f64(hx[l]));
    put[vi[l]].push_back(to_f64(vv[l]));
  }
  std::size_t bad = 0;
  for (auto& [e, olds] : seen) {
    olds.push_back(to_f64(final_x[std::size_t(e)]));
    put[e].push_back(to_f64(init[std::size_t(e)]));
    std::sort(olds.begin(), olds.end());
    std::sort(put[e].begin(), put[e].end());
    bad += olds != put[e];
  }
  EXPECT_EQ(bad, 0u) << "elements whose atomic_xchg old values and final value are not the values written";
}

TEST_P(atomic_ops, read_modify_write_int32) { check_rmw<std::int32_t, 256>(dev(), 64, 37); }
TEST_P(atomic_ops, read_modify_write_uint32) { check_rmw<std::uint32_t, 4>(dev(), 300, 5); }
TEST_P(atomic_ops, read_modify_write_int64) { check_rmw<std::int64_t, 1>(dev(), 500, 3); }
TEST_P(atomic_ops, read_modify_write_uint64) { check_rmw<std::uint64_t, 1024>(dev(), 16, 257); }
TEST_P(atomic_ops, read_modify_write_f32) { check_rmw<float, 128>(dev(), 64, 31); }
TEST_P(atomic_ops, read_modify_write_f64) { check_rmw<double, 2>(dev(), 200, 7); }

template <class T, int N>
void check_tickets(const ct::device& dev, ct::index_t lanes, ct::index_t counters) {
  SCOPED_TRACE(cat(case_name<T, ct::shape<N>>({lanes}), " onto ", counters, " counters"));
  auto gen = rng();
  std::vector<std::int64_t> vi(static_cast<std::size_t>(lanes));
  for (auto& i : vi) i = std::int64_t(gen() % std::uint64_t(counters));
  const auto idx = tensor_of(vi, {lanes}, dev);
  auto count = ct::zeros<T>({counters}, dev);
  auto ticket = poisoned<T>({lanes}, dev);
  ct::launch(tickets<T, N>{}, ticket.partition(ct::shape<N>{}), ct::unsafe::shared(count), idx).wait();
  std::map<std::int64_t, std::vector<T>> got;
  const auto ht = ticket.to_host();
  for (std::size_t l = 0; l < vi.size(); ++l) got[vi[l]].push_back(ht[l]);
  const auto hc = count.to_host();
  for (auto& [c, t] : got) {
    std::sort(t.begin(), t.end());
    std::vector<T> want(t.size());
    std::iota(want.begin(), want.end(), T(0));
    EXPECT_EQ(t, want) << "tickets of counter " << c;
    EXPECT_EQ(hc[std::size_t(c)], T(t.size())) << "counter " << c;
  }
}

TEST_P(atomic_ops, add_hands_out_unique_tickets) {
  check_tickets<std::int32_t, 1024>(dev(), 64 * 1024 + 5, 3);
  check_tickets<std::uint64_t, 1>(dev(), 999, 2);
}

template <class T, int N>
void check_cas(const ct::device& dev, ct::index_t blocks) {
  SCOPED_TRACE(cat(case_name<T, ct::shape<N>>({blocks})));
  auto dst = ct::zeros<T>({N}, dev);
  auto seen = poisoned<T>({blocks, N}, dev);
  ct::launch(cas_race<T, N>{}, seen.partition(ct::shape<1, N>{}), ct::unsafe::shared(dst)).wait();
  const auto hs = seen.to_host(), hd = dst.to_host();
  for (std::size_t e = 0; e < std::size_t(N); ++e) {
    int winners = 0, others = 0;
    for (std::size_t b = 0; b < std::size_t(blocks); ++b) {
      const T s = hs[b * N + e];
      if (s == T(0)) {
        ++winners;
        EXPECT_EQ(hd[e], T(b + 1)) << "element " << e << ": block " << b << " won, but holds " << printable(hd[e]);
      } else {
        others += s == hd[e];
      }
    }
    EXPECT_EQ(winners, 1) << "element " << e;
    EXPECT_EQ(others, int(blocks) - 1) << "element " << e << ": losers must see the winner's value";
  }
}

TEST_P(atomic_ops, cas_lets_exactly_one_block_win) {
  check_cas<std::int32_t, 64>(dev(), 300);
  check_cas<std::uint64_t, 4>(dev(), 100);
  check_cas<float, 128>(dev(), 50);
}

template <class T, int BM, int BN>
void check_tile_atomics(const ct::device& dev, ct::index_t blocks, ct::index_t rows, ct::index_t cols) {
  SCOPED_TRACE(cat(case_name<T, ct::shape<BM, BN>>({rows, cols}), " from ", blocks, " blocks"));
  const ct::index_t t0 = (rows + BM - 1) / BM, t1 = (cols + BN - 1) / BN;
  const auto vv = update_values<T>(std::size_t(blocks * BM * BN));
  const auto init = update_values<T>(std::size_t(rows * cols));
  const auto values = tensor_of(vv, {blocks * BM, BN}, dev);
  std::vector<ct::tensor<T>> d;
  for (int o = 0; o < 6; ++o) d.push_back(tensor_of(init, {rows, cols}, dev));
  ct::launch(ct::grid(blocks), tile_atomics<T, ct::shape<BM, BN>>{}, ct::unsafe::shared(d[0]), ct::unsafe::shared(d[1]),
             ct::unsafe::shared(d[2]), ct::unsafe::shared(d[3]), ct::unsafe::shared(d[4]), ct::unsafe::shared(d[5]),
             values, t0, t1)
      .wait();
  const auto folded = [&](auto op) {
    auto r = init;
    for (ct::index_t b = 0; b < blocks; ++b)
      for (ct::index_t a = 0; a < BM; ++a)
        for (ct::index_t c = 0; c < BN; ++c) {
          const ct::index_t y = b % t0 * BM + a, x = b % t1 * BN + c;
          if (y < rows && x < cols) r[std::size_t(y * cols + x)] = op(r[std::size_t(y * cols + x)], vv[std::size_t((b * BM + a) * BN + c)]);
        }
    return r;
  };
  EXPECT_TRUE(all_same(d[0].to_host(), folded(fold<T>::add))) << "atomic_store_add";
  EXPECT_TRUE(all_same(d[1].to_host(), folded(fold<T>::max))) << "atomic_store_max";
  EXPECT_TRUE(all_same(d[2].to_host(), folded(fold<T>::min))) << "atomic_store_min";
  if constexpr (is_int_v<T>) {
    EXPECT_TRUE(all_same(d[3].to_host(), folded([](T a, T b) { return T(a & b); }))) << "atomic_store_and";
    EXPECT_TRUE(all_same(d[4].to_host(), folded([](T a, T b) { return T(a | b); }))) << "atomic_store_or";
    EXPECT_TRUE(all_same(d[5].to_host(), folded([](T a, T b) { return T(a ^ b); }))) << "atomic_store_xor";
  }
}

TEST_P(atomic_ops, tile_wise_atomic_stores) {
  check_tile_atomics<std::int32_t, 2, 2>(dev(), 40, 5, 3);
  check_tile_atomics<std::uint64_t, 16, 16>(dev(), 30, 31, 40);
  check_tile_atomics<float, 8, 128>(dev(), 20, 17, 200);
  check_tile_atomics<double, 1, 4>(dev(), 33, 3, 7);
}

TEST_P(atomic_ops, spin_lock_orders_plain_loads_and_stores) {
  const ct::index_t blocks = 200;
  auto lock = ct::zeros<std::int32_t>({1}, dev());
  auto data = ct::zeros<std::int32_t>({32, 32}, dev());
  ct::launch(ct::grid(blocks), locked_increment{}, ct::unsafe::shared(lock), ct::unsafe::shared(data)).wait();
  EXPECT_TRUE(all_same(data.to_host(), std::vector<std::int32_t>(32 * 32, std::int32_t(blocks))))
      << "every block's increment must land: the lock must order each block's tile load after the previous "
         "holder's tile store";
  EXPECT_EQ(lock.to_host()[0], 0);
}

CT_INSTANTIATE_ON_DEVICES(atomic_ops);

}  // namespace
