// How a GPU launch places tile blocks on CTAs. By default one tile block is one CTA. A kernel
// may declare
//     static constexpr ct::co_schedule co_schedule{/*axis=*/1, /*blocks=*/2};
// to run `blocks` tile blocks that are neighbours along grid axis `axis` in one CTA (a
// warpgroup each), so that ct::pipelined can stage an operand they share once for all of them
// (the B tile of two GEMM tiles in the same column). Nothing else changes for the kernel: each
// tile block still sees its own ct::bid(), barrier and arena, and writes only its own tile. When
// the partition has a tile count along `axis` that `blocks` does not divide, the last CTA's
// extra tile blocks get tile indices past the partition's end: their loads give padding and
// their stores are dropped, so a co-scheduled kernel must not use its tile index in unchecked
// accesses. The CPU backend runs every tile block alone.
#pragma once

namespace ct {

struct co_schedule {
  int axis = 0;    // grid axis along which neighbouring tile blocks share a CTA
  int blocks = 1;  // tile blocks per CTA: 1 or 2
};

}  // namespace ct
