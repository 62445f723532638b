// Example 6: y = x^T. Block (i, j) of y is the transpose of block (j, i) of x: the load and the
// store are both row-wise (coalesced), and ct::transpose moves the elements between threads
// through shared memory.
#pragma once
#include <ctile/ctile.hpp>

namespace examples {

template <class T, int B>
struct transpose_tiles {
  static constexpr const char* name = "transpose";
  CT_TILE void operator()(ct::out<T, ct::shape<B, B>> y, ct::in<T, 2> x) const {
    const auto [i, j] = y.tile_index();
    y.store(ct::transpose(ct::load(x, {j, i}, ct::shape<B, B>{})));
  }
};

template <class T>
ct::pending transpose(ct::tensor<T>& y, const ct::tensor<T>& x) {
  ct::detail::require(x.rank() == 2 && y.rank() == 2 && y.extent(0) == x.extent(1) && y.extent(1) == x.extent(0),
                      "transpose: y must be x's transpose shape");
  return ct::launch(transpose_tiles<T, 64>{}, y.partition(ct::shape<64, 64>{}), x);
}

}  // namespace examples
