// The memory behind tensors, and the bookkeeping that makes the ownership rules hold:
// - every launch that uses a storage leaves an event on it; releasing the storage waits for
//   those events in stream order (a tensor dropped mid-launch is not freed early);
// - a launch that writes a storage borrows it exclusively until the launch is waited on or
//   its pending result is dropped; host access in that window is an error, not a race.
#pragma once
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ctile/runtime/stream.hpp"

namespace ct::detail {

// One launch, as the tensors it used see it.
struct launch_record {
  std::string kernel;
  ct::stream on;
  ct::event done;
};

class storage {
 public:
  // Owning allocation of `bytes` on `dev`, ordered on `home`.
  static std::shared_ptr<storage> allocate(const device& dev, std::size_t bytes);
  // Non-owning: memory that someone else frees (raw pointers, DLPack, other frameworks).
  static std::shared_ptr<storage> borrow(const device& dev, void* ptr, std::size_t bytes);
  ~storage();
  storage(const storage&) = delete;
  storage& operator=(const storage&) = delete;

  const device& dev() const { return dev_; }
  void* ptr() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }

  // Host access: throws if a pending launch holds an exclusive borrow, then waits for the
  // launches that write it (and, for `writing`, those that read it too).
  void prepare_host_access(bool writing, const char* what);
  // Binding to a launch on `s`: throws if exclusively borrowed by a launch on another stream;
  // otherwise makes `s` wait for the earlier work it must follow.
  void prepare_bind(const ct::stream& s, bool writing, const std::string& kernel);
  // After the launch is enqueued: remember its event, and take the borrow if it writes.
  void record_use(const std::shared_ptr<launch_record>& rec, bool writing);

  // Copies between host memory and [offset, offset + n) bytes of this storage.
  void copy_in(std::size_t offset, const void* src, std::size_t n);
  void copy_out(std::size_t offset, void* dst, std::size_t n) const;

 private:
  storage(const device& dev, void* ptr, std::size_t bytes, bool owned)
      : dev_(dev), ptr_(ptr), bytes_(bytes), owned_(owned) {}
  void prune_locked();

  device dev_;
  void* ptr_;
  std::size_t bytes_;
  bool owned_;
  std::mutex mutex_;
  std::vector<ct::event> readers_;
  ct::event last_write_;
  std::weak_ptr<launch_record> borrower_;
};

}  // namespace ct::detail
