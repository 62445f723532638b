// Float math for f32, f64, f16 and bf16: exp exp2 log log2 sqrt rsqrt tanh sin cos tan sinh
// cosh floor ceil, pow, atan2, fma, floordiv (floor of the rounded quotient, as documented) and
// isnan, against long-double references on each function's domain, with NaN and +-inf
// planted. f32 and f64 must be within a few ulps of the exact value (the host C library's
// accuracy); f16 and bf16 compute in f32 and round once, so within half an ulp of their type
// plus a few f32 ulps. fma must round once: an input where rounding the product first loses
// everything is planted. Also exp, exp2 and truediv with ct::approx, within their stated bounds.
#include "ops/ops_util.hpp"

namespace {
using namespace ct_test;

template <class T, class S>
struct math_ops {
  static constexpr const char* name = "ops_math";
  static constexpr int R = S::rank;
  using tile_out = ct::out<T, S>;
  CT_TILE void operator()(tile_out exp, tile_out exp2, tile_out log, tile_out log2, tile_out sqrt, tile_out rsqrt,
                          tile_out tanh, tile_out sin, tile_out cos, tile_out tan, tile_out sinh, tile_out cosh,
                          tile_out floor, tile_out ceil, tile_out pow, tile_out atan2, tile_out fma,
                          tile_out floordiv, ct::out<bool, S> isnan, ct::in<T, R> x, ct::in<T, R> y,
                          ct::in<T, R> z, ct::in<T, R> p) const {
    const auto tx = x.load_like(exp), ty = y.load_like(exp), tz = z.load_like(exp), tp = p.load_like(exp);
    exp.store(ct::exp(tx));
    exp2.store(ct::exp2(tx));
    log.store(ct::log(tp));
    log2.store(ct::log2(tp));
    sqrt.store(ct::sqrt(tp));
    rsqrt.store(ct::rsqrt(tp));
    tanh.store(ct::tanh(tx));
    sin.store(ct::sin(tx));
    cos.store(ct::cos(tx));
    tan.store(ct::tan(tx));
    sinh.store(ct::sinh(tx));
    cosh.store(ct::cosh(tx));
    floor.store(ct::floor(tx));
    ceil.store(ct::ceil(tx));
    pow.store(ct::pow(tp, ty));
    atan2.store(ct::atan2(tx, ty));
    fma.store(ct::fma(tx, ty, tz));
    floordiv.store(ct::floordiv(tx, ty));
    isnan.store(ct::isnan(tx));
  }
};

// The same functions rounded approximately (ct::approx, cuTile's RoundingMode.APPROX).
template <class T, class S>
struct approx_math_ops {
  static constexpr const char* name = "ops_approx_math";
  static constexpr int R = S::rank;
  CT_TILE void operator()(ct::out<T, S> exp, ct::out<T, S> exp2, ct::out<T, S> div, ct::in<T, R> x, ct::in<T, R> y) const {
    const auto tx = x.load_like(exp), ty = y.load_like(exp);
    exp.store(ct::exp(tx, ct::approx));
    exp2.store(ct::exp2(tx, ct::approx));
    div.store(ct::truediv(tx, ty, ct::approx));
  }
};

struct math_ops_test : on_device {};

using ld = long double;

// Uniform values in [lo, hi), as T.
template <class T>
std::vector<T> uniform(std::size_t n, double lo, double hi) {
  auto gen = rng();
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<T> v(n);
  for (auto& x : v) x = ct::convert<T>(u(gen));
  return v;
}

template <class T>
constexpr int precision() {
  return std::is_same_v<T, double> ? 53 : std::is_same_v<T, float> ? 24 : std::is_same_v<T, ct::f16> ? 11 : 8;
}

// The tolerance of a function accurate to `ulps` ulps in its compute type, stored in T.
template <class T>
tolerance within_ulps(double ulps) {
  using C = ct::compute_t<T>;
  if constexpr (std::is_same_v<C, T>) return rounding<T>(2 * ulps);
  else return {unit_roundoff<T>() + 2 * ulps * unit_roundoff<C>(), subnormal_step<T>()};
}

template <class T, class S>
void check_math(const ct::device& dev, const ct::extents_t& extents) {
  SCOPED_TRACE((case_name<T, S>(extents)));
  using C = ct::compute_t<T>;
  const std::size_t n = element_count(extents);
  auto vx = uniform<T>(n, -4, 4), vy = uniform<T>(n, -4, 4), vz = uniform<T>(n, -4, 4), vp = uniform<T>(n, 1.0 / 16, 16);
  const double specials[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, 2.5, -2.5, 3.0};
  for (std::size_t i = 0; i < std::size(specials) && i < n; ++i) vx[i] = ct::convert<T>(specials[i]);
  if (n > 10) {
    // (1 + 2^-e)^2 - (1 + 2^(1-e)) = 2^-2e: zero unless the product keeps its low bits (e = (p + 1) / 2).
    const int e = (precision<T>() + 1) / 2;
    vx[10] = vy[10] = ct::convert<T>(1 + std::ldexp(1.0, -e));
    vz[10] = ct::convert<T>(-(1 + std::ldexp(1.0, 1 - e)));
  }
  const auto x = tensor_of(vx, extents, dev), y = tensor_of(vy, extents, dev), z = tensor_of(vz, extents, dev),
             p = tensor_of(vp, extents, dev);

  for (const bool flag_poison : {false, true}) {
    std::vector<ct::tensor<T>> r;
    for (int i = 0; i < 18; ++i) r.push_back(poisoned<T>(extents, dev));
    auto isnan = ct::full<bool>(extents, flag_poison, dev);
    ct::launch(math_ops<T, S>{}, r[0].partition(S{}), r[1].partition(S{}), r[2].partition(S{}), r[3].partition(S{}),
               r[4].partition(S{}), r[5].partition(S{}), r[6].partition(S{}), r[7].partition(S{}), r[8].partition(S{}),
               r[9].partition(S{}), r[10].partition(S{}), r[11].partition(S{}), r[12].partition(S{}),
               r[13].partition(S{}), r[14].partition(S{}), r[15].partition(S{}), r[16].partition(S{}),
               r[17].partition(S{}), isnan.partition(S{}), x, y, z, p)
        .wait();
    EXPECT_TRUE(all_same(isnan.to_host(), reference_of<bool>(n, [&](std::size_t i) { return std::isnan(to_f64(vx[i])); })))
        << "ct::isnan, poisoned " << flag_poison;
    if (flag_poison) continue;  // the float outputs were checked on the first run

    const auto hx = host_f64(x), hy = host_f64(y), hz = host_f64(z), hp = host_f64(p);
    // ulps: CUDA's documented maximum errors in f32 (exp 2, sin/cos 2, tan 4, sinh 3, pow 4,
    // atan2 3; at least as good in f64), which bound the host library's too. sqrt is correctly
    // rounded, but the long-double reference rounds twice (to long double, then to T): 1 ulp.
    const auto expect = [&](int out, double ulps, auto f, const char* what) {
      // The exact value rounded to T (so overflow to inf in f16 is expected), then the tolerance.
      const auto ref = reference(n, [&](std::size_t i) { return rounded<T>(f(i)); });
      EXPECT_TRUE(all_close(host_f64(r[std::size_t(out)]), ref, within_ulps<T>(ulps))) << what;
    };
    expect(0, 2, [&](std::size_t i) { return double(std::exp(ld(hx[i]))); }, "exp");
    expect(1, 2, [&](std::size_t i) { return double(std::exp2(ld(hx[i]))); }, "exp2");
    expect(2, 1, [&](std::size_t i) { return double(std::log(ld(hp[i]))); }, "log");
    expect(3, 1, [&](std::size_t i) { return double(std::log2(ld(hp[i]))); }, "log2");
    expect(4, 1, [&](std::size_t i) { return double(std::sqrt(ld(hp[i]))); }, "sqrt");
    expect(5, 1.5, [&](std::size_t i) { return double(1 / std::sqrt(ld(hp[i]))); }, "rsqrt");
    expect(6, 2, [&](std::size_t i) { return double(std::tanh(ld(hx[i]))); }, "tanh");
    expect(7, 2, [&](std::size_t i) { return double(std::sin(ld(hx[i]))); }, "sin");
    expect(8, 2, [&](std::size_t i) { return double(std::cos(ld(hx[i]))); }, "cos");
    expect(9, 4, [&](std::size_t i) { return double(std::tan(ld(hx[i]))); }, "tan");
    expect(10, 3, [&](std::size_t i) { return double(std::sinh(ld(hx[i]))); }, "sinh");
    expect(11, 2, [&](std::size_t i) { return double(std::cosh(ld(hx[i]))); }, "cosh");
    expect(12, 0, [&](std::size_t i) { return std::floor(hx[i]); }, "floor");
    expect(13, 0, [&](std::size_t i) { return std::ceil(hx[i]); }, "ceil");
    expect(14, 4, [&](std::size_t i) { return double(std::pow(ld(hp[i]), ld(hy[i]))); }, "pow");
    expect(15, 3, [&](std::size_t i) { return double(std::atan2(ld(hx[i]), ld(hy[i]))); }, "atan2");
    // One rounding; for f64 the long-double reference itself rounds (the planted case still tells
    // one rounding from two).
    const double fma_ulps = std::is_same_v<T, double> ? 1 : 0.5 * (1 + 0x1p-8);
    expect(16, fma_ulps, [&](std::size_t i) { return double(std::fma(ld(hx[i]), ld(hy[i]), ld(hz[i]))); }, "fma");
    expect(17, 0, [&](std::size_t i) { return std::floor(rounded<C>(hx[i] / hy[i])); }, "floordiv");
  }
}

// ct::approx: within a few f32 ulps (docs/ops.md states the bounds: exp 8 ulps on |x| <= 8,
// exp2 2, division 2 for divisors of magnitude in [2^-126, 2^126]); f16 and bf16 still within
// half an ulp of their type plus that. NaN and infinities behave as in the accurate functions.
template <class T, class S>
void check_approx_math(const ct::device& dev, const ct::extents_t& extents) {
  SCOPED_TRACE((case_name<T, S>(extents)));
  const std::size_t n = element_count(extents);
  auto vx = uniform<T>(n, -8, 8), vy = uniform<T>(n, -4, 4);
  const double specials[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, 2.5, -2.5, 3.0};
  for (std::size_t i = 0; i < std::size(specials) && i < n; ++i) vx[i] = ct::convert<T>(specials[i]);
  for (auto& v : vy)
    if (std::fabs(to_f64(v)) < 1.0 / 64) v = ct::convert<T>(0.5);  // far from the divisor limits either way
  const auto x = tensor_of(vx, extents, dev), y = tensor_of(vy, extents, dev);
  auto exp = poisoned<T>(extents, dev), exp2 = poisoned<T>(extents, dev), div = poisoned<T>(extents, dev);
  ct::launch(approx_math_ops<T, S>{}, exp.partition(S{}), exp2.partition(S{}), div.partition(S{}), x, y).wait();
  const auto hx = host_f64(x), hy = host_f64(y);
  const auto expect = [&](const ct::tensor<T>& got, double ulps, auto f, const char* what) {
    const auto ref = reference(n, [&](std::size_t i) { return rounded<T>(f(i)); });
    EXPECT_TRUE(all_close(host_f64(got), ref, within_ulps<T>(ulps))) << what;
  };
  expect(exp, 8, [&](std::size_t i) { return double(std::exp(ld(hx[i]))); }, "exp approx");
  expect(exp2, 2, [&](std::size_t i) { return double(std::exp2(ld(hx[i]))); }, "exp2 approx");
  expect(div, 2, [&](std::size_t i) { return double(ld(hx[i]) / ld(hy[i])); }, "truediv approx");
}

template <class T, class S>
void check_math(const ct::device& dev) {
  check_math<T, S>(dev, ragged_extents<S>());
}

TEST_P(math_ops_test, f32) { check_math<float, ct::shape<16, 16>>(dev()); }
TEST_P(math_ops_test, f64) { check_math<double, ct::shape<8, 128>>(dev()); }
TEST_P(math_ops_test, f16) { check_math<ct::f16, ct::shape<4>>(dev(), {257}); }
TEST_P(math_ops_test, bf16) { check_math<ct::bf16, ct::shape<2, 2>>(dev(), {31, 7}); }
TEST_P(math_ops_test, approx_f32) { check_approx_math<float, ct::shape<16, 16>>(dev(), {31, 37}); }
TEST_P(math_ops_test, approx_f16) { check_approx_math<ct::f16, ct::shape<64>>(dev(), {257}); }
TEST_P(math_ops_test, approx_bf16) { check_approx_math<ct::bf16, ct::shape<2, 8>>(dev(), {31, 7}); }

CT_INSTANTIATE_ON_DEVICES(math_ops_test);

}  // namespace
