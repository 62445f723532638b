// Device memory with stream-ordered release and the runtime borrow checks.
#include "ctile/runtime/storage.hpp"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "cuda_check.hpp"
#include "stream_impl.hpp"

namespace ct::detail {
namespace {

// The device's memory pool keeps what tensors free (its release threshold raised from 0), so
// that a temporary allocated per call (a kernel's partial results) reuses memory already mapped
// instead of being unmapped at every synchronization and mapped again. (Not measured to speed
// up col_sum, whose temporary it was written for: bench/results/2026-12-04-gemm-epilogue.md.)
// The memory stays with the process's stream-ordered allocations, as in a caching allocator.
void keep_freed_memory(int ordinal) {
  static std::atomic<int> done[64];
  cached_per_device(done, ordinal, [&] {
    cudaMemPool_t pool = nullptr;
    std::uint64_t keep = UINT64_MAX;
    cuda_check(cudaDeviceGetDefaultMemPool(&pool, ordinal), "cudaDeviceGetDefaultMemPool",
               "cuda:" + std::to_string(ordinal));
    cuda_check(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep), "cudaMemPoolSetAttribute",
               "release threshold of cuda:" + std::to_string(ordinal));
    return 1;
  });
}

}  // namespace

std::shared_ptr<storage> storage::allocate(const device& dev, std::size_t bytes) {
  void* p = nullptr;
  const std::size_t n = bytes ? bytes : 1;
  if (dev.is_cpu()) {
    p = std::aligned_alloc(64, (n + 63) / 64 * 64);
    require(p != nullptr, "out of host memory allocating " + std::to_string(bytes) + " bytes");
    return std::shared_ptr<storage>(new storage(dev, p, bytes, true));
  }
  make_current(dev);
  keep_freed_memory(dev.ordinal());
  const stream home = default_stream(dev);
  cuda_check(cudaMallocAsync(&p, n, static_cast<cudaStream_t>(home.native())), "cudaMallocAsync",
             std::to_string(bytes) + " bytes on " + dev.name());
  std::shared_ptr<storage> made(new storage(dev, p, bytes, true));
  // Ordered on the home stream, without waiting on the host: launches on other streams and
  // host access wait for the allocation as for a write (prepare_bind, prepare_host_access).
  made->last_write_ = home.record();
  return made;
}

std::shared_ptr<storage> storage::borrow(const device& dev, void* ptr, std::size_t bytes) {
  return std::shared_ptr<storage>(new storage(dev, ptr, bytes, false));
}

storage::~storage() {
  if (!owned_) return;
  if (dev_.is_cpu()) {
    // CPU launches hold a reference until they finish, so nothing can still be using this.
    std::free(ptr_);
    return;
  }
  // Stream-ordered release: the free waits, on the device, for every launch that used the
  // memory. Destructors must not throw, so failures here (e.g. at process exit) are ignored.
  try {
    const stream home = default_stream(dev_);
    for (const event& e : readers_) home.wait(e);
    home.wait(last_write_);
    cudaSetDevice(dev_.ordinal());
    cudaFreeAsync(ptr_, static_cast<cudaStream_t>(home.native()));
  } catch (...) {
  }
}

void storage::prune_locked() {
  std::erase_if(readers_, [](const event& e) { return e.done(); });
  if (last_write_.valid() && last_write_.done()) last_write_ = event();
}

void storage::prepare_host_access(bool writing, const char* what) {
  std::vector<event> wait_for;
  {
    std::lock_guard lock(mutex_);
    if (auto rec = borrower_.lock())
      fail(std::string("ct::tensor::") + what + ": the tensor is exclusively borrowed as an output of "
           "the pending launch of kernel '" + rec->kernel + "'; call wait() on its pending result first");
    if (writing) wait_for = readers_;
    wait_for.push_back(last_write_);
  }
  for (const event& e : wait_for) e.wait();
  std::lock_guard lock(mutex_);
  prune_locked();
}

void storage::prepare_bind(const stream& s, bool writing, const std::string& kernel) {
  std::vector<event> wait_for;
  {
    std::lock_guard lock(mutex_);
    if (auto rec = borrower_.lock(); rec && !(rec->on == s))
      fail("kernel '" + kernel + "': an argument is exclusively borrowed as an output of the pending "
           "launch of kernel '" + rec->kernel + "' on another stream; call wait() on that launch first");
    prune_locked();
    if (writing) wait_for = readers_;
    wait_for.push_back(last_write_);
  }
  // Work from other streams that this launch must follow (same-stream work is ordered anyway).
  for (const event& e : wait_for) s.wait(e);
}

void storage::record_use(const std::shared_ptr<launch_record>& rec, bool writing) {
  std::lock_guard lock(mutex_);
  if (writing) {
    last_write_ = rec->done;
    borrower_ = rec;
  } else {
    readers_.push_back(rec->done);
  }
}

void storage::copy_in(std::size_t offset, const void* src, std::size_t n) {
  require(offset + n <= bytes_, "copy into a tensor past the end of its memory");
  char* dst = static_cast<char*>(ptr_) + offset;
  if (dev_.is_cpu()) {
    std::memcpy(dst, src, n);
    return;
  }
  make_current(dev_);
  const stream home = default_stream(dev_);
  auto s = static_cast<cudaStream_t>(home.native());
  cuda_check(cudaMemcpyAsync(dst, src, n, cudaMemcpyHostToDevice, s), "cudaMemcpyAsync", "host to " + dev_.name());
  cuda_check(cudaStreamSynchronize(s), "cudaStreamSynchronize", "host to " + dev_.name());
}

void storage::copy_out(std::size_t offset, void* dst, std::size_t n) const {
  require(offset + n <= bytes_, "copy out of a tensor past the end of its memory");
  const char* src = static_cast<const char*>(ptr_) + offset;
  if (dev_.is_cpu()) {
    std::memcpy(dst, src, n);
    return;
  }
  make_current(dev_);
  const stream home = default_stream(dev_);
  auto s = static_cast<cudaStream_t>(home.native());
  cuda_check(cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync", dev_.name() + " to host");
  cuda_check(cudaStreamSynchronize(s), "cudaStreamSynchronize", dev_.name() + " to host");
}

}  // namespace ct::detail
