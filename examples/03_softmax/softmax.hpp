// Example 3: softmax over the last axis, y = exp(x - max(x)) / sum(exp(x - max(x))), with the
// math in f32 whatever the storage type. The tile is a power of two at least as wide as a row;
// the columns past the row's end load as -inf, so they add exp(-inf) = 0 to the sum.
#pragma once
#include <ctile/ctile.hpp>

namespace examples {

template <class T, int BM, int BN>
struct softmax_rows {
  static constexpr const char* name = "softmax";
  CT_TILE void operator()(ct::out<T, ct::shape<BM, BN>> y, ct::in<T, 2> x) const {
    const auto t = ct::astype<float>(x.load_like(y, ct::pad::neg_inf));
    const auto e = ct::exp(t - ct::max(t, ct::axis<1>, ct::keepdims));
    y.store(ct::astype<T>(e / ct::sum(e, ct::axis<1>, ct::keepdims)));
  }
};

// Row softmax of a 2-D tensor with up to 8192 columns; picks the narrowest tile that holds a row.
template <class T>
ct::pending softmax(ct::tensor<T>& y, const ct::tensor<T>& x) {
  ct::detail::require(x.rank() == 2, "softmax: x must be 2-D");
  const ct::index_t cols = x.extent(1);
  if (cols <= 128) return ct::launch(softmax_rows<T, 16, 128>{}, y.partition(ct::shape<16, 128>{}), x);
  if (cols <= 1024) return ct::launch(softmax_rows<T, 2, 1024>{}, y.partition(ct::shape<2, 1024>{}), x);
  if (cols <= 8192) return ct::launch(softmax_rows<T, 1, 8192>{}, y.partition(ct::shape<1, 8192>{}), x);
  ct::detail::fail("softmax: " + std::to_string(cols) + " columns is more than this example's 8192");
}

}  // namespace examples
