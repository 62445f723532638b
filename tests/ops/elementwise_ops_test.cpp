// Elementwise arithmetic and comparisons for every arithmetic element type (f32, f64, f16,
// bf16, int8-64, uint8-64): + - * (and / on floats, ct::truncdiv on integers), unary -,
// ct::abs, ct::maximum / ct::minimum (NaN ignored unless both are NaN), ct::where with tiles and
// scalars, and < <= > >= == != into bool tiles; with a tile, a broadcast row and a scalar as
// the second operand. References are computed on the host in each type's own arithmetic
// (wrapping for integers, correctly rounded for floats) and must match exactly. Each type runs
// on tile shapes of different GPU layout regimes, over ragged tensors; integer inputs carry
// every pair of edge values (0, +-1, min, max, ...), float inputs NaN, +-inf and +-0.
#include "ops/ops_util.hpp"

namespace {
using namespace ct_test;

template <class T, class S>
struct arithmetic {
  static constexpr const char* name = "ops_arithmetic";
  static constexpr int R = S::rank, BN = S::dim(R - 1);
  using tile_out = ct::out<T, S>;
  using flag_out = ct::out<bool, S>;
  CT_TILE void operator()(tile_out add, tile_out sub, tile_out mul, tile_out quot, tile_out neg, tile_out abs,
                          tile_out max, tile_out min, tile_out pick, tile_out scaled, flag_out lt, flag_out le,
                          flag_out gt, flag_out ge, flag_out eq, flag_out ne, ct::in<T, R> a, ct::in<T, R> b,
                          ct::in<T, 1> row, double s) const {
    const auto ta = a.load_like(add), tb = b.load_like(add);
    const auto tr = ct::load(row, {add.tile_index()[R - 1]}, ct::shape<BN>{});  // broadcasts over rows
    add.store(ta + tb);
    sub.store(ta - tr);
    mul.store(ta * tb);
    if constexpr (ct::is_floating_v<T>) quot.store(ta / tb);
    else quot.store(ct::truncdiv(ta, tb));
    neg.store(-ta);
    abs.store(ct::abs(ta));
    max.store(ct::maximum(ta, tb));
    min.store(ct::minimum(ta, tr));
    pick.store(ct::where(ta < tb, ta, tb));
    scaled.store(ct::where(ta > tr, s, ta * s));
    lt.store(ta < tb);
    le.store(ta <= tb);
    gt.store(ta > tr);
    ge.store(ta >= s);
    eq.store(ta == tb);
    ne.store(ta != tb);
  }
};

struct elementwise_ops : on_device {};

// Inputs: b equals a at every fifth element, so == and <= see equal operands.
template <class T>
std::pair<std::vector<T>, std::vector<T>> operands(std::size_t n) {
  std::vector<T> a, b;
  if constexpr (ct::is_floating_v<T>) {
    a = random_floats<T>(n, 4.0, true);
    b = random_floats<T>(n, 4.0, false);
    for (std::size_t i = 0; i < 7 && i + 7 < n; ++i) b[i + 7] = a[i];  // a special against the same special
  } else {
    a = random_ints<T>(n, true);
    b = random_ints<T>(n, false);
  }
  for (std::size_t i = 20; i < n; i += 5) b[i] = a[i];
  return {a, b};
}

// A value to compare natively: integers as themselves (int64 and uint64 do not fit a double
// exactly), floats as doubles.
template <class T>
auto native(T x) {
  if constexpr (is_int_v<T>) return x;
  else return to_f64(x);
}

// The references, in T's own arithmetic.
template <class T>
struct arithmetic_reference {
  static T add(T x, T y) {
    if constexpr (is_int_v<T>) return wrapping_add(x, y);
    else return ct::convert<T>(rounded<T>(to_f64(x) + to_f64(y)));
  }
  static T sub(T x, T y) {
    if constexpr (is_int_v<T>) return wrapping_sub(x, y);
    else return ct::convert<T>(rounded<T>(to_f64(x) - to_f64(y)));
  }
  static T mul(T x, T y) {
    if constexpr (is_int_v<T>) return wrapping_mul(x, y);
    else return ct::convert<T>(rounded<T>(to_f64(x) * to_f64(y)));
  }
  static T quot(T x, T y) {
    if constexpr (is_int_v<T>) {
      if (y == 0) return T(0);
      if (std::is_signed_v<T> && y == T(-1)) return wrapping_neg(x);
      return T(x / y);
    } else {
      return ct::convert<T>(rounded<T>(to_f64(x) / to_f64(y)));
    }
  }
  static T neg(T x) {
    if constexpr (is_int_v<T>) return wrapping_neg(x);
    else return ct::convert<T>(-to_f64(x));
  }
  static T abs(T x) {
    if constexpr (is_int_v<T>) return std::is_signed_v<T> && x < T(0) ? wrapping_neg(x) : x;
    else return ct::convert<T>(std::fabs(to_f64(x)));
  }
  // NaN-ignoring maximum / minimum: a NaN operand loses unless both are NaN.
  static T max(T x, T y) {
    if (is_nan(x)) return y;
    if (is_nan(y)) return x;
    return native(y) > native(x) ? y : x;
  }
  static T min(T x, T y) {
    if (is_nan(x)) return y;
    if (is_nan(y)) return x;
    return native(y) < native(x) ? y : x;
  }
  static bool is_nan(T x) {
    if constexpr (is_int_v<T>) return false;
    else return std::isnan(to_f64(x));
  }
};

template <class T, class S>
void check_arithmetic(const ct::device& dev, const ct::extents_t& extents) {
  SCOPED_TRACE((case_name<T, S>(extents)));
  using ref = arithmetic_reference<T>;
  const std::size_t n = element_count(extents), w = std::size_t(extents.back());
  const auto [va, vb] = operands<T>(n);
  const auto vr = operands<T>(w).first;
  const double s = std::is_signed_v<T> || ct::is_floating_v<T> ? -2.625 : 3.0;
  const T ts = ct::convert<T>(s);
  const auto a = tensor_of(va, extents, dev), b = tensor_of(vb, extents, dev), row = tensor_of(vr, {ct::index_t(w)}, dev);

  // Two runs: bool outputs poisoned false, then true, so an unwritten flag fails either way.
  for (const bool flag_poison : {false, true}) {
    std::vector<ct::tensor<T>> r;
    for (int i = 0; i < 10; ++i) r.push_back(poisoned<T>(extents, dev));
    std::vector<ct::tensor<bool>> f;
    for (int i = 0; i < 6; ++i) f.push_back(ct::full<bool>(extents, flag_poison, dev));
    ct::launch(arithmetic<T, S>{}, r[0].partition(S{}), r[1].partition(S{}), r[2].partition(S{}),
               r[3].partition(S{}), r[4].partition(S{}), r[5].partition(S{}), r[6].partition(S{}),
               r[7].partition(S{}), r[8].partition(S{}), r[9].partition(S{}), f[0].partition(S{}),
               f[1].partition(S{}), f[2].partition(S{}), f[3].partition(S{}), f[4].partition(S{}),
               f[5].partition(S{}), a, b, row, s)
        .wait();

    const auto expect = [&](const ct::tensor<T>& got, auto op, const char* what) {
      EXPECT_TRUE(all_same(got.to_host(), reference_of<T>(n, op))) << what;
    };
    expect(r[0], [&](std::size_t i) { return ref::add(va[i], vb[i]); }, "a + b");
    expect(r[1], [&](std::size_t i) { return ref::sub(va[i], vr[i % w]); }, "a - row");
    expect(r[2], [&](std::size_t i) { return ref::mul(va[i], vb[i]); }, "a * b");
    expect(r[3], [&](std::size_t i) { return ref::quot(va[i], vb[i]); }, "a / b (ct::truncdiv on integers)");
    expect(r[4], [&](std::size_t i) { return ref::neg(va[i]); }, "-a");
    expect(r[5], [&](std::size_t i) { return ref::abs(va[i]); }, "ct::abs(a)");
    expect(r[6], [&](std::size_t i) { return ref::max(va[i], vb[i]); }, "ct::maximum(a, b)");
    expect(r[7], [&](std::size_t i) { return ref::min(va[i], vr[i % w]); }, "ct::minimum(a, row)");
    expect(r[8], [&](std::size_t i) { return native(va[i]) < native(vb[i]) ? va[i] : vb[i]; }, "where(a < b, a, b)");
    expect(r[9], [&](std::size_t i) { return native(va[i]) > native(vr[i % w]) ? ts : ref::mul(va[i], ts); },
           "where(a > row, s, a * s)");

    const auto flags = [&](const ct::tensor<bool>& got, auto op, const char* what) {
      EXPECT_TRUE(all_same(got.to_host(), reference_of<bool>(n, op))) << what << ", flags poisoned " << flag_poison;
    };
    flags(f[0], [&](std::size_t i) { return native(va[i]) < native(vb[i]); }, "a < b");
    flags(f[1], [&](std::size_t i) { return native(va[i]) <= native(vb[i]); }, "a <= b");
    flags(f[2], [&](std::size_t i) { return native(va[i]) > native(vr[i % w]); }, "a > row");
    flags(f[3], [&](std::size_t i) { return native(va[i]) >= native(ts); }, "a >= s");
    flags(f[4], [&](std::size_t i) { return native(va[i]) == native(vb[i]); }, "a == b");
    flags(f[5], [&](std::size_t i) { return native(va[i]) != native(vb[i]); }, "a != b");
  }
}

template <class T, class S>
void check_arithmetic(const ct::device& dev) {
  check_arithmetic<T, S>(dev, ragged_extents<S>());
}

// One tile shape per type (a kernel per type and shape costs compile time), together covering
// tiny tiles (replicated over the GPU's 128 threads), medium ones (a row within a warp or a
// few), large ones (rows across warps and the whole block), and one-element and one-row tensors.
TEST_P(elementwise_ops, f32) {
  check_arithmetic<float, ct::shape<64, 128>>(dev());
  check_arithmetic<float, ct::shape<64, 128>>(dev(), {1, 31});
}
TEST_P(elementwise_ops, f64) { check_arithmetic<double, ct::shape<2, 2>>(dev()); }
TEST_P(elementwise_ops, f16) {
  check_arithmetic<ct::f16, ct::shape<4>>(dev(), {1});
  check_arithmetic<ct::f16, ct::shape<4>>(dev(), {257});
}
TEST_P(elementwise_ops, bf16) { check_arithmetic<ct::bf16, ct::shape<32, 256>>(dev()); }
TEST_P(elementwise_ops, int8) { check_arithmetic<std::int8_t, ct::shape<32, 256>>(dev()); }
TEST_P(elementwise_ops, int16) { check_arithmetic<std::int16_t, ct::shape<4>>(dev(), {257}); }
TEST_P(elementwise_ops, int32) { check_arithmetic<std::int32_t, ct::shape<16, 16>>(dev()); }
TEST_P(elementwise_ops, int64) { check_arithmetic<std::int64_t, ct::shape<8, 128>>(dev()); }
TEST_P(elementwise_ops, uint8) { check_arithmetic<std::uint8_t, ct::shape<2, 2>>(dev()); }
TEST_P(elementwise_ops, uint16) { check_arithmetic<std::uint16_t, ct::shape<1, 8192>>(dev(), {3, 8197}); }
TEST_P(elementwise_ops, uint32) { check_arithmetic<std::uint32_t, ct::shape<1>>(dev(), {31}); }
TEST_P(elementwise_ops, uint64) { check_arithmetic<std::uint64_t, ct::shape<16, 16>>(dev()); }

CT_INSTANTIATE_ON_DEVICES(elementwise_ops);

}  // namespace
