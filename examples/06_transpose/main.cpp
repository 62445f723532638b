// Runs example 6 on the default device and checks it against the host.
#include <cstdio>

#include "transpose.hpp"

int main() try {
  const ct::device dev = ct::default_device();
  const ct::index_t rows = 1000, cols = 333;
  auto x = ct::randn<float>({rows, cols}, 1, 1.0, dev);
  auto y = ct::empty<float>({cols, rows}, dev);
  examples::transpose(y, x).wait();

  const auto hx = x.to_host(), hy = y.to_host();
  std::size_t wrong = 0;
  for (ct::index_t i = 0; i < rows; ++i)
    for (ct::index_t j = 0; j < cols; ++j) wrong += hy[j * rows + i] != hx[i * cols + j];
  std::printf("transpose on %s: %lldx%lld, %zu wrong\n", dev.name().c_str(), (long long)rows, (long long)cols, wrong);
  return wrong == 0 ? 0 : 1;
} catch (const ct::error& e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 2;
}
