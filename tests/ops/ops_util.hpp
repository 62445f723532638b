// Helpers shared by the op tests (tests/ops/): integer inputs from std::mt19937_64 with the edge
// values of each type planted among them, float inputs with NaN / inf / signed zeros planted,
// the standard ragged tensor extents for a tile shape, exact comparisons of native element
// values (integers bit for bit, floats with NaN matching NaN and optionally the sign of zero),
// wrapping integer arithmetic for references, and the tile regimes the tests sweep.
#pragma once
#include <bit>
#include <cstring>
#include <random>
#include <type_traits>

#include "common/test_util.hpp"

namespace ct_test {

// ---- Names ------------------------------------------------------------------------------------

// Built with a stream: GCC 12's -Wrestrict misfires on chains of std::string operator+ at -O3.
template <class S>
std::string shape_name() {
  std::ostringstream r;
  r << "shape<";
  for (int i = 0; i < S::rank; ++i) r << (i ? "," : "") << S::dim(i);
  r << ">";
  return r.str();
}
// The arguments streamed into one string (for SCOPED_TRACE and failure messages).
template <class... A>
std::string cat(const A&... a) {
  std::ostringstream r;
  (r << ... << a);
  return r.str();
}

// "f32 shape<16,16> over [31, 37]": what a SCOPED_TRACE of one checked case says.
template <class T, class S>
std::string case_name(const ct::extents_t& extents = {}) {
  std::ostringstream r;
  r << ct::dtype_name<T>() << " " << shape_name<S>();
  if (!extents.empty()) r << " over " << ct::detail::format_extents(extents);
  return r.str();
}

// ---- Extents ----------------------------------------------------------------------------------

// A tensor extent that is not a multiple of the tile extent d (a prime where it can be), so a
// partition of it has full tiles and a clipped last tile.
constexpr ct::index_t ragged_extent(int d) {
  switch (d) {
    case 1: return 7;
    case 2: return 5;
    case 4: return 31;
    case 8: return 17;
    case 16: return 31;
    case 32: return 37;
    case 64: return 67;
    case 128: return 257;
    case 256: return 257;
    default: return ct::index_t(d) + 5;  // 8192 -> 8197
  }
}
template <class S>
ct::extents_t ragged_extents() {
  ct::extents_t e;
  for (int i = 0; i < S::rank; ++i) e.push_back(ragged_extent(S::dim(i)));
  return e;
}
inline std::size_t element_count(const ct::extents_t& e) {
  std::size_t n = 1;
  for (auto x : e) n *= std::size_t(x);
  return n;
}

// ---- Native values ----------------------------------------------------------------------------

template <class T>
inline constexpr bool is_int_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// A value as it prints in a failure message (int8 as a number, halves as their float value).
template <class T>
auto printable(T x) {
  if constexpr (std::is_same_v<T, bool>) return x ? "true" : "false";
  else if constexpr (std::is_integral_v<T>) return (long long)x;  // uint64 above 2^63 shows negative; the
                                                                  // bits are what matter
  else return to_f64(x);
}

// The value test_util's poisoned() fills outputs with.
template <class T>
T poison_value() {
  if constexpr (ct::is_floating_v<T>) return ct::convert<T>(NAN);
  else return std::numeric_limits<T>::min();
}

// Exact equality of two element values: integers and bools bit for bit; floats by value, NaN
// matching NaN, and -0 differing from +0 when `signed_zero`.
template <class T>
bool same_value(T a, T b, bool signed_zero = false) {
  if constexpr (std::is_integral_v<T>) {
    return a == b;
  } else {
    const double x = to_f64(a), y = to_f64(b);
    if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
    return x == y && (!signed_zero || std::signbit(x) == std::signbit(y));
  }
}

// Whether `got` equals `ref` element for element (see same_value); on failure, how many differ
// and the first few, with their flat index.
template <class T>
::testing::AssertionResult all_same(const std::vector<T>& got, const std::vector<T>& ref, bool signed_zero = false) {
  if (got.size() != ref.size())
    return ::testing::AssertionFailure() << "got " << got.size() << " elements, expected " << ref.size();
  std::size_t bad = 0;
  std::ostringstream first;
  first.precision(17);
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (same_value(got[i], ref[i], signed_zero)) continue;
    if (++bad <= 5) first << "\n  [" << i << "] got " << printable(got[i]) << ", expected " << printable(ref[i]);
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << bad << " of " << got.size() << " elements differ:" << first.str();
}

// Whether |got[i] - ref[i]| <= bound[i] everywhere (NaN matching NaN): comparisons whose error
// bound differs per element, such as a dot product's (a multiple of sum |a_k * b_k|).
inline ::testing::AssertionResult all_within(const std::vector<double>& got, const std::vector<double>& ref,
                                             const std::vector<double>& bound) {
  if (got.size() != ref.size() || bound.size() != ref.size())
    return ::testing::AssertionFailure() << "got " << got.size() << " elements, expected " << ref.size();
  std::size_t bad = 0;
  std::ostringstream first;
  first.precision(17);
  for (std::size_t i = 0; i < got.size(); ++i) {
    const bool ok = got[i] == ref[i] || (std::isnan(got[i]) && std::isnan(ref[i])) || std::fabs(got[i] - ref[i]) <= bound[i];
    if (ok) continue;
    if (++bad <= 5) first << "\n  [" << i << "] got " << got[i] << ", expected " << ref[i] << " +- " << bound[i];
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << bad << " of " << got.size() << " elements are off:" << first.str();
}

// ref[i] = f(i) as a vector of T.
template <class T, class F>
std::vector<T> reference_of(std::size_t n, F f) {
  std::vector<T> r(n);
  for (std::size_t i = 0; i < n; ++i) r[i] = f(i);
  return r;
}

// x rounded to T (identity for f64): the value a correctly rounded op in T gives.
template <class T>
double rounded(double x) {
  if constexpr (std::is_same_v<T, double>) return x;
  else return round_to<T>(x);
}

// ---- Wrapping integer arithmetic (the reference side of ctile's two's-complement rules) ------

template <class T>
T wrap(std::uint64_t x) {
  using U = std::make_unsigned_t<T>;
  return std::bit_cast<T>(U(x));
}
template <class T>
std::uint64_t bits_of(T x) {
  return std::uint64_t(std::make_unsigned_t<T>(x));
}
template <class T>
T wrapping_add(T a, T b) { return wrap<T>(bits_of(a) + bits_of(b)); }
template <class T>
T wrapping_sub(T a, T b) { return wrap<T>(bits_of(a) - bits_of(b)); }
template <class T>
T wrapping_mul(T a, T b) { return wrap<T>(bits_of(a) * bits_of(b)); }
template <class T>
T wrapping_neg(T a) { return wrap<T>(0 - bits_of(a)); }

// ---- Random inputs ----------------------------------------------------------------------------

inline std::mt19937_64 rng() { return std::mt19937_64(fresh_seed()); }

// The values of T that break careless integer code: 0, +-1, the extremes and their neighbours.
template <class T>
std::vector<T> edge_ints() {
  using L = std::numeric_limits<T>;
  if constexpr (std::is_signed_v<T>)
    return {T(0), T(1), T(2), L::max(), T(L::max() - 1), T(7), T(-1), T(-2), L::min(), T(L::min() + 1), T(-7)};
  else return {T(0), T(1), T(2), L::max(), T(L::max() - 1), T(7)};
}

// n random values of the integer type T: the first edge^2 elements of `a` and `b` (made by
// two calls with first = true / false) pair every edge value with every other, the rest are a
// mix of uniform values over T's whole range, small values, and edge values.
template <class T>
std::vector<T> random_ints(std::size_t n, bool first_operand) {
  const auto edges = edge_ints<T>();
  auto gen = rng();
  std::vector<T> v(n);
  std::uniform_int_distribution<std::int64_t> small(-20, 20);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t pair = edges.size() * edges.size();
    if (i < pair) {
      v[i] = edges[first_operand ? i / edges.size() : i % edges.size()];
      continue;
    }
    switch (gen() % 4) {
      case 0: v[i] = edges[gen() % edges.size()]; break;
      case 1: v[i] = T(std::is_signed_v<T> ? small(gen) : small(gen) + 20); break;
      default: v[i] = T(gen()); break;  // uniform over T's bits
    }
  }
  return v;
}

// n shift counts for T: every count in [-2, bits + 2] (only >= 0 for unsigned T), then a mix of
// in-range counts and arbitrary values of T.
template <class T>
std::vector<T> shift_counts(std::size_t n) {
  constexpr int bits = int(sizeof(T) * 8);
  const int lo = std::is_signed_v<T> ? -2 : 0;
  auto gen = rng();
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (i < std::size_t(bits + 3 - lo)) v[i] = T(lo + int(i));
    else v[i] = gen() % 2 ? T(int(gen() % unsigned(bits))) : T(gen());
  }
  return v;
}

// Float values on a grid of 1/8 of scale `stddev` (so sums, differences and products of two are
// exact in f32), with the specials NaN, +-inf, +-0 at the front when `specials`.
template <class T>
std::vector<T> random_floats(std::size_t n, double stddev, bool specials) {
  auto gen = rng();
  std::normal_distribution<double> normal(0.0, stddev);
  std::vector<T> v(n);
  const double special[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, 1.0, -1.0};
  for (std::size_t i = 0; i < n; ++i) {
    const double x = specials && i < std::size(special) ? special[i] : std::round(normal(gen) * 8) / 8;
    v[i] = ct::convert<T>(x);
  }
  return v;
}

// The flat indices of each line along `axis` of a row-major tensor, lines in row-major order of
// the other axes (the order of the reduced output).
inline std::vector<std::vector<std::size_t>> lines_along(const ct::extents_t& e, int axis) {
  const int rank = int(e.size());
  std::vector<std::size_t> stride(e.size(), 1);
  for (int i = rank - 2; i >= 0; --i) stride[std::size_t(i)] = stride[std::size_t(i + 1)] * std::size_t(e[std::size_t(i + 1)]);
  std::vector<std::vector<std::size_t>> lines;
  const std::size_t total = element_count(e);
  for (std::size_t f = 0; f < total; ++f) {
    if ((f / stride[std::size_t(axis)]) % std::size_t(e[std::size_t(axis)]) != 0) continue;  // not a line start
    std::vector<std::size_t> line;
    for (ct::index_t j = 0; j < e[std::size_t(axis)]; ++j) line.push_back(f + std::size_t(j) * stride[std::size_t(axis)]);
    lines.push_back(line);
  }
  return lines;
}

// Powers of two, mostly +-1 (ties everywhere), 4, 2, 1/2, 1/4 now and then: sums and products of
// thousands are exact in f32 in any order (the product's exponent walks slowly enough to stay in
// range). Integers get 0, 1, 2, 4 (negated for signed types) and, rarely, arbitrary values.
template <class T>
std::vector<T> powers_of_two(std::size_t n) {
  auto gen = rng();
  std::vector<T> v(n);
  for (auto& x : v) {
    const int r = int(gen() % 64);
    const double magnitude = r < 1 ? 4 : r < 2 ? 0.25 : r < 4 ? 2 : r < 6 ? 0.5 : 1;
    const bool negative = (std::is_signed_v<T> || ct::is_floating_v<T>) && gen() % 2;
    x = ct::convert<T>(negative ? -magnitude : magnitude);
    if constexpr (is_int_v<T>)
      if (r == 63) x = T(gen());
  }
  return v;
}

template <class T>
ct::tensor<T> tensor_of(const std::vector<T>& v, const ct::extents_t& extents, const ct::device& dev) {
  return ct::from_host(v, extents, dev);
}

// ---- Type lists -------------------------------------------------------------------------------

template <class... T>
struct type_list {};

// Calls f.template operator()<T>() for each T of the list.
template <class F, class... T>
void for_each_type(type_list<T...>, F f) {
  (f.template operator()<T>(), ...);
}

using signed_ints = type_list<std::int8_t, std::int16_t, std::int32_t, std::int64_t>;
using unsigned_ints = type_list<std::uint8_t, std::uint16_t, std::uint32_t, std::uint64_t>;

}  // namespace ct_test
