// Running a launch on a GPU: one CTA of config::gpu_block_threads threads per tile block, grid
// axes 0, 1, 2 mapped to CUDA's x, y, z, with the dynamic shared memory the kernel declares.
// Compiled only by nvcc.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>

#include "ctile/backend/cuda/exec.hpp"
#include "ctile/backend/exec.hpp"
#include "ctile/backend/sm90/tma_table.hpp"
#include "ctile/backend/sm90/wgmma.hpp"
#include "ctile/backend/sm90/wgmma_fold.hpp"
#include "ctile/core/config.hpp"
#include "ctile/core/error.hpp"
#include "ctile/runtime/device.hpp"
#include "ctile/runtime/kernel_traits.hpp"
#include "ctile/runtime/stream.hpp"
#include "ctile/runtime/tma.hpp"
#include "ctile/tile/view.hpp"

#if defined(__CUDACC__)
#include <cuda_runtime.h>

namespace ct::backend::cuda {

template <class K, class... V>
__global__ void __launch_bounds__(config::gpu_block_threads, ct::detail::kernel_occupancy<K>())
    kernel_entry(K kernel, V... views) {
  // One tile block per CTA: tell the compiler, so that the co-scheduling branches of
  // backend/exec.hpp (barrier, block index, arena) fold away in every kernel that does not use it.
  __builtin_assume(blockDim.y == 1);
  __builtin_assume(threadIdx.y == 0);
  kernel(views...);
}

// A kernel argument that is a tensor view (ct::in, ct::out, ...), and one with rows: rank 2 or more.
template <class X>
concept tensor_view = requires(const X& v) {
  v.data;
  v.g;
  X::rank;
};
// Calls check(c) with each condition under which a kernel argument's rows are 16-byte aligned:
// a view whose last stride is 1 and whose first element and other strides lie on 16 bytes (a
// view of rank 1 is one row). Scalars have none. Rank 1 counts since a kernel may slice a flat
// view at offsets it knows are on 16 bytes (kernels::row_sum's windows): told that the view
// starts there, the compiler drops its tiles' code for rows off the boundary.
template <class X, class Check>
__host__ __device__ void row_alignment_conditions(const X& v, Check check) {
  if constexpr (tensor_view<X>) {
    constexpr int R = X::rank;
    constexpr index_t per_16_bytes = sizeof(*v.data) >= 16 ? 1 : index_t(16 / sizeof(*v.data));
    check(v.g.stride[R - 1] == 1);
    check(reinterpret_cast<std::uintptr_t>(v.data) % 16 == 0);
    for (int i = 0; i < R - 1; ++i) check(v.g.stride[i] % per_16_bytes == 0);
  }
}

// Whether the aligned-rows build of K assumes X's rows aligned: every view's, or only the
// inputs' (read-only data) where K asks for that (kernel_aligned_inputs_only).
template <class K, class X>
__host__ __device__ constexpr bool alignment_assumed() {
  if constexpr (!tensor_view<X>) return false;
  else return !ct::detail::kernel_aligned_inputs_only<K>() || std::is_const_v<std::remove_pointer_t<decltype(X::data)>>;
}

// (K = void: every view's.)
template <class K = void, class... V>
bool rows_aligned(const V&... views) {
  bool all = true;
  const auto check = [&](const auto& v) {
    if constexpr (alignment_assumed<K, std::remove_cvref_t<decltype(v)>>())
      row_alignment_conditions(v, [&](bool c) { all = all && c; });
  };
  (check(views), ...);
  return all;
}

// kernel_entry for a launch whose arguments' rows are 16-byte aligned (rows_aligned: every
// view's, or only the inputs'; the launch checks, CTILE_ALIGNED_VARIANTS): told so, the compiler
// folds the tiles' alignment tests and drops the code for rows off a 16-byte boundary
// (backend/memory.hpp), which otherwise costs aligned launches registers and scheduling.
template <class K, class... V>
__global__ void __launch_bounds__(config::gpu_block_threads, ct::detail::kernel_occupancy<K>())
    kernel_entry_aligned_rows(K kernel, V... views) {
  __builtin_assume(blockDim.y == 1);
  __builtin_assume(threadIdx.y == 0);
  const auto assume = [](const auto& v) {
    if constexpr (alignment_assumed<K, std::remove_cvref_t<decltype(v)>>())
      row_alignment_conditions(v, [](bool c) { __builtin_assume(c); });
  };
  (assume(views), ...);
  kernel(views...);
}

// A kernel with a ct::pipelined loop (it declares shared_bytes): also the TMA maps of its
// inputs (backend/sm90/tma_table.hpp), published before any tile code runs.
template <class K, class Table, class... V>
__global__ void __launch_bounds__(config::gpu_block_threads, ct::detail::kernel_occupancy<K>())
    kernel_entry_staged(K kernel, const __grid_constant__ Table tma, V... views) {
  __builtin_assume(blockDim.y == 1);
  __builtin_assume(threadIdx.y == 0);
  if (threadIdx.x == 0) sm90::publish(tma);
  __syncthreads();
  kernel(views...);
}

// What a launch of co-scheduled tile blocks tells its CTAs (cta_context).
struct co_arguments {
  int axis;            // the co-scheduled grid axis
  int extent;          // tile blocks along it
  unsigned ring_bytes; // the kernel's shared_bytes
  int cluster_axis;
  int ctas[3];         // the plain grid of CTAs (what a persistent grid runs in sequence)
};

// Co-scheduled tile blocks (ct::co_schedule): Blocks warpgroups per CTA, one tile block each,
// and with Producer one more that loads their pipelined stages (tile/pipeline.hpp) while the
// tile blocks run through a sequence of tiles (the persistent grid: persistent_cta).
// The CTA's context goes to the start of dynamic shared memory before any tile code runs.
template <int Blocks, bool Producer, class K, class Table, class... V>
__global__ void __launch_bounds__(config::gpu_block_threads * (Blocks + int(Producer)), 1)
    kernel_entry_co(K kernel, co_arguments co, const __grid_constant__ Table tma, V... views) {
  __builtin_assume(blockDim.y == unsigned(Blocks + int(Producer)));
  __builtin_assume(threadIdx.y < unsigned(Blocks + int(Producer)));
  if (threadIdx.x == 0 && threadIdx.y == 0) {
    cta_context& c = context();
    c.axis = co.axis, c.extent = co.extent, c.ring_bytes = co.ring_bytes, c.cluster_axis = co.cluster_axis;
    for (int a = 0; a < 3; ++a) c.ctas[a] = co.ctas[a];
    c.ring_trips[0] = c.ring_trips[1] = ~0u;
    c.tile_trips = 0;
    c.tile_folds[0] = c.tile_folds[1] = 0;
    c.cluster = 1;
    sm90::publish(tma);
#if CTILE_HAS_WGMMA
    c.cluster = int(sm90::cluster_size());
    if constexpr (Producer) sm90::init_fed_ring(Blocks, c.cluster);
#endif
  }
  __syncthreads();
#if CTILE_HAS_WGMMA
  // A producer's ring in a cluster is filled by both CTAs' producers and released by both
  // CTAs' tile blocks: neither CTA may touch the other's barriers before they are set.
  if (Producer && context().cluster > 1) sm90::cluster_sync();
#endif
  if constexpr (!Producer) {
    kernel(views...);
  } else {
    // The producer warpgroup gives its registers to the tile blocks and runs the kernel once,
    // as a tile past the end, up to its first wgmma fold, which loads the stages of all of the
    // CTA's tiles and ends the thread. (Without wgmma code in this pass, not sm_90a, it has
    // nothing to load.) Two calls of the kernel, both inlined (CT_TILE), so that each runs at
    // its own register count: a call would make ptxas serialize the wgmmas (C7510).
    if (threadIdx.y == unsigned(Blocks)) {
      __builtin_assume(threadIdx.y == unsigned(Blocks));
#if CTILE_HAS_WGMMA
      sm90::setmaxnreg_dec<sm90::producer_registers>();
      kernel(views...);
#endif
      leave();
    }
    __builtin_assume(threadIdx.y < unsigned(Blocks));
#if CTILE_HAS_WGMMA
    sm90::setmaxnreg_inc<sm90::consumer_registers>();
#endif
    const unsigned total = persistent_ctas();
    for (unsigned v = blockIdx.x; v < total; v += gridDim.x) {
      if (threadIdx.x == 0) {
        persistent_cta(v, context().current[threadIdx.y]);
        context().tile_folds[threadIdx.y] = 0;
      }
      backend::sync_block();  // the tile block's threads see their tile ...
      kernel(views...);
      backend::sync_block();  // ... and are done with it before the next
      // The producer loaded this tile's stages: a tile that skipped its fold would leave them
      // to the next tile's.
      if (CTILE_HAS_WGMMA && threadIdx.x == 0 && context().tile_folds[threadIdx.y] != 1) __trap();
    }
  }
}

// The 16-bit rank-2 and rank-3 inputs among a kernel's parameters: those that get a TMA map.
template <class V>
inline constexpr bool tma_candidate_v = false;
template <class T, int R>
inline constexpr bool tma_candidate_v<ct::in<T, R>> =
    (std::is_same_v<T, bf16> || std::is_same_v<T, f16>) && (R == 2 || R == 3);

template <class T, int R>
void describe_for_tma(sm90::tma_operand& o, const ct::in<T, R>& v) {
  o = sm90::tma_operand{};
  o.base = v.data;
  o.extent[0] = 1;
  for (int a = 0; a < R; ++a) o.extent[3 - R + a] = v.g.extent[a], o.stride[3 - R + a] = v.g.stride[a];
  const auto box =
      ct::detail::tma_box_for_operand(v.data, std::is_same_v<T, bf16>, o.extent, o.stride, sm90::tma_box_extent);
  if (!box) return;  // staged by threads instead
  try {
    o.map = ct::detail::encode_tma(*box);
    o.usable = 1;
  } catch (const ct::error&) {
    // A driver without TMA encoding: the fold stages this input by threads, same result.
  }
}

// Whether the stream's device is a Hopper GPU (TMA maps and clusters: compute capability 9.x).
inline bool on_hopper(const ct::stream& s) { return s.dev().compute_capability() / 10 == 9; }

// The table of TMA maps a launch of a pipelined kernel passes: on a Hopper GPU, one map per
// candidate input (unusable ones marked so); elsewhere, or with no candidates, none.
template <class... V>
auto tma_table_for(const ct::stream& s, const V&... views) {
  constexpr int n = (int(tma_candidate_v<V>) + ... + 0);
  if constexpr (n == 0) {
    return sm90::no_tma_table{};
  } else {
    sm90::tma_table<n> table{};
    if (on_hopper(s)) {
      int i = 0;
      const auto add = [&](const auto& v) {
        if constexpr (tma_candidate_v<std::remove_cvref_t<decltype(v)>>) describe_for_tma(table.op[i++], v);
      };
      (add(views), ...);
    }
    return table;
  }
}

// Dynamic shared memory above 48 KiB must be allowed per kernel (and, to be safe, per device)
// before the launch. The launch itself then says whether the device has that much.
template <class Entry>
void allow_shared_bytes(const std::string& name, const ct::stream& s, Entry entry, std::size_t bytes) {
  static std::atomic<int> allowed[64];
  ct::detail::cached_per_device(allowed, s.dev().ordinal(), [&] {
    cudaError_t err = cudaFuncSetAttribute(reinterpret_cast<const void*>(entry),
                                           cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes));
    // And the largest shared-memory carveout, so that as many CTAs fit an SM as the shared
    // memory allows (two 113 KiB GEMM tile blocks need all 228 KiB) rather than what the
    // driver guesses.
    if (err == cudaSuccess)
      err = cudaFuncSetAttribute(reinterpret_cast<const void*>(entry), cudaFuncAttributePreferredSharedMemoryCarveout,
                                 int(cudaSharedmemCarveoutMaxShared));
    if (err != cudaSuccess)
      throw ct::error("kernel '" + name + "' asks for " + std::to_string(bytes) +
                      " bytes of dynamic shared memory, which " + s.dev().name() + " does not allow: " +
                      cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")");
    return 1;
  });
}

// How many clusters of a launch of `entry` (configured by `launch`, with its cluster
// attribute) run at once on the stream's device, asked once per device: GPCs whose SM count is
// odd leave an SM out of the pairs.
template <class Entry>
std::uint64_t resident_clusters(const std::string& name, const ct::stream& s, Entry entry,
                                const cudaLaunchConfig_t& launch) {
  static std::atomic<int> known[64];
  return std::uint64_t(ct::detail::cached_per_device(known, s.dev().ordinal(), [&] {
    int n = 0;
    const cudaError_t err = cudaOccupancyMaxActiveClusters(&n, reinterpret_cast<const void*>(entry), &launch);
    if (err != cudaSuccess || n <= 0)
      throw ct::error("launch of kernel '" + name + "': " + s.dev().name() + " runs none of its clusters (" +
                      (err != cudaSuccess ? std::string(cudaGetErrorName(err)) : std::string("0 fit an SM's resources")) +
                      ")");
    return n;
  }));
}

// The entry of a kernel without shared memory: its aligned-rows build where K has one (compiled
// only then) and every argument's rows start on 16 bytes, else the general one.
template <class K, class... V>
auto plain_entry(const V&... views) {
  auto entry = kernel_entry<K, V...>;
  if constexpr (ct::detail::kernel_aligned_rows_build<K>() && (tensor_view<V> || ...))
    if (rows_aligned<K>(views...)) entry = kernel_entry_aligned_rows<K, V...>;
  return entry;
}

// Whether K's groups run on the stream's device: a GPU with thread-block clusters (compute
// capability 9.0 or later, where clusters arrived) running a build of K's device code for one.
// A build from older PTX, compiled for the GPU when loaded, has no cluster code (it traps).
// Asked once per device. (V... come as a tuple type, kernel_params<K>, from callers that have
// no views.)
template <class K, class... V>
bool groups_run(const ct::stream& s, std::tuple<V...>*) {
  static std::atomic<int> known[64];  // 1: no, 2: yes
  return ct::detail::cached_per_device(known, s.dev().ordinal(), [&] {
    if (s.dev().compute_capability() < 90) return 1;
    cudaFuncAttributes built{};
    if (cudaFuncGetAttributes(&built, reinterpret_cast<const void*>(kernel_entry<K, V...>)) != cudaSuccess) {
      cudaGetLastError();  // no image for this GPU: the launch reports that
      return 1;
    }
    return built.ptxVersion >= 90 ? 2 : 1;
  }) == 2;
}

// A launch of a kernel with a ct::block_group: each group (the CTAs along `axis`, at most
// max_block_group, which runtime/launch.hpp checked) is one thread-block cluster.
template <class K, class... V>
cudaError_t launch_groups(const ct::stream& s, const std::string& name, const K& kernel, const int (&grid)[3], int axis,
                          const V&... views) {
  if (!groups_run<K>(s, static_cast<std::tuple<V...>*>(nullptr))) {
    const int cc = s.dev().compute_capability();
    throw ct::error("kernel '" + name + "' combines tiles across a group of tile blocks (ct::block_group), which " +
                    (cc < 90 ? "needs thread-block clusters: a GPU of compute capability 9.0 or later; " + s.dev().name() +
                                   " has " + std::to_string(cc / 10) + "." + std::to_string(cc % 10)
                             : "needs device code built for sm_90 or later, and this program has none for " +
                                   s.dev().name() + " (only an older architecture's PTX, or no build at all): add "
                                   "sm_90 to its CUDA architectures"));
  }
  const auto entry = plain_entry<K>(views...);
  const unsigned members = unsigned(grid[axis]);
  cudaLaunchConfig_t launch{};
  launch.gridDim = dim3{unsigned(grid[0]), unsigned(grid[1]), unsigned(grid[2])};
  launch.blockDim = dim3{unsigned(config::gpu_block_threads), 1, 1};
  launch.stream = static_cast<cudaStream_t>(s.native());
  cudaLaunchAttribute cluster{};
  cluster.id = cudaLaunchAttributeClusterDimension;
  unsigned dims[3] = {1, 1, 1};
  dims[axis] = members;
  cluster.val.clusterDim.x = dims[0], cluster.val.clusterDim.y = dims[1], cluster.val.clusterDim.z = dims[2];
  launch.attrs = &cluster;
  launch.numAttrs = 1;
  // Once per entry, group size and device: allow clusters past the portable size (8), and check
  // that the GPU holds a group at once (too many CTAs of this kernel's size for a GPC would
  // fail the launch with a vaguer error).
  static std::atomic<int> checked[2][ct::max_block_group + 1][64];
  const bool aligned = entry != kernel_entry<K, V...>;
  ct::detail::cached_per_device(checked[aligned][members], s.dev().ordinal(), [&] {
    cudaError_t err = cudaSuccess;
    if (members > 8)
      err = cudaFuncSetAttribute(reinterpret_cast<const void*>(entry), cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    int fit = 0;
    if (err == cudaSuccess) err = cudaOccupancyMaxActiveClusters(&fit, reinterpret_cast<const void*>(entry), &launch);
    if (err != cudaSuccess)
      throw ct::error("launch of kernel '" + name + "' on " + s.dev().name() + ": its group of " +
                      std::to_string(members) + " tile blocks (ct::block_group) was refused: " + cudaGetErrorName(err) +
                      " (" + cudaGetErrorString(err) + ")");
    if (fit <= 0)
      throw ct::error("launch of kernel '" + name + "': " + s.dev().name() + " cannot run a group of " +
                      std::to_string(members) + " of its tile blocks at once (ct::block_group); use larger tiles");
    return 1;
  });
  return cudaLaunchKernelEx(&launch, entry, kernel, views...);
}

// Called with s's GPU current (ct::launch makes it so), which the launch and every attribute and
// occupancy query here rely on.
template <class K, class... V>
void enqueue(const ct::stream& s, const std::string& name, const K& kernel, const int (&grid)[3],
             const V&... views) {
  auto cs = static_cast<cudaStream_t>(s.native());
  constexpr std::size_t shared_bytes = ct::detail::kernel_shared_bytes<K>();
  constexpr ct::co_schedule co = ct::detail::kernel_co_schedule<K>();
  static_assert(co.blocks == 1 || co.blocks == 2, "ct::co_schedule: blocks must be 1 or 2");
  static_assert(co.axis >= 0 && co.axis <= 2, "ct::co_schedule: axis must be 0, 1 or 2");
  static_assert(co.cluster == 1 || co.cluster == 2, "ct::co_schedule: cluster must be 1 or 2");
  static_assert(co.cluster_axis >= 0 && co.cluster_axis <= 2, "ct::co_schedule: cluster_axis must be 0, 1 or 2");
  static_assert(co.cluster == 1 || co.blocks == 2, "ct::co_schedule: clusters need blocks = 2 (for now)");
  static_assert(!co.producer || (co.blocks == 2 && shared_bytes > 0),
                "ct::co_schedule: a producer warpgroup needs blocks = 2 and the kernel's shared_bytes for "
                "the stages it fills");
  cudaError_t err = cudaSuccess;  // what a launch API returned; a <<<>>> launch reports through cudaGetLastError
  if constexpr (constexpr int axis = ct::detail::kernel_group_axis<K>(); axis >= 0) {
    err = launch_groups<K>(s, name, kernel, grid, axis, views...);
  } else if constexpr (co.blocks == 1 && shared_bytes == 0) {
    const dim3 g{unsigned(grid[0]), unsigned(grid[1]), unsigned(grid[2])};
    const auto entry = plain_entry<K>(views...);
    entry<<<g, config::gpu_block_threads, 0, cs>>>(kernel, views...);
  } else if constexpr (co.blocks == 1) {
    const dim3 g{unsigned(grid[0]), unsigned(grid[1]), unsigned(grid[2])};
    const auto tma = tma_table_for(s, views...);
    using table = decltype(tma);
    allow_shared_bytes(name, s, kernel_entry_staged<K, table, V...>, shared_bytes);
    kernel_entry_staged<K, table, V...><<<g, config::gpu_block_threads, shared_bytes, cs>>>(kernel, tma, views...);
  } else {
    unsigned g[3] = {unsigned(grid[0]), unsigned(grid[1]), unsigned(grid[2])};
    g[co.axis] = (g[co.axis] + co.blocks - 1) / co.blocks;
    const co_arguments args{co.axis, grid[co.axis], unsigned(shared_bytes), co.cluster_axis,
                            {int(g[0]), int(g[1]), int(g[2])}};
    constexpr std::size_t bytes = cta_context_bytes + shared_bytes + (co.blocks - 1) * std::size_t(config::arena_bytes);
    const auto tma = [&] {
      if constexpr (shared_bytes > 0) return tma_table_for(s, views...);
      else return sm90::no_tma_table{};
    }();
    using table = decltype(tma);
    const auto entry = kernel_entry_co<co.blocks, co.producer, K, table, V...>;
    allow_shared_bytes(name, s, entry, bytes);
    cudaLaunchConfig_t launch{};
    launch.gridDim = dim3{g[0], g[1], g[2]};
    launch.blockDim = dim3{unsigned(config::gpu_block_threads), unsigned(co.blocks + int(co.producer))};
    launch.dynamicSmemBytes = bytes;
    launch.stream = cs;
    // Clusters (ct::co_schedule's cluster) where the kernel asks for them, a Hopper GPU runs
    // them, and they tile the grid (a persistent grid's order pairs its CTAs itself: always);
    // without, the same kernel runs unclustered.
    cudaLaunchAttribute cluster{};
    if constexpr (co.cluster > 1 && shared_bytes > 0) {
      if ((co.producer || g[co.cluster_axis] % unsigned(co.cluster) == 0) && on_hopper(s)) {
        cluster.id = cudaLaunchAttributeClusterDimension;
        unsigned dims[3] = {1, 1, 1};
        dims[co.producer ? 0 : co.cluster_axis] = unsigned(co.cluster);
        cluster.val.clusterDim.x = dims[0], cluster.val.clusterDim.y = dims[1], cluster.val.clusterDim.z = dims[2];
        launch.attrs = &cluster;
        launch.numAttrs = 1;
      }
    }
    if constexpr (co.producer) {
      // Persistent: one CTA an SM at most (with clusters, as many pairs as fit at once), each
      // running its share of the plain grid's CTAs (persistent_cta).
      const unsigned per_cluster = launch.numAttrs > 0 ? unsigned(co.cluster) : 1u;
      g[co.cluster_axis] = clusters_along(g[co.cluster_axis], per_cluster) * per_cluster;  // as persistent_ctas
      const std::uint64_t total = std::uint64_t(g[0]) * g[1] * g[2];
      if (total >= (std::uint64_t(1) << 31))
        throw ct::error("launch of kernel '" + name + "': " + std::to_string(total) +
                        " CTAs, more than a persistent grid counts (2^31)");
      launch.gridDim = dim3{per_cluster, 1, 1};  // a grid the clusters tile, for the occupancy query
      const std::uint64_t fit = per_cluster > 1 ? per_cluster * resident_clusters(name, s, entry, launch)
                                                : std::uint64_t(s.dev().multiprocessors());
      launch.gridDim = dim3{unsigned(total < fit ? total : fit), 1, 1};
    }
    err = cudaLaunchKernelEx(&launch, entry, kernel, args, tma, views...);
  }
  if (err == cudaSuccess) err = cudaGetLastError();
  if (err != cudaSuccess)
    throw ct::error("launch of kernel '" + name + "' on " + s.dev().name() + " failed: " +
                    cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")");
}

}  // namespace ct::backend::cuda
#endif
