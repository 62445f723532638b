// Ampere-class (sm_80+, also run on Hopper) tensor-core building blocks: cp.async copies from
// global to shared memory, ldmatrix from shared memory into mma fragments, and mma.sync
// m16n8k16 with f32 accumulators. Facts from the PTX ISA ("warp-level matrix fragments for
// mma.m16n8k16", ldmatrix, cp.async); the plan that uses them is docs/design/gemm-plan.md.
//
// tests/gpu/sm80_mma_test.cu checks them on the GPU; ct::mma on ordinary tiles uses them
// (backend/sm80/mma_tile.hpp).
#pragma once
#include <cstdint>
#include <type_traits>

#include "ctile/backend/mma_operands.hpp"
#include "ctile/core/config.hpp"

namespace ct::backend::sm80 {

// Fragment layouts of mma.m16n8k16 for 16-bit inputs, per warp lane l (g = l / 4, q = l % 4):
//   A (16 x 16, 8 halves in 4 registers), half i: row g + 8 ((i / 2) % 2), col 2q + i % 2 + 8 (i / 4)
//   B (16 x 8, 4 halves in 2 registers),  half i: row (k) 2q + i % 2 + 8 (i / 2), col (n) g
//   C (16 x 8 f32, 4 registers),          reg i:  row g + 8 (i / 2), col 2q + i % 2
CT_HD constexpr int mma_a_row(int lane, int i) { return lane / 4 + 8 * ((i / 2) % 2); }
CT_HD constexpr int mma_a_col(int lane, int i) { return 2 * (lane % 4) + i % 2 + 8 * (i / 4); }
CT_HD constexpr int mma_b_row(int lane, int i) { return 2 * (lane % 4) + i % 2 + 8 * (i / 2); }
CT_HD constexpr int mma_b_col(int lane, int /*i*/) { return lane / 4; }
CT_HD constexpr int mma_c_row(int lane, int i) { return lane / 4 + 8 * (i / 2); }
CT_HD constexpr int mma_c_col(int lane, int i) { return 2 * (lane % 4) + i % 2; }

// Lane l's row address for ldmatrix: x4 over A's 16 x 16 fragment (matrix l / 8: rows
// 8 ((l / 8) % 2) + l % 8, columns 8 (l / 16), which is the order of the A fragment's four
// registers), and x2.trans over B's 16 x 8 fragment (K rows l % 16; lanes 16-31 repeat 0-15,
// whose addresses the x2 form does not use).
CT_HD constexpr int ldmatrix_a_row(int lane) { return lane % 8 + 8 * ((lane / 8) % 2); }
CT_HD constexpr int ldmatrix_a_col(int lane) { return 8 * (lane / 16); }
CT_HD constexpr int ldmatrix_b_row(int lane) { return lane % 16; }

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
__device__ inline std::uint32_t smem_u32(const void* p) { return static_cast<std::uint32_t>(__cvta_generic_to_shared(p)); }

// 16 bytes from global to shared memory, asynchronously; `src_bytes` < 16 zero-fills the rest
// (0 for a chunk wholly outside the tensor: nothing is read).
__device__ inline void cp_async_16(void* smem_dst, const void* gmem_src, int src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_u32(smem_dst)), "l"(gmem_src),
               "r"(src_bytes)
               : "memory");
}
__device__ inline void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
// Waits until at most N of this thread's committed groups are still in flight.
template <int N>
__device__ inline void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

// Four 8x8 16-bit matrices: lanes 8j..8j+7 give the row addresses of matrix j; register j of
// lane l receives row l / 4, columns 2 (l % 4) and +1 of matrix j (transposed with .trans).
__device__ inline void ldmatrix_x4(std::uint32_t (&r)[4], const void* row_address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_u32(row_address)));
}
__device__ inline void ldmatrix_x2_trans(std::uint32_t (&r)[2], const void* row_address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
               : "=r"(r[0]), "=r"(r[1])
               : "r"(smem_u32(row_address)));
}
// The same from 32-bit shared-memory addresses (a staged tile's base plus an offset), and four
// matrices transposed (two 16 x 8 B fragments of a [K][N] tile: matrices 0, 1 the first's
// k rows 0-7 and 8-15, matrices 2, 3 the second's).
__device__ inline void ldmatrix_x4(std::uint32_t (&r)[4], std::uint32_t row_address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(row_address));
}
__device__ inline void ldmatrix_x4_trans(std::uint32_t (&r)[4], std::uint32_t row_address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(row_address));
}

// d = a * b + d for a 16 x 16 A fragment of T (bf16 or f16), a 16 x 8 B fragment, 16 x 8 f32 d.
// The element type must be spelled in the instruction.
#define CT_MMA_M16N8K16(TYPE)                                                                              \
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32." TYPE "." TYPE ".f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, " \
               "{%8, %9}, {%0, %1, %2, %3};\n"                                                               \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                                             \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]))
template <class T>
__device__ inline void mma_m16n8k16_f32(float (&d)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2]) {
  static_assert(tensor_core_16bit_v<T>, "mma.m16n8k16: bf16 or f16 fragments");
  if constexpr (std::is_same_v<T, bf16>) CT_MMA_M16N8K16("bf16");
  else CT_MMA_M16N8K16("f16");
}
#undef CT_MMA_M16N8K16
#endif

}  // namespace ct::backend::sm80
