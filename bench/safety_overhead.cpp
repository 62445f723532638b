// Safe vs unchecked: the cost of ctile's bounds checks on a bandwidth-bound kernel.
// Times c = a + b (f32) with checked and with ct::unchecked loads/stores, interleaved, next to a
// device-to-device cudaMemcpy (the copy ceiling), with CUDA events; prints a markdown table.
// Method: see bench/README.md.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include <ctile/ctile.hpp>

#include "timing.hpp"

namespace {

template <bool Checked>
struct add_kernel {
  static constexpr const char* name = Checked ? "add_checked" : "add_unchecked";
  CT_TILE void operator()(ct::out<float, ct::shape<2048>> c, ct::in<float, 1> a, ct::in<float, 1> b) const {
    if constexpr (Checked) c.store(a.load_like(c) + b.load_like(c));
    else c.store(a.load_like(c, ct::unchecked) + b.load_like(c, ct::unchecked), ct::unchecked);
  }
};

using bench::check;

// Median time in ms of `run` over `reps` repetitions, each timed alone with events on stream s.
double median_ms(cudaStream_t s, int reps, const std::function<void()>& run) {
  bench::event_timer timer(s);
  std::vector<double> ms;
  for (int i = 0; i < reps; ++i) ms.push_back(timer.ms(run));
  return bench::median(ms);
}

}  // namespace

int main() try {
  if (ct::cuda_device_count() == 0) {
    std::printf("no CUDA GPU: nothing to measure\n");
    return 0;
  }
  const ct::device dev = ct::device::cuda(0);
  const ct::stream st = ct::default_stream(dev);
  auto s = static_cast<cudaStream_t>(st.native());
  std::printf("| n (f32) | copy ceiling GB/s | checked GB/s | unchecked GB/s | checked / unchecked |\n");
  std::printf("| --- | --- | --- | --- | --- |\n");
  for (ct::index_t n : {ct::index_t(1) << 28, (ct::index_t(1) << 28) - 1, ct::index_t(1) << 24}) {
    auto a = ct::randn<float>({n}, 1, 1.0, dev), b = ct::randn<float>({n}, 2, 1.0, dev);
    auto c = ct::empty<float>({n}, dev);
    auto copy_dst = ct::empty<float>({n}, dev);
    const double bytes = 3.0 * 4.0 * double(n);
    auto checked = [&] { (void)ct::launch(st, add_kernel<true>{}, c.partition(ct::shape<2048>{}), a, b); };
    auto unchecked = [&] { (void)ct::launch(st, add_kernel<false>{}, c.partition(ct::shape<2048>{}), a, b); };
    auto copy = [&] {
      check(cudaMemcpyAsync(copy_dst.data(), a.data(), std::size_t(n) * 4, cudaMemcpyDeviceToDevice, s), "copy");
    };
    // The unchecked kernel reads past the end when n is not a multiple of the tile: only time it
    // where the promise holds.
    const bool unchecked_ok = n % 2048 == 0;
    for (int w = 0; w < 5; ++w) checked(), copy(), unchecked_ok ? unchecked() : void();
    check(cudaStreamSynchronize(s), "warm-up");
    std::vector<double> tc, tu, tcp;
    for (int round = 0; round < 5; ++round) {  // interleaved rounds, so drift hits both alike
      tc.push_back(median_ms(s, 20, checked));
      if (unchecked_ok) tu.push_back(median_ms(s, 20, unchecked));
      tcp.push_back(median_ms(s, 20, copy));
    }
    auto med = [](std::vector<double> v) { std::sort(v.begin(), v.end()); return v.empty() ? 0.0 : v[v.size() / 2]; };
    const double gc = bytes / med(tc) / 1e6, gcp = 2.0 * 4.0 * double(n) / med(tcp) / 1e6;
    if (unchecked_ok) {
      const double gu = bytes / med(tu) / 1e6;
      std::printf("| %lld | %.0f | %.0f | %.0f | %.3f |\n", (long long)n, gcp, gc, gu, gc / gu);
    } else {
      std::printf("| %lld (ragged) | %.0f | %.0f | n/a (not a multiple of the tile) | - |\n", (long long)n, gcp, gc);
    }
    // The result must be right, or the timing means nothing.
    const auto hc = c.to_host(), ha = a.to_host(), hb = b.to_host();
    for (std::size_t i = 0; i < hc.size(); i += 997)
      if (hc[i] != ha[i] + hb[i]) throw ct::error("wrong result at " + std::to_string(i));
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
