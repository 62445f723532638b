// Running a launch on a GPU: one CTA of config::gpu_block_threads threads per tile block, grid
// axes 0, 1, 2 mapped to CUDA's x, y, z, with the dynamic shared memory the kernel declares.
// Compiled only by nvcc.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "ctile/backend/cuda/exec.hpp"
#include "ctile/core/config.hpp"
#include "ctile/core/error.hpp"
#include "ctile/runtime/kernel_traits.hpp"
#include "ctile/runtime/stream.hpp"

#if defined(__CUDACC__)
#include <cuda_runtime.h>

namespace ct::backend::cuda {

template <class K, class... V>
__global__ void __launch_bounds__(config::gpu_block_threads) kernel_entry(K kernel, V... views) {
  kernel(views...);
}

// Co-scheduled tile blocks (ct::co_schedule): Blocks warpgroups per CTA, one tile block each.
// The CTA's context goes to the start of dynamic shared memory before any tile code runs.
template <int Blocks, class K, class... V>
__global__ void __launch_bounds__(config::gpu_block_threads * Blocks, 1)
    kernel_entry_co(K kernel, int axis, int extent, unsigned ring_bytes, V... views) {
  if (threadIdx.x == 0 && threadIdx.y == 0) context() = cta_context{axis, extent, ring_bytes};
  __syncthreads();
  kernel(views...);
}

// Dynamic shared memory above 48 KiB must be allowed per kernel (and, to be safe, per device)
// before the launch. The launch itself then says whether the device has that much.
template <class Entry>
void allow_shared_bytes(const std::string& name, const ct::stream& s, Entry entry, std::size_t bytes) {
  static std::atomic<std::uint64_t> allowed{0};  // bit d: done on device d
  const int d = s.dev().ordinal();
  const std::uint64_t bit = d < 64 ? std::uint64_t(1) << d : 0;
  if (bit != 0 && (allowed.load(std::memory_order_relaxed) & bit) != 0) return;
  cudaError_t err = cudaFuncSetAttribute(reinterpret_cast<const void*>(entry),
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes));
  // And the largest shared-memory carveout, so that as many CTAs fit an SM as the shared memory
  // allows (two 113 KiB GEMM tile blocks need all 228 KiB) rather than what the driver guesses.
  if (err == cudaSuccess)
    err = cudaFuncSetAttribute(reinterpret_cast<const void*>(entry), cudaFuncAttributePreferredSharedMemoryCarveout,
                               int(cudaSharedmemCarveoutMaxShared));
  if (err != cudaSuccess)
    throw ct::error("kernel '" + name + "' asks for " + std::to_string(bytes) + " bytes of dynamic shared memory, which " +
                    s.dev().name() + " does not allow: " + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")");
  allowed.fetch_or(bit, std::memory_order_relaxed);
}

template <class K, class... V>
void enqueue(const ct::stream& s, const std::string& name, const K& kernel, const int (&grid)[3],
             const V&... views) {
  auto cs = static_cast<cudaStream_t>(s.native());
  constexpr std::size_t shared_bytes = ct::detail::kernel_shared_bytes<K>();
  constexpr ct::co_schedule co = ct::detail::kernel_co_schedule<K>();
  static_assert(co.blocks == 1 || co.blocks == 2, "ct::co_schedule: blocks must be 1 or 2");
  static_assert(co.axis >= 0 && co.axis <= 2, "ct::co_schedule: axis must be 0, 1 or 2");
  if constexpr (co.blocks == 1) {
    const dim3 g{unsigned(grid[0]), unsigned(grid[1]), unsigned(grid[2])};
    if constexpr (shared_bytes > 0) allow_shared_bytes(name, s, kernel_entry<K, V...>, shared_bytes);
    kernel_entry<K, V...><<<g, config::gpu_block_threads, shared_bytes, cs>>>(kernel, views...);
  } else {
    unsigned g[3] = {unsigned(grid[0]), unsigned(grid[1]), unsigned(grid[2])};
    g[co.axis] = (g[co.axis] + co.blocks - 1) / co.blocks;
    constexpr std::size_t bytes = cta_context_bytes + shared_bytes + (co.blocks - 1) * std::size_t(config::arena_bytes);
    allow_shared_bytes(name, s, kernel_entry_co<co.blocks, K, V...>, bytes);
    kernel_entry_co<co.blocks, K, V...><<<dim3{g[0], g[1], g[2]}, dim3{unsigned(config::gpu_block_threads), unsigned(co.blocks)},
                                          bytes, cs>>>(kernel, co.axis, grid[co.axis], unsigned(shared_bytes), views...);
  }
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess)
    throw ct::error("launch of kernel '" + name + "' on " + s.dev().name() + " failed: " +
                    cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")");
}

}  // namespace ct::backend::cuda
#endif
