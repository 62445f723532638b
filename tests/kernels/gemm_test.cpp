// ct::kernels::gemm against a float64 reference (gemm_checks.hpp), for every input and output
// type but bf16 -> bf16 (gemm_bf16_test.cpp): exact on small-integer inputs, within f32
// accumulation error on random ones; ragged and degenerate shapes, batched, column-major
// operands, the producer's persistent grid, tf32 only when asked, bitwise reruns. Also
// ct::pipelined itself: clusters whose CTAs disagree on the trip count, an initial tile, the
// mma.sync fold, and the same bits as the plain loop it stands for.
#include "kernels/gemm_checks.hpp"

namespace {
using namespace ct_test;
using namespace gemm_test;

struct gemm : on_device {};

TEST_P(gemm, small_integers_are_exact_f16_to_f32) { check_exact_on<ct::f16, float>(dev(), shapes); }
TEST_P(gemm, small_integers_are_exact_f32_to_f16) { check_exact_on<float, ct::f16>(dev(), shapes); }
TEST_P(gemm, tensor_core_shapes_are_exact_f16_to_f32) { check_exact_on<ct::f16, float>(dev(), tensor_core_shapes); }

// Each tensor-core configuration by name, on a Hopper GPU (automatic picks one of them; the
// refusal elsewhere: gemm_bf16_test.cpp).
TEST_P(gemm, tensor_core_configurations_by_name_f16_to_f32) {
  if (!(dev().is_cuda() && dev().compute_capability() == 90)) GTEST_SKIP() << "needs a Hopper GPU";
  for (const auto tiles : {kn::gemm_tiling::wgmma, kn::gemm_tiling::wgmma_paired, kn::gemm_tiling::wgmma_cluster,
                           kn::gemm_tiling::wgmma_producer, kn::gemm_tiling::wgmma_producer_cluster,
                           kn::gemm_tiling::wgmma_wide})
    check_exact_on<ct::f16, float>(dev(), {{0, 136, 128, 72}, {0, 200, 264, 328}}, tiles);
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

TEST_P(gemm, random_bf16_to_f32) {
  for (const dims& d : {dims{0, 129, 130, 131}, dims{0, 3, 200, 300}, dims{2, 40, 70, 50}}) check_random<ct::bf16, float>(dev(), d);
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

// K is cut into parts (gemm_args::split_k) for 16-bit inputs only (gemm_bf16_test.cpp).
TEST_P(gemm, split_k_needs_16_bit_inputs) {
  const auto a = random<float>({8, 96}, dev()), b = random<float>({96, 4}, dev());
  auto c = poisoned<float>({8, 4}, dev());
  kn::gemm_args<float> args;
  args.split_k = 2;
  EXPECT_THAT([&] { kn::gemm(ct::default_stream(dev()), c, a, b, args).wait(); },
              ThrowsMessage<ct::error>(HasSubstr("split_k = 2 needs bf16 or f16 inputs")));
  EXPECT_TRUE(std::isnan(host_f64(c)[0])) << "the refused call wrote its output";
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

CT_INSTANTIATE_ON_DEVICES(gemm);

}  // namespace
