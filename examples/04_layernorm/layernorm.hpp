// Example 4: layer normalisation over the last axis,
//   y = (x - mean) / sqrt(var + eps) * gamma + beta,
// in f32 whatever the storage type. One tile spans a whole row; the columns past the row's end
// load as 0 and are masked out of the variance with an arange-built mask.
#pragma once
#include <ctile/ctile.hpp>

namespace examples {

template <class T, int BM, int BN>
struct layernorm_rows {
  static constexpr const char* name = "layernorm";
  CT_TILE void operator()(ct::out<T, ct::shape<BM, BN>> y, ct::in<T, 2> x, ct::in<T, 1> gamma,
                          ct::in<T, 1> beta, float eps) const {
    const float cols = float(x.extent(1));
    const auto t = ct::astype<float>(x.load_like(y));
    const auto mean = ct::sum(t, ct::axis<1>, ct::keepdims) / cols;
    const auto inside = ct::arange<int, BN>() < int(x.extent(1));
    const auto d = ct::where(inside, t - mean, 0.0f);
    const auto var = ct::sum(d * d, ct::axis<1>, ct::keepdims) / cols;
    const auto g = ct::astype<float>(ct::load(gamma, {0}, ct::shape<BN>{}));
    const auto b = ct::astype<float>(ct::load(beta, {0}, ct::shape<BN>{}));
    y.store(ct::astype<T>(d * ct::rsqrt(var + eps) * g + b));
  }
};

// Layer norm of the rows of x (up to 8192 columns).
template <class T>
ct::pending layernorm(ct::tensor<T>& y, const ct::tensor<T>& x, const ct::tensor<T>& gamma,
                      const ct::tensor<T>& beta, float eps = 1e-5f) {
  ct::detail::require(x.rank() == 2, "layernorm: x must be 2-D");
  const ct::index_t cols = x.extent(1);
  if (cols <= 1024)
    return ct::launch(layernorm_rows<T, 2, 1024>{}, y.partition(ct::shape<2, 1024>{}), x, gamma, beta, eps);
  if (cols <= 8192)
    return ct::launch(layernorm_rows<T, 1, 8192>{}, y.partition(ct::shape<1, 8192>{}), x, gamma, beta, eps);
  ct::detail::fail("layernorm: " + std::to_string(cols) + " columns is more than this example's 8192");
}

}  // namespace examples
