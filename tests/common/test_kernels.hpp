// Small kernels shared by the runtime tests: a deliberately slow one, so that a launch is still
// in flight when a test acts on its tensors, and plain copies for launch-argument checks.
#pragma once
#include <ctile/ctile.hpp>

namespace ct_test {

// c = 2 * a, the slow way: `iters` steps of acc = (acc + a) - a, which keep acc at exactly 0
// but which no compiler may drop (IEEE arithmetic does not cancel them), then one add of 2a.
struct slow_double {
  static constexpr const char* name = "slow_double";
  static constexpr int tile = 1024;
  CT_TILE void operator()(ct::out<float, ct::shape<tile>> c, ct::in<float, 1> a, int iters) const {
    auto acc = ct::zeros<float, tile>();
    for (int i = 0; i < iters; ++i) {
      const auto x = a.load_like(c);
      acc = (acc + x) - x;
    }
    c.store(acc + a.load_like(c) * 2.0f);
  }
};

// Steps for slow_double over 2^18 elements to run for 100 ms or more on `dev`.
inline int slow_iters(const ct::device& dev) { return dev.is_cpu() ? 800 : 1 << 22; }

// Copies x into two outputs: a launch with two partitions.
struct copy_twice {
  static constexpr const char* name = "copy_twice";
  using tile_shape = ct::shape<1024>;
  CT_TILE void operator()(ct::out<float, tile_shape> y, ct::out<float, tile_shape> z,
                          ct::in<float, 1> x) const {
    const auto t = x.load_like(y);
    y.store(t);
    z.store(t);
  }
};

// y = x, tile by tile, for any tile shape S.
template <class S>
struct copy_tiles {
  static constexpr const char* name = "copy_tiles";
  CT_TILE void operator()(ct::out<float, S> y, ct::in<float, S::rank> x) const { y.store(x.load_like(y)); }
};

}  // namespace ct_test
