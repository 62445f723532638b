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
// accesses.
//
// It may also ask for clusters:
//     static constexpr ct::co_schedule co_schedule{1, 2, /*cluster_axis=*/2, /*cluster=*/2};
// pairs CTAs that are neighbours along grid axis `cluster_axis` into a thread-block cluster, so
// that ct::pipelined on sm_90a can load an operand both read once and multicast it to both (the
// A tiles of two GEMM tiles in the same row). The launch forms clusters only on a Hopper GPU and
// when `cluster` divides the CTA count along that axis; otherwise the kernel runs without them,
// with the same result. Both CTAs of a cluster must run their ct::pipelined loops alike (the
// same number of them, in the same order): they wait for each other at each one's start and end.
//
// And a producer warpgroup, with a persistent grid:
//     static constexpr ct::co_schedule co_schedule{1, 2, 0, 1, /*producer=*/true};
// adds one more warpgroup to each CTA that runs no tile of its own: inside ct::pipelined on
// sm_90a it issues every stage's TMA loads, so that the tile blocks' warps only wait for data
// and run the tensor cores, and it hands most of its registers to them (setmaxnreg). The grid
// is then persistent: one CTA per SM (at most), each running its tile blocks over a sequence
// of the partition's tiles (grouped along `axis` so that CTAs running at the same time share
// operands in L2), and the producer loads the stages of all of them into one ring, running
// ahead into the next tile's loads while the tile blocks finish the last one.
// The producer runs the kernel's code once, as a tile block past the partition's end (its
// loads give padding, its stores are dropped; it has no arena, and using one traps), up to
// the first ct::pipelined, where it loads and then exits. So a kernel asking for it must reach
// a ct::pipelined that runs on wgmma exactly once per tile, with the same trip count for every
// tile, its second stage (B) shared by the two tile blocks (its index map ignores `axis`), and
// touch no arena before it; a tile block that breaks one of these rules traps, rather than
// read another tile's stages.
// It needs blocks = 2 and the kernel's shared_bytes (checked at compile time). With clusters as
// well, the persistent order hands the two CTAs of a cluster neighbouring tiles along
// `cluster_axis` (where their count is odd, the last pair's second CTA runs a tile past the end:
// padding in, nothing out), and each CTA's producer loads half of the operand they share into
// both CTAs' stages.
// The CPU backend runs every tile block alone.
//
// Separately, a kernel may declare
//     static constexpr ct::block_group block_group{/*axis=*/1};
// so that the tile blocks along grid axis `axis` that share their other coordinates (a row of
// tiles along axis 1: all of a long row's pieces) form a group that runs at once and combines
// small tiles across its members: ct::sum_across_blocks and ct::max_across_blocks
// (tile/block_group.hpp). A group is at most max_block_group tile blocks (the launch says so
// otherwise). On a GPU a group is a thread-block cluster, which needs compute capability 9.0 or
// later (the launch refuses older GPUs with an error); the CPU backend runs a group's blocks on
// threads of their own. It does not combine with ct::co_schedule.
#pragma once

namespace ct {

struct block_group {
  int axis = 1;  // grid axis whose tile blocks (with the same other coordinates) form one group
};

// The most tile blocks a group holds: the largest thread-block cluster of a Hopper GPU (16,
// where more than the portable 8 are allowed per kernel).
inline constexpr int max_block_group = 16;

struct co_schedule {
  int axis = 0;    // grid axis along which neighbouring tile blocks share a CTA
  int blocks = 1;  // tile blocks per CTA: 1 or 2
  int cluster_axis = 0;  // grid axis along which neighbouring CTAs form a cluster
  int cluster = 1;       // CTAs per cluster: 1 or 2
  bool producer = false;  // one more warpgroup per CTA that loads the pipelined stages, and a
                          // persistent grid
};

}  // namespace ct
