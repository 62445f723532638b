// Device discovery and selection.
#include "ctile/runtime/device.hpp"

#include <atomic>
#include <cstdlib>
#include <thread>

#include "ctile/core/error.hpp"
#include "cuda_check.hpp"

namespace ct {

int cuda_device_count() {
  static const int count = [] {
    int n = 0;
    // No driver or no GPU is an answer (zero), not a failure.
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      cudaGetLastError();
      return 0;
    }
    return n;
  }();
  return count;
}

device device::cuda(int ordinal) {
  const int n = cuda_device_count();
  detail::require(n > 0, "no CUDA GPU is available (no device or no driver); use ct::device::cpu() "
                         "or set CTILE_DEVICE=cpu");
  detail::require(ordinal >= 0 && ordinal < n, "CUDA device " + std::to_string(ordinal) +
                                                   " does not exist; this machine has " +
                                                   std::to_string(n) + " GPU(s)");
  return device(device_kind::cuda, ordinal);
}

namespace detail {
void make_current(const device& d) {
  if (d.is_cpu()) return;
  cuda_check(cudaSetDevice(d.ordinal()), "cudaSetDevice", d.name());
}
}  // namespace detail

std::string device::name() const {
  return is_cpu() ? std::string("cpu") : "cuda:" + std::to_string(ordinal_);
}

std::string device::description() const {
  if (is_cpu()) return "CPU backend, " + std::to_string(std::thread::hardware_concurrency()) + " threads";
  cudaDeviceProp prop{};
  detail::cuda_check(cudaGetDeviceProperties(&prop, ordinal_), "cudaGetDeviceProperties", name());
  return std::string(prop.name) + " (sm_" + std::to_string(prop.major) + std::to_string(prop.minor) +
         ", " + std::to_string(prop.multiProcessorCount) + " SMs)";
}

int device::compute_capability() const {
  if (is_cpu()) return 0;
  static std::atomic<int> known[64];  // asked on every launch of a pipelined kernel
  return detail::cached_per_device(known, ordinal_, [&] {
    int major = 0, minor = 0;
    detail::cuda_check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, ordinal_),
                       "cudaDeviceGetAttribute", name());
    detail::cuda_check(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, ordinal_),
                       "cudaDeviceGetAttribute", name());
    return 10 * major + minor;
  });
}

int device::multiprocessors() const {
  if (is_cpu()) return 0;
  static std::atomic<int> known[64];  // asked on every launch of a persistent kernel
  return detail::cached_per_device(known, ordinal_, [&] {
    int n = 0;
    detail::cuda_check(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, ordinal_), "cudaDeviceGetAttribute",
                       name());
    return n;
  });
}

int device::shared_memory_per_block() const {
  if (is_cpu()) return 0;
  static std::atomic<int> known[64];  // asked by every GEMM on an sm_80-class GPU
  return detail::cached_per_device(known, ordinal_, [&] {
    int n = 0;
    detail::cuda_check(cudaDeviceGetAttribute(&n, cudaDevAttrMaxSharedMemoryPerBlockOptin, ordinal_),
                       "cudaDeviceGetAttribute", name());
    return n;
  });
}

device parse_device(const std::string& spec) {
  if (spec == "cpu") return device::cpu();
  if (spec == "cuda" || spec == "gpu") return device::cuda(0);
  if (spec.rfind("cuda:", 0) == 0) {
    const std::string num = spec.substr(5);
    char* end = nullptr;
    const long n = std::strtol(num.c_str(), &end, 10);
    if (!num.empty() && end && *end == '\0' && n >= 0 && n < 1024) return device::cuda(int(n));
  }
  detail::fail("unknown device '" + spec + "'; expected cpu, cuda or cuda:N");
}

namespace detail {
device default_device(bool built_with_nvcc) {
  if (const char* env = std::getenv("CTILE_DEVICE"); env && *env) {
    try {
      return parse_device(env);
    } catch (const error& e) {
      fail(std::string("CTILE_DEVICE=") + env + ": " + e.message());
    }
  }
  if (built_with_nvcc && cuda_device_count() > 0) return device::cuda(0);
  return device::cpu();
}
}  // namespace detail

}  // namespace ct
