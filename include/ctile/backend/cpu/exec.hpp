// The CPU backend's execution context: a tile block runs on one host thread, so there is one
// "thread" per block, barriers are no-ops, and the arena is a per-host-thread buffer.
#pragma once
#include <barrier>
#include <vector>

#include "ctile/core/config.hpp"

namespace ct::backend::cpu {

// The tile blocks of one ct::block_group, each on a host thread of its own: what they publish
// to each other (ct::sum_across_blocks and friends). A member that leaves by an exception drops
// out of the barrier, so the others do not wait for it (the launch rethrows the exception).
struct block_group_state {
  explicit block_group_state(int members) : meet(members), published(std::size_t(members)) {}
  std::barrier<> meet;
  std::vector<std::vector<unsigned char>> published;  // each member's bytes, by rank
};

struct block_context {
  int bid[3] = {0, 0, 0};
  int num_blocks[3] = {1, 1, 1};
  block_group_state* group = nullptr;  // set while a member of a ct::block_group runs
  int group_rank = 0;
};

inline block_context& current_block() {
  thread_local block_context ctx;
  return ctx;
}

inline unsigned char* arena() {
  alignas(16) thread_local unsigned char buf[config::arena_bytes];
  return buf;
}

}  // namespace ct::backend::cpu
