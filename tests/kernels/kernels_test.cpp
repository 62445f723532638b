// The kernel library (kernels/ctile/kernels) against float64 references computed from the
// rounded inputs, for f32, f16 and bf16, on ragged shapes: 1, primes, and widths on either side
// of each kernel's tile choices. Each check uses fresh random inputs and poisoned outputs.
#include <ctile/kernels.hpp>

#include "common/test_util.hpp"

namespace {
using namespace ct_test;
namespace kn = ct::kernels;

struct kernels : on_device {};

template <class T>
ct::tensor<T> random(const ct::extents_t& e, const ct::device& dev, double stddev = 1.0) {
  return ct::randn<T>(e, fresh_seed(), stddev, dev);
}

// The f32 math of these kernels is within `f32_ulps` f32 roundings of exact; storing in T adds
// one rounding of T. Results near zero are judged against the scale of the data (`scale`):
// their error comes from cancellation of terms of that size.
template <class T>
tolerance kernel_tolerance(double scale, double f32_ulps = 64) {
  const double rtol = unit_roundoff<T>() + f32_ulps * unit_roundoff<float>();
  return {rtol, 2 * rtol * scale};
}

double max_abs(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::fabs(x));
  return m;
}

template <class T>
std::string name_of(ct::index_t m, ct::index_t n) {
  return std::to_string(m) + "x" + std::to_string(n) + " " + ct::dtype_name<T>();
}

const std::vector<std::pair<ct::index_t, ct::index_t>> shapes_2d = {{1, 1}, {7, 13}, {3, 1031}, {5, 4099}, {2, 8191},
                                                                    {17, 8192}};

// ---- Elementwise ---------------------------------------------------------------------------------

double gelu_tanh(double x) { return 0.5 * x * (1 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x))); }
double silu(double x) { return x / (1 + std::exp(-x)); }

template <class T>
void check_elementwise(const ct::device& dev, ct::index_t m, ct::index_t n) {
  SCOPED_TRACE(name_of<T>(m, n));
  const auto a = random<T>({m, n}, dev, 2.0), b = random<T>({m, n}, dev, 2.0), bias = random<T>({n}, dev);
  const auto ha = host_f64(a), hb = host_f64(b), hbias = host_f64(bias);
  const ct::stream s = ct::default_stream(dev);
  const std::size_t size = ha.size();
  auto run = [&](const char* what, auto launch, auto ref) {
    SCOPED_TRACE(what);
    auto y = poisoned<T>({m, n}, dev);
    launch(y).wait();
    const auto want = reference(size, ref);
    EXPECT_TRUE(all_close(host_f64(y), want, kernel_tolerance<T>(max_abs(want))));
  };
  run("add", [&](auto& y) { return kn::add(s, y, a, b); }, [&](std::size_t i) { return ha[i] + hb[i]; });
  run("mul", [&](auto& y) { return kn::mul(s, y, a, b); }, [&](std::size_t i) { return ha[i] * hb[i]; });
  run("scale", [&](auto& y) { return kn::scale(s, y, a, 1.7f); }, [&](std::size_t i) { return ha[i] * double(1.7f); });
  run("swiglu", [&](auto& y) { return kn::swiglu(s, y, a, b); }, [&](std::size_t i) { return silu(ha[i]) * hb[i]; });
  const auto col = [&](std::size_t i) { return hbias[i % std::size_t(n)]; };
  run("bias_relu", [&](auto& y) { return kn::bias_act<kn::relu>(s, y, a, bias); },
      [&](std::size_t i) { return std::max(0.0, ha[i] + col(i)); });
  run("bias_silu", [&](auto& y) { return kn::bias_act<kn::silu>(s, y, a, bias); },
      [&](std::size_t i) { return silu(ha[i] + col(i)); });
  run("bias_gelu", [&](auto& y) { return kn::bias_act<kn::gelu_tanh>(s, y, a, bias); },
      [&](std::size_t i) { return gelu_tanh(ha[i] + col(i)); });
}

TEST_P(kernels, elementwise_matches_f64) {
  for (auto [m, n] : shapes_2d) {
    check_elementwise<float>(dev(), m, n);
    check_elementwise<ct::f16>(dev(), m, n);
    check_elementwise<ct::bf16>(dev(), m, n);
  }
}

// Which contiguous rows bias_act runs flat with a gathered bias (the ragged rows that
// elementwise_matches_f64 checks take that path only if this says so): at least one flat tile,
// and every column index below n + tile fits the element-wide unsigned type.
TEST(bias_act, gathers_rows_of_at_least_a_tile_whose_columns_fit_the_index) {
  constexpr int bf16_tile = kn::detail::flat_tile<ct::bf16>, f32_tile = kn::detail::flat_tile<float>;
  EXPECT_FALSE((kn::detail::bias_act_gathers<ct::bf16, bf16_tile>(bf16_tile - 1)));
  EXPECT_TRUE((kn::detail::bias_act_gathers<ct::bf16, bf16_tile>(4099)));
  EXPECT_TRUE((kn::detail::bias_act_gathers<ct::bf16, bf16_tile>(8191)));
  EXPECT_TRUE((kn::detail::bias_act_gathers<ct::bf16, bf16_tile>(65536 - bf16_tile)));
  EXPECT_FALSE((kn::detail::bias_act_gathers<ct::bf16, bf16_tile>(65536 - bf16_tile + 1)));
  EXPECT_TRUE((kn::detail::bias_act_gathers<float, f32_tile>(4099)));
  EXPECT_TRUE((kn::detail::bias_act_gathers<float, f32_tile>(1 << 20)));
  EXPECT_FALSE((kn::detail::bias_act_gathers<float, f32_tile>(f32_tile - 1)));
}

TEST_P(kernels, elementwise_on_strided_views) {
  // A transposed view is not contiguous: the 2-D path, not the flat one.
  const auto a = random<float>({37, 50}, dev()), b = random<float>({50, 37}, dev());
  auto y = poisoned<float>({50, 37}, dev());
  kn::add(ct::default_stream(dev()), y, a.transpose(), b).wait();
  const auto ha = host_f64(a), hb = host_f64(b), hy = host_f64(y);
  EXPECT_TRUE(all_close(hy, reference(hy.size(), [&](std::size_t i) { return ha[(i % 37) * 50 + i / 37] + hb[i]; }),
                        rounding<float>(1)));
}

TEST_P(kernels, elementwise_rejects_mismatched_shapes) {
  const auto a = random<float>({4, 5}, dev()), b = random<float>({4, 6}, dev());
  auto y = poisoned<float>({4, 5}, dev());
  EXPECT_THAT([&] { (void)kn::add(ct::default_stream(dev()), y, a, b); },
              ThrowsMessage<ct::error>(HasSubstr("ct::kernels::add: b is [4, 6] but y is [4, 5]")));
  const auto bias = random<float>({4}, dev());
  EXPECT_THAT([&] { (void)kn::bias_act<kn::relu>(ct::default_stream(dev()), y, a, bias); },
              ThrowsMessage<ct::error>(HasSubstr("bias has extent 4 along axis 0, expected 5")));
  EXPECT_TRUE(std::isnan(y.to_host()[0])) << "a rejected launch leaves the output untouched";
}

// ---- Reductions ---------------------------------------------------------------------------------

template <class T>
void check_reductions_of(const ct::tensor<T>& x) {
  const ct::device& dev = x.dev();
  const ct::index_t m = x.extent(0), n = x.extent(1);
  const auto hx = host_f64(x);
  const ct::stream s = ct::default_stream(dev);
  auto at = [&](ct::index_t i, ct::index_t j) { return hx[std::size_t(i * n + j)]; };
  std::vector<double> rsum(std::size_t(m), 0), rmax(std::size_t(m), -INFINITY), csum(std::size_t(n), 0),
      cmax(std::size_t(n), -INFINITY), rabs(std::size_t(m), 0), cabs(std::size_t(n), 0);
  for (ct::index_t i = 0; i < m; ++i)
    for (ct::index_t j = 0; j < n; ++j) {
      const double v = at(i, j);
      rsum[std::size_t(i)] += v, csum[std::size_t(j)] += v;
      rabs[std::size_t(i)] += std::fabs(v), cabs[std::size_t(j)] += std::fabs(v);
      rmax[std::size_t(i)] = std::max(rmax[std::size_t(i)], v), cmax[std::size_t(j)] = std::max(cmax[std::size_t(j)], v);
    }
  // Sums: f32 accumulation in any order is within length * u32 * sum |x|; then one rounding to T.
  auto sum_ok = [&](const ct::tensor<T>& y, const std::vector<double>& want, const std::vector<double>& abs,
                    ct::index_t len) {
    const auto got = host_f64(y);
    std::vector<double> bound(want.size());
    for (std::size_t k = 0; k < want.size(); ++k)
      bound[k] = double(len + 2) * unit_roundoff<float>() * abs[k] + unit_roundoff<T>() * std::fabs(want[k]) +
                 subnormal_step<T>();
    std::size_t bad = 0;
    for (std::size_t k = 0; k < want.size(); ++k) bad += !(std::fabs(got[k] - want[k]) <= bound[k]);
    return bad;
  };
  {
    auto y = poisoned<T>({m}, dev);
    kn::row_sum(s, y, x).wait();
    EXPECT_EQ(sum_ok(y, rsum, rabs, n), 0u) << "row_sum";
    kn::row_max(s, y, x).wait();
    EXPECT_TRUE(all_equal(host_f64(y), rmax)) << "row_max";
  }
  {
    auto y = poisoned<T>({n}, dev);
    kn::col_sum(s, y, x).wait();
    EXPECT_EQ(sum_ok(y, csum, cabs, m), 0u) << "col_sum";
    kn::col_max(s, y, x).wait();
    EXPECT_TRUE(all_equal(host_f64(y), cmax)) << "col_max";
  }
}

template <class T>
void check_reductions(const ct::device& dev, ct::index_t m, ct::index_t n) {
  SCOPED_TRACE(name_of<T>(m, n));
  check_reductions_of(random<T>({m, n}, dev));
}

TEST_P(kernels, reductions_match_f64) {
  // Tall shapes take the two-pass column reduction ({2000, 64}: with rows on 16 bytes, so the
  // GPU runs the aligned-rows build of its first pass); {3, 20001}, rows off 16-byte boundaries
  // over more than eight row tiles (the four-tile loop and its remainder). {3001, 130},
  // {1000, 2051} and {257, 8191}: rows off 16 bytes in classes of one offset (the column
  // windows), {257, 8191} with five-tile row windows.
  const std::vector<std::pair<ct::index_t, ct::index_t>> shapes = {
      {1, 1},   {7, 13},    {3, 5000},  {2, 8193},    {1000, 3},
      {3001, 130}, {2000, 64}, {3, 20001}, {1000, 2051}, {257, 8191}};
  for (auto [m, n] : shapes) {
    check_reductions<float>(dev(), m, n);
    check_reductions<ct::f16>(dev(), m, n);
    check_reductions<ct::bf16>(dev(), m, n);
  }
}

// Rows off 16-byte boundaries in views, not tensors of their own: a contiguous view whose first
// element is off 16 bytes, and a column slice (rows 9001 apart).
TEST_P(kernels, reductions_of_offset_and_sliced_views) {
  const auto buffer = random<ct::bf16>({3 * 9001 + 1}, dev());
  check_reductions_of(buffer.slice(0, 1, 3 * 9001 + 1).reshape({3, 9001}));
  const auto wide = random<ct::bf16>({5, 9001}, dev());
  check_reductions_of(wide.slice(1, 3, 8999));
}

// ---- Softmax and norms ----------------------------------------------------------------------------

template <class T>
void check_softmax(const ct::device& dev, ct::index_t m, ct::index_t n) {
  SCOPED_TRACE(name_of<T>(m, n));
  const auto x = random<T>({m, n}, dev, 3.0);
  auto y = poisoned<T>({m, n}, dev);
  kn::softmax(ct::default_stream(dev), y, x).wait();
  const auto hx = host_f64(x);
  std::vector<double> want(hx.size());
  for (ct::index_t i = 0; i < m; ++i) {
    const double* r = &hx[std::size_t(i * n)];
    const double mx = *std::max_element(r, r + n);
    double sum = 0;
    for (ct::index_t j = 0; j < n; ++j) sum += std::exp(r[j] - mx);
    for (ct::index_t j = 0; j < n; ++j) want[std::size_t(i * n + j)] = std::exp(r[j] - mx) / sum;
  }
  EXPECT_TRUE(all_close(host_f64(y), want, {unit_roundoff<T>() + 1e-5, subnormal_step<T>()}));
}

TEST_P(kernels, softmax_matches_f64) {
  for (auto [m, n] : std::vector<std::pair<ct::index_t, ct::index_t>>{{1, 1}, {9, 1000}, {3, 1031}, {9, 8191},
                                                                     {5, 4099}, {2, 8192},
                                                                     {3, 8193}, {2, 30011},
                                                                     {2, 131072}, {3, 114689}, {2, 262144},
                                                                     {3, 245761}, {1, 262147}}) {
    check_softmax<float>(dev(), m, n);
    check_softmax<ct::f16>(dev(), m, n);
    check_softmax<ct::bf16>(dev(), m, n);
  }
}

// x random, or with `spikes` its first and last column 40 times larger: a kernel that drops or
// repeats a row's edge element (a window's first or last chunk) then misses by far more than
// the tolerance, where one ordinary element of 8191 would not show.
template <class T>
ct::tensor<T> norm_input(const ct::device& dev, ct::index_t m, ct::index_t n, bool spikes) {
  auto x = random<T>({m, n}, dev, 2.0);
  if (!spikes) return x;
  const auto h = host_f64(x);
  std::vector<T> values(h.size());
  for (std::size_t k = 0; k < h.size(); ++k) {
    const ct::index_t j = ct::index_t(k) % n;
    values[k] = ct::convert<T>(j == 0 || j == n - 1 ? 40.0 * (h[k] < 0 ? -2.0 : 2.0) + h[k] : h[k]);
  }
  return ct::from_host(values, {m, n}, dev);
}

template <class T>
void check_norms(const ct::device& dev, ct::index_t m, ct::index_t n, bool spikes = false) {
  SCOPED_TRACE(name_of<T>(m, n) + (spikes ? " with spikes at the row edges" : ""));
  const auto x = norm_input<T>(dev, m, n, spikes), r = random<T>({m, n}, dev), w = random<T>({n}, dev),
             b = random<T>({n}, dev);
  const auto hx = host_f64(x), hr = host_f64(r), hw = host_f64(w), hb = host_f64(b);
  const ct::stream s = ct::default_stream(dev);
  // h = x + r rounded to T, as the kernels store (and normalise) it.
  std::vector<double> hh(hx.size());
  for (std::size_t k = 0; k < hh.size(); ++k) hh[k] = to_f64(ct::convert<T>(hx[k] + hr[k]));
  auto norm_ref = [&](const std::vector<double>& in, bool layer) {
    std::vector<double> out(in.size());
    for (ct::index_t i = 0; i < m; ++i) {
      const double* row = &in[std::size_t(i * n)];
      double mean = 0, var = 0;
      for (ct::index_t j = 0; j < n; ++j) mean += row[j];
      mean = layer ? mean / double(n) : 0.0;
      for (ct::index_t j = 0; j < n; ++j) var += (row[j] - mean) * (row[j] - mean);
      const double inv = 1 / std::sqrt(var / double(n) + (layer ? 1e-5 : 1e-6));
      for (ct::index_t j = 0; j < n; ++j)
        out[std::size_t(i * n + j)] = (row[j] - mean) * inv * hw[std::size_t(j)] + (layer ? hb[std::size_t(j)] : 0.0);
    }
    return out;
  };
  auto check = [&](const char* what, const ct::tensor<T>& y, const std::vector<double>& want) {
    EXPECT_TRUE(all_close(host_f64(y), want, kernel_tolerance<T>(max_abs(want), 4.0 * double(n)))) << what;
  };
  auto y = poisoned<T>({m, n}, dev), h = poisoned<T>({m, n}, dev);
  kn::layernorm(s, y, x, w, b).wait();
  check("layernorm", y, norm_ref(hx, true));
  kn::rmsnorm(s, y, x, w).wait();
  check("rmsnorm", y, norm_ref(hx, false));
  kn::layernorm_residual(s, y, h, x, r, w, b).wait();
  EXPECT_TRUE(all_equal(host_f64(h), hh)) << "layernorm_residual: h = x + r";
  check("layernorm_residual", y, norm_ref(hh, true));
  h = poisoned<T>({m, n}, dev);
  kn::rmsnorm_residual(s, y, h, x, r, w).wait();
  EXPECT_TRUE(all_equal(host_f64(h), hh)) << "rmsnorm_residual: h = x + r";
  check("rmsnorm_residual", y, norm_ref(hh, false));
}

TEST_P(kernels, norms_match_f64) {
  for (auto [m, n] : std::vector<std::pair<ct::index_t, ct::index_t>>{{1, 1}, {9, 100}, {17, 1024}, {3, 1031}, {2, 8191},
                                                                     {9, 8191}, {5, 4099}, {5, 8192}}) {
    check_norms<float>(dev(), m, n);
    check_norms<ct::f16>(dev(), m, n);
    check_norms<ct::bf16>(dev(), m, n);
  }
  for (auto [m, n] : std::vector<std::pair<ct::index_t, ct::index_t>>{{9, 8191}, {9, 4099}}) {
    check_norms<float>(dev(), m, n, /*spikes=*/true);
    check_norms<ct::bf16>(dev(), m, n, /*spikes=*/true);
  }
}

// Contiguous rows off 16 bytes (8191 bf16 columns) take the window kernels, which read and
// write each row from the 16-byte boundary before it; rows on 16 bytes, and rows off them in a
// view that does not start on 16 bytes, take the tile kernels. (The checks above pass either
// way: this is what says the windows run.)
TEST_P(kernels, contiguous_rows_off_16_bytes_take_the_window_kernels) {
  const ct::stream s = ct::default_stream(dev());
  const auto launched = [](ct::pending p) {
    const std::string name = p.kernel();
    p.wait();
    return name;
  };
  for (ct::index_t n : {8191, 8192}) {
    SCOPED_TRACE(n);
    const bool window = n % 8 != 0;
    const auto x = random<ct::bf16>({9, n}, dev()), w = random<ct::bf16>({n}, dev());
    auto y = poisoned<ct::bf16>({9, n}, dev()), h = poisoned<ct::bf16>({9, n}, dev());
    auto rows = poisoned<ct::bf16>({9}, dev());
    EXPECT_EQ(launched(kn::layernorm(s, y, x, w, w)), window ? "ct_kernels_norm_window" : "ct_kernels_norm");
    EXPECT_EQ(launched(kn::rmsnorm(s, y, x, w)), window ? "ct_kernels_norm_window" : "ct_kernels_norm");
    EXPECT_EQ(launched(kn::rmsnorm_residual(s, y, h, x, x, w)),
              window ? "ct_kernels_residual_norm_window" : "ct_kernels_residual_norm");
    EXPECT_EQ(launched(kn::softmax(s, y, x)), window ? "ct_kernels_softmax_window" : "ct_kernels_softmax");
    EXPECT_EQ(launched(kn::row_sum(s, rows, x)), window ? "ct_kernels_row_reduce_window" : "ct_kernels_row_reduce");
  }
  const auto buffer = random<ct::bf16>({9 * 8191 + 1}, dev());
  const auto offset = buffer.slice(0, 1, 9 * 8191 + 1).reshape({9, 8191});
  auto y = poisoned<ct::bf16>({9, 8191}, dev());
  EXPECT_EQ(launched(kn::softmax(s, y, offset)), "ct_kernels_softmax");
}

// Rows of 8193-131072 columns take the block-group softmax (a row split over up to eight tile
// blocks that combine its max and sum) wherever groups run: the CPU, and GPUs of compute
// capability 9.0 and later; longer rows, and GPUs without clusters, the one-block-per-row online
// kernel. (softmax_matches_f64 passes either way.)
TEST_P(kernels, long_softmax_rows_take_block_groups_where_they_run) {
  const ct::stream s = ct::default_stream(dev());
  const bool groups = dev().is_cpu() || dev().compute_capability() >= 90;
  for (ct::index_t n : {8193, 131072, 131073}) {
    SCOPED_TRACE(n);
    const auto x = random<ct::bf16>({2, n}, dev());
    auto y = poisoned<ct::bf16>({2, n}, dev());
    ct::pending p = kn::softmax(s, y, x);
    const std::string name = p.kernel();
    p.wait();
    EXPECT_EQ(name, groups && n <= 131072 ? "ct_kernels_softmax_group" : "ct_kernels_softmax_online");
  }
}

// Rows whose mean is far from zero relative to their spread keep layer norm's precision (a
// one-pass variance, E[x^2] - E[x]^2 in f32, would give these rows' variance with no correct
// digit; norm.hpp measured a shifted one-pass form and kept two passes).
template <class T>
void check_layernorm_far_from_zero(const ct::device& dev, ct::index_t m, ct::index_t n, double offset) {
  SCOPED_TRACE(name_of<T>(m, n) + " offset " + std::to_string(offset));
  const auto noise = host_f64(random<T>({m, n}, dev));
  std::vector<T> values(noise.size());
  for (std::size_t k = 0; k < values.size(); ++k) values[k] = ct::convert<T>(offset + noise[k]);
  const auto x = ct::from_host(values, {m, n}, dev), w = random<T>({n}, dev), b = random<T>({n}, dev);
  const auto hx = host_f64(x), hw = host_f64(w), hb = host_f64(b);
  std::vector<double> want(hx.size());
  for (ct::index_t i = 0; i < m; ++i) {
    const double* row = &hx[std::size_t(i * n)];
    double mean = 0, var = 0;
    for (ct::index_t j = 0; j < n; ++j) mean += row[j] / double(n);
    for (ct::index_t j = 0; j < n; ++j) var += (row[j] - mean) * (row[j] - mean) / double(n);
    for (ct::index_t j = 0; j < n; ++j)
      want[std::size_t(i * n + j)] = (row[j] - mean) / std::sqrt(var + 1e-5) * hw[std::size_t(j)] + hb[std::size_t(j)];
  }
  auto y = poisoned<T>({m, n}, dev);
  kn::layernorm(ct::default_stream(dev), y, x, w, b).wait();
  EXPECT_TRUE(all_close(host_f64(y), want, kernel_tolerance<T>(max_abs(want), 4.0 * double(n))));
}

TEST_P(kernels, layernorm_keeps_its_precision_far_from_zero) {
  for (auto [m, n] : std::vector<std::pair<ct::index_t, ct::index_t>>{{3, 1000}, {4, 8191}}) {
    check_layernorm_far_from_zero<float>(dev(), m, n, 3000.0);
    check_layernorm_far_from_zero<ct::bf16>(dev(), m, n, 300.0);
  }
}

TEST_P(kernels, norms_reject_rows_they_cannot_hold) {
  const auto x = random<float>({2, 8193}, dev()), w = random<float>({8193}, dev());
  auto y = poisoned<float>({2, 8193}, dev());
  EXPECT_THAT([&] { (void)kn::rmsnorm(ct::default_stream(dev()), y, x, w); },
              ThrowsMessage<ct::error>(HasSubstr("ct::kernels::rmsnorm: rows of 8193 columns; 1 to 8192 are supported")));
}

// ---- RoPE -------------------------------------------------------------------------------------------

template <class T>
void check_rope(const ct::device& dev, ct::index_t batch, ct::index_t seq, ct::index_t heads, ct::index_t d) {
  SCOPED_TRACE(std::to_string(batch) + "x" + std::to_string(seq) + "x" + std::to_string(heads) + "x" +
               std::to_string(d) + " " + ct::dtype_name<T>());
  const auto x = random<T>({batch, seq, heads, d}, dev);
  const auto cos = ct::rand<float>({seq, d / 2}, fresh_seed(), -1.0, 1.0, dev);
  const auto sin = ct::rand<float>({seq, d / 2}, fresh_seed(), -1.0, 1.0, dev);
  auto y = poisoned<T>({batch, seq, heads, d}, dev);
  kn::rope(ct::default_stream(dev), y, x, cos, sin).wait();
  const auto hx = host_f64(x), hc = host_f64(cos), hs = host_f64(sin);
  const auto want = reference(hx.size(), [&](std::size_t i) {
    const ct::index_t k = ct::index_t(i) % d, pos = ct::index_t(i) / (heads * d) % seq, half = d / 2;
    const std::size_t row = i - std::size_t(k), t = std::size_t(pos * half + k % half);
    const double x1 = hx[row + std::size_t(k % half)], x2 = hx[row + std::size_t(k % half + half)];
    return k < half ? x1 * hc[t] - x2 * hs[t] : x2 * hc[t] + x1 * hs[t];
  });
  EXPECT_TRUE(all_close(host_f64(y), want, kernel_tolerance<T>(max_abs(want), 4)));
}

TEST_P(kernels, rope_matches_f64) {
  check_rope<float>(dev(), 1, 1, 1, 64);
  check_rope<float>(dev(), 2, 7, 33, 128);
  check_rope<ct::bf16>(dev(), 3, 5, 31, 128);
  check_rope<ct::f16>(dev(), 1, 3, 5, 256);
  // Tiles of 8 positions (few heads) that run into the next batch (seq not a multiple); the
  // 2x7x33 case takes tiles of 4 positions, the f16 one too.
  check_rope<ct::bf16>(dev(), 2, 9, 3, 64);
  // 33 heads at 5 positions: tiles of 8 positions would pad least but span three batches, more
  // than rope_map's one wrap covers, so tiles of 4.
  check_rope<ct::bf16>(dev(), 4, 5, 33, 128);
  // Heads past a whole tile's (33 of 128, 65 of 64): a second launch one head a tile, 32 (64)
  // positions tall, running into the next batch.
  check_rope<ct::bf16>(dev(), 3, 37, 33, 128);
  check_rope<float>(dev(), 2, 70, 65, 64);
}

// Which launch runs last: the f64 checks above pass with either tiling, so the leftover heads'
// launch (one head a tile) is asserted by its kernel's name; seq shorter than a tile's heads
// (32 of 128) keeps the one launch.
TEST_P(kernels, rope_leftover_heads_take_a_second_launch) {
  const ct::stream s = ct::default_stream(dev());
  const struct {
    ct::index_t seq, heads, d;
    const char* last;
  } cases[] = {{37, 33, 128, "ct_kernels_rope_leftover_heads"},
               {70, 65, 64, "ct_kernels_rope_leftover_heads"},
               {37, 64, 128, "ct_kernels_rope"},
               {5, 33, 128, "ct_kernels_rope"}};
  for (const auto& c : cases) {
    SCOPED_TRACE(std::to_string(c.seq) + "x" + std::to_string(c.heads) + "x" + std::to_string(c.d));
    const auto x = random<ct::bf16>({2, c.seq, c.heads, c.d}, dev());
    const auto cos = ct::rand<float>({c.seq, c.d / 2}, fresh_seed(), -1.0, 1.0, dev());
    const auto sin = ct::rand<float>({c.seq, c.d / 2}, fresh_seed(), -1.0, 1.0, dev());
    auto y = poisoned<ct::bf16>({2, c.seq, c.heads, c.d}, dev());
    ct::pending p = kn::rope(s, y, x, cos, sin);
    const std::string name = p.kernel();
    p.wait();
    EXPECT_EQ(name, c.last);
  }
}

TEST_P(kernels, rope_rejects_bad_tables) {
  const auto x = random<float>({1, 4, 2, 128}, dev());
  const auto cos = ct::zeros<float>({4, 64}, dev()), sin = ct::zeros<float>({3, 64}, dev());
  auto y = poisoned<float>({1, 4, 2, 128}, dev());
  EXPECT_THAT([&] { (void)kn::rope(ct::default_stream(dev()), y, x, cos, sin); },
              ThrowsMessage<ct::error>(HasSubstr("ct::kernels::rope: sin has extent 3 along axis 0, expected 4")));
}

CT_INSTANTIATE_ON_DEVICES(kernels);

#if defined(__CUDACC__)
// A kernel's `occupancy` hint reaches the compiler: the GPU entry that a launch of kernel K runs
// holds at most 65536 / (128 * blocks) registers, so `blocks` blocks fit an SM.
// Unless `may_spill`, without local memory.
template <class K, class... Params>
void expect_blocks_an_sm(int blocks, bool may_spill = false) {
  ASSERT_EQ(ct::detail::kernel_occupancy<K>(), blocks);
  const auto entry = ct::backend::cuda::kernel_entry<K, Params...>;
  cudaFuncAttributes attributes{};
  ASSERT_EQ(cudaFuncGetAttributes(&attributes, entry), cudaSuccess);
  EXPECT_LE(attributes.numRegs, 65536 / (ct::config::gpu_block_threads * blocks) / 8 * 8);
  if (!may_spill) EXPECT_EQ(attributes.localSizeBytes, 0u) << "the hint made ptxas spill";
  int fit = 0;
  ASSERT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, entry, ct::config::gpu_block_threads, 0), cudaSuccess);
  EXPECT_GE(fit, blocks);
}

// The 16-bit layer norms (norm.hpp): four blocks an SM, at most 128 registers (three fitted).
// ptxas spills 56 bytes in them at 128.
TEST(kernel_hints, layer_norm_fits_four_blocks_an_sm) {
  if (ct::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA GPU: the registers are the GPU build's";
  expect_blocks_an_sm<kn::detail::norm_map<ct::bf16, kn::layer_norm_t, 1, 8192>, ct::out<ct::bf16, ct::shape<1, 8192>>,
                      ct::in<ct::bf16, 2>, ct::in<ct::bf16, 1>, ct::in<ct::bf16, 1>, float>(4, /*may_spill=*/true);
}

// The 16-bit row reductions (reduce.hpp): six blocks an SM, at most 80 registers (four fitted
// without the hint), no spills. Only the build for rows off 16 bytes (kernel_entry) is checked;
// its aligned-rows build spills about 50 bytes at 80 registers (ptxas) and is not tested here.
TEST(kernel_hints, row_sum_fits_six_blocks_an_sm) {
  if (ct::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA GPU: the registers are the GPU build's";
  using K = kn::detail::row_reduce_map<ct::bf16, 256 * kn::detail::vec<ct::bf16>, kn::sum_t>;
  expect_blocks_an_sm<K, ct::out<ct::bf16, ct::shape<1, 1>>, ct::in<ct::bf16, 2>>(6);
}

// The column reductions' 16-bit first pass: six blocks an SM (it took 255 registers and spilled
// without the hint in the build for rows off 16 bytes; at 80 it spills 64 bytes there).
TEST(kernel_hints, col_sum_first_pass_fits_six_blocks_an_sm) {
  if (ct::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA GPU: the registers are the GPU build's";
  using K = kn::detail::col_reduce_map<ct::bf16, float, 1, 256 * kn::detail::vec<ct::bf16>, kn::sum_t>;
  expect_blocks_an_sm<K, ct::out<float, ct::shape<1, 256 * kn::detail::vec<ct::bf16>>>, ct::in<ct::bf16, 2>, ct::index_t>(
      6, /*may_spill=*/true);
}

#endif

}  // namespace
