// examples::add_row (the tile kernel examples::broadcast_add: a 2-D tile plus a row vector
// broadcast over its rows) against a float64 reference, on ragged shapes, and on strided views:
// a transposed input, a bias sliced out of a longer vector, and a transposed output.
#include "02_broadcast_add/broadcast_add.hpp"
#include "common/test_util.hpp"

namespace {
using namespace ct_test;

struct broadcast_add : on_device {};

// c[i, j] == a[i, j] + bias[j], one correctly rounded add each.
void expect_row_sums(const ct::tensor<float>& c, const ct::tensor<float>& a, const ct::tensor<float>& bias) {
  const auto ha = host_f64(a), hb = host_f64(bias);
  const std::size_t cols = std::size_t(a.extent(1));
  EXPECT_TRUE(all_close(host_f64(c),
                        reference(ha.size(), [&](std::size_t i) { return ha[i] + hb[i % cols]; }),
                        rounding<float>(1)));
}

TEST_P(broadcast_add, ragged_shapes) {
  const ct::index_t shapes[][2] = {{1, 1}, {17, 33}, {1001, 777}, {300, 4097}};
  for (const auto& [rows, cols] : shapes) {
    SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols));
    const auto a = ct::randn<float>({rows, cols}, fresh_seed(), 1.0, dev());
    const auto bias = ct::randn<float>({cols}, fresh_seed(), 1.0, dev());
    auto c = poisoned<float>({rows, cols}, dev());
    examples::add_row(c, a, bias).wait();
    expect_row_sums(c, a, bias);
  }
}

// The kernel reads `a` through its strides (no copy is made), and the bias from an offset.
TEST_P(broadcast_add, transposed_input_and_sliced_bias) {
  const ct::index_t rows = 301, cols = 259;
  const auto a_t = ct::randn<float>({cols, rows}, fresh_seed(), 1.0, dev());
  const auto a = a_t.transpose();
  ASSERT_FALSE(a.contiguous());
  const auto long_bias = ct::randn<float>({cols + 9}, fresh_seed(), 1.0, dev());
  const auto bias = long_bias.slice(0, 9, 9 + cols);
  auto c = poisoned<float>({rows, cols}, dev());
  examples::add_row(c, a, bias).wait();
  expect_row_sums(c, a, bias);
}

// Stores go through the output view's strides too.
TEST_P(broadcast_add, transposed_output) {
  const ct::index_t rows = 130, cols = 517;
  const auto a = ct::randn<float>({rows, cols}, fresh_seed(), 1.0, dev());
  const auto bias = ct::randn<float>({cols}, fresh_seed(), 1.0, dev());
  auto c_t = poisoned<float>({cols, rows}, dev());
  auto c = c_t.transpose();
  examples::add_row(c, a, bias).wait();
  expect_row_sums(c, a, bias);
}

CT_INSTANTIATE_ON_DEVICES(broadcast_add);

}  // namespace
