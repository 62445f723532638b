// Example 1: c = a + b. The simplest tile kernel: each block loads the tile of `a` and of `b`
// at its own position in `c`'s partition, adds them, and stores the result. The last tile is
// partial when the length is not a multiple of the tile; ctile clips it.
#pragma once
#include <ctile/ctile.hpp>

namespace examples {

template <class T, int Tile>
struct vector_add {
  static constexpr const char* name = "vector_add";
  CT_TILE void operator()(ct::out<T, ct::shape<Tile>> c, ct::in<T, 1> a, ct::in<T, 1> b) const {
    c.store(a.load_like(c) + b.load_like(c));
  }
};

// c = a + b for 1-D tensors on one device.
template <class T>
ct::pending add(ct::tensor<T>& c, const ct::tensor<T>& a, const ct::tensor<T>& b) {
  constexpr int tile = 2048;
  return ct::launch(vector_add<T, tile>{}, c.partition(ct::shape<tile>{}), a, b);
}

}  // namespace examples
