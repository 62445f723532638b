// Runs example 3 on the default device and checks it against a float64 host reference.
#include <cmath>
#include <cstdio>

#include "softmax.hpp"

int main() try {
  const ct::device dev = ct::default_device();
  const ct::index_t rows = 333, cols = 4097;
  auto x = ct::randn<float>({rows, cols}, 1, 2.0, dev);
  auto y = ct::empty<float>({rows, cols}, dev);
  examples::softmax(y, x).wait();

  const auto hx = x.to_host(), hy = y.to_host();
  double worst = 0;
  for (ct::index_t i = 0; i < rows; ++i) {
    double mx = -INFINITY, sum = 0;
    for (ct::index_t j = 0; j < cols; ++j) mx = std::fmax(mx, hx[i * cols + j]);
    for (ct::index_t j = 0; j < cols; ++j) sum += std::exp(hx[i * cols + j] - mx);
    for (ct::index_t j = 0; j < cols; ++j) {
      const double ref = std::exp(hx[i * cols + j] - mx) / sum;
      worst = std::fmax(worst, std::fabs(hy[i * cols + j] - ref) / ref);
    }
  }
  std::printf("softmax on %s: %lldx%lld, max relative error %.2e\n", dev.name().c_str(), (long long)rows,
              (long long)cols, worst);
  return worst < 1e-5 ? 0 : 1;
} catch (const ct::error& e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 2;
}
