// Running a launch on a GPU: one CTA of config::gpu_block_threads threads per tile block, grid
// axes 0, 1, 2 mapped to CUDA's x, y, z. Compiled only by nvcc.
#pragma once
#include <string>

#include "ctile/core/config.hpp"
#include "ctile/core/error.hpp"
#include "ctile/runtime/stream.hpp"

#if defined(__CUDACC__)
#include <cuda_runtime.h>

namespace ct::backend::cuda {

template <class K, class... V>
__global__ void __launch_bounds__(config::gpu_block_threads) kernel_entry(K kernel, V... views) {
  kernel(views...);
}

template <class K, class... V>
void enqueue(const ct::stream& s, const std::string& name, const K& kernel, const int (&grid)[3],
             const V&... views) {
  const dim3 g{unsigned(grid[0]), unsigned(grid[1]), unsigned(grid[2])};
  auto cs = static_cast<cudaStream_t>(s.native());
  kernel_entry<K, V...><<<g, config::gpu_block_threads, 0, cs>>>(kernel, views...);
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess)
    throw ct::error("launch of kernel '" + name + "' on " + s.dev().name() + " failed: " +
                    cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")");
}

}  // namespace ct::backend::cuda
#endif
