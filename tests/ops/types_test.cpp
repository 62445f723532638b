// Element-type conversions inside kernels, against an independent model of rounding to each
// binary format (round to nearest even of the exact value; tf32 ties away from zero; fp8
// saturating to the largest finite value, NaN staying NaN):
//   - every e4m3 and e5m2 bit pattern through f32 and back (exhaustive round trips);
//   - every f16 value to e4m3 and e5m2 (which covers every fp8 tie), and f32 values at, just
//     above and just below each fp8 midpoint, and of every magnitude;
//   - every f16 and bf16 bit pattern through f32 and back;
//   - ct::astype from each of the 16 element types to each of the 16 (int -> int wraps, float ->
//     int truncates, -> bool tests != 0), including values that double rounding through f32
//     would get wrong (f64 and wide integers to the narrow floats);
//   - ct::bitcast between each float type and the integer type of its size, both ways.
#include "ops/ops_util.hpp"

namespace {
using namespace ct_test;

using ld = long double;

// ---- The model --------------------------------------------------------------------------------

// A binary float format: p significant bits, normal exponents [emin, emax], largest finite
// value, whether it saturates (fp8) instead of overflowing to infinity, ties away (tf32).
struct format {
  int p, emin, emax;
  ld max_finite;
  bool saturates = false, ties_away = false;
};
template <class T>
format format_of() {
  const auto f = [](int p, int emin, int emax, ld max, bool sat = false, bool away = false) {
    return format{p, emin, emax, max, sat, away};
  };
  if constexpr (std::is_same_v<T, double>) return f(53, -1022, 1023, std::numeric_limits<double>::max());
  else if constexpr (std::is_same_v<T, float>) return f(24, -126, 127, std::numeric_limits<float>::max());
  else if constexpr (std::is_same_v<T, ct::f16>) return f(11, -14, 15, 65504);
  else if constexpr (std::is_same_v<T, ct::bf16>) return f(8, -126, 127, std::ldexp(ld(255), 120));
  else if constexpr (std::is_same_v<T, ct::tf32>) return f(11, -126, 127, std::ldexp(ld(2047), 117), false, true);
  else if constexpr (std::is_same_v<T, ct::e4m3>) return f(4, -6, 8, 448, true);
  else return f(3, -14, 15, 57344, true);  // e5m2
}

// The exact value x rounded to the format.
ld round_to_format(ld x, const format& f) {
  if (std::isnan(x) || x == 0) return x;
  if (std::isinf(x)) return f.saturates ? std::copysign(f.max_finite, x) : x;
  const ld spacing = std::ldexp(ld(1), std::max(std::ilogb(x), f.emin) - (f.p - 1));
  const ld q = std::fabs(x) / spacing, fl = std::floor(q), rest = q - fl;
  ld m = rest > 0.5L ? fl + 1 : rest < 0.5L ? fl : f.ties_away ? fl + 1 : std::fmod(fl, 2) == 0 ? fl : fl + 1;
  ld r = std::copysign(m * spacing, x);
  if (std::fabs(r) > f.max_finite) r = f.saturates ? std::copysign(f.max_finite, x) : std::copysign(ld(INFINITY), x);
  return r;
}

// A value of element type T as an exact long double (every integer type fits its 64 bits).
template <class T>
ld exact(T x) {
  if constexpr (std::is_integral_v<T>) return ld(x);
  else return ld(to_f64(x));
}

// x (exact) converted to To by the rules of ct::astype.
template <class To>
To model_convert(ld x, bool from_float) {
  if constexpr (std::is_same_v<To, bool>) {
    return x != 0 || std::isnan(x);
  } else if constexpr (std::is_integral_v<To>) {
    if (from_float) return To(std::trunc(x));  // in range: the caller skips negatives to unsigned
    return wrap<To>(x < 0 ? std::uint64_t(std::int64_t(x)) : std::uint64_t(x));  // integers wrap
  } else {
    return ct::convert<To>(double(round_to_format(x, format_of<To>())));  // exact in double by now
  }
}

// ---- Kernels ----------------------------------------------------------------------------------

// fp8 bits -> fp8 -> f32 -> fp8 -> bits, for both fp8 types.
struct fp8_round_trip {
  static constexpr const char* name = "ops_fp8_round_trip";
  using S = ct::shape<256>;
  CT_TILE void operator()(ct::out<std::uint8_t, S> e4m3, ct::out<std::uint8_t, S> e5m2, ct::out<float, S> e4m3_value,
                          ct::out<float, S> e5m2_value, ct::in<std::uint8_t, 1> bits) const {
    const auto b = bits.load_like(e4m3);
    const auto x = ct::astype<float>(ct::bitcast<ct::e4m3>(b)), y = ct::astype<float>(ct::bitcast<ct::e5m2>(b));
    e4m3_value.store(x);
    e5m2_value.store(y);
    e4m3.store(ct::bitcast<std::uint8_t>(ct::astype<ct::e4m3>(x)));
    e5m2.store(ct::bitcast<std::uint8_t>(ct::astype<ct::e5m2>(y)));
  }
};

// From -> e4m3 and e5m2 bits.
template <class From>
struct to_fp8 {
  static constexpr const char* name = "ops_to_fp8";
  using S = ct::shape<1024>;
  CT_TILE void operator()(ct::out<std::uint8_t, S> e4m3, ct::out<std::uint8_t, S> e5m2, ct::in<From, 1> x) const {
    const auto t = x.load_like(e4m3);
    e4m3.store(ct::bitcast<std::uint8_t>(ct::astype<ct::e4m3>(t)));
    e5m2.store(ct::bitcast<std::uint8_t>(ct::astype<ct::e5m2>(t)));
  }
};

// 16-bit patterns -> f16 / bf16 -> f32 -> back -> bits.
struct half_round_trip {
  static constexpr const char* name = "ops_half_round_trip";
  using S = ct::shape<8, 128>;
  CT_TILE void operator()(ct::out<std::uint16_t, S> f16, ct::out<std::uint16_t, S> bf16,
                          ct::in<std::uint16_t, 2> bits) const {
    const auto b = bits.load_like(f16);
    f16.store(ct::bitcast<std::uint16_t>(ct::astype<ct::f16>(ct::astype<float>(ct::bitcast<ct::f16>(b)))));
    bf16.store(ct::bitcast<std::uint16_t>(ct::astype<ct::bf16>(ct::astype<float>(ct::bitcast<ct::bf16>(b)))));
  }
};

// From to each of the 16 element types.
template <class From>
struct cast_all {
  static constexpr const char* name = "ops_cast_all";
  using S = ct::shape<64>;
  template <class T>
  using o = ct::out<T, S>;
  CT_TILE void operator()(o<double> f64, o<float> f32, o<ct::f16> f16, o<ct::bf16> bf16, o<ct::tf32> tf32,
                          o<ct::e4m3> e4m3, o<ct::e5m2> e5m2, o<std::int8_t> i8, o<std::int16_t> i16,
                          o<std::int32_t> i32, o<std::int64_t> i64, o<std::uint8_t> u8, o<std::uint16_t> u16,
                          o<std::uint32_t> u32, o<std::uint64_t> u64, o<bool> b, ct::in<From, 1> x) const {
    const auto t = x.load_like(f64);
    f64.store(ct::astype<double>(t));
    f32.store(ct::astype<float>(t));
    f16.store(ct::astype<ct::f16>(t));
    bf16.store(ct::astype<ct::bf16>(t));
    tf32.store(ct::astype<ct::tf32>(t));
    e4m3.store(ct::astype<ct::e4m3>(t));
    e5m2.store(ct::astype<ct::e5m2>(t));
    i8.store(ct::astype<std::int8_t>(t));
    i16.store(ct::astype<std::int16_t>(t));
    i32.store(ct::astype<std::int32_t>(t));
    i64.store(ct::astype<std::int64_t>(t));
    u8.store(ct::astype<std::uint8_t>(t));
    u16.store(ct::astype<std::uint16_t>(t));
    u32.store(ct::astype<std::uint32_t>(t));
    u64.store(ct::astype<std::uint64_t>(t));
    b.store(ct::astype<bool>(t));
  }
};

// Each float type's bits through ct::bitcast, and back to an integer type of its size.
struct bitcasts {
  static constexpr const char* name = "ops_bitcasts";
  using S = ct::shape<128>;
  template <class T>
  using o = ct::out<T, S>;
  CT_TILE void operator()(o<float> f32, o<std::int32_t> i32, o<double> f64, o<std::uint64_t> u64, o<ct::f16> f16,
                          o<std::int16_t> i16, o<ct::bf16> bf16, o<std::uint16_t> u16, o<ct::e4m3> e4m3,
                          o<ct::e5m2> e5m2, o<std::int8_t> i8, o<ct::tf32> tf32, ct::in<std::uint32_t, 1> w32,
                          ct::in<std::int64_t, 1> w64, ct::in<std::uint16_t, 1> w16, ct::in<std::uint8_t, 1> w8) const {
    const auto a = w32.load_like(f32);
    const auto b = w64.load_like(f32);
    const auto c = w16.load_like(f32);
    const auto d = w8.load_like(f32);
    f32.store(ct::bitcast<float>(a));
    i32.store(ct::bitcast<std::int32_t>(ct::bitcast<float>(a)));
    f64.store(ct::bitcast<double>(b));
    u64.store(ct::bitcast<std::uint64_t>(ct::bitcast<double>(b)));
    f16.store(ct::bitcast<ct::f16>(c));
    i16.store(ct::bitcast<std::int16_t>(ct::bitcast<ct::bf16>(c)));
    bf16.store(ct::bitcast<ct::bf16>(c));
    u16.store(ct::bitcast<std::uint16_t>(ct::bitcast<ct::f16>(c)));
    e4m3.store(ct::bitcast<ct::e4m3>(d));
    e5m2.store(ct::bitcast<ct::e5m2>(d));
    i8.store(ct::bitcast<std::int8_t>(ct::bitcast<ct::e5m2>(d)));
    tf32.store(ct::bitcast<ct::tf32>(ct::bitcast<std::uint32_t>(ct::astype<ct::tf32>(ct::bitcast<float>(a)))));
  }
};

struct types : on_device {};

// The bits of each element (floats as their storage).
template <class T>
auto bits(const std::vector<T>& v) {
  using U = std::conditional_t<sizeof(T) == 1, std::uint8_t,
                               std::conditional_t<sizeof(T) == 2, std::uint16_t,
                                                  std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>>;
  std::vector<U> r(v.size());
  std::memcpy(r.data(), v.data(), v.size() * sizeof(T));
  return r;
}

template <class T>
bool is_nan_bits(std::uint8_t b) {
  return std::isnan(float(std::bit_cast<T>(b)));
}

// The expected fp8 bits for x: the model's value, encoded by searching the format's 256 patterns
// (NaN: any NaN pattern; zero keeps the sign).
template <class T>
std::uint8_t model_fp8_bits(ld x) {
  const ld r = round_to_format(x, format_of<T>());
  for (int b = 0; b < 256; ++b) {
    const ld v = ld(float(std::bit_cast<T>(std::uint8_t(b))));
    if (v == r && std::signbit(v) == std::signbit(r)) return std::uint8_t(b);
  }
  return 0xff;  // NaN (not compared bitwise)
}

// Compares fp8 bits, any NaN pattern matching any other.
template <class T>
::testing::AssertionResult same_fp8(const std::vector<std::uint8_t>& got, const std::vector<std::uint8_t>& want,
                                     const std::vector<double>& input) {
  std::size_t bad = 0;
  std::ostringstream first;
  first.precision(17);
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (got[i] == want[i] || (is_nan_bits<T>(got[i]) && is_nan_bits<T>(want[i]))) continue;
    if (++bad <= 5)
      first << "\n  " << input[i] << ": got 0x" << std::hex << int(got[i]) << ", expected 0x" << int(want[i]) << std::dec;
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << bad << " of " << got.size() << " conversions differ:" << first.str();
}

TEST_P(types, fp8_round_trips_every_pattern) {
  std::vector<std::uint8_t> all(256);
  for (int b = 0; b < 256; ++b) all[std::size_t(b)] = std::uint8_t(b);
  const auto x = tensor_of(all, {256}, dev());
  auto e4m3 = poisoned<std::uint8_t>({256}, dev()), e5m2 = poisoned<std::uint8_t>({256}, dev());
  auto e4m3_value = poisoned<float>({256}, dev()), e5m2_value = poisoned<float>({256}, dev());
  ct::launch(fp8_round_trip{}, e4m3.partition(ct::shape<256>{}), e5m2.partition(ct::shape<256>{}),
             e4m3_value.partition(ct::shape<256>{}), e5m2_value.partition(ct::shape<256>{}), x)
      .wait();
  // The decoded values: sign, exponent and mantissa fields by the formats' definitions.
  const auto decode = [](int b, int m_bits, int bias, bool has_inf) -> double {
    const int e = (b >> m_bits) & ((1 << (7 - m_bits)) - 1), m = b & ((1 << m_bits) - 1);
    const double sign = b & 0x80 ? -1 : 1;
    const int e_max = (1 << (7 - m_bits)) - 1;
    if (has_inf && e == e_max) return m ? NAN : sign * INFINITY;
    if (!has_inf && e == e_max && m == (1 << m_bits) - 1) return NAN;
    return sign * (e ? std::ldexp(1.0 + std::ldexp(m, -m_bits), e - bias) : std::ldexp(m, 1 - bias - m_bits));
  };
  EXPECT_TRUE(all_same(e4m3_value.to_host(), reference_of<float>(256, [&](std::size_t b) { return float(decode(int(b), 3, 7, false)); }), true))
      << "e4m3 -> f32";
  EXPECT_TRUE(all_same(e5m2_value.to_host(), reference_of<float>(256, [&](std::size_t b) { return float(decode(int(b), 2, 15, true)); }), true))
      << "e5m2 -> f32";
  // Back to fp8: every finite pattern returns unchanged, NaN stays NaN, e5m2's infinities
  // saturate to +-57344 (0x7b / 0xfb).
  const std::vector<double> input(all.begin(), all.end());
  EXPECT_TRUE(same_fp8<ct::e4m3>(e4m3.to_host(), all, input)) << "e4m3 -> f32 -> e4m3";
  auto want = all;
  want[0x7c] = 0x7b, want[0xfc] = 0xfb;
  EXPECT_TRUE(same_fp8<ct::e5m2>(e5m2.to_host(), want, input)) << "e5m2 -> f32 -> e5m2";
}

template <class From>
void check_to_fp8(const ct::device& dev, const std::vector<From>& v) {
  SCOPED_TRACE(cat(ct::dtype_name<From>(), " -> fp8, ", v.size(), " values"));
  const auto n = ct::index_t(v.size());
  const auto x = tensor_of(v, {n}, dev);
  auto e4m3 = poisoned<std::uint8_t>({n}, dev), e5m2 = poisoned<std::uint8_t>({n}, dev);
  ct::launch(to_fp8<From>{}, e4m3.partition(ct::shape<1024>{}), e5m2.partition(ct::shape<1024>{}), x).wait();
  std::vector<double> input;
  for (const From f : v) input.push_back(to_f64(f));
  const auto want = [&](auto model) { return reference_of<std::uint8_t>(v.size(), [&](std::size_t i) { return model(ld(input[i])); }); };
  EXPECT_TRUE(same_fp8<ct::e4m3>(e4m3.to_host(), want(model_fp8_bits<ct::e4m3>), input)) << "to e4m3";
  EXPECT_TRUE(same_fp8<ct::e5m2>(e5m2.to_host(), want(model_fp8_bits<ct::e5m2>), input)) << "to e5m2";
}

TEST_P(types, fp8_from_every_f16) {
  std::vector<ct::f16> all(65536);
  for (std::size_t b = 0; b < all.size(); ++b) all[b] = ct::f16::from_bits(std::uint16_t(b));
  check_to_fp8(dev(), all);
}

TEST_P(types, fp8_from_f32_midpoints_and_every_magnitude) {
  std::vector<float> v;
  for (const auto decode : {+[](std::uint8_t b) { return float(std::bit_cast<ct::e4m3>(b)); },
                            +[](std::uint8_t b) { return float(std::bit_cast<ct::e5m2>(b)); }}) {
    std::vector<float> finite;
    for (int b = 0; b < 256; ++b)
      if (std::isfinite(decode(std::uint8_t(b)))) finite.push_back(decode(std::uint8_t(b)));
    std::sort(finite.begin(), finite.end());
    for (std::size_t i = 0; i + 1 < finite.size(); ++i) {
      const float mid = float((double(finite[i]) + finite[i + 1]) / 2);  // exact in f32
      for (const float f : {mid, std::nextafter(mid, -INFINITY), std::nextafter(mid, INFINITY)}) v.push_back(f);
    }
  }
  auto gen = rng();
  for (int i = 0; i < 4000; ++i) v.push_back(std::ldexp(float(gen() % 100000) / 100000.0f, int(gen() % 40) - 25) * (gen() % 2 ? 1 : -1));
  for (const float f : {NAN, INFINITY, -INFINITY, 1e30f, -1e30f, 0.0f, -0.0f, 1e-30f, -1e-30f}) v.push_back(f);
  check_to_fp8(dev(), v);
}

TEST_P(types, f16_and_bf16_round_trip_every_pattern) {
  std::vector<std::uint16_t> all(65536);
  for (std::size_t b = 0; b < all.size(); ++b) all[b] = std::uint16_t(b);
  const auto x = tensor_of(all, {512, 128}, dev());
  auto f16 = poisoned<std::uint16_t>({512, 128}, dev()), bf16 = poisoned<std::uint16_t>({512, 128}, dev());
  ct::launch(half_round_trip{}, f16.partition(ct::shape<8, 128>{}), bf16.partition(ct::shape<8, 128>{}), x).wait();
  // Unchanged, except NaN patterns, which must stay NaN (their payload may be quieted).
  const auto check = [&](const ct::tensor<std::uint16_t>& got, auto is_nan, const char* what) {
    const auto g = got.to_host();
    std::size_t bad = 0;
    for (std::size_t b = 0; b < g.size(); ++b) bad += is_nan(std::uint16_t(b)) ? !is_nan(g[b]) : g[b] != b;
    EXPECT_EQ(bad, 0u) << what;
  };
  check(f16, [](std::uint16_t b) { return (b & 0x7c00) == 0x7c00 && (b & 0x3ff); }, "f16 -> f32 -> f16");
  check(bf16, [](std::uint16_t b) { return (b & 0x7f80) == 0x7f80 && (b & 0x7f); }, "bf16 -> f32 -> bf16");
}

// Inputs for cast_all from From: values every target can hold (floats in (-1, 128), so float ->
// int truncation is defined), plus values where rounding through f32 first would differ from
// rounding the exact value once.
template <class From>
std::vector<From> cast_input(std::size_t n) {
  std::vector<From> v;
  if constexpr (std::is_same_v<From, bool>) {
    for (std::size_t i = 0; i < n; ++i) v.push_back(i % 3 == 0);
  } else if constexpr (is_int_v<From>) {
    v = random_ints<From>(n, true);
    // Just above a bf16 tie (2^24 + 2^16 is one; + 1 makes it round up): f32 loses the + 1.
    if constexpr (sizeof(From) >= 4) v[n - 1] = From((1u << 24) + (1u << 16) + 1), v[n - 2] = From((1u << 30) + (1u << 22) + 1);
  } else {
    auto gen = rng();
    std::uniform_real_distribution<double> u(-0.99, 127.99);
    for (std::size_t i = 0; i < n; ++i) v.push_back(ct::convert<From>(u(gen)));
    v[0] = ct::convert<From>(-0.0), v[1] = ct::convert<From>(0.0), v[2] = ct::convert<From>(1.0);
    if constexpr (std::is_same_v<From, double>) {
      // Just above ties of f16, bf16, e4m3 and e5m2 at 1, and just below tf32's (which ties away
      // from zero): f32 would round each to the tie, and then the tie goes the wrong way.
      v[3] = 1 + 0x1p-11 + 0x1p-40, v[4] = 1 + 0x1p-8 + 0x1p-40, v[5] = 1 + 0x1p-11 - 0x1p-41;
      v[6] = 1 + 0x1p-4 + 0x1p-40, v[7] = 1 + 0x1p-3 + 0x1p-40, v[8] = -(1 + 0x1p-8 + 0x1p-40);
    }
  }
  return v;
}

template <class From>
void check_cast_all(const ct::device& dev) {
  SCOPED_TRACE(cat("from ", ct::dtype_name<From>()));
  constexpr std::size_t n = 200;
  const auto v = cast_input<From>(n);
  const auto x = tensor_of(v, {ct::index_t(n)}, dev);
  auto f64 = poisoned<double>({n}, dev);
  auto f32 = poisoned<float>({n}, dev);
  auto f16 = poisoned<ct::f16>({n}, dev);
  auto bf16 = poisoned<ct::bf16>({n}, dev);
  auto tf32 = poisoned<ct::tf32>({n}, dev);
  auto e4m3 = poisoned<ct::e4m3>({n}, dev);
  auto e5m2 = poisoned<ct::e5m2>({n}, dev);
  auto i8 = poisoned<std::int8_t>({n}, dev);
  auto i16 = poisoned<std::int16_t>({n}, dev);
  auto i32 = poisoned<std::int32_t>({n}, dev);
  auto i64 = poisoned<std::int64_t>({n}, dev);
  auto u8 = poisoned<std::uint8_t>({n}, dev);
  auto u16 = poisoned<std::uint16_t>({n}, dev);
  auto u32 = poisoned<std::uint32_t>({n}, dev);
  auto u64 = poisoned<std::uint64_t>({n}, dev);
  auto b = ct::full<bool>({n}, true, dev);
  using S = ct::shape<64>;
  ct::launch(cast_all<From>{}, f64.partition(S{}), f32.partition(S{}), f16.partition(S{}), bf16.partition(S{}),
             tf32.partition(S{}), e4m3.partition(S{}), e5m2.partition(S{}), i8.partition(S{}), i16.partition(S{}),
             i32.partition(S{}), i64.partition(S{}), u8.partition(S{}), u16.partition(S{}), u32.partition(S{}),
             u64.partition(S{}), b.partition(S{}), x)
      .wait();
  const auto expect = [&](const auto& got) {
    using To = typename std::decay_t<decltype(got)>::element_type;
    // A negative float converted to an unsigned type is out of range, which docs/numerics.md
    // leaves undefined (as C++ does; the GPU saturates to 0): those elements are not compared.
    const auto skip = [&](std::size_t i) {
      return std::is_unsigned_v<To> && !std::is_same_v<To, bool> && ct::is_floating_v<From> && exact(v[i]) < 0;
    };
    const auto all = got.to_host();
    std::vector<To> kept, want;
    for (std::size_t i = 0; i < n; ++i) {
      if (skip(i)) continue;
      kept.push_back(all[i]);
      want.push_back(model_convert<To>(exact(v[i]), ct::is_floating_v<From>));
    }
    EXPECT_TRUE(all_same(kept, want, true)) << "to " << ct::dtype_name<To>();
  };
  expect(f64), expect(f32), expect(f16), expect(bf16), expect(tf32), expect(e4m3), expect(e5m2);
  expect(i8), expect(i16), expect(i32), expect(i64), expect(u8), expect(u16), expect(u32), expect(u64), expect(b);
}

TEST_P(types, astype_between_all_types) {
  using all = type_list<double, float, ct::f16, ct::bf16, ct::tf32, ct::e4m3, ct::e5m2, std::int8_t, std::int16_t,
                        std::int32_t, std::int64_t, std::uint8_t, std::uint16_t, std::uint32_t, std::uint64_t, bool>;
  for_each_type(all{}, [&]<class From>() { check_cast_all<From>(dev()); });
}

TEST_P(types, bitcast_to_and_from_integers) {
  constexpr std::size_t n = 300;
  auto gen = rng();
  std::vector<std::uint32_t> w32(n);
  std::vector<std::int64_t> w64(n);
  std::vector<std::uint16_t> w16(n);
  std::vector<std::uint8_t> w8(n);
  for (std::size_t i = 0; i < n; ++i)
    w32[i] = std::uint32_t(gen()), w64[i] = std::int64_t(gen()), w16[i] = std::uint16_t(gen()), w8[i] = std::uint8_t(gen());
  w32[0] = 0x7fc00001u, w32[1] = 0x80000000u, w16[0] = 0x7e01, w16[1] = 0x8000, w8[0] = 0x7f, w8[1] = 0xfd;  // NaNs, -0
  const auto t32 = tensor_of(w32, {n}, dev());
  const auto t64 = tensor_of(w64, {n}, dev());
  const auto t16 = tensor_of(w16, {n}, dev());
  const auto t8 = tensor_of(w8, {n}, dev());
  auto f32 = poisoned<float>({n}, dev());
  auto i32 = poisoned<std::int32_t>({n}, dev());
  auto f64 = poisoned<double>({n}, dev());
  auto u64 = poisoned<std::uint64_t>({n}, dev());
  auto f16 = poisoned<ct::f16>({n}, dev());
  auto i16 = poisoned<std::int16_t>({n}, dev());
  auto bf16 = poisoned<ct::bf16>({n}, dev());
  auto u16 = poisoned<std::uint16_t>({n}, dev());
  auto e4m3 = poisoned<ct::e4m3>({n}, dev());
  auto e5m2 = poisoned<ct::e5m2>({n}, dev());
  auto i8 = poisoned<std::int8_t>({n}, dev());
  auto tf32 = poisoned<ct::tf32>({n}, dev());
  using S = ct::shape<128>;
  ct::launch(bitcasts{}, f32.partition(S{}), i32.partition(S{}), f64.partition(S{}), u64.partition(S{}),
             f16.partition(S{}), i16.partition(S{}), bf16.partition(S{}), u16.partition(S{}), e4m3.partition(S{}),
             e5m2.partition(S{}), i8.partition(S{}), tf32.partition(S{}), t32, t64, t16, t8)
      .wait();
  const auto as = [](const auto& v, auto to) {
    std::vector<decltype(to)> r(v.size());
    std::memcpy(r.data(), v.data(), v.size() * sizeof(decltype(to)));
    return r;
  };
  EXPECT_EQ(bits(f32.to_host()), w32) << "bitcast<f32>(uint32)";
  EXPECT_EQ(i32.to_host(), as(w32, std::int32_t{})) << "bitcast<int32>(bitcast<f32>(uint32))";
  EXPECT_EQ(bits(f64.to_host()), as(w64, std::uint64_t{})) << "bitcast<f64>(int64)";
  EXPECT_EQ(u64.to_host(), as(w64, std::uint64_t{})) << "bitcast<uint64>(bitcast<f64>(int64))";
  EXPECT_EQ(bits(f16.to_host()), w16) << "bitcast<f16>(uint16)";
  EXPECT_EQ(i16.to_host(), as(w16, std::int16_t{})) << "bitcast<int16>(bitcast<bf16>(uint16))";
  EXPECT_EQ(bits(bf16.to_host()), w16) << "bitcast<bf16>(uint16)";
  EXPECT_EQ(u16.to_host(), w16) << "bitcast<uint16>(bitcast<f16>(uint16))";
  EXPECT_EQ(bits(e4m3.to_host()), w8) << "bitcast<e4m3>(uint8)";
  EXPECT_EQ(bits(e5m2.to_host()), w8) << "bitcast<e5m2>(uint8)";
  EXPECT_EQ(i8.to_host(), as(w8, std::int8_t{})) << "bitcast<int8>(bitcast<e5m2>(uint8))";
  // tf32 round trip: bitcast<tf32>(bitcast<uint32>(astype<tf32>(f))) holds astype<tf32>(f)'s bits.
  const auto ht = bits(tf32.to_host());
  std::size_t bad = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const float f = std::bit_cast<float>(w32[i]);
    const float want = std::isfinite(f) ? float(round_to_format(ld(f), format_of<ct::tf32>())) : f;
    bad += std::isnan(f) ? !std::isnan(std::bit_cast<float>(ht[i])) : ht[i] != std::bit_cast<std::uint32_t>(want);
  }
  EXPECT_EQ(bad, 0u) << "tf32 bits through bitcast";
}

CT_INSTANTIATE_ON_DEVICES(types);

}  // namespace
