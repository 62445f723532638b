// examples::softmax (row softmax, f32 math whatever the storage type) against a float64
// reference computed from the rounded inputs, for f32, f16 and bf16, with rows narrower than,
// equal to and wider than the kernel's tile choices, and ragged row counts.
#include "03_softmax/softmax.hpp"
#include "common/test_util.hpp"

namespace {
using namespace ct_test;

struct softmax : on_device {};

// The kernel's f32 arithmetic (exp, a sum of up to 4097 positive terms, a division) stays
// well within 1e-5 of the exact value; storing the result in T adds one rounding.
template <class T>
tolerance softmax_tolerance() {
  const tolerance store = rounding<T>(1);
  return {1e-5 + store.rtol, store.atol};
}

template <class T>
void check_softmax(const ct::device& dev, ct::index_t rows, ct::index_t cols) {
  SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols) + " " + ct::dtype_name<T>());
  const auto x = ct::randn<T>({rows, cols}, fresh_seed(), 2.0, dev);
  auto y = poisoned<T>({rows, cols}, dev);
  examples::softmax(y, x).wait();

  const auto hx = host_f64(x), hy = host_f64(y);
  std::vector<double> ref(hx.size()), row_sums(std::size_t(rows), 0.0);
  for (std::size_t r = 0; r < std::size_t(rows); ++r) {
    const double* xr = &hx[r * std::size_t(cols)];
    double mx = -INFINITY, sum = 0;
    for (ct::index_t j = 0; j < cols; ++j) mx = std::max(mx, xr[j]);
    for (ct::index_t j = 0; j < cols; ++j) sum += std::exp(xr[j] - mx);
    for (ct::index_t j = 0; j < cols; ++j) {
      ref[r * std::size_t(cols) + std::size_t(j)] = std::exp(xr[j] - mx) / sum;
      row_sums[r] += hy[r * std::size_t(cols) + std::size_t(j)];
    }
  }
  const tolerance tol = softmax_tolerance<T>();
  EXPECT_TRUE(all_close(hy, ref, tol));
  // Each row's errors add up to at most rtol (the row sums to 1) plus atol per element.
  EXPECT_TRUE(
      all_close(row_sums, std::vector<double>(std::size_t(rows), 1.0), {tol.rtol, double(cols) * tol.atol}))
      << "rows do not sum to 1";
}

template <class T>
void check_softmax_shapes(const ct::device& dev) {
  for (ct::index_t cols : {1, 100, 1000, 4097})
    for (ct::index_t rows : {1, 13, 37}) check_softmax<T>(dev, rows, cols);
}

TEST_P(softmax, f32) { check_softmax_shapes<float>(dev()); }

TEST_P(softmax, f16) { check_softmax_shapes<ct::f16>(dev()); }

TEST_P(softmax, bf16) { check_softmax_shapes<ct::bf16>(dev()); }

CT_INSTANTIATE_ON_DEVICES(softmax);

}  // namespace
