// Row tiles whose warps each hold 32 consecutive 16-byte chunks of one row (a tile of 32 chunks
// a row or more: [1, 2048] bf16, [8, 512], [4, 256] f32), when the tile is not whole and aligned:
// its rows start off a 16-byte boundary (a bf16 tensor of 8191 columns: 7 rows in 8) or end
// inside it. Each lane moves the one aligned 16-byte block in which its chunk starts, and the
// warp passes the blocks' bytes along by shuffles:
//   - a load makes lane t's chunk from its block and lane t + 1's (lane 31 reads that block itself);
//   - a store has lane t write its block, made of the tail of lane t - 1's chunk and the head of
//     its own (lane 0 writes only its head; lane 31 also writes its tail, into the next block).
// Every access is one aligned block, and nothing branches per chunk, so a tile's loads are issued
// together; straddle.hpp's per-chunk path reads two blocks a chunk (loads) or writes 2-5 pieces
// (stores), each chunk in a branch of its own.
//
// A block is read only when it holds a byte of the chunk's row that the tensor has; every byte
// of such a block is then in the tensor's allocation (blocks are aligned, allocations 256-byte
// aligned), except, past a tensor that ends off a 16-byte boundary, the last block's tail: the
// caller keeps that block's tiles off this path (load_tile). A byte is written only where the
// tile holds an element of the tensor. The layout of bytes is worked out by plain functions,
// which the host tests drive over a simulated warp (tests/backend/warp_rows_test.cpp).
#pragma once
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "ctile/backend/straddle.hpp"

namespace ct::backend::detail {

inline constexpr std::uintptr_t block_mask = ~std::uintptr_t(15);

// Bytes [shift, shift + 16) of the 32 bytes lo, hi; shift 0..16.
CT_HD inline chunk16 bytes_at(const chunk16& lo, const chunk16& hi, unsigned shift) {
  std::uint32_t w[8];
  CT_UNROLL
  for (int i = 0; i < 4; ++i) {
    w[i] = (shift & 16) ? hi.word[i] : lo.word[i];
    w[i + 4] = hi.word[i];
  }
  return extract_16_bytes(w, shift & 15);
}

// The part of the aligned block at `block` that holds bytes of [lo, hi), as offsets in the block
// (begin >= end: none).
struct block_bytes {
  unsigned begin = 0, end = 0;
  CT_HD bool any() const { return begin < end; }
  CT_HD bool all() const { return begin == 0 && end == 16; }
};

CT_HD inline block_bytes bytes_of_range_in(std::uintptr_t block, std::uintptr_t lo, std::uintptr_t hi) {
  if (hi <= block || lo >= block + 16) return {};
  return {lo > block ? unsigned(lo - block) : 0u, hi < block + 16 ? unsigned(hi - block) : 16u};
}

// Lane `lane`'s part of a warp's 32 consecutive chunks; the chunk starts at byte address `at`,
// and [row_lo, row_hi) are the bytes of its row that the tensor holds (row_lo == row_hi when the
// row is outside the tensor), or the row holds every chunk of the warp.
struct warp_row_chunk {
  std::uintptr_t block;  // the aligned block in which the chunk starts
  unsigned shift;        // the chunk's offset in it, the same in every lane of the warp
  bool read_block;       // a load reads `block`: it holds a byte of the row
  bool read_next;        // a load reads the block after it too: lane 31, whose neighbour that is not
  block_bytes write;       // a store writes these bytes of `block`
  block_bytes write_next;  // and these of the next block (lane 31: its chunk's tail)

  // A chunk of a warp whose 32 chunks all lie in the tensor (a whole tile): no range tests.
  CT_HD warp_row_chunk(std::uintptr_t at, int lane) : block(at & block_mask), shift(unsigned(at & 15)) {
    const bool last = lane == 31, straddles = shift != 0;
    read_block = true;
    read_next = last && straddles;
    write = {lane == 0 ? shift : 0u, 16u};
    write_next = last && straddles ? block_bytes{0u, shift} : block_bytes{};
  }

  CT_HD warp_row_chunk(std::uintptr_t at, std::uintptr_t row_lo, std::uintptr_t row_hi, int lane)
      : block(at & block_mask), shift(unsigned(at & 15)) {
    const bool last = lane == 31, straddles = shift != 0;
    read_block = bytes_of_range_in(block, row_lo, row_hi).any();
    read_next = last && straddles && bytes_of_range_in(block + 16, row_lo, row_hi).any();
    // Lane t > 0 writes from the block's start: the tail of lane t - 1's chunk. Lane 0's block
    // starts with the tail of a chunk that is not in this warp (another warp's, another tile's,
    // or the previous row's), which is not its to write.
    const std::uintptr_t from = lane == 0 ? block + shift : block;
    write = bytes_of_range_in(block, from > row_lo ? from : row_lo, row_hi);
    write_next = last && straddles ? bytes_of_range_in(block + 16, row_lo, at + 16 < row_hi ? at + 16 : row_hi)
                                   : block_bytes{};
  }

  // The chunk, from the lane's block and the block after it (the next lane's, or lane 31's own).
  CT_HD chunk16 chunk_from(const chunk16& own, const chunk16& next) const { return bytes_at(own, next, shift); }
  // What the lane's block holds, from the previous lane's chunk and its own.
  CT_HD chunk16 block_from(const chunk16& previous, const chunk16& own) const {
    return bytes_at(previous, own, 16 - shift);
  }
  // What the next block holds of the lane's chunk (its tail, at the block's start).
  CT_HD chunk16 next_block_from(const chunk16& own) const { return bytes_at(own, chunk16{}, 16 - shift); }
};

// Writes bytes [b.begin, b.end) of d at the aligned block `block`, one element (of Size bytes)
// at a time unless the whole block is written (on the GPU one 16-byte store). The range starts
// and ends on element boundaries.
template <int Size>
CT_HD inline void store_block_bytes(unsigned char* block, const chunk16& d, block_bytes b) {
  static_assert(Size == 1 || Size == 2 || Size == 4 || Size == 8, "store_block_bytes: elements of 1, 2, 4 or 8 bytes");
#if defined(__CUDA_ARCH__)
  if (b.all()) {
    *reinterpret_cast<uint4*>(block) = make_uint4(d.word[0], d.word[1], d.word[2], d.word[3]);
    return;
  }
#endif
  using word_t = std::conditional_t<Size == 1, unsigned char,
                                    std::conditional_t<Size == 2, unsigned short,
                                                       std::conditional_t<Size == 4, unsigned, unsigned long long>>>;
  CT_UNROLL
  for (int e = 0; e < 16 / Size; ++e) {
    if (unsigned(e * Size) >= b.begin && unsigned((e + 1) * Size) <= b.end) {
      word_t x;
      memcpy(&x, reinterpret_cast<const unsigned char*>(d.word) + e * Size, Size);
      *reinterpret_cast<word_t*>(block + e * Size) = x;
    }
  }
}

}  // namespace ct::backend::detail
