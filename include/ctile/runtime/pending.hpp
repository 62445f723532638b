// The result of ct::launch: the work is in flight until wait(). While it is pending, the
// launch's outputs are exclusively borrowed (host access to them is an error); wait() gives
// them back. Dropping a pending result detaches it: the outputs come back when the work ends,
// and host access then waits for it.
#pragma once
#include <memory>
#include <string>

#include "ctile/core/error.hpp"
#include "ctile/runtime/storage.hpp"

namespace ct {

class [[nodiscard("a launch runs asynchronously: call wait() or keep the pending result")]] pending {
 public:
  pending() = default;
  explicit pending(std::shared_ptr<detail::launch_record> rec) : rec_(std::move(rec)) {}

  // Blocks until the launch has finished; a device-side failure surfaces here as ct::error.
  void wait() {
    if (!rec_) return;
    auto rec = std::move(rec_);
    try {
      rec->done.wait();
    } catch (const error& e) {
      throw error("kernel '" + rec->kernel + "' failed while running on " + rec->on.dev().name() + ": " + e.message());
    }
  }
  bool done() const { return !rec_ || rec_->done.done(); }
  // Name of the launched kernel ("" after wait()).
  std::string kernel() const { return rec_ ? rec_->kernel : std::string(); }
  // The event that completes with the launch, for ordering other streams after it.
  ct::event event() const { return rec_ ? rec_->done : ct::event(); }

 private:
  std::shared_ptr<detail::launch_record> rec_;
};

}  // namespace ct
