// What the benchmarks share (method: bench/README.md): CUDA error checks, single launches timed
// alone between two CUDA events, medians, fresh seeds and the run's UTC date.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

#include <ctile/ctile.hpp>

namespace bench {

inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw ct::error(std::string(what) + ": " + cudaGetErrorString(e));
}

// Times one launch at a time on stream s: record, run, record, wait, elapsed.
class event_timer {
 public:
  explicit event_timer(cudaStream_t s) : s_(s) {
    check(cudaEventCreate(&t0_), "cudaEventCreate");
    check(cudaEventCreate(&t1_), "cudaEventCreate");
  }
  ~event_timer() {
    cudaEventDestroy(t0_);
    cudaEventDestroy(t1_);
  }
  event_timer(const event_timer&) = delete;
  event_timer& operator=(const event_timer&) = delete;

  double ms(const std::function<void()>& run) {
    check(cudaEventRecord(t0_, s_), "cudaEventRecord");
    run();
    check(cudaEventRecord(t1_, s_), "cudaEventRecord");
    check(cudaEventSynchronize(t1_), "cudaEventSynchronize");
    float m = 0;
    check(cudaEventElapsedTime(&m, t0_, t1_), "cudaEventElapsedTime");
    return double(m);
  }

 private:
  cudaStream_t s_;
  cudaEvent_t t0_ = nullptr, t1_ = nullptr;
};

inline double median(std::vector<double> v) {
  if (v.empty()) throw ct::error("bench: median of no measurements");
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// A new seed per call, different in every run.
inline std::uint32_t next_seed() {
  static std::uint32_t s = std::uint32_t(std::chrono::steady_clock::now().time_since_epoch().count());
  return s = s * 1664525u + 1013904223u;
}

// Now, as 2026-12-03T10:00:00Z.
inline std::string utc_now() {
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return date;
}

}  // namespace bench
