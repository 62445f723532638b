// Private to the runtime: the two kinds of streams and events behind ct::stream and ct::event.
#pragma once
#include <cuda_runtime_api.h>

#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

#include "ctile/runtime/stream.hpp"

namespace ct::detail {

struct event_impl {
  virtual ~event_impl() = default;
  virtual bool done() = 0;
  virtual void wait() = 0;
};

// Completed by the CPU stream's worker when it reaches the point where the event was recorded.
struct cpu_event final : event_impl {
  std::mutex m;
  std::condition_variable cv;
  bool finished = false;
  std::exception_ptr failure;
  void complete(std::exception_ptr err);
  bool done() override;
  void wait() override;
};

struct cuda_event final : event_impl {
  cudaEvent_t ev = nullptr;
  int ordinal = 0;
  ~cuda_event() override;
  bool done() override;
  void wait() override;
};

struct stream_impl {
  explicit stream_impl(const device& d) : dev(d) {}
  virtual ~stream_impl() = default;
  virtual event record() = 0;
  virtual void wait(const event& e) = 0;
  virtual void synchronize() = 0;
  virtual void* native() { return nullptr; }
  virtual void enqueue(std::function<void()> task) = 0;
  device dev;
};

// An in-order worker thread. A task that throws fails the next recorded event.
struct cpu_stream final : stream_impl {
  cpu_stream();
  ~cpu_stream() override;
  event record() override;
  void wait(const event& e) override;
  void synchronize() override;
  void enqueue(std::function<void()> task) override;

 private:
  void run();
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  std::exception_ptr failure_;
  bool stop_ = false;
  std::thread worker_;
};

struct cuda_stream final : stream_impl {
  cuda_stream(const device& d, cudaStream_t s, bool owned);
  ~cuda_stream() override;
  event record() override;
  void wait(const event& e) override;
  void synchronize() override;
  void* native() override { return s_; }
  void enqueue(std::function<void()> task) override;

 private:
  cudaStream_t s_;
  bool owned_;
};

}  // namespace ct::detail
