// Devices: the CPU backend and CUDA GPUs. The default device is the GPU when one is present and
// the program was built with nvcc, else the CPU; CTILE_DEVICE=cpu|cuda|cuda:N overrides it.
#pragma once
#include <atomic>
#include <string>

namespace ct {

enum class device_kind { cpu, cuda };

class device {
 public:
  static device cpu() { return device(device_kind::cpu, 0); }
  // Throws ct::error when GPU `ordinal` does not exist (or no driver is installed).
  static device cuda(int ordinal = 0);

  device_kind kind() const { return kind_; }
  int ordinal() const { return ordinal_; }
  bool is_cpu() const { return kind_ == device_kind::cpu; }
  bool is_cuda() const { return kind_ == device_kind::cuda; }
  std::string name() const;  // "cpu" or "cuda:N"
  // A human description: the GPU's name and compute capability, or the host's core count.
  std::string description() const;
  // A GPU's compute capability as 10 * major + minor (90 for Hopper); 0 for the CPU.
  int compute_capability() const;
  // A GPU's streaming multiprocessors (the persistent grid's size); 0 for the CPU.
  int multiprocessors() const;
  // The most shared memory one block of a GPU may use, static and dynamic together, once a
  // kernel opts in (cudaDevAttrMaxSharedMemoryPerBlockOptin); 0 for the CPU.
  int shared_memory_per_block() const;

  friend bool operator==(const device& a, const device& b) {
    return a.kind_ == b.kind_ && a.ordinal_ == b.ordinal_;
  }

 private:
  device(device_kind k, int o) : kind_(k), ordinal_(o) {}
  device_kind kind_;
  int ordinal_;
};

// Number of usable CUDA GPUs; 0 when there is no GPU or no driver.
int cuda_device_count();

// Parses a CTILE_DEVICE-style string ("cpu", "cuda", "cuda:1"); throws ct::error if malformed
// or if it names a GPU that is not present.
device parse_device(const std::string& spec);

namespace detail {
device default_device(bool built_with_nvcc);

// Makes GPU `d` the calling thread's current CUDA device (nothing for the CPU): the runtime API
// launches only on the current device's streams, and kernel attributes and occupancy are asked
// of it. Throws ct::error if CUDA refuses.
void make_current(const device& d);

// Something about CUDA device `ordinal` that cannot change once known (an attribute, an
// occupancy, a setting made on it), asked on every launch of some kernels: `compute` runs on
// the first call for the device, and its result (nonzero) is kept in `known` (0: not yet) for
// devices 0-63 (others ask every time). Two threads may both compute it, harmlessly.
template <class Compute>
int cached_per_device(std::atomic<int> (&known)[64], int ordinal, Compute compute) {
  const bool cached = ordinal >= 0 && ordinal < 64;
  if (cached)
    if (const int v = known[ordinal].load(std::memory_order_relaxed); v != 0) return v;
  const int v = compute();
  if (cached) known[ordinal].store(v, std::memory_order_relaxed);
  return v;
}
}  // namespace detail

// The TU's compiler decides whether GPU kernels exist; the inline namespaces keep the two
// flavours distinct symbols, so mixing nvcc and host-compiler TUs breaks no rules.
#if defined(__CUDACC__)
inline namespace nvcc_built {
inline device default_device() { return detail::default_device(true); }
}
#else
inline namespace host_built {
inline device default_device() { return detail::default_device(false); }
}
#endif

}  // namespace ct
