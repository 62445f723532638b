#include "demo.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <vector>

#include "01_vector_add/vector_add.hpp"
#include "02_broadcast_add/broadcast_add.hpp"
#include "03_softmax/softmax.hpp"

namespace tool {
namespace {

struct row {
  std::string example, size;
  double max_rel_err, tolerance, seconds, bytes;
};

// Median wall time of launch + wait over a few runs, after one warm-up run. Host-side timing, so
// small cases include the launch overhead; bench/ measures bandwidth properly.
double median_seconds(const std::function<void()>& run_once) {
  run_once();
  std::vector<double> t;
  for (int i = 0; i < 7; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    run_once();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

double rel_err(double got, double ref) { return std::fabs(got - ref) / std::max(std::fabs(ref), 1e-30); }

row vector_add_case(const ct::device& dev, ct::index_t n) {
  auto a = ct::randn<float>({n}, 11, 1.0, dev), b = ct::randn<float>({n}, 12, 1.0, dev);
  auto c = ct::full<float>({n}, NAN, dev);
  const double sec = median_seconds([&] { examples::add(c, a, b).wait(); });
  const auto ha = a.to_host(), hb = b.to_host(), hc = c.to_host();
  double err = 0;
  for (std::size_t i = 0; i < hc.size(); ++i) err = std::max(err, rel_err(hc[i], double(ha[i]) + double(hb[i])));
  return {"01_vector_add", std::to_string(n), err, 1e-7, sec, 3.0 * 4 * double(n)};
}

row broadcast_add_case(const ct::device& dev, ct::index_t m, ct::index_t n) {
  auto a = ct::randn<float>({m, n}, 21, 1.0, dev), bias = ct::randn<float>({n}, 22, 1.0, dev);
  auto c = ct::full<float>({m, n}, NAN, dev);
  const double sec = median_seconds([&] { examples::add_row(c, a, bias).wait(); });
  const auto ha = a.to_host(), hb = bias.to_host(), hc = c.to_host();
  double err = 0;
  for (ct::index_t i = 0; i < m; ++i)
    for (ct::index_t j = 0; j < n; ++j)
      err = std::max(err, rel_err(hc[i * n + j], double(ha[i * n + j]) + double(hb[j])));
  return {"02_broadcast_add", std::to_string(m) + "x" + std::to_string(n), err, 1e-7, sec,
          (2.0 * double(m) * double(n) + double(n)) * 4};
}

row softmax_case(const ct::device& dev, ct::index_t m, ct::index_t n) {
  auto x = ct::randn<float>({m, n}, 31, 2.0, dev);
  auto y = ct::full<float>({m, n}, NAN, dev);
  const double sec = median_seconds([&] { examples::softmax(y, x).wait(); });
  const auto hx = x.to_host(), hy = y.to_host();
  double err = 0;
  for (ct::index_t i = 0; i < m; ++i) {
    double mx = -INFINITY, sum = 0;
    for (ct::index_t j = 0; j < n; ++j) mx = std::max(mx, double(hx[i * n + j]));
    for (ct::index_t j = 0; j < n; ++j) sum += std::exp(double(hx[i * n + j]) - mx);
    for (ct::index_t j = 0; j < n; ++j) err = std::max(err, rel_err(hy[i * n + j], std::exp(double(hx[i * n + j]) - mx) / sum));
  }
  return {"03_softmax", std::to_string(m) + "x" + std::to_string(n), err, 1e-5, sec, 2.0 * 4 * double(m) * double(n)};
}

}  // namespace

int run_demo(const ct::device& dev) {
  const bool gpu = dev.is_cuda();
  std::printf("ctile demo on %s: %s\n\n", dev.name().c_str(), dev.description().c_str());
  std::vector<row> rows;
  rows.push_back(vector_add_case(dev, gpu ? (1 << 24) + 1 : 1000003));
  rows.push_back(broadcast_add_case(dev, gpu ? 8191 : 1001, gpu ? 4097 : 777));
  rows.push_back(softmax_case(dev, gpu ? 8192 : 257, 4097));

  std::printf("| %-16s | %-8s | %-10s | %-13s | %-10s | %-8s | %s\n", "example", "device", "size",
              "max rel error", "time (ms)", "GB/s", "check");
  std::printf("|%s|\n", std::string(90, '-').c_str());
  int failures = 0;
  for (const row& r : rows) {
    const bool ok = r.max_rel_err <= r.tolerance;
    failures += !ok;
    std::printf("| %-16s | %-8s | %-10s | %-13.2e | %-10.3f | %-8.1f | %s\n", r.example.c_str(),
                dev.name().c_str(), r.size.c_str(), r.max_rel_err, r.seconds * 1e3, r.bytes / r.seconds / 1e9,
                ok ? "ok" : "FAILED");
  }
  std::printf("\nTimes are host wall clock of launch + wait (median of 7); see bench/ for bandwidth.\n");
  return failures;
}

}  // namespace tool
