// The package test's program: y = 2 * x with a tile kernel, on the default device (the CPU
// when built by the host compiler), checked element by element against the host.
#include <cstdio>
#include <vector>

#include <ctile/ctile.hpp>

#if __cplusplus < 202002L
#error "ctile::ctile must bring C++20 with it, for nvcc too"
#endif

template <int Tile>
struct scale_by_two {
  static constexpr const char* name = "scale_by_two";
  CT_TILE void operator()(ct::out<float, ct::shape<Tile>> y, ct::in<float, 1> x) const {
    y.store(x.load_like(y) * 2.0f);
  }
};

int main() try {
  const ct::device dev = ct::default_device();
  const ct::index_t n = 100003;  // not a multiple of the tile: the last block is partial
  auto x = ct::randn<float>({n}, 7, 1.0, dev);
  auto y = ct::full<float>({n}, -1.0f, dev);
  ct::launch(scale_by_two<1024>{}, y.partition(ct::shape<1024>{}), x).wait();

  const std::vector<float> hx = x.to_host(), hy = y.to_host();
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < hy.size(); ++i) wrong += hy[i] != 2.0f * hx[i];
  std::printf("package consumer on %s: %lld elements, %zu wrong\n", dev.name().c_str(), (long long)n, wrong);
  return wrong == 0 ? 0 : 1;
} catch (const ct::error& e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 2;
}
