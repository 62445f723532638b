// Compiler and target configuration shared by every layer: the function-space macros, the
// per-pass thread count of a tile block, and the size of the per-block shared-memory arena.
#pragma once

#if defined(__CUDACC__)
#define CT_HD __host__ __device__
#else
#define CT_HD
#endif

// Marks a kernel body: one source, compiled for the CPU backend and (under nvcc) for the GPU.
// On the GPU it is inlined into its launch's entry, always: a call there would make ptxas
// serialize the wgmmas of a ct::pipelined loop (C7510), and the persistent entry calls it from
// two places (one per register count), where the compiler's size heuristics would keep a call.
#if defined(__CUDA_ARCH__)
#define CT_TILE __host__ __device__ __forceinline__
#else
#define CT_TILE CT_HD
#endif

// Unroll slot loops on the GPU (tiles must live in registers); never on the CPU, where a tile
// can hold tens of thousands of elements per "thread".
// CT_NO_UNROLL keeps a loop rolled where unrolling costs compile time and buys nothing.
#if defined(__CUDA_ARCH__)
#define CT_UNROLL _Pragma("unroll")
#define CT_NO_UNROLL _Pragma("unroll 1")
#else
#define CT_UNROLL
#define CT_NO_UNROLL
#endif

#ifndef CTILE_BLOCK_WARPS
#define CTILE_BLOCK_WARPS 4
#endif
#ifndef CTILE_ARENA_BYTES
#define CTILE_ARENA_BYTES 16384
#endif
// Loads and stores of rows that start off a 16-byte boundary in aligned pieces
// (backend/straddle.hpp), with a whole-tile fast path. On by default: measured on the H200 it
// speeds up such rows up to 2.4x and most aligned kernels by 0-27%, but slows aligned row
// reductions and RoPE by 6-17% (docs/backend.md, "Memory"); define it 0 for the plain loads.
#ifndef CTILE_STRADDLE_ROWS
#define CTILE_STRADDLE_ROWS 1
#endif

// A second build of every plain kernel (no ct::pipelined, no co-scheduling) for launches whose
// tensors' rows are all 16-byte aligned (backend/cuda/launch.hpp, kernel_entry_aligned_rows), so
// that those do not pay for the code that handles rows off the boundary. Off by default until
// measured on a GPU; it doubles such kernels' device code.
#ifndef CTILE_ALIGNED_VARIANTS
#define CTILE_ALIGNED_VARIANTS 0
#endif

// Tile loads take their chunks' coordinates from the thread index read at the load (as tile
// stores do), so that ptxas does not hoist them out of a kernel's loops and keep them in
// registers: fewer registers for the row and column reductions (126 -> 91, 156 -> 123, bf16),
// more for bias + activation (48-56 -> 56-64). Off by default until measured on a GPU.
#ifndef CTILE_LOAD_INDEX_HERE
#define CTILE_LOAD_INDEX_HERE 0
#endif

namespace ct::config {

// Threads that execute one tile block. The CPU backend runs a block on one host thread, so
// every tile op there is a plain loop; the GPU runs it on CTILE_BLOCK_WARPS warps.
#if defined(__CUDA_ARCH__)
inline constexpr int block_threads = CTILE_BLOCK_WARPS * 32;
#else
inline constexpr int block_threads = 1;
#endif
inline constexpr int gpu_block_threads = CTILE_BLOCK_WARPS * 32;

// Shared memory used for layout conversions and cross-warp reductions. Conversions larger than
// this run in several rounds, so it bounds speed, not correctness.
inline constexpr int arena_bytes = CTILE_ARENA_BYTES;

inline constexpr bool straddle_rows = CTILE_STRADDLE_ROWS != 0;
inline constexpr bool aligned_variants = CTILE_ALIGNED_VARIANTS != 0;
inline constexpr bool load_index_here = CTILE_LOAD_INDEX_HERE != 0;

static_assert((CTILE_BLOCK_WARPS & (CTILE_BLOCK_WARPS - 1)) == 0 && CTILE_BLOCK_WARPS <= 32,
              "CTILE_BLOCK_WARPS must be a power of two between 1 and 32");
static_assert(CTILE_ARENA_BYTES >= 1024 && CTILE_ARENA_BYTES % 16 == 0,
              "CTILE_ARENA_BYTES must be a multiple of 16 and at least 1024");

}  // namespace ct::config
