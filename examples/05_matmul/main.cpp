// Runs example 5 on the default device and checks it against a float64 host reference.
#include <cmath>
#include <cstdio>

#include "matmul.hpp"

int main() try {
  const ct::device dev = ct::default_device();
  const ct::index_t m = 300, n = 200, k = 257;
  auto a = ct::randn<ct::bf16>({m, k}, 1, 1.0, dev), b = ct::randn<ct::bf16>({k, n}, 2, 1.0, dev);
  auto c = ct::empty<float>({m, n}, dev);
  examples::matmul(c, a, b).wait();

  const auto ha = a.to_host(), hb = b.to_host();
  const auto hc = c.to_host();
  double worst = 0;
  for (ct::index_t i = 0; i < m; ++i)
    for (ct::index_t j = 0; j < n; ++j) {
      double ref = 0, mag = 0;
      for (ct::index_t p = 0; p < k; ++p) {
        const double prod = double(float(ha[i * k + p])) * double(float(hb[p * n + j]));
        ref += prod;
        mag += std::fabs(prod);
      }
      worst = std::fmax(worst, std::fabs(hc[i * n + j] - ref) / (mag + 1e-30));
    }
  std::printf("matmul on %s: %lldx%lldx%lld bf16 -> f32, max error %.2e (relative to sum |a*b|)\n",
              dev.name().c_str(), (long long)m, (long long)n, (long long)k, worst);
  return worst < 1e-5 ? 0 : 1;
} catch (const ct::error& e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 2;
}
