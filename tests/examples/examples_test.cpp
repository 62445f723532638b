// Examples 4-8 checked against float64 host references, on fresh random inputs and ragged
// shapes: layernorm, plain-loop matmul, transpose, two-pass cumsum, embedding gather/scatter.
#include <cmath>
#include <random>

#include "04_layernorm/layernorm.hpp"
#include "05_matmul/matmul.hpp"
#include "06_transpose/transpose.hpp"
#include "07_cumsum/cumsum.hpp"
#include "08_embedding/embedding.hpp"
#include "common/test_util.hpp"

namespace {
using namespace ct_test;

struct examples_on : on_device {};

TEST_P(examples_on, layernorm_matches_float64) {
  for (const auto& [rows, cols] : {std::pair<ct::index_t, ct::index_t>{1, 1}, {7, 31}, {33, 1000}, {5, 4097}}) {
    const auto x = ct::randn<float>({rows, cols}, fresh_seed(), 3.0, dev());
    const auto gamma = ct::rand<float>({cols}, fresh_seed(), 0.5, 1.5, dev());
    const auto beta = ct::randn<float>({cols}, fresh_seed(), 1.0, dev());
    auto y = poisoned<float>({rows, cols}, dev());
    examples::layernorm(y, x, gamma, beta, 1e-5f).wait();
    const auto hx = host_f64(x), hg = host_f64(gamma), hb = host_f64(beta);
    std::vector<double> ref(hx.size());
    for (ct::index_t i = 0; i < rows; ++i) {
      double mean = 0, var = 0;
      for (ct::index_t j = 0; j < cols; ++j) mean += hx[i * cols + j];
      mean /= double(cols);
      for (ct::index_t j = 0; j < cols; ++j) var += (hx[i * cols + j] - mean) * (hx[i * cols + j] - mean);
      var /= double(cols);
      for (ct::index_t j = 0; j < cols; ++j)
        ref[i * cols + j] = (hx[i * cols + j] - mean) / std::sqrt(var + 1e-5) * hg[j] + hb[j];
    }
    EXPECT_TRUE(all_close(host_f64(y), ref, {2e-5, 2e-5})) << rows << "x" << cols;
  }
}

TEST_P(examples_on, matmul_matches_float64) {
  for (const auto& [m, n, k] : {std::tuple<ct::index_t, ct::index_t, ct::index_t>{1, 1, 1}, {65, 31, 97}, {128, 200, 257}}) {
    const auto a = ct::randn<ct::bf16>({m, k}, fresh_seed(), 1.0, dev());
    const auto b = ct::randn<ct::bf16>({k, n}, fresh_seed(), 1.0, dev());
    auto c = poisoned<float>({m, n}, dev());
    examples::matmul(c, a, b).wait();
    const auto ha = host_f64(a), hb = host_f64(b), hc = host_f64(c);
    for (ct::index_t i = 0; i < m; ++i)
      for (ct::index_t j = 0; j < n; ++j) {
        double ref = 0, mag = 0;
        for (ct::index_t p = 0; p < k; ++p) {
          ref += ha[i * k + p] * hb[p * n + j];
          mag += std::fabs(ha[i * k + p] * hb[p * n + j]);
        }
        // f32 accumulation of exact bf16 products: error bounded by k roundings of sum |a*b|.
        ASSERT_NEAR(hc[i * n + j], ref, 2.0 * double(k) * 0x1p-24 * mag + 1e-30) << i << "," << j;
      }
  }
}

TEST_P(examples_on, matmul_is_exact_on_small_integers) {
  const ct::index_t m = 70, n = 45, k = 130;
  std::mt19937 gen{static_cast<unsigned>(fresh_seed())};
  std::uniform_int_distribution<int> d(-4, 4);
  std::vector<ct::bf16> va(m * k), vb(k * n);
  for (auto& x : va) x = ct::bf16(float(d(gen)));
  for (auto& x : vb) x = ct::bf16(float(d(gen)));
  const auto a = ct::from_host(va, {m, k}, dev()), b = ct::from_host(vb, {k, n}, dev());
  auto c = poisoned<float>({m, n}, dev());
  examples::matmul(c, a, b).wait();
  const auto ha = host_f64(a), hb = host_f64(b);
  EXPECT_TRUE(all_equal(host_f64(c), reference(std::size_t(m * n), [&](std::size_t e) {
    double s = 0;
    for (ct::index_t p = 0; p < k; ++p) s += ha[(e / n) * k + p] * hb[p * n + e % n];
    return s;
  })));
}

TEST_P(examples_on, transpose_moves_every_element) {
  for (const auto& [rows, cols] : {std::pair<ct::index_t, ct::index_t>{1, 1}, {3, 130}, {1000, 333}}) {
    const auto x = ct::randn<float>({rows, cols}, fresh_seed(), 1.0, dev());
    auto y = poisoned<float>({cols, rows}, dev());
    examples::transpose(y, x).wait();
    const auto hx = host_f64(x);
    EXPECT_TRUE(all_equal(host_f64(y), reference(std::size_t(rows * cols), [&](std::size_t e) {
      return hx[(e % rows) * cols + e / rows];
    })));
  }
}

TEST_P(examples_on, cumsum_rows_matches_float64) {
  for (const auto& [rows, cols] : {std::pair<ct::index_t, ct::index_t>{1, 1}, {5, 1023}, {9, 1025}, {3, 5000}}) {
    const auto x = random_grid({rows, cols}, dev(), 1.0, 0.125);  // sums of eighths: exact in f32
    auto y = poisoned<float>({rows, cols}, dev());
    examples::cumsum_rows(y, x);
    const auto hx = host_f64(x);
    std::vector<double> ref(hx.size());
    for (ct::index_t i = 0; i < rows; ++i) {
      double s = 0;
      for (ct::index_t j = 0; j < cols; ++j) ref[i * cols + j] = s += hx[i * cols + j];
    }
    EXPECT_TRUE(all_equal(host_f64(y), ref)) << rows << "x" << cols;
  }
}

TEST_P(examples_on, embedding_forward_and_backward) {
  const ct::index_t vocab = 301, dim = 130, tokens = 257;
  std::mt19937 gen{static_cast<unsigned>(fresh_seed())};
  std::uniform_int_distribution<int> pick(0, int(vocab) - 1);
  std::vector<int> ids(tokens);
  for (auto& i : ids) i = pick(gen) / 4;  // many repeats: the atomics must combine them
  ids[3] = -1;                            // out of range: reads zeros, writes nothing
  ids[4] = int(vocab);
  const auto table = ct::randn<float>({vocab, dim}, fresh_seed(), 1.0, dev());
  const auto id_tensor = ct::from_host(ids, {tokens}, dev());
  auto out = poisoned<float>({tokens, dim}, dev());
  examples::embedding_forward_rows(out, table, id_tensor).wait();
  const auto ht = host_f64(table);
  EXPECT_TRUE(all_equal(host_f64(out), reference(std::size_t(tokens * dim), [&](std::size_t e) {
    const int id = ids[e / dim];
    return id >= 0 && id < vocab ? ht[std::size_t(id) * dim + e % dim] : 0.0;
  })));

  const auto grad_out = random_grid({tokens, dim}, dev(), 1.0, 0.125);  // exact sums in any order
  auto grad_table = ct::zeros<float>({vocab, dim}, dev());
  examples::embedding_backward_rows(grad_table, grad_out, id_tensor).wait();
  const auto hg = host_f64(grad_out);
  std::vector<double> ref(std::size_t(vocab * dim), 0.0);
  for (ct::index_t t = 0; t < tokens; ++t)
    if (ids[t] >= 0 && ids[t] < vocab)
      for (ct::index_t d = 0; d < dim; ++d) ref[std::size_t(ids[t] * dim + d)] += hg[t * dim + d];
  EXPECT_TRUE(all_equal(host_f64(grad_table), ref));
}

CT_INSTANTIATE_ON_DEVICES(examples_on);

}  // namespace
