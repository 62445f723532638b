// Integer division and bitwise ops for int8-64 and uint8-64: ct::floordiv / ct::mod (Python
// rules), ct::truncdiv / ct::rem (C rules), ct::cdiv, ct::divmod, ct::truediv (f32 result),
// << >> & | ^ ~; and the logic ops on bool tiles (& | ^ ~ ! == != where). The edge rules of
// tile/integer.hpp are checked on every pair of edge values (division by zero gives 0,
// INT_MIN / -1 wraps, shifts by a negative count or >= the width give 0 or -1). References are
// computed in 128-bit arithmetic from the mathematical definitions, then wrapped to the type.
#include "ops/ops_util.hpp"

namespace {
using namespace ct_test;

template <class T, class S>
struct integer_ops {
  static constexpr const char* name = "ops_integer";
  using tile_out = ct::out<T, S>;
  CT_TILE void operator()(tile_out floordiv, tile_out mod, tile_out truncdiv, tile_out rem, tile_out cdiv,
                          tile_out div_q, tile_out div_r, tile_out shl, tile_out shr, tile_out bit_and,
                          tile_out bit_or, tile_out bit_xor, tile_out bit_not, ct::out<float, S> truediv,
                          ct::in<T, S::rank> a, ct::in<T, S::rank> b, ct::in<T, S::rank> n) const {
    const auto ta = a.load_like(floordiv), tb = b.load_like(floordiv), tn = n.load_like(floordiv);
    floordiv.store(ct::floordiv(ta, tb));
    mod.store(ct::mod(ta, tb));
    truncdiv.store(ct::truncdiv(ta, tb));
    rem.store(ct::rem(ta, tb));
    cdiv.store(ct::cdiv(ta, tb));
    const auto [q, r] = ct::divmod(ta, tb);
    div_q.store(q);
    div_r.store(r);
    shl.store(ta << tn);
    shr.store(ta >> tn);
    bit_and.store(ta & tb);
    bit_or.store(ta | tb);
    bit_xor.store(ta ^ tb);
    bit_not.store(~ta);
    truediv.store(ct::truediv(ta, tb));
  }
};

template <class S>
struct logic_ops {
  static constexpr const char* name = "ops_logic";
  using flag_out = ct::out<bool, S>;
  CT_TILE void operator()(flag_out both, flag_out either, flag_out one, flag_out not_p, flag_out bang_p,
                          flag_out eq, flag_out ne, flag_out pick, ct::in<bool, S::rank> p,
                          ct::in<bool, S::rank> q) const {
    const auto tp = p.load_like(both), tq = q.load_like(both);
    both.store(tp & tq);
    either.store(tp | tq);
    one.store(tp ^ tq);
    not_p.store(~tp);
    bang_p.store(!tp);
    eq.store(tp == tq);
    ne.store(tp != tq);
    pick.store(ct::where(tp, tq, !tq));
  }
};

struct integer_ops_test : on_device {};

__extension__ typedef __int128 wide;  // 128-bit: every result is exact before wrapping

// Python's floor division and modulo of the mathematical values (y != 0).
wide floor_div(wide x, wide y) {
  const wide q = x / y;
  return (x % y != 0 && (x < 0) != (y < 0)) ? q - 1 : q;
}
wide floor_mod(wide x, wide y) { return x - y * floor_div(x, y); }

template <class T>
struct integer_reference {
  static T wrapped(wide v) { return wrap<T>(std::uint64_t(v)); }
  static T floordiv(T x, T y) { return y == 0 ? T(0) : wrapped(floor_div(x, y)); }
  static T mod(T x, T y) { return y == 0 ? T(0) : wrapped(floor_mod(x, y)); }
  static T truncdiv(T x, T y) { return y == 0 ? T(0) : wrapped(wide(x) / wide(y)); }
  static T rem(T x, T y) { return y == 0 ? T(0) : wrapped(wide(x) % wide(y)); }
  static T cdiv(T x, T y) { return y == 0 ? T(0) : wrapped(-floor_div(-wide(x), y)); }
  static T shl(T x, T n) {
    constexpr int bits = int(sizeof(T) * 8);
    if (wide(n) < 0 || wide(n) >= bits) return T(0);
    return wrap<T>(bits_of(x) << int(n));
  }
  static T shr(T x, T n) {
    constexpr int bits = int(sizeof(T) * 8);
    if (wide(n) < 0 || wide(n) >= bits) return wide(x) < 0 ? T(-1) : T(0);
    return wrapped(floor_div(x, wide(1) << int(n)));  // an arithmetic shift rounds toward -inf
  }
  static float truediv(T x, T y) { return float(double(float(x)) / double(float(y))); }
};

template <class T, class S>
void check_integer_ops(const ct::device& dev, const ct::extents_t& extents) {
  SCOPED_TRACE((case_name<T, S>(extents)));
  using ref = integer_reference<T>;
  const std::size_t n = element_count(extents);
  const auto va = random_ints<T>(n, true), vb = random_ints<T>(n, false), vn = shift_counts<T>(n);
  const auto a = tensor_of(va, extents, dev), b = tensor_of(vb, extents, dev), c = tensor_of(vn, extents, dev);
  std::vector<ct::tensor<T>> r;
  for (int i = 0; i < 13; ++i) r.push_back(poisoned<T>(extents, dev));
  auto truediv = poisoned<float>(extents, dev);
  ct::launch(integer_ops<T, S>{}, r[0].partition(S{}), r[1].partition(S{}), r[2].partition(S{}), r[3].partition(S{}),
             r[4].partition(S{}), r[5].partition(S{}), r[6].partition(S{}), r[7].partition(S{}), r[8].partition(S{}),
             r[9].partition(S{}), r[10].partition(S{}), r[11].partition(S{}), r[12].partition(S{}),
             truediv.partition(S{}), a, b, c)
      .wait();

  const auto expect = [&](const ct::tensor<T>& got, auto op, const char* what) {
    EXPECT_TRUE(all_same(got.to_host(), reference_of<T>(n, op))) << what;
  };
  const auto binary = [&](std::size_t i, T (*op)(T, T)) { return op(va[i], vb[i]); };
  expect(r[0], [&](std::size_t i) { return binary(i, ref::floordiv); }, "ct::floordiv");
  expect(r[1], [&](std::size_t i) { return binary(i, ref::mod); }, "ct::mod");
  expect(r[2], [&](std::size_t i) { return binary(i, ref::truncdiv); }, "ct::truncdiv");
  expect(r[3], [&](std::size_t i) { return binary(i, ref::rem); }, "ct::rem");
  expect(r[4], [&](std::size_t i) { return binary(i, ref::cdiv); }, "ct::cdiv");
  expect(r[5], [&](std::size_t i) { return binary(i, ref::floordiv); }, "ct::divmod quotient");
  expect(r[6], [&](std::size_t i) { return binary(i, ref::mod); }, "ct::divmod remainder");
  expect(r[7], [&](std::size_t i) { return ref::shl(va[i], vn[i]); }, "a << n");
  expect(r[8], [&](std::size_t i) { return ref::shr(va[i], vn[i]); }, "a >> n");
  expect(r[9], [&](std::size_t i) { return T(va[i] & vb[i]); }, "a & b");
  expect(r[10], [&](std::size_t i) { return T(va[i] | vb[i]); }, "a | b");
  expect(r[11], [&](std::size_t i) { return T(va[i] ^ vb[i]); }, "a ^ b");
  expect(r[12], [&](std::size_t i) { return T(~va[i]); }, "~a");
  EXPECT_TRUE(all_same(truediv.to_host(), reference_of<float>(n, [&](std::size_t i) { return ref::truediv(va[i], vb[i]); })))
      << "ct::truediv";
}

template <class T, class S>
void check_integer_ops(const ct::device& dev) {
  check_integer_ops<T, S>(dev, ragged_extents<S>());
}

TEST_P(integer_ops_test, int8) { check_integer_ops<std::int8_t, ct::shape<32, 256>>(dev()); }
TEST_P(integer_ops_test, int16) { check_integer_ops<std::int16_t, ct::shape<4>>(dev(), {257}); }
TEST_P(integer_ops_test, int32) { check_integer_ops<std::int32_t, ct::shape<16, 16>>(dev()); }
TEST_P(integer_ops_test, int64) { check_integer_ops<std::int64_t, ct::shape<2, 2>>(dev(), {31, 7}); }
TEST_P(integer_ops_test, uint8) { check_integer_ops<std::uint8_t, ct::shape<8, 128>>(dev()); }
TEST_P(integer_ops_test, uint16) { check_integer_ops<std::uint16_t, ct::shape<1>>(dev(), {131}); }
TEST_P(integer_ops_test, uint32) { check_integer_ops<std::uint32_t, ct::shape<16, 16>>(dev(), {1, 257}); }
TEST_P(integer_ops_test, uint64) { check_integer_ops<std::uint64_t, ct::shape<8, 128>>(dev()); }

template <class S>
void check_logic(const ct::device& dev, const ct::extents_t& extents) {
  SCOPED_TRACE((case_name<bool, S>(extents)));
  const std::size_t n = element_count(extents);
  auto gen = rng();
  std::vector<bool> vp(n), vq(n);
  for (std::size_t i = 0; i < n; ++i) vp[i] = gen() % 2, vq[i] = gen() % 2;
  const auto p = tensor_of(vp, extents, dev), q = tensor_of(vq, extents, dev);
  // Two runs, outputs poisoned false and then true, so an unwritten element fails either way.
  for (const bool poison : {false, true}) {
    std::vector<ct::tensor<bool>> r;
    for (int i = 0; i < 8; ++i) r.push_back(ct::full<bool>(extents, poison, dev));
    ct::launch(logic_ops<S>{}, r[0].partition(S{}), r[1].partition(S{}), r[2].partition(S{}), r[3].partition(S{}),
               r[4].partition(S{}), r[5].partition(S{}), r[6].partition(S{}), r[7].partition(S{}), p, q)
        .wait();
    const auto expect = [&](const ct::tensor<bool>& got, auto op, const char* what) {
      EXPECT_TRUE(all_same(got.to_host(), reference_of<bool>(n, op))) << what << ", poisoned " << poison;
    };
    expect(r[0], [&](std::size_t i) { return vp[i] && vq[i]; }, "p & q");
    expect(r[1], [&](std::size_t i) { return vp[i] || vq[i]; }, "p | q");
    expect(r[2], [&](std::size_t i) { return vp[i] != vq[i]; }, "p ^ q");
    expect(r[3], [&](std::size_t i) { return !vp[i]; }, "~p");
    expect(r[4], [&](std::size_t i) { return !vp[i]; }, "!p");
    expect(r[5], [&](std::size_t i) { return vp[i] == vq[i]; }, "p == q");
    expect(r[6], [&](std::size_t i) { return vp[i] != vq[i]; }, "p != q");
    expect(r[7], [&](std::size_t i) { return vp[i] ? bool(vq[i]) : !vq[i]; }, "where(p, q, !q)");
  }
}

TEST_P(integer_ops_test, bool_tiny_tile) { check_logic<ct::shape<2, 2>>(dev(), {5, 7}); }
TEST_P(integer_ops_test, bool_wide_tile) { check_logic<ct::shape<8, 128>>(dev(), {17, 257}); }

CT_INSTANTIATE_ON_DEVICES(integer_ops_test);

}  // namespace
