// One atomic read-modify-write on one element, with a memory order and scope: libcu++'s
// cuda::atomic_ref on the GPU, std::atomic_ref on the CPU backend (whose blocks run on
// concurrent host threads, so the atomics are real there too).
#pragma once
#include <atomic>
#include <cstdint>

#include "ctile/core/config.hpp"

#if defined(__CUDACC__)
#include <cuda/atomic>  // libcu++, namespace ::cuda (spelled so: ct::backend::cuda is another)
#endif

namespace ct {

enum class memory_order { relaxed, acquire, release, acq_rel };
enum class memory_scope { block, device, system };

enum class atomic_op { add, max, min, bit_and, bit_or, bit_xor, exchange };

namespace backend {

template <memory_order O>
constexpr std::memory_order host_order() {
  if constexpr (O == memory_order::relaxed) return std::memory_order_relaxed;
  else if constexpr (O == memory_order::acquire) return std::memory_order_acquire;
  else if constexpr (O == memory_order::release) return std::memory_order_release;
  else return std::memory_order_acq_rel;
}

#if defined(__CUDA_ARCH__)
template <memory_order O>
__device__ constexpr ::cuda::std::memory_order device_order() {
  if constexpr (O == memory_order::relaxed) return ::cuda::std::memory_order_relaxed;
  else if constexpr (O == memory_order::acquire) return ::cuda::std::memory_order_acquire;
  else if constexpr (O == memory_order::release) return ::cuda::std::memory_order_release;
  else return ::cuda::std::memory_order_acq_rel;
}
template <memory_scope S>
constexpr ::cuda::thread_scope device_scope() {
  if constexpr (S == memory_scope::block) return ::cuda::thread_scope_block;
  else if constexpr (S == memory_scope::device) return ::cuda::thread_scope_device;
  else return ::cuda::thread_scope_system;
}
#endif

// Applies `Op` to *p with v and returns the old value.
template <atomic_op Op, memory_order O, memory_scope S, class T>
CT_HD T atomic_rmw(T* p, T v) {
#if defined(__CUDA_ARCH__)
  ::cuda::atomic_ref<T, device_scope<S>()> ref(*p);
  constexpr auto o = device_order<O>();
  if constexpr (Op == atomic_op::add) return ref.fetch_add(v, o);
  else if constexpr (Op == atomic_op::max) return ref.fetch_max(v, o);
  else if constexpr (Op == atomic_op::min) return ref.fetch_min(v, o);
  else if constexpr (Op == atomic_op::bit_and) return ref.fetch_and(v, o);
  else if constexpr (Op == atomic_op::bit_or) return ref.fetch_or(v, o);
  else if constexpr (Op == atomic_op::bit_xor) return ref.fetch_xor(v, o);
  else return ref.exchange(v, o);
#else
  std::atomic_ref<T> ref(*p);
  constexpr auto o = host_order<O>();
  if constexpr (Op == atomic_op::add) return ref.fetch_add(v, o);
  else if constexpr (Op == atomic_op::bit_and) return ref.fetch_and(v, o);
  else if constexpr (Op == atomic_op::bit_or) return ref.fetch_or(v, o);
  else if constexpr (Op == atomic_op::bit_xor) return ref.fetch_xor(v, o);
  else if constexpr (Op == atomic_op::exchange) return ref.exchange(v, o);
  else {
    T old = ref.load(std::memory_order_relaxed);
    while ((Op == atomic_op::max ? v > old : v < old) && !ref.compare_exchange_weak(old, v, o)) {
    }
    return old;
  }
#endif
}

// Compare-and-swap: stores `desired` if *p == expected; returns the old value either way.
template <memory_order O, memory_scope S, class T>
CT_HD T atomic_cas(T* p, T expected, T desired) {
#if defined(__CUDA_ARCH__)
  ::cuda::atomic_ref<T, device_scope<S>()> ref(*p);
  ref.compare_exchange_strong(expected, desired, device_order<O>());
#else
  std::atomic_ref<T> ref(*p);
  ref.compare_exchange_strong(expected, desired, host_order<O>());
#endif
  return expected;
}

}  // namespace backend
}  // namespace ct
