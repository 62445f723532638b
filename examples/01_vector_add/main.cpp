// Runs example 1 on the default device and checks it against the host.
#include <cstdio>

#include "vector_add.hpp"

int main() try {
  const ct::device dev = ct::default_device();
  const ct::index_t n = 1000003;
  auto a = ct::randn<float>({n}, 1, 1.0, dev), b = ct::randn<float>({n}, 2, 1.0, dev);
  auto c = ct::empty<float>({n}, dev);
  examples::add(c, a, b).wait();

  const auto ha = a.to_host(), hb = b.to_host(), hc = c.to_host();
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < hc.size(); ++i) wrong += hc[i] != ha[i] + hb[i];
  std::printf("vector_add on %s: %lld elements, %zu wrong\n", dev.name().c_str(), (long long)n, wrong);
  return wrong == 0 ? 0 : 1;
} catch (const ct::error& e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 2;
}
