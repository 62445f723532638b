// Example 5: C = A @ B with a plain loop over K. Each block owns one BM x BN tile of C and walks
// the K tiles of its row of A and column of B; ct::mma accumulates in f32. The loop is correct
// on every backend; the tensor-core fast path (issue 6) keeps this source.
#pragma once
#include <ctile/ctile.hpp>

namespace examples {

template <class T, class TC, int BM, int BN, int BK>
struct matmul_tiles {
  static constexpr const char* name = "matmul";
  CT_TILE void operator()(ct::out<TC, ct::shape<BM, BN>> c, ct::in<T, 2> a, ct::in<T, 2> b) const {
    const auto [m, n] = c.tile_index();
    const auto ta = a.tiled(ct::shape<BM, BK>{});  // zero-padded at the edges
    const auto tb = b.tiled(ct::shape<BK, BN>{});
    auto acc = ct::zeros<float, BM, BN>();
    for (ct::index_t k = 0; k < ct::num_tiles(ta, 1); ++k) acc = ct::mma(ta.load(m, k), tb.load(k, n), acc);
    c.store(ct::astype<TC>(acc));
  }
};

// c = a @ b for 2-D a [M, K], b [K, N], c [M, N].
template <class T, class TC>
ct::pending matmul(ct::tensor<TC>& c, const ct::tensor<T>& a, const ct::tensor<T>& b) {
  ct::detail::require(a.rank() == 2 && b.rank() == 2 && a.extent(1) == b.extent(0),
                      "matmul: a must be [M, K] and b [K, N]");
  return ct::launch(matmul_tiles<T, TC, 64, 64, 32>{}, c.partition(ct::shape<64, 64>{}), a, b);
}

}  // namespace examples
