// The checks ct::launch makes before any work, each pinned by its message, which must name the
// kernel and the argument: ranks, empty tensors, partitions that imply different grids, grids
// over the device limit, tensors on another device; and that an empty grid runs nothing. Also
// ct::co_schedule on the GPU: tile blocks sharing a CTA, and CTAs forming clusters on Hopper.
#include <array>
#include <map>

#include "01_vector_add/vector_add.hpp"
#include "common/test_kernels.hpp"
#include "common/test_util.hpp"

namespace {
using namespace ct_test;

struct launch_checks : on_device {
  // Whether `t` still holds only the poison (a rejected launch must not have run).
  static bool untouched(const ct::tensor<float>& t) {
    const auto v = host_f64(t);
    return std::all_of(v.begin(), v.end(), [](double x) { return std::isnan(x); });
  }
};

auto error_with(const std::string& text) { return ThrowsMessage<ct::error>(HasSubstr(text)); }

TEST_P(launch_checks, rank_mismatch_names_kernel_and_argument) {
  const auto a = ct::zeros<float>({3, 4}, dev()), b = ct::zeros<float>({12}, dev());
  auto c = poisoned<float>({12}, dev());
  EXPECT_THAT(
      [&] { examples::add(c, a, b).wait(); },
      error_with("kernel 'vector_add', argument 1: the kernel expects a rank-1 tensor, got rank 2 [3, 4]"));
  EXPECT_TRUE(untouched(c));
}

TEST_P(launch_checks, partition_rank_must_match_the_tensor) {
  auto c = poisoned<float>({3, 4}, dev());
  EXPECT_THAT([&] { (void)c.partition(ct::shape<16>{}); },
              error_with("ct::tensor::partition: tile shape has rank 1 but the tensor [3, 4] has rank 2"));
}

TEST_P(launch_checks, moved_from_tensor_is_rejected) {
  auto a = ct::zeros<float>({100}, dev());
  const auto b = ct::zeros<float>({100}, dev());
  auto c = poisoned<float>({100}, dev());
  const auto taken = std::move(a);
  EXPECT_THAT(
      [&] { examples::add(c, a, b).wait(); },
      error_with("kernel 'vector_add', argument 1: the tensor is empty (default-constructed or moved from)"));
  EXPECT_TRUE(untouched(c));
}

TEST_P(launch_checks, partitions_must_imply_one_grid) {
  const auto x = ct::zeros<float>({5000}, dev());
  auto y = poisoned<float>({5000}, dev()), z = poisoned<float>({3000}, dev());
  EXPECT_THAT(
      [&] {
        ct::launch(copy_twice{}, y.partition(copy_twice::tile_shape{}), z.partition(copy_twice::tile_shape{}),
                   x)
            .wait();
      },
      error_with("kernel 'copy_twice', argument 1: this output partition implies a grid of 3x1x1 blocks, but "
                 "argument 0 implies 5x1x1"));
  EXPECT_TRUE(untouched(y));
  EXPECT_TRUE(untouched(z));
}

TEST_P(launch_checks, grid_over_the_device_limit_is_rejected) {
  using one = ct::shape<1, 1>;
  const auto x = ct::zeros<float>({1, 70000}, dev());
  auto y = poisoned<float>({1, 70000}, dev());
  EXPECT_THAT(
      [&] { ct::launch(copy_tiles<one>{}, y.partition(one{}), x).wait(); },
      error_with("kernel 'copy_tiles', argument 0: the partition has 70000 tiles along axis 1, over the "
                 "limit of 65535 blocks on that grid axis"));
  EXPECT_TRUE(untouched(y));
}

TEST_P(launch_checks, empty_output_runs_nothing) {
  const auto x = ct::zeros<float>({0}, dev());
  auto y = ct::zeros<float>({0}, dev());
  auto p = ct::launch(copy_tiles<ct::shape<256>>{}, y.partition(ct::shape<256>{}), x);
  EXPECT_NO_THROW(p.wait());
  EXPECT_TRUE(y.to_host().empty());
}

// Row sums plus 1000 x the tile block's index, with Blocks tile blocks per CTA (ct::co_schedule):
// each tile block must see its own ct::bid(), barriers and arena (the sum crosses warps), and
// the tile past the partition's end that an odd tile count leaves in the last CTA writes nothing.
// The CPU backend runs every tile block alone, so there the two launches are one computation
// (still checked against float64): the pairing itself is tested by the cuda case.
template <int Blocks>
struct co_scheduled_row_sums {
  static constexpr ct::co_schedule co_schedule{0, Blocks};
  CT_TILE void operator()(ct::out<float, ct::shape<4, 1>> y, ct::in<float, 2> x) const {
    const auto rows = x.tiled(ct::shape<4, 1024>{}).load(ct::bid(0), 0);
    y.store(ct::sum(rows, ct::axis<1>, ct::keepdims) + float(1000 * ct::bid(0) + ct::num_blocks(0)));
  }
};

TEST_P(launch_checks, co_scheduled_tile_blocks_keep_their_own_index_barrier_and_arena) {
  const ct::index_t rows = 27, cols = 1000;  // 7 tiles of 4 rows: the last CTA's second tile is empty
  const auto x = ct::randn<float>({rows, cols}, fresh_seed(), 1.0, dev());
  auto alone = poisoned<float>({rows, 1}, dev()), paired = poisoned<float>({rows, 1}, dev());
  ct::launch(co_scheduled_row_sums<1>{}, alone.partition(ct::shape<4, 1>{}), x).wait();
  ct::launch(co_scheduled_row_sums<2>{}, paired.partition(ct::shape<4, 1>{}), x).wait();
  const auto hx = host_f64(x), a = host_f64(alone), p = host_f64(paired);
  for (ct::index_t r = 0; r < rows; ++r) {
    double s = 0, scale = 0;
    for (ct::index_t c = 0; c < cols; ++c) s += hx[std::size_t(r * cols + c)], scale += std::fabs(hx[std::size_t(r * cols + c)]);
    const double want = s + 1000.0 * double(r / 4) + 7.0;
    EXPECT_NEAR(a[std::size_t(r)], want, 1e-4 * scale + 1e-3) << "row " << r << ", one tile block per CTA";
    EXPECT_EQ(p[std::size_t(r)], a[std::size_t(r)]) << "row " << r << ": two per CTA differ from one";
  }
}

// The CTAs of the cluster a tile block runs in (%cluster_nctarank): 1 on the CPU, and on a GPU
// when the launch formed no clusters.
CT_HD inline int cluster_ctas() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  unsigned n;
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(n));
  return int(n);
#else
  return 1;
#endif
}

// Each tile block stores the size of its CTA's cluster: two tile blocks a CTA along axis 0, and
// clusters of two CTAs asked for along axis 1. The launcher forms clusters only for kernels that
// declare shared_bytes (the wgmma fold's ring), so this one declares some and leaves them unused.
struct cluster_sizes {
  static constexpr ct::co_schedule co_schedule{0, 2, 1, 2};
  static constexpr std::size_t shared_bytes = 1024;
  CT_TILE void operator()(ct::out<std::int32_t, ct::shape<1, 1>> y) const {
    y.store(ct::full<std::int32_t>(ct::shape<1, 1>{}, cluster_ctas()));
  }
};

TEST_P(launch_checks, co_scheduled_ctas_form_clusters_on_hopper_when_the_grid_allows) {
  for (const ct::index_t n : {4, 5}) {
    auto y = poisoned<std::int32_t>({2, n}, dev());
    ct::launch(cluster_sizes{}, y.partition(ct::shape<1, 1>{})).wait();
    // Pairs of CTAs along axis 1 tile a grid of 4 columns, not one of 5.
    const bool clusters = dev().is_cuda() && dev().compute_capability() / 10 == 9 && n % 2 == 0;
    EXPECT_EQ(y.to_host(), std::vector<std::int32_t>(std::size_t(2 * n), clusters ? 2 : 1))
        << n << " CTAs along the cluster axis on " << dev().name();
  }
}

CT_INSTANTIATE_ON_DEVICES(launch_checks);

// Needs a GPU in either binary: the device check comes before any backend is chosen.
TEST(launch_devices, tensors_on_different_devices_are_rejected) {
  if (ct::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA GPU: needs a GPU for the second device";
  const auto a = ct::zeros<float>({100}, ct::device::cpu()), b = ct::zeros<float>({100}, ct::device::cpu());
  auto c = poisoned<float>({100}, ct::device::cuda(0));
  EXPECT_THAT(
      [&] { examples::add(c, a, b).wait(); },
      error_with("kernel 'vector_add', argument 1: the tensor is on cpu but the launch runs on cuda:0"));
}

#if defined(__CUDACC__)
// The CUDA runtime launches only on the current GPU's streams, and a kernel's attributes are
// set and asked on the current GPU: a launch makes its stream's GPU current, whichever GPU the
// last call (here, making a tensor on cuda:0) left current.
TEST(launch_devices, a_launch_runs_on_its_streams_gpu_whichever_is_current) {
  if (ct::cuda_device_count() < 2) GTEST_SKIP() << "needs two CUDA GPUs";
  const ct::device second = ct::device::cuda(1);
  const auto a = random_grid({1000}, second), b = random_grid({1000}, second);
  auto c = poisoned<float>({1000}, second);
  (void)ct::zeros<float>({10}, ct::device::cuda(0));
  examples::add(c, a, b).wait();
  const auto x = host_f64(a), y = host_f64(b);
  EXPECT_TRUE(all_equal(host_f64(c), reference(x.size(), [&](std::size_t i) { return x[i] + y[i]; })));
}
#endif

// Without CTILE_DEVICE, the default is the GPU only where the calling code was built by nvcc.
TEST(launch_devices, default_device_follows_the_compiler) {
  const scoped_env unset("CTILE_DEVICE", nullptr);
#if defined(__CUDACC__)
  const bool gpu_default = ct::cuda_device_count() > 0;
#else
  const bool gpu_default = false;
#endif
  EXPECT_EQ(ct::default_device().name(), gpu_default ? "cuda:0" : "cpu");
  auto c = poisoned<float>({10}, ct::default_device());
  EXPECT_EQ(c.dev(), ct::default_device());
}

// A kernel asks for a second GPU build for launches whose rows are all aligned with
// `static constexpr bool aligned_rows_build = true;` (the column reductions do); without it,
// CTILE_ALIGNED_VARIANTS decides for every kernel.
struct asks_for_an_aligned_build {
  static constexpr bool aligned_rows_build = true;
};
struct declines_an_aligned_build {
  static constexpr bool aligned_rows_build = false;
};
struct says_nothing_of_alignment {};
struct inputs_only {
  static constexpr bool aligned_input_rows_build = true;
};
static_assert(ct::detail::kernel_aligned_rows_build<inputs_only>() && ct::detail::kernel_aligned_inputs_only<inputs_only>());
static_assert(!ct::detail::kernel_aligned_inputs_only<asks_for_an_aligned_build>());
static_assert(ct::detail::kernel_aligned_rows_build<asks_for_an_aligned_build>());
static_assert(!ct::detail::kernel_aligned_rows_build<declines_an_aligned_build>());
static_assert(ct::detail::kernel_aligned_rows_build<says_nothing_of_alignment>() == ct::config::aligned_variants);

#if defined(__CUDACC__)
// Which launches may run a kernel's aligned build (CTILE_ALIGNED_VARIANTS): the entry tells the
// compiler what rows_aligned checks, so a view it passes wrongly would be undefined behaviour.
TEST(launch_devices, aligned_builds_run_only_where_every_row_is_aligned) {
  using ct::backend::cuda::rows_aligned;
  const ct::device cpu = ct::device::cpu();
  const auto in = [](const ct::tensor<ct::bf16>& t) {
    if (t.rank() == 1) return rows_aligned(ct::in<ct::bf16, 1>{t.data(), ct::detail::global_of<1>(t)});
    return rows_aligned(ct::in<ct::bf16, 2>{t.data(), ct::detail::global_of<2>(t)});
  };
  const auto square = ct::zeros<ct::bf16>({4, 8192}, cpu), ragged = ct::zeros<ct::bf16>({4, 8191}, cpu);
  EXPECT_TRUE(in(square));
  EXPECT_FALSE(in(ragged)) << "rows 16382 bytes apart";
  EXPECT_FALSE(in(square.slice(1, 1, 4097))) << "rows starting 2 bytes into a block";
  EXPECT_TRUE(in(square.slice(1, 8, 4104))) << "rows starting a block in";
  EXPECT_FALSE(in(square.transpose())) << "columns not contiguous";
  EXPECT_TRUE(in(ragged.reshape({-1}))) << "a flat view has no rows to promise anything about";
  auto out = ct::zeros<float>({6, 1028}, cpu);
  EXPECT_TRUE(rows_aligned(ct::out<float, ct::shape<2, 256>>{out.data(), ct::detail::global_of<2>(out)}, 1.5f));
  auto odd = ct::zeros<float>({6, 1029}, cpu);
  EXPECT_FALSE(rows_aligned(ct::out<float, ct::shape<2, 256>>{odd.data(), ct::detail::global_of<2>(odd)}, 1.5f));
  // A kernel that asks for its inputs' rows only (the window norms): an output with rows off 16
  // bytes does not count, an input does.
  const auto flat = ct::in<ct::bf16, 1>{ragged.data(), ct::detail::global_of<1>(ragged.reshape({-1}))};
  const auto odd_out = ct::out<float, ct::shape<2, 256>>{odd.data(), ct::detail::global_of<2>(odd)};
  EXPECT_TRUE(rows_aligned<inputs_only>(odd_out, flat, 1.5f));
  EXPECT_FALSE(rows_aligned(odd_out, flat, 1.5f)) << "every view's rows, without the kernel's say";
  EXPECT_FALSE(rows_aligned<inputs_only>(odd_out, ct::in<ct::bf16, 2>{ragged.data(), ct::detail::global_of<2>(ragged)}))
      << "an input's rows off 16 bytes";
}

// The persistent grid's order (a producer warpgroup's kernels, the GEMM): over a plain grid of
// CTAs, with and without clusters of two, every CTA of the grid runs exactly once; a cluster's
// two positions (2u, 2u + 1) are neighbours along the cluster axis, the first at an even index;
// only a cluster axis of odd count adds CTAs, one past its end, and only as a cluster's second.
// The first CTAs of the sequence go along the co-scheduled axis in groups (persistent_group).
TEST(launch_devices, persistent_order_runs_every_cta_once_and_pairs_neighbours) {
  using ct::backend::cuda::persistent_ctas;
  using ct::backend::cuda::persistent_order;
  struct grid {
    int ctas[3];
    int axis, cluster_axis;
  };
  const grid grids[] = {{{1, 16, 32}, 1, 2}, {{1, 33, 17}, 1, 2}, {{3, 5, 9}, 1, 2}, {{2, 7, 1}, 1, 2},
                        {{4, 3, 5}, 2, 1}, {{1, 1, 1}, 1, 2}, {{5, 11, 2}, 1, 0}};
  for (const grid& g : grids)
    for (int cluster : {1, 2}) {
      SCOPED_TRACE(::testing::Message() << "grid " << g.ctas[0] << " x " << g.ctas[1] << " x " << g.ctas[2] << ", axis "
                                        << g.axis << ", cluster " << cluster << " along " << g.cluster_axis);
      const unsigned total = persistent_ctas(g.ctas, g.cluster_axis, cluster);
      std::map<std::array<int, 3>, int> runs;
      int past_end = 0;
      for (unsigned v = 0; v < total; ++v) {
        int cta[3];
        persistent_order(v, g.ctas, g.axis, g.cluster_axis, cluster, cta);
        bool inside = true;
        for (int i = 0; i < 3; ++i) inside = inside && cta[i] >= 0 && cta[i] < g.ctas[i];
        if (!inside) {
          ++past_end;
          EXPECT_EQ(cluster, 2) << "position " << v << " is outside the grid without clusters";
          EXPECT_EQ(v % 2, 1u) << "position " << v << ": only a cluster's second CTA may be past the end";
          EXPECT_EQ(cta[g.cluster_axis], g.ctas[g.cluster_axis]) << "position " << v;
          continue;
        }
        ++runs[{cta[0], cta[1], cta[2]}];
        if (cluster == 2) {
          int peer[3];
          persistent_order(v ^ 1u, g.ctas, g.axis, g.cluster_axis, cluster, peer);
          for (int i = 0; i < 3; ++i)
            if (i != g.cluster_axis) EXPECT_EQ(cta[i], peer[i]) << "positions " << v << " and " << (v ^ 1u) << ", axis " << i;
          EXPECT_EQ(cta[g.cluster_axis], (cta[g.cluster_axis] & ~1) + int(v % 2)) << "position " << v;
        }
      }
      const int n = g.ctas[0] * g.ctas[1] * g.ctas[2];
      EXPECT_EQ(int(runs.size()), n) << "CTAs of the grid that ran";
      for (const auto& [cta, count] : runs) EXPECT_EQ(count, 1) << cta[0] << ", " << cta[1] << ", " << cta[2];
      EXPECT_EQ(past_end, cluster == 2 && g.ctas[g.cluster_axis] % 2 == 1 ? n / g.ctas[g.cluster_axis] : 0);
      // Without clusters, position v < persistent_group walks the co-scheduled axis from 0.
      if (cluster == 1)
        for (unsigned v = 0; v < ct::backend::cuda::persistent_group && v < unsigned(g.ctas[g.axis]); ++v) {
          int cta[3];
          persistent_order(v, g.ctas, g.axis, g.cluster_axis, cluster, cta);
          EXPECT_EQ(cta[g.axis], int(v)) << "position " << v;
        }
    }
}
#endif

#if !defined(__CUDACC__)
// A kernel compiled by the host compiler has no GPU code: the launch says so instead of failing.
TEST(launch_devices, host_compiled_kernel_cannot_run_on_a_gpu) {
  if (ct::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA GPU: needs a GPU to try";
  const ct::device gpu = ct::device::cuda(0);
  const auto a = ct::zeros<float>({100}, gpu), b = ct::zeros<float>({100}, gpu);
  auto c = poisoned<float>({100}, gpu);
  EXPECT_THAT([&] { examples::add(c, a, b).wait(); },
              error_with("kernel 'vector_add' was compiled without nvcc, so it runs only on the CPU device"));
}
#endif

}  // namespace
