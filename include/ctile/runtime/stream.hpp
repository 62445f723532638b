// Streams and events. A stream is an in-order queue of work on one device: a CUDA stream on a
// GPU, a worker thread on the CPU backend (whose launches run their blocks over a thread pool).
// Both are asynchronous, so the ownership rules behave the same on either.
#pragma once
#include <functional>
#include <memory>

#include "ctile/runtime/device.hpp"

namespace ct {

namespace detail {
struct event_impl;
struct stream_impl;
}  // namespace detail

// A point in a stream's work; complete once everything enqueued before it has finished.
class event {
 public:
  event() = default;
  explicit event(std::shared_ptr<detail::event_impl> impl) : impl_(std::move(impl)) {}
  bool valid() const { return impl_ != nullptr; }
  bool done() const;  // an invalid event is done
  void wait() const;  // rethrows a failure of the work it marks as ct::error
  const std::shared_ptr<detail::event_impl>& impl() const { return impl_; }

 private:
  std::shared_ptr<detail::event_impl> impl_;
};

class stream {
 public:
  // A new stream on `dev`.
  explicit stream(const device& dev);
  // Borrows a foreign CUDA stream (cudaStream_t) without taking ownership.
  static stream borrow_cuda(const device& dev, void* cuda_stream);

  const device& dev() const;
  void synchronize() const;
  event record() const;
  // Work enqueued on this stream after this call waits for `e`.
  void wait(const event& e) const;
  // The cudaStream_t of a GPU stream; nullptr on the CPU.
  void* native() const;
  // CPU streams only: enqueues a host task.
  void enqueue(std::function<void()> task) const;

  friend bool operator==(const stream& a, const stream& b) { return a.impl_ == b.impl_; }

 private:
  explicit stream(std::shared_ptr<detail::stream_impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<detail::stream_impl> impl_;
};

// The stream launches use when none is given: one per device per process.
stream default_stream(const device& dev);

namespace detail {
// Runs body(i) for i in [0, n) over the CPU backend's thread pool and returns when all are done.
void parallel_for(long long n, const std::function<void(long long)>& body);
}

}  // namespace ct
