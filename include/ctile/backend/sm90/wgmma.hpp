// Hopper (sm_90a) warpgroup MMA building blocks: the 128-byte-swizzled shared-memory layout that
// TMA writes and wgmma reads, the shared-memory matrix descriptor, and the wgmma instructions
// with their fences. Facts from the PTX ISA (wgmma.mma_async, "matrix descriptor format",
// "shared memory matrix layout"); the plan that uses them is docs/design/gemm-plan.md.
// Used by the wgmma fold (tile/pipeline.hpp, backend/sm90/wgmma_fold.hpp); tests/gpu/
// sm90_wgmma_test.cu checks a 64 x 64 x 64 product against the host, below the fold.
#pragma once
#include <cstdint>

#include <type_traits>

#include "ctile/backend/sm80/staging.hpp"
#include "ctile/core/config.hpp"
#include "ctile/core/dtype.hpp"

namespace ct::backend::sm90 {

// The 128B swizzle of the staged panels (backend/sm80/staging.hpp), which wgmma reads too.
using sm80::swizzle128_offset;

// The 64-bit shared-memory matrix descriptor: start address, leading- and stride-dimension
// byte offsets (each >> 4, 14 bits), base offset 0 (atoms 1024-byte aligned), layout type.
enum class smem_swizzle : std::uint64_t { none = 0, b128 = 1, b64 = 2, b32 = 3 };

CT_HD constexpr std::uint64_t smem_descriptor(std::uint32_t smem_addr, std::uint32_t leading_bytes,
                                              std::uint32_t stride_bytes, smem_swizzle swizzle) {
  return (std::uint64_t((smem_addr & 0x3FFFFu) >> 4)) | (std::uint64_t((leading_bytes >> 4) & 0x3FFFu) << 16) |
         (std::uint64_t((stride_bytes >> 4) & 0x3FFFu) << 32) | (std::uint64_t(swizzle) << 62);
}

// K-major operand in 128B-swizzled panels (rows of 128 bytes = 64 bf16 along K, 8-row atoms of
// 1024 bytes one after the other): the stride-dimension offset is one atom; the leading offset
// is unused by this mode (1 by convention). Advancing K by 16 bf16 elements is +32 bytes of
// start address inside the atom.
CT_HD constexpr std::uint64_t kmajor_b128_descriptor(std::uint32_t smem_addr) {
  return smem_descriptor(smem_addr, 16, 1024, smem_swizzle::b128);
}

// desc with its start address moved `bytes` on (a multiple of 16). Shared-memory addresses stay
// below 256 KiB, so the 14-bit address field never carries into the next: the add touches the
// low word only, one integer add where building the descriptor anew masks, shifts and merges.
CT_HD constexpr std::uint64_t advance_descriptor(std::uint64_t desc, std::uint32_t bytes) {
  return (desc & ~std::uint64_t(0xFFFFFFFFu)) | std::uint32_t(std::uint32_t(desc) + (bytes >> 4));
}

// Whether this device pass can issue wgmma (sm_90a: the "a" feature set).
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define CTILE_HAS_WGMMA 1
#else
#define CTILE_HAS_WGMMA 0
#endif

#if CTILE_HAS_WGMMA
__device__ inline std::uint32_t smem_address(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

// Orders this thread's earlier generic-proxy shared-memory writes before later async-proxy
// reads (wgmma, TMA stores) of them.
__device__ inline void fence_proxy_async_shared() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }

// Warpgroup register reallocation (every thread of the warpgroup runs it): a producer
// warpgroup gives registers back to the pool of its CTA, the tile blocks' warpgroups take them.
// Counts are multiples of 8 in [24, 256]; an increase waits until the pool has them.
template <int Registers>
__device__ inline void setmaxnreg_dec() {
  static_assert(Registers % 8 == 0 && Registers >= 24 && Registers <= 256, "setmaxnreg: 24..256, a multiple of 8");
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(Registers));
}
template <int Registers>
__device__ inline void setmaxnreg_inc() {
  static_assert(Registers % 8 == 0 && Registers >= 24 && Registers <= 256, "setmaxnreg: 24..256, a multiple of 8");
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(Registers));
}

// Registers per thread of a producer warpgroup and of the two tile blocks it serves: together
// 128 x (40 + 2 x 232) = 64512 of the SM's 65536, which the launch (384 threads, one CTA an SM,
// 168 registers each) holds for the CTA.
inline constexpr int producer_registers = 40, consumer_registers = 232;
static_assert(128 * (producer_registers + 2 * consumer_registers) <= 65536);

__device__ inline void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ inline void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N>
__device__ inline void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

// d (64 x 64 f32, 32 registers per thread of the warpgroup) += a (64 x 16 bf16) * b (16 x 64),
// both operands K-major in shared memory (b stored as [N][K]); scale_d = 0 ignores d's input.
// Accumulator layout: thread t = 32 w + l holds, in register i, row 16 w + l / 4 + 8 ((i / 2) % 2)
// and column 8 (i / 4) + 2 (l % 4) + i % 2.
__device__ inline void wgmma_m64n64k16_f32_bf16(float (&d)[32], std::uint64_t desc_a, std::uint64_t desc_b,
                                                int scale_d) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
      "%32, %33, p, 1, 1, 0, 0;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]),
        "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]),
        "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
        "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(desc_a), "l"(desc_b), "r"(scale_d));
}

// d (64 x 128 f32, 64 registers per thread) += a (64 x 16) * b (16 x 128) for 16-bit inputs T
// (bf16 or f16) from shared memory: a K-major; b K-major (stored [N][K], TransB = 0) or MN-major
// (stored [K][N], TransB = 1). scale_d = 0 ignores d's input. Register i of thread t holds
// (wgmma_acc_row(t, i), wgmma_acc_col(t, i)).
#define CT_WGMMA_M64N128K16(TYPE)                                                                             \
  asm volatile(                                                                                               \
      "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"                                                            \
      "wgmma.mma_async.sync.aligned.m64n128k16.f32." TYPE "." TYPE " {"                                       \
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "                                \
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "                      \
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "                      \
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"                        \
      "}, %64, %65, p, 1, 1, 0, %67;\n}\n"                                                                    \
      :                                                                                                       \
        "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),       \
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),\
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),\
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),\
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),\
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),\
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])\
      : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TransB))

template <class T, int TransB>
__device__ inline void wgmma_m64n128k16_f32(float (&d)[64], std::uint64_t desc_a, std::uint64_t desc_b, int scale_d) {
  static_assert(std::is_same_v<T, ct::bf16> || std::is_same_v<T, ct::f16>, "wgmma_m64n128k16_f32: bf16 or f16 inputs");
  if constexpr (std::is_same_v<T, ct::bf16>) CT_WGMMA_M64N128K16("bf16");
  else CT_WGMMA_M64N128K16("f16");
}
#undef CT_WGMMA_M64N128K16

// d (64 x 256 f32, 128 registers per thread) += a (64 x 16) * b (16 x 256), as m64n128k16 with
// twice the columns: one instruction reads each 16-row slice of b once for all 256 columns,
// where two m64n128k16 per 128 rows read b twice (per flop, 17 % less shared memory read by a
// CTA of two 64 x 256 tile blocks than by one of two 128 x 128 ones).
#define CT_WGMMA_M64N256K16(TYPE)                                                                             \
  asm volatile(                                                                                               \
      "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"                                                          \
      "wgmma.mma_async.sync.aligned.m64n256k16.f32." TYPE "." TYPE " {"                                       \
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, " \
      "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
      "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, " \
      "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, " \
      "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127" \
      "}, %128, %129, p, 1, 1, 0, %131;\n}\n"                                                                \
      :                                                                                                       \
        "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), \
        "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
        "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), \
        "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), \
        "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), \
        "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), \
        "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), \
        "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), \
        "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127]) \
      : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TransB))

template <class T, int TransB>
__device__ inline void wgmma_m64n256k16_f32(float (&d)[128], std::uint64_t desc_a, std::uint64_t desc_b, int scale_d) {
  static_assert(std::is_same_v<T, ct::bf16> || std::is_same_v<T, ct::f16>, "wgmma_m64n256k16_f32: bf16 or f16 inputs");
  if constexpr (std::is_same_v<T, ct::bf16>) CT_WGMMA_M64N256K16("bf16");
  else CT_WGMMA_M64N256K16("f16");
}
#undef CT_WGMMA_M64N256K16
#endif

// Row and column of accumulator register i of warpgroup thread t, for m64nNk16 with f32 d.
CT_HD constexpr int wgmma_acc_row(int t, int i) { return 16 * (t / 32) + (t % 32) / 4 + 8 * ((i / 2) % 2); }
CT_HD constexpr int wgmma_acc_col(int t, int i) { return 8 * (i / 4) + 2 * (t % 4) + i % 2; }

}  // namespace ct::backend::sm90
