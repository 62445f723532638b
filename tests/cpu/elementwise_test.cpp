// Elementwise tile ops against float64 references: + - * / with each kind of NumPy broadcast
// ((M,N) with (N), (M,N) with (M,1), (M,1) with (1,N), tile with scalar), comparisons,
// ct::exp, ct::maximum/minimum and ct::where, in f32, f16 and bf16, on tiles smaller and larger
// than one pass of a GPU block (128 threads x 16 bytes), over ragged tensors.
#include "common/test_util.hpp"

namespace {
using namespace ct_test;

// Every arithmetic operator once, each with a different broadcast.
template <class T, int BM, int BN>
struct arithmetic {
  using tile_shape = ct::shape<BM, BN>;
  CT_TILE void operator()(ct::out<T, tile_shape> add, ct::out<T, tile_shape> sub, ct::out<T, tile_shape> mul,
                          ct::out<T, tile_shape> div, ct::out<T, tile_shape> scaled,
                          ct::out<T, tile_shape> flipped, ct::in<T, 2> a, ct::in<T, 2> b, ct::in<T, 1> row,
                          ct::in<T, 2> col, ct::in<T, 2> row_2d, float s) const {
    const auto [m, n] = add.tile_index();
    const auto ta = a.load_like(add);
    const auto tr = ct::load(row, {n}, ct::shape<BN>{});            // (BN)
    const auto tc = ct::load(col, {m, 0}, ct::shape<BM, 1>{});      // (BM, 1)
    const auto tr2 = ct::load(row_2d, {0, n}, ct::shape<1, BN>{});  // (1, BN)
    add.store(ta + tr);
    sub.store(ta - tc);
    mul.store(tc * tr2);
    div.store(ta / b.load_like(add));
    scaled.store(ta * s);
    flipped.store(s - ta);
  }
};

// Math, selection and comparison ops, broadcasting a row where they take two operands.
template <class T, int BM, int BN>
struct selection {
  using tile_shape = ct::shape<BM, BN>;
  CT_TILE void operator()(ct::out<T, tile_shape> exp, ct::out<T, tile_shape> max, ct::out<T, tile_shape> min,
                          ct::out<T, tile_shape> pick, ct::out<T, tile_shape> relu, ct::in<T, 2> a,
                          ct::in<T, 2> b, ct::in<T, 1> row) const {
    const auto ta = a.load_like(exp), tb = b.load_like(exp);
    const auto tr = ct::load(row, {exp.tile_index()[1]}, ct::shape<BN>{});
    exp.store(ct::exp(ta));
    max.store(ct::maximum(ta, tb));
    min.store(ct::minimum(ta, tr));
    pick.store(ct::where(ta > tr, ta, tb));
    relu.store(ct::where(ta < 0.0f, 0.0f, ta));
  }
};

struct elementwise : on_device {};

// Expects got[i] == ref(i) within tol, for every element of `got`.
template <class T, class Ref>
void expect_op(const ct::tensor<T>& got, const char* what, tolerance tol, Ref ref) {
  EXPECT_TRUE(all_close(host_f64(got), reference(std::size_t(got.size()), ref), tol)) << what;
}

template <class T>
std::vector<ct::tensor<T>> poisoned_outputs(int count, const ct::extents_t& extents, const ct::device& dev) {
  std::vector<ct::tensor<T>> r;
  for (int i = 0; i < count; ++i) r.push_back(poisoned<T>(extents, dev));
  return r;
}

// Exactly representable in every dtype, so the kernel's scalar equals the reference's.
constexpr float scalar = -2.625f;

template <class T, int BM, int BN>
void check_arithmetic(const ct::device& dev, ct::index_t rows, ct::index_t cols) {
  SCOPED_TRACE(std::string(ct::dtype_name<T>()) + " tile " + std::to_string(BM) + "x" + std::to_string(BN));
  const auto a = ct::randn<T>({rows, cols}, fresh_seed(), 1.0, dev);
  const auto b = ct::rand<T>({rows, cols}, fresh_seed(), 0.5, 2.0, dev);  // a divisor away from 0
  const auto row = ct::randn<T>({cols}, fresh_seed(), 1.0, dev);
  const auto col = ct::randn<T>({rows, 1}, fresh_seed(), 1.0, dev);
  const auto row_2d = ct::randn<T>({1, cols}, fresh_seed(), 1.0, dev);
  auto r = poisoned_outputs<T>(6, {rows, cols}, dev);
  using tile_shape = ct::shape<BM, BN>;
  ct::launch(arithmetic<T, BM, BN>{}, r[0].partition(tile_shape{}), r[1].partition(tile_shape{}),
             r[2].partition(tile_shape{}), r[3].partition(tile_shape{}), r[4].partition(tile_shape{}),
             r[5].partition(tile_shape{}), a, b, row, col, row_2d, scalar)
      .wait();

  const auto ha = host_f64(a), hb = host_f64(b), hr = host_f64(row), hc = host_f64(col),
             hr2 = host_f64(row_2d);
  const std::size_t w = std::size_t(cols);
  const tolerance one = rounding<T>(1);  // each result is one correctly rounded operation
  expect_op(r[0], "(M,N) + (N)", one, [&](std::size_t i) { return ha[i] + hr[i % w]; });
  expect_op(r[1], "(M,N) - (M,1)", one, [&](std::size_t i) { return ha[i] - hc[i / w]; });
  expect_op(r[2], "(M,1) * (1,N)", one, [&](std::size_t i) { return hc[i / w] * hr2[i % w]; });
  expect_op(r[3], "(M,N) / (M,N)", one, [&](std::size_t i) { return ha[i] / hb[i]; });
  expect_op(r[4], "tile * scalar", one, [&](std::size_t i) { return ha[i] * scalar; });
  expect_op(r[5], "scalar - tile", one, [&](std::size_t i) { return scalar - ha[i]; });
}

template <class T, int BM, int BN>
void check_selection(const ct::device& dev, ct::index_t rows, ct::index_t cols) {
  SCOPED_TRACE(std::string(ct::dtype_name<T>()) + " tile " + std::to_string(BM) + "x" + std::to_string(BN));
  const auto a = ct::randn<T>({rows, cols}, fresh_seed(), 1.0, dev);
  const auto b = ct::randn<T>({rows, cols}, fresh_seed(), 1.0, dev);
  const auto row = ct::randn<T>({cols}, fresh_seed(), 1.0, dev);
  auto r = poisoned_outputs<T>(5, {rows, cols}, dev);
  using tile_shape = ct::shape<BM, BN>;
  ct::launch(selection<T, BM, BN>{}, r[0].partition(tile_shape{}), r[1].partition(tile_shape{}),
             r[2].partition(tile_shape{}), r[3].partition(tile_shape{}), r[4].partition(tile_shape{}), a, b,
             row)
      .wait();

  const auto ha = host_f64(a), hb = host_f64(b), hr = host_f64(row);
  const std::size_t w = std::size_t(cols);
  // expf is within 2 f32 ulps (4 roundings) on either backend; the store rounds once more.
  const tolerance exp_tol{unit_roundoff<T>() + 4 * unit_roundoff<float>(), subnormal_step<T>()};
  const tolerance exact{};
  expect_op(r[0], "exp", exp_tol, [&](std::size_t i) { return std::exp(ha[i]); });
  expect_op(r[1], "maximum", exact, [&](std::size_t i) { return std::max(ha[i], hb[i]); });
  expect_op(r[2], "minimum", exact, [&](std::size_t i) { return std::min(ha[i], hr[i % w]); });
  expect_op(r[3], "where", exact, [&](std::size_t i) { return ha[i] > hr[i % w] ? ha[i] : hb[i]; });
  expect_op(r[4], "where with scalars", exact, [&](std::size_t i) { return ha[i] < 0 ? 0.0 : ha[i]; });
}

TEST_P(elementwise, arithmetic_f32_small_tile) { check_arithmetic<float, 4, 8>(dev(), 37, 45); }
TEST_P(elementwise, arithmetic_f32_large_tile) { check_arithmetic<float, 32, 256>(dev(), 70, 300); }
TEST_P(elementwise, arithmetic_f16_tiny_tile) { check_arithmetic<ct::f16, 1, 4>(dev(), 5, 7); }
TEST_P(elementwise, arithmetic_bf16_square_tile) { check_arithmetic<ct::bf16, 64, 64>(dev(), 100, 130); }

TEST_P(elementwise, selection_f32_small_tile) { check_selection<float, 4, 8>(dev(), 37, 45); }
TEST_P(elementwise, selection_f16_square_tile) { check_selection<ct::f16, 64, 64>(dev(), 100, 130); }
TEST_P(elementwise, selection_bf16_tiny_tile) { check_selection<ct::bf16, 1, 4>(dev(), 5, 7); }

CT_INSTANTIATE_ON_DEVICES(elementwise);

}  // namespace
