// ct::kernels::gemm against a float64 reference: exact on small-integer inputs (every product and
// sum is exact in the f32 accumulator, so only the final rounding to the output type remains),
// within f32 accumulation error on random ones; ragged and degenerate shapes (1, primes, sizes on
// either side of both tile configurations), batched, column-major operands, the epilogue (alpha,
// beta * residual, bias, activations), tf32 only when asked, bitwise reruns, and the argument
// errors. Also: ct::pipelined gives the same bits as the plain loop it stands for.
#include <random>

#include <ctile/kernels.hpp>

#include "common/test_util.hpp"

namespace {
using namespace ct_test;
namespace kn = ct::kernels;
using ct::index_t;

struct gemm : on_device {};

struct dims {
  index_t b, m, n, k;
};
std::string name_of(const dims& d) {
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
product reference_product(const std::vector<double>& a, const std::vector<double>& b, const dims& d) {
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

ct::extents_t batched(const dims& d, index_t rows, index_t cols) {
  return d.b == 0 ? ct::extents_t{rows, cols} : ct::extents_t{d.b, rows, cols};
}
dims counted(dims d) {
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
const std::vector<dims> shapes = {{0, 1, 1, 1},   {0, 1, 64, 256}, {0, 7, 13, 5},   {0, 16, 65, 129}, {0, 65, 63, 33},
                                  {0, 129, 131, 67}, {0, 127, 257, 31}, {0, 64, 8, 97}, {3, 17, 9, 40},
                                  {2, 130, 128, 64}, {0, 1, 512, 136}};

// Shapes for the tensor-core path (sm_90a: 128 x 128 x 64 tiles staged by cp.async when rows are
// 16-byte aligned): several K trips, a partial last K tile, M and N off the tile, batches, and
// one misaligned case (K = 100) that stages element by element. With an even count of N tiles
// (2 x 136 x 256, 392 x 500) the clustered configuration pairs CTAs along N.
const std::vector<dims> tensor_core_shapes = {{0, 200, 264, 328}, {0, 256, 128, 1024}, {2, 136, 256, 192},
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

TEST_P(gemm, small_integers_are_exact_bf16_to_bf16) { check_exact_on<ct::bf16, ct::bf16>(dev(), shapes); }
TEST_P(gemm, small_integers_are_exact_f16_to_f32) { check_exact_on<ct::f16, float>(dev(), shapes); }
TEST_P(gemm, small_integers_are_exact_f32_to_f16) { check_exact_on<float, ct::f16>(dev(), shapes); }
TEST_P(gemm, tensor_core_shapes_are_exact) {
  check_exact_on<ct::bf16, ct::bf16>(dev(), tensor_core_shapes);
  check_exact_on<ct::f16, float>(dev(), tensor_core_shapes);
}

// Each tensor-core configuration by name, on a Hopper GPU (automatic picks one of them); on
// other devices naming one is refused with a message, and the output is left alone.
TEST_P(gemm, tensor_core_configurations_by_name) {
  const bool hopper = dev().is_cuda() && dev().compute_capability() == 90;
  for (const auto tiles : {kn::gemm_tiling::wgmma, kn::gemm_tiling::wgmma_paired, kn::gemm_tiling::wgmma_cluster,
                           kn::gemm_tiling::wgmma_producer, kn::gemm_tiling::wgmma_producer_cluster,
                           kn::gemm_tiling::wgmma_wide}) {
    if (hopper) {
      check_exact_on<ct::bf16, ct::bf16>(dev(), tensor_core_shapes, tiles);
      check_exact_on<ct::f16, float>(dev(), {{0, 136, 128, 72}, {0, 200, 264, 328}}, tiles);
      continue;
    }
    const auto a = small_ints<ct::bf16>({8, 16}, dev()), b = small_ints<ct::bf16>({16, 4}, dev());
    auto c = poisoned<ct::bf16>({8, 4}, dev());
    kn::gemm_args<ct::bf16> args;
    args.tiles = tiles;
    EXPECT_THAT([&] { kn::gemm(ct::default_stream(dev()), c, a, b, args).wait(); },
                ThrowsMessage<ct::error>(HasSubstr("tensor-core tiles need bf16 or f16 inputs and a Hopper GPU")));
    EXPECT_TRUE(std::isnan(host_f64(c)[0])) << "the refused call wrote its output";
  }
}

// The producer configurations' persistent grid: more CTAs' worth of tiles than a Hopper GPU has
// SMs (162 and 135 here, on 132 SMs), so that CTAs run several tiles through one ring, with an
// odd count of tiles along M (the last CTA's second tile block past the end) and along N (with
// clusters, the last pair's second CTA past the end), ragged edges, a partial K tile and
// batches. Random inputs against the float64 product, and reruns bitwise.
TEST_P(gemm, producer_runs_several_tiles_per_cta) {
  if (!(dev().is_cuda() && dev().compute_capability() == 90)) GTEST_SKIP() << "needs a Hopper GPU";
  for (const auto tiles : {kn::gemm_tiling::wgmma_producer, kn::gemm_tiling::wgmma_producer_cluster,
                           kn::gemm_tiling::wgmma_wide})
  for (const dims& d : {dims{0, 2100, 2200, 136}, dims{5, 520, 1100, 64}, dims{0, 2100, 1900, 200}}) {
    SCOPED_TRACE(name_of(d) + (tiles == kn::gemm_tiling::wgmma_producer           ? " producer"
                               : tiles == kn::gemm_tiling::wgmma_producer_cluster ? " producer, clusters"
                                                                                  : " wide"));
    const auto a = random<ct::bf16>(batched(d, d.m, d.k), dev()), b = random<ct::bf16>(batched(d, d.k, d.n), dev());
    kn::gemm_args<float> args;
    args.tiles = tiles;
    auto c = poisoned<float>(batched(d, d.m, d.n), dev()), again = poisoned<float>(batched(d, d.m, d.n), dev());
    kn::gemm(ct::default_stream(dev()), c, a, b, args).wait();
    kn::gemm(ct::default_stream(dev()), again, a, b, args).wait();
    const auto want = reference_product(host_f64(a), host_f64(b), counted(d));
    EXPECT_TRUE(close_to<float>(host_f64(c), want.c, want.scale, d.k));
    EXPECT_TRUE(all_equal(host_f64(again), host_f64(c)));
  }
}

// The same operands as contiguous tensors (on Hopper: staged by TMA) and as views with odd
// row strides (staged element by element by the threads) give the same bits, and the product.
TEST_P(gemm, tma_and_thread_staging_give_the_same_bits) {
  for (const dims& d : {dims{0, 200, 264, 328}, dims{2, 136, 256, 192}}) {
    SCOPED_TRACE(name_of(d));
    const auto a_wide = random<ct::bf16>(batched(d, d.m, d.k + 1), dev());
    const auto b_wide = random<ct::bf16>(batched(d, d.k, d.n + 1), dev());
    const int last = d.b == 0 ? 1 : 2;
    const auto a_odd = a_wide.slice(last, 0, d.k), b_odd = b_wide.slice(last, 0, d.n);
    const auto a = a_odd.clone(), b = b_odd.clone();
    auto by_tma = poisoned<ct::bf16>(batched(d, d.m, d.n), dev()), by_threads = poisoned<ct::bf16>(batched(d, d.m, d.n), dev());
    auto by_copies = poisoned<ct::bf16>(batched(d, d.m, d.n), dev());
    kn::gemm(ct::default_stream(dev()), by_tma, a, b).wait();
    // Named, the configuration takes the odd rows as they are (its threads stage them); left to
    // the heuristic, they are first copied onto 16-byte rows (kn::detail::copy_on_16_bytes).
    kn::gemm_args<ct::bf16> named;
    named.tiles = kn::detail::gemm_use_wgmma(dev()) ? kn::gemm_tiling::wgmma_producer : kn::gemm_tiling::automatic;
    kn::gemm(ct::default_stream(dev()), by_threads, a_odd, b_odd, named).wait();
    kn::gemm(ct::default_stream(dev()), by_copies, a_odd, b_odd).wait();
    EXPECT_TRUE(all_equal(host_f64(by_threads), host_f64(by_tma)));
    EXPECT_TRUE(all_equal(host_f64(by_copies), host_f64(by_tma)));
    const auto want = reference_product(host_f64(a), host_f64(b), counted(d));
    EXPECT_TRUE(close_to<ct::bf16>(host_f64(by_tma), want.c, want.scale, d.k));
  }
}

// A pipelined product whose trip count differs between neighbouring tiles along N (odd tiles
// skip the last K tile), declared with clusters along N: on Hopper the two CTAs of a cluster
// disagree on the trip count, so neither may multicast its A tiles to the other.
struct uneven_trips {
  static constexpr const char* name = "test_uneven_trips";
  static constexpr std::size_t shared_bytes = 2 * ct::pipeline_shared_bytes;
  static constexpr ct::co_schedule co_schedule{1, 2, 2, 2};
  CT_TILE void operator()(ct::out<float, ct::shape<1, 128, 128>> c, ct::in<ct::bf16, 3> a, ct::in<ct::bf16, 3> b) const {
    const auto t = c.tile_index();
    const auto ta = a.tiled(ct::shape<1, 128, 64>{});
    const auto tb = b.tiled(ct::shape<1, 64, 128>{});
    const auto acc = ct::pipelined(t, ct::num_tiles(ta, 2) - t[2] % 2,
                                   ct::stages(ct::stage(ta, kn::detail::a_tile_at{}), ct::stage(tb, kn::detail::b_tile_at{})),
                                   ct::zeros<float, 1, 128, 128>(), [](auto acc, auto sa, auto sb) { return ct::mma(sa, sb, acc); });
    c.store(acc);
  }
};

TEST_P(gemm, cluster_peers_with_different_trip_counts) {
  const dims d{1, 256, 512, 320};  // 5 K trips; tiles 1 and 3 along N take 4
  const auto a = small_ints<ct::bf16>({1, d.m, d.k}, dev()), b = small_ints<ct::bf16>({1, d.k, d.n}, dev());
  auto c = poisoned<float>({1, d.m, d.n}, dev());
  ct::launch(ct::default_stream(dev()), uneven_trips{}, c.partition(ct::shape<1, 128, 128>{}), a, b).wait();
  const auto full = reference_product(host_f64(a), host_f64(b), d).c;
  const dims short_k{1, d.m, d.n, d.k - 64};
  const auto shorter = reference_product(host_f64(a.slice(2, 0, short_k.k)), host_f64(b.slice(1, 0, short_k.k)), short_k).c;
  const auto want = reference(full.size(), [&](std::size_t i) { return (i % std::size_t(d.n)) / 128 % 2 ? shorter[i] : full[i]; });
  EXPECT_TRUE(all_equal(host_f64(c), want));
}

// A pipelined product that starts from a loaded tile rather than zeros: on Hopper the wgmma
// folds accumulate from zero and add the initial tile on the way out, only where a tile block's
// initial values are not all +0.0 (a vote). Here they are zero in the first 128 rows and random
// elsewhere, so both ways meet in one launch; paired tile blocks, and with Producer the
// producer warpgroup on its persistent grid (several tiles a CTA), in clusters of Cluster CTAs.
template <bool Producer, int Cluster = 1>
struct from_initial_tile {
  static constexpr const char* name = "test_from_initial_tile";
  static constexpr std::size_t shared_bytes = 2 * ct::pipeline_shared_bytes;
  static constexpr ct::co_schedule co_schedule{1, 2, 2, Cluster, Producer};
  CT_TILE void operator()(ct::out<float, ct::shape<1, 128, 128>> c, ct::in<ct::bf16, 3> a, ct::in<ct::bf16, 3> b,
                          ct::in<float, 3> init) const {
    const auto t = c.tile_index();
    const auto ta = a.tiled(ct::shape<1, 128, 64>{});
    const auto tb = b.tiled(ct::shape<1, 64, 128>{});
    c.store(ct::pipelined(t, ct::num_tiles(ta, 2),
                          ct::stages(ct::stage(ta, kn::detail::a_tile_at{}), ct::stage(tb, kn::detail::b_tile_at{})),
                          init.load_like(c), [](auto acc, auto sa, auto sb) { return ct::mma(sa, sb, acc); }));
  }
};

template <bool Producer, int Cluster = 1>
void check_from_initial_tile(const ct::device& dev) {
  SCOPED_TRACE(std::string(Producer ? "producer" : "paired") + (Cluster > 1 ? ", clusters" : ""));
  std::vector<dims> list = {{1, 300, 520, 200}};
  if (dev.is_cuda()) list.push_back({1, 2100, 2200, 136});  // more tiles than SMs; slow on the CPU
  for (const dims& d : list) {
    SCOPED_TRACE(name_of(d));
    const auto a = random<ct::bf16>({1, d.m, d.k}, dev), b = random<ct::bf16>({1, d.k, d.n}, dev);
    auto init_host = host_f64(random<float>({1, d.m, d.n}, dev));
    std::fill(init_host.begin(), init_host.begin() + 128 * d.n, 0.0);
    std::vector<float> init_values(init_host.begin(), init_host.end());
    const auto init = ct::from_host(init_values, {1, d.m, d.n}, dev);
    auto c = poisoned<float>({1, d.m, d.n}, dev);
    ct::launch(ct::default_stream(dev), from_initial_tile<Producer, Cluster>{}, c.partition(ct::shape<1, 128, 128>{}), a,
               b, init)
        .wait();
    auto want = reference_product(host_f64(a), host_f64(b), d);
    for (std::size_t i = 0; i < want.c.size(); ++i) want.c[i] += init_host[i], want.scale[i] += std::fabs(init_host[i]);
    EXPECT_TRUE(close_to<float>(host_f64(c), want.c, want.scale, d.k));
  }
}

TEST_P(gemm, pipelined_from_an_initial_tile) {
  check_from_initial_tile<false>(dev());
  check_from_initial_tile<true>(dev());
  check_from_initial_tile<true, 2>(dev());
}

// A pipelined product of tiles that the wgmma fold does not take (N tiles of 64): from sm_80 on,
// Hopper included, the mma.sync fold runs it (a cp.async ring, ldmatrix, mma.sync), with Blocks
// tile blocks a CTA along M, each staging its own operands; on the CPU, the plain loop. It adds
// the initial tile on the way out, where a tile block's is not all zero.
template <int BM, int BN, int Blocks>
struct mma_sync_product {
  static constexpr const char* name = "test_mma_sync_product";
  static constexpr std::size_t shared_bytes = Blocks * ct::pipeline_shared_bytes;
  static constexpr ct::co_schedule co_schedule{1, Blocks};
  CT_TILE void operator()(ct::out<float, ct::shape<1, BM, BN>> c, ct::in<ct::bf16, 3> a, ct::in<ct::bf16, 3> b,
                          ct::in<float, 3> init) const {
    const auto ta = a.tiled(ct::shape<1, BM, 64>{});
    const auto tb = b.tiled(ct::shape<1, 64, BN>{});
    c.store(ct::pipelined(c.tile_index(), ct::num_tiles(ta, 2),
                          ct::stages(ct::stage(ta, kn::detail::a_tile_at{}), ct::stage(tb, kn::detail::b_tile_at{})),
                          init.load_like(c), [](auto acc, auto sa, auto sb) { return ct::mma(sa, sb, acc); }));
  }
};

// Exact on small integers: whole and ragged tiles, one K trip and many (the ring wrapping),
// a partial last K tile, batches, A rows off 16 bytes (K = 100: staged element by element) and
// a column-major B (staged element by element); the initial tile zero in the first 64 rows.
template <int BM, int BN, int Blocks>
void check_mma_sync_fold(const ct::device& dev) {
  SCOPED_TRACE(::testing::Message() << BM << " x " << BN << ", " << Blocks << " tile block(s) a CTA");
  std::vector<dims> list = {{2, 64, 64, 64}, {1, 200, 136, 328}, {1, 130, 70, 100}};
  if (dev.is_cuda()) list.push_back({1, 300, 200, 1000});  // 16 trips; slow on the CPU
  for (const dims& d : list)
    for (const bool b_column_major : {false, true}) {
      SCOPED_TRACE(name_of(d) + (b_column_major ? ", column-major b" : ""));
      const auto a = small_ints<ct::bf16>({d.b, d.m, d.k}, dev);
      const auto b = b_column_major ? small_ints<ct::bf16>({d.b, d.n, d.k}, dev).transpose(1, 2)
                                    : small_ints<ct::bf16>({d.b, d.k, d.n}, dev);
      auto init_host = host_f64(small_ints<float>({d.b, d.m, d.n}, dev));
      for (index_t q = 0; q < d.b; ++q)
        std::fill_n(init_host.begin() + q * d.m * d.n, std::min<index_t>(64, d.m) * d.n, 0.0);
      const auto init = ct::from_host(std::vector<float>(init_host.begin(), init_host.end()), {d.b, d.m, d.n}, dev);
      auto c = poisoned<float>({d.b, d.m, d.n}, dev);
      ct::launch(ct::default_stream(dev), mma_sync_product<BM, BN, Blocks>{}, c.partition(ct::shape<1, BM, BN>{}), a,
                 b, init)
          .wait();
      auto want = reference_product(host_f64(a), host_f64(b), d).c;
      for (std::size_t i = 0; i < want.size(); ++i) want[i] += init_host[i];
      EXPECT_TRUE(all_equal(host_f64(c), want));
    }
}

TEST_P(gemm, mma_sync_fold_is_exact) {
  check_mma_sync_fold<128, 64, 1>(dev());
  check_mma_sync_fold<64, 64, 1>(dev());
  check_mma_sync_fold<64, 64, 2>(dev());
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

TEST_P(gemm, random_bf16_to_f32) {
  for (const dims& d : {dims{0, 129, 130, 131}, dims{0, 3, 200, 300}, dims{2, 40, 70, 50}}) check_random<ct::bf16, float>(dev(), d);
}
TEST_P(gemm, random_bf16_to_bf16_tensor_core_shapes) {
  for (const dims& d : {dims{0, 264, 392, 1000}, dims{2, 130, 256, 136}}) check_random<ct::bf16, ct::bf16>(dev(), d);
}
TEST_P(gemm, random_f16_to_f16) { check_random<ct::f16, ct::f16>(dev(), {0, 67, 129, 100}); }
TEST_P(gemm, random_f32_to_f32_is_f32_exact_products) { check_random<float, float>(dev(), {0, 131, 65, 257}); }

// Column-major operands are the transposed views of [K, M] and [N, K] tensors.
TEST_P(gemm, column_major_operands) {
  const dims d{0, 70, 45, 90};
  const auto a_t = small_ints<ct::bf16>({d.k, d.m}, dev()), b_t = small_ints<ct::bf16>({d.n, d.k}, dev());
  const auto a = a_t.transpose(), b = b_t.transpose();
  const auto want = reference_product(host_f64(a), host_f64(b), counted(d)).c;
  auto c = poisoned<float>({d.m, d.n}, dev());
  kn::gemm(ct::default_stream(dev()), c, a, b).wait();
  EXPECT_TRUE(all_equal(host_f64(c), want)) << "both column-major";
  const auto a_row = small_ints<ct::bf16>({d.m, d.k}, dev());
  const auto want2 = reference_product(host_f64(a_row), host_f64(b), counted(d)).c;
  kn::gemm(ct::default_stream(dev()), c, a_row, b).wait();
  EXPECT_TRUE(all_equal(host_f64(c), want2)) << "row-major a, column-major b";
}

double gelu_tanh(double x) { return 0.5 * x * (1 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x))); }

// c = act(alpha * a @ b + beta * residual + bias), for each activation and each optional part.
template <class Act, class F>
void check_epilogue(const ct::device& dev, const dims& d, F act, bool with_residual, bool with_bias,
                    kn::gemm_tiling tiles = kn::gemm_tiling::automatic) {
  SCOPED_TRACE(name_of(d) + (with_residual ? " residual" : "") + (with_bias ? " bias" : ""));
  const auto a = random<ct::bf16>(batched(d, d.m, d.k), dev), b = random<ct::bf16>(batched(d, d.k, d.n), dev);
  const auto residual = random<ct::bf16>(batched(d, d.m, d.n), dev);
  const auto bias = random<ct::bf16>({d.n}, dev);
  kn::gemm_args<ct::bf16> args;
  args.alpha = 0.75f;
  args.tiles = tiles;
  if (with_residual) {
    args.beta = -1.5f;
    args.residual = &residual;
  }
  if (with_bias) args.bias = &bias;
  auto c = poisoned<ct::bf16>(batched(d, d.m, d.n), dev);
  kn::gemm<Act>(ct::default_stream(dev), c, a, b, args).wait();
  const auto p = reference_product(host_f64(a), host_f64(b), counted(d));
  const auto hr = host_f64(residual), hb = host_f64(bias);
  std::vector<double> want(p.c.size()), scale(p.c.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    const double pre = 0.75 * p.c[i] + (with_residual ? -1.5 * hr[i] : 0.0) + (with_bias ? hb[i % std::size_t(d.n)] : 0.0);
    want[i] = act(pre);
    // The activations' slopes are at most about 1.13, so the pre-activation error scale carries over.
    scale[i] = 1.2 * (0.75 * p.scale[i] + 1.5 * std::fabs(hr[i]) + 1.0 * std::fabs(hb[i % std::size_t(d.n)]));
  }
  EXPECT_TRUE(close_to<ct::bf16>(host_f64(c), want, scale, d.k + 2));
}

TEST_P(gemm, epilogue_alpha_beta_bias_activations) {
  const dims d{0, 67, 131, 45};
  const auto id = [](double x) { return x; };
  check_epilogue<kn::identity>(dev(), d, id, false, false);
  check_epilogue<kn::identity>(dev(), d, id, true, false);
  check_epilogue<kn::identity>(dev(), d, id, false, true);
  check_epilogue<kn::relu>(dev(), d, [](double x) { return x > 0 ? x : 0.0; }, true, true);
  check_epilogue<kn::silu>(dev(), {2, 33, 20, 17}, [](double x) { return x / (1 + std::exp(-x)); }, true, true);
  check_epilogue<kn::gelu_tanh>(dev(), {0, 129, 64, 30}, gelu_tanh, false, true);
  // Tiles inside the output on 16-byte rows (and cut ones at its edge), without and with inputs:
  // the untested stores of out::with_subtiles and the checked ones.
  check_epilogue<kn::relu>(dev(), {0, 256, 264, 72}, [](double x) { return x > 0 ? x : 0.0; }, false, false);
  check_epilogue<kn::identity>(dev(), {0, 256, 264, 72}, id, true, true);
}

// The 64 x 256 tile blocks' epilogue: their results leave the accumulator 8 rows a pass, and
// the residual and bias load in bands of 32 rows of 256 columns.
TEST_P(gemm, wide_tiles_epilogue) {
  if (!(dev().is_cuda() && dev().compute_capability() == 90)) GTEST_SKIP() << "needs a Hopper GPU";
  const auto wide = kn::gemm_tiling::wgmma_wide;
  check_epilogue<kn::identity>(dev(), {0, 200, 520, 136}, [](double x) { return x; }, true, true, wide);
  check_epilogue<kn::gelu_tanh>(dev(), {3, 70, 300, 64}, gelu_tanh, true, true, wide);
}

// The tf32 rounding of f32 inputs (docs/numerics.md): to 11 significant bits, nearest, ties away
// from zero. Independent of ct::tf32; the inputs here are normal numbers.
double round_tf32(double x) {
  if (x == 0 || !std::isfinite(x)) return x;
  const double spacing = std::ldexp(1.0, std::ilogb(x) - 10);
  return std::copysign(std::floor(std::fabs(x) / spacing + 0.5) * spacing, x);
}

TEST_P(gemm, tf32_only_when_asked) {
  const dims d{0, 65, 70, 129};
  const auto a = random<float>({d.m, d.k}, dev()), b = random<float>({d.k, d.n}, dev());
  auto exact = poisoned<float>({d.m, d.n}, dev()), rounded = poisoned<float>({d.m, d.n}, dev());
  kn::gemm(ct::default_stream(dev()), exact, a, b).wait();
  kn::gemm_args<float> args;
  args.allow_tf32 = true;
  kn::gemm(ct::default_stream(dev()), rounded, a, b, args).wait();
  auto ha = host_f64(a), hb = host_f64(b);
  const auto want_exact = reference_product(ha, hb, counted(d));
  EXPECT_TRUE(close_to<float>(host_f64(exact), want_exact.c, want_exact.scale, d.k)) << "f32 without tf32";
  for (auto& x : ha) x = round_tf32(x);
  for (auto& x : hb) x = round_tf32(x);
  const auto want_tf32 = reference_product(ha, hb, counted(d));
  EXPECT_TRUE(close_to<float>(host_f64(rounded), want_tf32.c, want_tf32.scale, d.k)) << "f32 with tf32";
  // The two differ by about 2^-11 relative: tf32 was used when asked, and only then.
  EXPECT_FALSE(close_to<float>(host_f64(rounded), want_exact.c, want_exact.scale, d.k)) << "allow_tf32 had no effect";
}

// The fold gives the same bits as the plain loop it stands for.
struct plain_loop_matmul {
  static constexpr const char* name = "test_plain_loop_matmul";
  CT_TILE void operator()(ct::out<float, ct::shape<32, 64>> c, ct::in<ct::f16, 2> a, ct::in<ct::f16, 2> b) const {
    const auto [m, n] = c.tile_index();
    const auto ta = a.tiled(ct::shape<32, 16>{});
    const auto tb = b.tiled(ct::shape<16, 64>{});
    auto acc = ct::zeros<float, 32, 64>();
    for (index_t k = 0; k < ct::num_tiles(ta, 1); ++k) acc = ct::mma(ta.load(m, k), tb.load(k, n), acc);
    c.store(acc);
  }
};
struct a_at {
  CT_HD ct::coord<2> operator()(const ct::coord<2>& t, index_t k) const { return {{t[0], k}}; }
};
struct b_at {
  CT_HD ct::coord<2> operator()(const ct::coord<2>& t, index_t k) const { return {{k, t[1]}}; }
};
struct pipelined_matmul {
  static constexpr const char* name = "test_pipelined_matmul";
  CT_TILE void operator()(ct::out<float, ct::shape<32, 64>> c, ct::in<ct::f16, 2> a, ct::in<ct::f16, 2> b) const {
    const auto ta = a.tiled(ct::shape<32, 16>{});
    const auto tb = b.tiled(ct::shape<16, 64>{});
    c.store(ct::pipelined(c.tile_index(), ct::num_tiles(ta, 1), ct::stages(ct::stage(ta, a_at{}), ct::stage(tb, b_at{})),
                          ct::zeros<float, 32, 64>(), [](auto acc, auto sa, auto sb) { return ct::mma(sa, sb, acc); }));
  }
};

TEST_P(gemm, pipelined_equals_the_plain_loop_bitwise) {
  const auto a = random<ct::f16>({45, 83}, dev()), b = random<ct::f16>({83, 130}, dev());
  auto plain = poisoned<float>({45, 130}, dev()), folded = poisoned<float>({45, 130}, dev());
  ct::launch(plain_loop_matmul{}, plain.partition(ct::shape<32, 64>{}), a, b).wait();
  ct::launch(pipelined_matmul{}, folded.partition(ct::shape<32, 64>{}), a, b).wait();
  EXPECT_TRUE(all_equal(host_f64(folded), host_f64(plain)));
  const auto want = reference_product(host_f64(a), host_f64(b), {1, 45, 130, 83});
  EXPECT_TRUE(close_to<float>(host_f64(folded), want.c, want.scale, 83));
}

// Operands whose rows are off 16-byte boundaries, copied onto 16-byte rows (the heuristic's
// tensor-core tiles read such copies): the same values and extents, the same contiguous axis,
// rows on 16 bytes; row-major, column-major and batched.
TEST_P(gemm, odd_rows_copy_onto_16_byte_rows) {
  const auto s = ct::default_stream(dev());
  const auto wide = random<ct::bf16>({3, 37, 101}, dev());
  const auto row_major = wide.slice(2, 0, 99);            // rows of 99 elements, 101 apart
  const auto column_major = wide.slice(1, 0, 35).transpose(1, 2);  // [3, 101, 35], columns contiguous
  for (const auto* x : {&row_major, &column_major}) {
    ASSERT_FALSE(kn::detail::operand_on_16_bytes(*x));
    const auto y = kn::detail::copy_on_16_bytes(s, *x);
    s.synchronize();
    EXPECT_EQ(y.extents(), x->extents());
    EXPECT_EQ(kn::detail::column_major(y), kn::detail::column_major(*x));
    EXPECT_TRUE(kn::detail::operand_on_16_bytes(y));
    EXPECT_TRUE(all_equal(host_f64(y), host_f64(*x)));
  }
}

TEST_P(gemm, argument_errors_name_the_problem) {
  const auto s = ct::default_stream(dev());
  const auto a = random<ct::bf16>({8, 16}, dev()), b = random<ct::bf16>({16, 4}, dev()), b_bad = random<ct::bf16>({15, 4}, dev());
  auto c = poisoned<ct::bf16>({8, 4}, dev()), c_bad = poisoned<ct::bf16>({8, 5}, dev());
  EXPECT_THAT([&] { kn::gemm(s, c, a, b_bad).wait(); }, ThrowsMessage<ct::error>(HasSubstr("inner dimensions differ")));
  EXPECT_THAT([&] { kn::gemm(s, c_bad, a, b).wait(); }, ThrowsMessage<ct::error>(HasSubstr("b has extent 4 along axis 1, expected 5")));
  kn::gemm_args<ct::bf16> no_residual;
  no_residual.beta = 1.0f;
  EXPECT_THAT([&] { kn::gemm(s, c, a, b, no_residual).wait(); }, ThrowsMessage<ct::error>(HasSubstr("no residual")));
  const auto bias_bad = random<ct::bf16>({5}, dev());
  kn::gemm_args<ct::bf16> wrong_bias;
  wrong_bias.bias = &bias_bad;
  EXPECT_THAT([&] { kn::gemm(s, c, a, b, wrong_bias).wait(); }, ThrowsMessage<ct::error>(HasSubstr("bias has extent 5")));
  kn::gemm_args<ct::bf16> in_place;
  in_place.beta = 1.0f;
  in_place.residual = &c;
  EXPECT_THAT([&] { kn::gemm(s, c, a, b, in_place).wait(); }, ThrowsMessage<ct::error>(HasSubstr("overlaps")));
  // Also where a is one the heuristic would copy (rows of 15 elements, 17 apart).
  auto wide = random<ct::bf16>({8, 17}, dev());
  auto c_in_a = wide.slice(1, 0, 4);
  const auto a_odd = wide.slice(1, 0, 15), b15 = random<ct::bf16>({15, 4}, dev());
  EXPECT_THAT([&] { kn::gemm(s, c_in_a, a_odd, b15).wait(); }, ThrowsMessage<ct::error>(HasSubstr("overlaps an input")));
  const auto a3 = random<ct::bf16>({2, 8, 16}, dev()), b3 = random<ct::bf16>({3, 16, 4}, dev());
  auto c3 = poisoned<ct::bf16>({2, 8, 4}, dev());
  EXPECT_THAT([&] { kn::gemm(s, c3, a3, b3).wait(); }, ThrowsMessage<ct::error>(HasSubstr("b has extent 3 along axis 0")));
  EXPECT_THAT([&] { kn::gemm(s, c3, a, b).wait(); }, ThrowsMessage<ct::error>(HasSubstr("a must have rank 3")));
}

CT_INSTANTIATE_ON_DEVICES(gemm);

}  // namespace
