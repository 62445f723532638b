// Shared test helpers: the device-parameterized fixture, a scoped environment variable,
// per-test random seeds, poisoned outputs, float64 views of tensors, dtype tolerances, an
// independent model of rounding to each float type, and an all-close comparison that reports
// the first mismatches.
#pragma once
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <ctile/ctile.hpp>

namespace ct_test {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

// ---- Devices ----------------------------------------------------------------------------------

// A test that runs once per device: GetParam() is "cpu" or "cuda". The cuda case skips when the
// machine has no GPU, so a GPU-less CI reports it as skipped rather than passed.
class on_device : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "cuda") {
      if (ct::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA GPU: the cuda cases of this test need one";
      dev_ = ct::device::cuda(0);
    }
  }
  const ct::device& dev() const { return dev_; }

 private:
  ct::device dev_ = ct::device::cpu();
};

inline std::string device_param_name(const ::testing::TestParamInfo<std::string>& info) { return info.param; }

// Only a translation unit compiled by nvcc holds GPU code for its kernels, so only there does
// the cuda case exist. A macro, not an inline function: the answer differs between TUs.
#if defined(__CUDACC__)
#define CT_TEST_DEVICES ::testing::Values(std::string("cpu"), std::string("cuda"))
#else
#define CT_TEST_DEVICES ::testing::Values(std::string("cpu"))
#endif

// Instantiates every TEST_P of `suite` once per device: names end in /cpu or /cuda.
#define CT_INSTANTIATE_ON_DEVICES(suite) \
  INSTANTIATE_TEST_SUITE_P(, suite, CT_TEST_DEVICES, ::ct_test::device_param_name)

// Sets (or, given nullptr, unsets) an environment variable until the end of the scope.
class scoped_env {
 public:
  scoped_env(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    set(value);
  }
  ~scoped_env() { set(old_ ? old_->c_str() : nullptr); }
  scoped_env(const scoped_env&) = delete;
  scoped_env& operator=(const scoped_env&) = delete;

 private:
  void set(const char* value) const {
    if (value) ::setenv(name_.c_str(), value, 1);
    else ::unsetenv(name_.c_str());
  }
  std::string name_;
  std::optional<std::string> old_;
};

// ---- Inputs and outputs -----------------------------------------------------------------------

// A new seed for each call, derived from the running test's name: every tensor of a test gets
// fresh values, and a failing test sees the same values when run alone.
inline std::uint64_t fresh_seed() {
  static std::string test;
  static std::uint64_t count = 0;
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string name = info ? std::string(info->test_suite_name()) + "." + info->name() : "";
  if (name != test) {
    test = name;
    count = 0;
  }
  return std::hash<std::string>{}(name) + 7919 * ++count;
}

// An output whose every element is wrong until a kernel writes it: NaN for floats, the most
// negative value for integers.
template <class T>
ct::tensor<T> poisoned(const ct::extents_t& extents, const ct::device& dev) {
  if constexpr (ct::is_floating_v<T>) return ct::full<T>(extents, std::nan(""), dev);
  else return ct::full<T>(extents, std::numeric_limits<T>::min(), dev);
}

// Random values on a grid of `step` (multiples of 1/8 by default): sums and scalings of a few
// thousand of them are exact in f32, so results can be compared bit for bit.
inline ct::tensor<float> random_grid(const ct::extents_t& extents, const ct::device& dev, double stddev = 4.0,
                                     double step = 0.125) {
  auto t = ct::randn<float>(extents, fresh_seed(), stddev, dev);
  auto v = t.to_host();
  for (float& x : v) x = float(std::round(x / step) * step);
  t.copy_from_host(v);
  return t;
}

template <class T>
double to_f64(T x) {
  return double(static_cast<ct::compute_t<T>>(x));
}

// The tensor's elements, row-major, as float64.
template <class T>
std::vector<double> host_f64(const ct::tensor<T>& t) {
  const auto v = t.to_host();
  std::vector<double> r(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) r[i] = to_f64(v[i]);
  return r;
}

// ---- Tolerances -------------------------------------------------------------------------------

// Largest relative error of one correctly rounded operation in T (half an ulp).
template <class T>
constexpr double unit_roundoff() {
  if constexpr (std::is_same_v<T, ct::f16>) return 0x1p-11;
  else if constexpr (std::is_same_v<T, ct::bf16>) return 0x1p-8;
  else if constexpr (std::is_same_v<T, float>) return 0x1p-24;
  else return 0x1p-53;
}

// Spacing of T's subnormals: below the normal range, rounding error is absolute, not relative.
template <class T>
constexpr double subnormal_step() {
  if constexpr (std::is_same_v<T, ct::f16>) return 0x1p-24;
  else if constexpr (std::is_same_v<T, ct::bf16>) return 0x1p-133;
  else if constexpr (std::is_same_v<T, float>) return 0x1p-149;
  else return 0x1p-1074;
}

// The error of `ulps` roundings to T, relative to the exact result.
struct tolerance {
  double rtol = 0, atol = 0;
};
template <class T>
tolerance rounding(double ulps) {
  return {ulps * unit_roundoff<T>(), ulps * subnormal_step<T>()};
}

// x rounded to the nearest value of T (ties to even), overflowing to infinity: an independent
// model of IEEE binary16, bfloat16 and binary32 built from their precision and exponent range.
template <class T>
double round_to(double x) {
  constexpr int precision = std::is_same_v<T, ct::f16> ? 11 : std::is_same_v<T, ct::bf16> ? 8 : 24;
  constexpr int min_exp = std::is_same_v<T, ct::f16> ? -14 : -126;
  constexpr int max_exp = std::is_same_v<T, ct::f16> ? 15 : 127;
  if (!std::isfinite(x) || x == 0) return x;
  const double spacing = std::ldexp(1.0, std::max(std::ilogb(x), min_exp) - (precision - 1));
  const double r = std::nearbyint(x / spacing) * spacing;  // default rounding mode: ties to even
  return std::fabs(r) >= std::ldexp(1.0, max_exp + 1) ? std::copysign(INFINITY, x) : r;
}

// ---- Comparisons ------------------------------------------------------------------------------

// Whether |got - ref| <= atol + rtol * |ref| everywhere (NaN matches only NaN, inf only the
// same inf); on failure, says how many elements differ and shows the first few.
inline ::testing::AssertionResult all_close(const std::vector<double>& got, const std::vector<double>& ref,
                                            tolerance tol) {
  if (got.size() != ref.size())
    return ::testing::AssertionFailure() << "got " << got.size() << " elements, expected " << ref.size();
  std::size_t bad = 0;
  std::ostringstream first;
  first.precision(9);
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double g = got[i], r = ref[i];
    const bool ok =
        g == r || (std::isnan(g) && std::isnan(r)) || std::fabs(g - r) <= tol.atol + tol.rtol * std::fabs(r);
    if (ok) continue;
    if (++bad <= 5) first << "\n  [" << i << "] got " << g << ", expected " << r;
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << bad << " of " << got.size() << " elements differ (rtol " << tol.rtol
                                       << ", atol " << tol.atol << "):" << first.str();
}

inline ::testing::AssertionResult all_equal(const std::vector<double>& got, const std::vector<double>& ref) {
  return all_close(got, ref, {});
}

// ref[i] = f(i) for i in [0, n): a reference computed element by element.
template <class F>
std::vector<double> reference(std::size_t n, F f) {
  std::vector<double> r(n);
  for (std::size_t i = 0; i < n; ++i) r[i] = f(i);
  return r;
}

}  // namespace ct_test
