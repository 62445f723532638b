// Running a launch on the CPU backend: the stream's worker thread runs the grid, spreading the
// blocks over the thread pool; each block is one call of the kernel body on one host thread.
#pragma once
#include <memory>
#include <vector>

#include "ctile/backend/cpu/exec.hpp"
#include "ctile/runtime/stream.hpp"

namespace ct::backend::cpu {

template <class K, class... V>
void enqueue(const ct::stream& s, const K& kernel, const int (&grid)[3],
             std::vector<std::shared_ptr<void>> keep_alive, const V&... views) {
  const int gx = grid[0], gy = grid[1], gz = grid[2];
  s.enqueue([kernel, gx, gy, gz, keep = std::move(keep_alive), views...]() {
    const long long total = (long long)gx * gy * gz;
    ct::detail::parallel_for(total, [&](long long i) {
      block_context& ctx = current_block();
      ctx.bid[0] = int(i % gx);
      ctx.bid[1] = int((i / gx) % gy);
      ctx.bid[2] = int(i / ((long long)gx * gy));
      ctx.num_blocks[0] = gx;
      ctx.num_blocks[1] = gy;
      ctx.num_blocks[2] = gz;
      kernel(views...);
    });
  });
}

}  // namespace ct::backend::cpu
