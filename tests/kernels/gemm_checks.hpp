// The float64 reference and the checks that the GEMM test files share (gemm_test.cpp,
// gemm_bf16_test.cpp): small-integer inputs (exact), random ones (within f32 accumulation
// error), the shapes they run on. Two files, so that nvcc builds the GEMM's many kernels in two
// halves side by side (one file was the last object of CI's build, alone on one core).
#pragma once
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <ctile/kernels.hpp>

#include "common/test_util.hpp"

namespace gemm_test {
using namespace ct_test;
namespace kn = ct::kernels;
using ct::index_t;

struct dims {
  index_t b, m, n, k;
};
inline std::string name_of(const dims& d) {
  return std::to_string(d.b) + "x" + std::to_string(d.m) + "x" + std::to_string(d.n) + "x" + std::to_string(d.k);
}

// Integers in [-4, 4], as T.
template <class T>
ct::tensor<T> small_ints(const ct::extents_t& e, const ct::device& dev) {
  std::mt19937_64 rng(fresh_seed());
  std::uniform_int_distribution<int> pick(-4, 4);
  std::vector<T> v(std::size_t(ct::detail::element_count(e, "small_ints")));
  for (auto& x : v) x = ct::convert<T>(float(pick(rng)));
  return ct::from_host(v, e, dev);
}

template <class T>
ct::tensor<T> random(const ct::extents_t& e, const ct::device& dev) {
  return ct::randn<T>(e, fresh_seed(), 1.0, dev);
}

// Row-major float64 values of a as [B, M, K] and b as [B, K, N] (2-D tensors count as B = 1):
// c[i, j] = sum_k a[i, k] b[k, j], and the same sum of absolute values (the error scale).
struct product {
  std::vector<double> c, scale;
};
inline product reference_product(const std::vector<double>& a, const std::vector<double>& b, const dims& d) {
  product r{std::vector<double>(std::size_t(d.b * d.m * d.n)), std::vector<double>(std::size_t(d.b * d.m * d.n))};
  for (index_t q = 0; q < d.b; ++q)
    for (index_t i = 0; i < d.m; ++i)
      for (index_t j = 0; j < d.n; ++j) {
        double s = 0, abs_s = 0;
        for (index_t k = 0; k < d.k; ++k) {
          const double p = a[std::size_t((q * d.m + i) * d.k + k)] * b[std::size_t((q * d.k + k) * d.n + j)];
          s += p;
          abs_s += std::fabs(p);
        }
        r.c[std::size_t((q * d.m + i) * d.n + j)] = s;
        r.scale[std::size_t((q * d.m + i) * d.n + j)] = abs_s;
      }
  return r;
}

inline ct::extents_t batched(const dims& d, index_t rows, index_t cols) {
  return d.b == 0 ? ct::extents_t{rows, cols} : ct::extents_t{d.b, rows, cols};
}
inline dims counted(dims d) {
  if (d.b == 0) d.b = 1;
  return d;
}

// Within f32 accumulation error (K roundings of partial sums of size `scale`) plus one
// rounding to TC.
template <class TC>
::testing::AssertionResult close_to(const std::vector<double>& got, const std::vector<double>& want,
                                    const std::vector<double>& scale, index_t k) {
  const double acc = 2.0 * double(k + 2) * unit_roundoff<float>();
  std::size_t bad = 0;
  std::ostringstream first;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double bound = acc * scale[i] * 1.01 + 2 * unit_roundoff<TC>() * std::fabs(want[i]) + 1e-30;
    if (std::fabs(got[i] - want[i]) <= bound) continue;
    if (++bad <= 5) first << "\n  [" << i << "] got " << got[i] << ", expected " << want[i] << " (bound " << bound << ")";
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << bad << " of " << got.size() << " elements out of bounds:" << first.str();
}

// d.b == 0: 2-D operands; else batched. The last: M = 1 over four N tiles (on Hopper the
// tensor-core tiles in clusters, mostly padding).
inline const std::vector<dims> shapes = {{0, 1, 1, 1},   {0, 1, 64, 256}, {0, 7, 13, 5},   {0, 16, 65, 129}, {0, 65, 63, 33},
                                  {0, 129, 131, 67}, {0, 127, 257, 31}, {0, 64, 8, 97}, {3, 17, 9, 40},
                                  {2, 130, 128, 64}, {0, 1, 512, 136}};

// Shapes for the tensor-core path (sm_90a: 128 x 128 x 64 tiles staged by cp.async when rows are
// 16-byte aligned): several K trips, a partial last K tile, M and N off the tile, batches, and
// one misaligned case (K = 100) that stages element by element. With an even count of N tiles
// (2 x 136 x 256, 392 x 500) the clustered configuration pairs CTAs along N.
inline const std::vector<dims> tensor_core_shapes = {{0, 200, 264, 328}, {0, 256, 128, 1024}, {2, 136, 256, 192},
                                              {0, 17, 128, 64},   {0, 128, 8, 64},     {0, 130, 136, 100},
                                              {0, 392, 500, 392}};

template <class T, class TC>
void check_exact_on(const ct::device& dev, const std::vector<dims>& list,
                    kn::gemm_tiling tiles = kn::gemm_tiling::automatic) {
  for (const dims& d : list) {
    SCOPED_TRACE(name_of(d) + " " + ct::dtype_name<T>() + " -> " + ct::dtype_name<TC>() + " tiles " +
                 std::to_string(int(tiles)));
    const dims dc = counted(d);
    const auto a = small_ints<T>(batched(d, d.m, d.k), dev), b = small_ints<T>(batched(d, d.k, d.n), dev);
    auto c = poisoned<TC>(batched(d, d.m, d.n), dev);
    kn::gemm_args<TC> args;
    args.tiles = tiles;
    kn::gemm(ct::default_stream(dev), c, a, b, args).wait();
    const auto want = reference_product(host_f64(a), host_f64(b), dc).c;
    EXPECT_TRUE(all_equal(host_f64(c), reference(want.size(), [&](std::size_t i) { return round_to<TC>(want[i]); })));
  }
}


template <class T, class TC>
void check_random(const ct::device& dev, const dims& d) {
  SCOPED_TRACE(name_of(d) + " " + ct::dtype_name<T>() + " -> " + ct::dtype_name<TC>());
  const auto a = random<T>(batched(d, d.m, d.k), dev), b = random<T>(batched(d, d.k, d.n), dev);
  auto c = poisoned<TC>(batched(d, d.m, d.n), dev);
  kn::gemm(ct::default_stream(dev), c, a, b).wait();
  const auto want = reference_product(host_f64(a), host_f64(b), counted(d));
  EXPECT_TRUE(close_to<TC>(host_f64(c), want.c, want.scale, d.k));
  // Reruns give the same bits.
  auto again = poisoned<TC>(batched(d, d.m, d.n), dev);
  kn::gemm(ct::default_stream(dev), again, a, b).wait();
  EXPECT_TRUE(all_equal(host_f64(again), host_f64(c)));
}

}  // namespace gemm_test
