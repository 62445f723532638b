// 16-byte chunks that start off a 16-byte boundary: how backend/memory.hpp, with
// CTILE_STRADDLE_ROWS (the default), moves a whole, contiguous chunk of a row that is not 16-byte aligned (a
// bf16 tensor of 8191 columns: 7 rows in 8) without falling back to one access per element,
// which puts a warp's accesses 16 bytes apart and costs 8x the memory transactions.
//
// - A load reads the two aligned 16-byte blocks the chunk straddles and shifts the chunk out of
//   them with selects and funnel shifts (no branch, no local memory). Neighbouring threads read
//   the same blocks, so the second read mostly hits L1.
// - A store writes the chunk's bytes in each of the two blocks as the fewest naturally aligned
//   pieces of at most 8 bytes (2 to 5 stores, chosen at compile time for each of the 15 possible
//   offsets). Two threads then write disjoint bytes of one block, which is not a race.
//
// A load reads up to 15 bytes on either side of the chunk. Those before it share an aligned
// block with the chunk's first byte, so they are in the same allocation (CUDA allocations are at
// least 256-byte aligned); those after it are read only when they lie inside the tensor's span
// (straddle_readable), so a tensor that ends off a 16-byte boundary never reads past its end. On
// the CPU the same calls are plain memcpys.
#pragma once
#include <cstdint>
#include <cstring>
#include <utility>

#include "ctile/core/config.hpp"

namespace ct::backend::detail {

// Whether the two aligned blocks around the chunk at p end inside the tensor (span_end is one
// past its highest element).
template <class T>
CT_HD inline bool straddle_readable(const T* p, const T* span_end) {
  const auto first_block = reinterpret_cast<std::uintptr_t>(p) & ~std::uintptr_t(15);
  return first_block + 32 <= reinterpret_cast<std::uintptr_t>(span_end);
}

// A 16-byte chunk of a tile, kept packed while loads are in flight.
struct alignas(16) chunk16 {
  std::uint32_t word[4];
};

// The low word of (hi:lo) >> bits, bits 0..31: the GPU's funnel shift (the CPU's is for tests).
CT_HD inline std::uint32_t funnel_right(std::uint32_t lo, std::uint32_t hi, unsigned bits) {
#if defined(__CUDA_ARCH__)
  return __funnelshift_r(lo, hi, bits);
#else
  return std::uint32_t(((std::uint64_t(hi) << 32) | lo) >> (bits & 31));
#endif
}

// The 16 bytes at byte offset `shift` (0..15) of the 32 in w[0..7], for a runtime shift: whole
// words by selects, then the rest by one funnel shift a word.
CT_HD inline chunk16 extract_16_bytes(std::uint32_t (&w)[8], unsigned shift) {
  CT_UNROLL
  for (int i = 0; i < 6; ++i) w[i] = (shift & 8) ? w[i + 2] : w[i];
  CT_UNROLL
  for (int i = 0; i < 5; ++i) w[i] = (shift & 4) ? w[i + 1] : w[i];
  const unsigned bits = (shift & 3) * 8;
  return {{funnel_right(w[0], w[1], bits), funnel_right(w[1], w[2], bits), funnel_right(w[2], w[3], bits),
           funnel_right(w[3], w[4], bits)}};
}

#if defined(__CUDA_ARCH__)

// Writes bytes [O, End) of the 32-byte window d (word-aligned at `block`) as naturally aligned
// pieces of at most 8 bytes, largest first.
template <int O, int End>
__device__ inline void store_pieces(unsigned char* block, const unsigned (&d)[8]) {
  if constexpr (O < End) {
    constexpr int size = (O % 8 == 0 && O + 8 <= End)   ? 8
                         : (O % 4 == 0 && O + 4 <= End) ? 4
                         : (O % 2 == 0 && O + 2 <= End) ? 2
                                                        : 1;
    constexpr int word = O / 4, bit = 8 * (O % 4);
    if constexpr (size == 8) *reinterpret_cast<uint2*>(block + O) = make_uint2(d[word], d[word + 1]);
    else if constexpr (size == 4) *reinterpret_cast<unsigned*>(block + O) = d[word];
    else if constexpr (size == 2) *reinterpret_cast<unsigned short*>(block + O) = (unsigned short)(d[word] >> bit);
    else block[O] = (unsigned char)(d[word] >> bit);
    store_pieces<O + size, End>(block, d);
  }
}

// The chunk x placed at byte `Shift` of the aligned 32-byte window `block`, stored.
template <int Shift>
__device__ inline void store_at_shift(unsigned char* block, const unsigned (&x)[4]) {
  constexpr int words = Shift / 4, bits = 8 * (Shift % 4);
  unsigned d[8];
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int j = i - words;  // x's word that lands (mostly) in d[i]
    const unsigned hi = (j >= 0 && j < 4) ? x[j] : 0u, lo = (j >= 1 && j <= 4) ? x[j - 1] : 0u;
    d[i] = __funnelshift_l(lo, hi, bits);
  }
  store_pieces<Shift, Shift + 16>(block, d);
}

// store_at_shift for a runtime offset, a multiple of Step: one compare a possible offset.
template <int Step, int... I>
__device__ inline void store_at_runtime_shift(unsigned char* block, const unsigned (&x)[4], unsigned shift,
                                              std::integer_sequence<int, I...>) {
  (void)((shift == unsigned((I + 1) * Step) ? (store_at_shift<(I + 1) * Step>(block, x), true) : false) || ...);
}
#endif

// dst[0..16) = the chunk at src, which starts off a 16-byte boundary (straddle_readable holds).
template <class T>
CT_HD inline void load_straddling(T* dst, const T* src) {
#if defined(__CUDA_ARCH__)
  const auto at = reinterpret_cast<std::uintptr_t>(src);
  const uint4* blocks = reinterpret_cast<const uint4*>(at & ~std::uintptr_t(15));
  const uint4 lo = blocks[0], hi = blocks[1];
  std::uint32_t w[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
  const chunk16 chunk = extract_16_bytes(w, unsigned(at & 15));
  memcpy(dst, &chunk, 16);
#else
  std::memcpy(dst, src, 16);
#endif
}

// dst[0..16) = src's 16 bytes, dst starting off a 16-byte boundary at a multiple of Align (T's
// alignment).
template <int Align, class T>
CT_HD inline void store_straddling(T* dst, const T* src) {
#if defined(__CUDA_ARCH__)
  const auto at = reinterpret_cast<std::uintptr_t>(dst);
  unsigned x[4];
  memcpy(x, src, 16);
  store_at_runtime_shift<Align>(reinterpret_cast<unsigned char*>(at & ~std::uintptr_t(15)), x, unsigned(at & 15),
                                std::make_integer_sequence<int, 16 / Align - 1>{});
#else
  std::memcpy(dst, src, 16);
#endif
}

}  // namespace ct::backend::detail
