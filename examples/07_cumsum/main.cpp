// Runs example 7 on the default device and checks it against a float64 host reference.
#include <cmath>
#include <cstdio>

#include "cumsum.hpp"

int main() try {
  const ct::device dev = ct::default_device();
  const ct::index_t rows = 37, cols = 5000;
  auto x = ct::rand<float>({rows, cols}, 1, -1.0, 1.0, dev);
  auto y = ct::empty<float>({rows, cols}, dev);
  examples::cumsum_rows(y, x);

  const auto hx = x.to_host(), hy = y.to_host();
  double worst = 0;
  for (ct::index_t i = 0; i < rows; ++i) {
    double s = 0;
    for (ct::index_t j = 0; j < cols; ++j) {
      s += hx[i * cols + j];
      worst = std::fmax(worst, std::fabs(hy[i * cols + j] - s));
    }
  }
  std::printf("cumsum on %s: %lldx%lld, max abs error %.2e\n", dev.name().c_str(), (long long)rows, (long long)cols,
              worst);
  return worst < 1e-3 ? 0 : 1;
} catch (const ct::error& e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 2;
}
