// Example 2: c[m, n] = a[m, n] + bias[n]. A 2-D tile of `a` plus a 1-D tile of `bias`:
// NumPy broadcasting stretches the row over the tile's rows. Both extents may be ragged.
#pragma once
#include <ctile/ctile.hpp>

namespace examples {

template <class T, int BM, int BN>
struct broadcast_add {
  static constexpr const char* name = "broadcast_add";
  CT_TILE void operator()(ct::out<T, ct::shape<BM, BN>> c, ct::in<T, 2> a, ct::in<T, 1> bias) const {
    const auto [m, n] = c.tile_index();
    (void)m;
    const auto row = ct::load(bias, {n}, ct::shape<BN>{});  // tile n of the bias vector
    c.store(a.load_like(c) + row);
  }
};

template <class T>
ct::pending add_row(ct::tensor<T>& c, const ct::tensor<T>& a, const ct::tensor<T>& bias) {
  return ct::launch(broadcast_add<T, 16, 256>{}, c.partition(ct::shape<16, 256>{}), a, bias);
}

}  // namespace examples
