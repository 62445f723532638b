// Runs example 4 on the default device and checks it against a float64 host reference.
#include <cmath>
#include <cstdio>

#include "layernorm.hpp"

int main() try {
  const ct::device dev = ct::default_device();
  const ct::index_t rows = 257, cols = 1000;
  auto x = ct::randn<float>({rows, cols}, 1, 3.0, dev);
  auto gamma = ct::rand<float>({cols}, 2, 0.5, 1.5, dev), beta = ct::randn<float>({cols}, 3, 1.0, dev);
  auto y = ct::empty<float>({rows, cols}, dev);
  examples::layernorm(y, x, gamma, beta).wait();

  const auto hx = x.to_host(), hg = gamma.to_host(), hb = beta.to_host(), hy = y.to_host();
  double worst = 0;
  for (ct::index_t i = 0; i < rows; ++i) {
    double mean = 0, var = 0;
    for (ct::index_t j = 0; j < cols; ++j) mean += hx[i * cols + j];
    mean /= double(cols);
    for (ct::index_t j = 0; j < cols; ++j) var += (hx[i * cols + j] - mean) * (hx[i * cols + j] - mean);
    var /= double(cols);
    for (ct::index_t j = 0; j < cols; ++j) {
      const double ref = (hx[i * cols + j] - mean) / std::sqrt(var + 1e-5) * hg[j] + hb[j];
      worst = std::fmax(worst, std::fabs(hy[i * cols + j] - ref) / (std::fabs(ref) + 1.0));
    }
  }
  std::printf("layernorm on %s: %lldx%lld, max error %.2e\n", dev.name().c_str(), (long long)rows, (long long)cols,
              worst);
  return worst < 1e-5 ? 0 : 1;
} catch (const ct::error& e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 2;
}
