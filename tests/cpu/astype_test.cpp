// ct::astype between f32, f16 and bf16 inside a kernel, against an independent model of
// round-to-nearest-even: random values, f16 subnormals, ties, overflow, infinities and NaN.
#include "common/test_util.hpp"

namespace {
using namespace ct_test;

template <class To, class From>
struct cast {
  using tile_shape = ct::shape<64, 64>;
  CT_TILE void operator()(ct::out<To, tile_shape> y, ct::in<From, 2> x) const {
    y.store(ct::astype<To>(x.load_like(y)));
  }
};

struct astype : on_device {};

// Random values of scale `stddev`, the first few replaced by `specials` (rounded to From).
template <class From>
ct::tensor<From> cast_input(const ct::device& dev, double stddev, const std::vector<double>& specials) {
  auto x = ct::randn<From>({70, 90}, fresh_seed(), stddev, dev);
  auto v = x.to_host();
  for (std::size_t i = 0; i < specials.size(); ++i) v[i] = ct::convert<From>(specials[i]);
  x.copy_from_host(v);
  return x;
}

template <class To, class From>
void check_cast(const ct::device& dev, double stddev, const std::vector<double>& specials = {}) {
  SCOPED_TRACE(std::string(ct::dtype_name<From>()) + " -> " + ct::dtype_name<To>() + ", scale " +
               std::to_string(stddev));
  const auto x = cast_input<From>(dev, stddev, specials);
  auto y = poisoned<To>(x.extents(), dev);
  ct::launch(cast<To, From>{}, y.partition(ct::shape<64, 64>{}), x).wait();
  const auto hx = host_f64(x);
  EXPECT_TRUE(
      all_equal(host_f64(y), reference(hx.size(), [&](std::size_t i) { return round_to<To>(hx[i]); })));
}

const double inf = INFINITY, nan = NAN;

TEST_P(astype, f32_to_f16) {
  // 65504 is f16's largest finite value; 65520 is halfway to the next binade, so it overflows.
  // 1 + 2^-11 and 1 + 3 * 2^-11 are ties; 2^-25 and 3 * 2^-25 are ties among subnormals.
  check_cast<ct::f16, float>(dev(), 1.0,
                             {0.0, -0.0, inf, -inf, nan, 65504.0, 65519.0, 65520.0, -70000.0, 1 + 0x1p-11,
                              1 + 3 * 0x1p-11, 0x1p-25, 3 * 0x1p-25, 1e-8});
  check_cast<ct::f16, float>(dev(), 1e-5);  // mostly subnormal in f16
}

TEST_P(astype, f32_to_bf16) {
  check_cast<ct::bf16, float>(dev(), 1.0,
                              {0.0, inf, -inf, nan, 1 + 0x1p-8, 1 + 3 * 0x1p-8, 3.4028234e38, 1e-30});
}

TEST_P(astype, f16_to_f32) { check_cast<float, ct::f16>(dev(), 1.0, {inf, nan, 65504.0, 0x1p-24}); }

TEST_P(astype, bf16_to_f32) { check_cast<float, ct::bf16>(dev(), 1.0, {-inf, nan, 1e38, 1e-38}); }

TEST_P(astype, f16_to_bf16) { check_cast<ct::bf16, ct::f16>(dev(), 1.0, {inf, nan, 65504.0, 0x1p-24}); }

CT_INSTANTIATE_ON_DEVICES(astype);

}  // namespace
