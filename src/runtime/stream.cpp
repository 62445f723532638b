// Streams and events on both backends, and the CPU backend's thread pool.
#include <atomic>
#include <map>
#include <utility>
#include <vector>

#include "cuda_check.hpp"
#include "stream_impl.hpp"

namespace ct {

namespace detail {

// ---- events -------------------------------------------------------------------------------------

void cpu_event::complete(std::exception_ptr err) {
  {
    std::lock_guard lock(m);
    finished = true;
    failure = err;
  }
  cv.notify_all();
}
bool cpu_event::done() {
  std::lock_guard lock(m);
  return finished;
}
void cpu_event::wait() {
  std::unique_lock lock(m);
  cv.wait(lock, [&] { return finished; });
  if (failure) std::rethrow_exception(failure);
}

cuda_event::~cuda_event() {
  if (ev) cudaEventDestroy(ev);  // errors at process exit are of no use to anyone
}
bool cuda_event::done() {
  const cudaError_t err = cudaEventQuery(ev);
  if (err == cudaErrorNotReady) return false;
  cuda_check(err, "cudaEventQuery", "work on cuda:" + std::to_string(ordinal) + " failed");
  return true;
}
void cuda_event::wait() {
  cuda_check(cudaEventSynchronize(ev), "cudaEventSynchronize",
             "work on cuda:" + std::to_string(ordinal) + " failed");
}

// ---- CPU stream ---------------------------------------------------------------------------------

cpu_stream::cpu_stream() : stream_impl(device::cpu()), worker_([this] { run(); }) {}

cpu_stream::~cpu_stream() {
  {
    std::lock_guard lock(m_);
    stop_ = true;
  }
  cv_.notify_all();
  worker_.join();
}

void cpu_stream::run() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock lock(m_);
      cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and everything enqueued has run
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    try {
      task();
    } catch (...) {
      std::lock_guard lock(m_);
      failure_ = std::current_exception();
    }
  }
}

void cpu_stream::enqueue(std::function<void()> task) {
  {
    std::lock_guard lock(m_);
    queue_.push_back(std::move(task));
  }
  cv_.notify_all();
}

event cpu_stream::record() {
  auto ev = std::make_shared<cpu_event>();
  enqueue([this, ev] {
    std::exception_ptr err;
    {
      std::lock_guard lock(m_);
      err = std::exchange(failure_, nullptr);
    }
    ev->complete(err);
  });
  return event(ev);
}

void cpu_stream::wait(const event& e) {
  if (!e.valid() || e.done()) return;
  enqueue([e] { e.wait(); });
}

void cpu_stream::synchronize() { record().wait(); }

// ---- CUDA stream --------------------------------------------------------------------------------

cuda_stream::cuda_stream(const device& d, cudaStream_t s, bool owned) : stream_impl(d), s_(s), owned_(owned) {}

cuda_stream::~cuda_stream() {
  if (owned_) cudaStreamDestroy(s_);
}

event cuda_stream::record() {
  make_current(dev);
  auto ev = std::make_shared<cuda_event>();
  ev->ordinal = dev.ordinal();
  cuda_check(cudaEventCreateWithFlags(&ev->ev, cudaEventDisableTiming), "cudaEventCreateWithFlags");
  cuda_check(cudaEventRecord(ev->ev, s_), "cudaEventRecord");
  return event(ev);
}

void cuda_stream::wait(const event& e) {
  if (!e.valid() || e.done()) return;
  if (auto* ce = dynamic_cast<cuda_event*>(e.impl().get())) {
    cuda_check(cudaStreamWaitEvent(s_, ce->ev, 0), "cudaStreamWaitEvent");
  } else {
    e.wait();  // a CPU-stream event: the host waits before enqueueing more GPU work
  }
}

void cuda_stream::synchronize() {
  make_current(dev);
  cuda_check(cudaStreamSynchronize(s_), "cudaStreamSynchronize", "work on " + dev.name() + " failed");
}

void cuda_stream::enqueue(std::function<void()>) {
  fail("host tasks cannot be enqueued on a CUDA stream");
}

// ---- CPU thread pool ----------------------------------------------------------------------------

namespace {
class thread_pool {
 public:
  thread_pool() {
    const unsigned n = std::thread::hardware_concurrency();
    for (unsigned i = 1; i < (n ? n : 1); ++i) std::thread([this] { work(); }).detach();
  }

  void run(long long n, const std::function<void(long long)>& body) {
    std::lock_guard one_job(submit_);
    {
      std::lock_guard lock(m_);
      body_ = &body;
      n_ = n;
      next_ = 0;
      active_ = 0;
      ++generation_;
    }
    cv_.notify_all();
    drain(&body, n);
    std::unique_lock lock(m_);
    body_ = nullptr;  // no worker may start new items now
    done_cv_.wait(lock, [&] { return active_ == 0; });
    if (auto err = std::exchange(failure_, nullptr)) std::rethrow_exception(err);
  }

 private:
  // Runs items until none are left. A throwing item (a failed ct::device_assert) stops the
  // job: the first exception is kept for the caller and the remaining items are skipped.
  void drain(const std::function<void(long long)>* body, long long n) {
    for (long long i; (i = next_.fetch_add(1)) < n;) {
      try {
        (*body)(i);
      } catch (...) {
        std::lock_guard lock(m_);
        if (!failure_) failure_ = std::current_exception();
        next_ = n;
      }
    }
  }
  void work() {
    unsigned long long seen = 0;
    for (;;) {
      std::unique_lock lock(m_);
      cv_.wait(lock, [&] { return generation_ != seen && body_ != nullptr; });
      seen = generation_;
      ++active_;
      const auto* body = body_;
      const long long n = n_;
      lock.unlock();
      drain(body, n);
      lock.lock();
      if (--active_ == 0) done_cv_.notify_all();
    }
  }

  std::mutex submit_, m_;
  std::condition_variable cv_, done_cv_;
  const std::function<void(long long)>* body_ = nullptr;
  long long n_ = 0;
  std::atomic<long long> next_{0};
  int active_ = 0;
  unsigned long long generation_ = 0;
  std::exception_ptr failure_;
};
}  // namespace

void parallel_for(long long n, const std::function<void(long long)>& body) {
  static thread_pool* pool = new thread_pool();  // never destroyed: its threads outlive main
  if (n <= 0) return;
  if (n == 1) return body(0);
  pool->run(n, body);
}

}  // namespace detail

// ---- public wrappers ----------------------------------------------------------------------------

bool event::done() const { return !impl_ || impl_->done(); }
void event::wait() const {
  if (impl_) impl_->wait();
}

stream::stream(const device& dev) {
  if (dev.is_cpu()) {
    impl_ = std::make_shared<detail::cpu_stream>();
  } else {
    detail::make_current(dev);
    cudaStream_t s = nullptr;
    detail::cuda_check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    impl_ = std::make_shared<detail::cuda_stream>(dev, s, true);
  }
}

stream stream::borrow_cuda(const device& dev, void* cuda_stream) {
  detail::require(dev.is_cuda(), "ct::stream::borrow_cuda: " + dev.name() + " is not a CUDA device");
  return stream(std::make_shared<detail::cuda_stream>(dev, static_cast<cudaStream_t>(cuda_stream), false));
}

const device& stream::dev() const { return impl_->dev; }
void stream::synchronize() const { impl_->synchronize(); }
event stream::record() const { return impl_->record(); }
void stream::wait(const event& e) const { impl_->wait(e); }
void* stream::native() const { return impl_->native(); }
void stream::enqueue(std::function<void()> task) const { impl_->enqueue(std::move(task)); }

stream default_stream(const device& dev) {
  static std::mutex m;
  // Never destroyed: work may still be queued on them while static destructors run.
  static auto* streams = new std::map<std::string, stream>();
  std::lock_guard lock(m);
  auto it = streams->find(dev.name());
  if (it == streams->end()) it = streams->emplace(dev.name(), stream(dev)).first;
  return it->second;
}

}  // namespace ct
