// The CPU backend's execution context: a tile block runs on one host thread, so there is one
// "thread" per block, barriers are no-ops, and the arena is a per-host-thread buffer.
#pragma once
#include "ctile/core/config.hpp"

namespace ct::backend::cpu {

struct block_context {
  int bid[3] = {0, 0, 0};
  int num_blocks[3] = {1, 1, 1};
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
