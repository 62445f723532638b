// Runs example 2 on the default device and checks it against the host.
#include <cstdio>

#include "broadcast_add.hpp"

int main() try {
  const ct::device dev = ct::default_device();
  const ct::index_t rows = 1001, cols = 777;
  auto a = ct::randn<float>({rows, cols}, 1, 1.0, dev), bias = ct::randn<float>({cols}, 2, 1.0, dev);
  auto c = ct::empty<float>({rows, cols}, dev);
  examples::add_row(c, a, bias).wait();

  const auto ha = a.to_host(), hb = bias.to_host(), hc = c.to_host();
  std::size_t wrong = 0;
  for (ct::index_t i = 0; i < rows; ++i)
    for (ct::index_t j = 0; j < cols; ++j) wrong += hc[i * cols + j] != ha[i * cols + j] + hb[j];
  std::printf("broadcast_add on %s: %lldx%lld, %zu wrong\n", dev.name().c_str(), (long long)rows,
              (long long)cols, wrong);
  return wrong == 0 ? 0 : 1;
} catch (const ct::error& e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 2;
}
