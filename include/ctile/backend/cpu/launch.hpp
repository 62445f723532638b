// Running a launch on the CPU backend: the stream's worker thread runs the grid, spreading the
// blocks over the thread pool; each block is one call of the kernel body on one host thread.
// The blocks of a ct::block_group run at once, each on a thread of its own, since they wait for
// each other.
#pragma once
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "ctile/backend/cpu/exec.hpp"
#include "ctile/core/error.hpp"
#include "ctile/runtime/kernel_traits.hpp"
#include "ctile/runtime/stream.hpp"

namespace ct::backend::cpu {

template <class K, class... V>
void enqueue(const ct::stream& s, const K& kernel, const int (&grid)[3],
             std::vector<std::shared_ptr<void>> keep_alive, const V&... views) {
  const int gx = grid[0], gy = grid[1], gz = grid[2];
  s.enqueue([kernel, gx, gy, gz, keep = std::move(keep_alive), views...]() {
    const int n[3] = {gx, gy, gz};
    const auto run_block = [&](long long i, block_group_state* group, int rank) {
      block_context& ctx = current_block();
      ctx.bid[0] = int(i % gx);
      ctx.bid[1] = int((i / gx) % gy);
      ctx.bid[2] = int(i / ((long long)gx * gy));
      for (int a = 0; a < 3; ++a) ctx.num_blocks[a] = n[a];
      ctx.group = group;
      ctx.group_rank = rank;
      kernel(views...);
      ctx.group = nullptr;
    };
    const long long total = (long long)gx * gy * gz;
    constexpr int axis = ct::detail::kernel_group_axis<K>();
    if constexpr (axis < 0) {
      ct::detail::parallel_for(total, [&](long long i) { run_block(i, nullptr, 0); });
    } else {
      // Group g holds the blocks whose coordinate along `axis` runs over the whole axis; block
      // (g, r) is the one at coordinate r. Members run on threads of their own, the first on
      // the pool's.
      const int members = n[axis];
      const long long below = axis == 0 ? 1 : axis == 1 ? gx : (long long)gx * gy;  // stride of `axis`
      const auto block_of = [&](long long g, int r) { return g % below + (long long)r * below + g / below * below * members; };
      ct::detail::parallel_for(total / members, [&](long long g) {
        block_group_state group(members);
        std::exception_ptr failed;
        std::mutex failed_lock;
        const auto member = [&](int r) {
          try {
            run_block(block_of(g, r), &group, r);
          } catch (...) {
            current_block().group = nullptr;
            group.meet.arrive_and_drop();
            const std::lock_guard<std::mutex> hold(failed_lock);
            if (!failed) failed = std::current_exception();
          }
        };
        std::vector<std::thread> others;
        others.reserve(std::size_t(members - 1));
        int started = 1;
        try {
          for (; started < members; ++started) others.emplace_back(member, started);
        } catch (const std::system_error& e) {
          // Out of threads: the members that did not start, and the first, drop out of the
          // barrier, so that those that did finish; the launch fails.
          for (int r = started; r < members; ++r) group.meet.arrive_and_drop();
          group.meet.arrive_and_drop();
          for (auto& t : others) t.join();
          throw ct::error("a ct::block_group of " + std::to_string(members) +
                          " tile blocks needs a thread for each; starting one failed: " + e.what());
        }
        member(0);
        for (auto& t : others) t.join();
        if (failed) std::rethrow_exception(failed);
      });
    }
  });
}

}  // namespace ct::backend::cpu
