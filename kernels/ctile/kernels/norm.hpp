// Layer norm and RMS norm over the last axis of a 2-D tensor, in f32, stored as T, with an
// optional fused residual add:
//   layernorm:  y = (x - mean) / sqrt(var + eps) * w + b        (biased variance)
//   rmsnorm:    y = x / sqrt(mean(x^2) + eps) * w
//   *_residual: h = x + r (stored as T), then y = norm(h); both h and y are written.
// A row of up to 8192 columns is one tile, so x (and r) are read once.
#pragma once
#include <cstdint>
#include <type_traits>
#include <utility>

#include "ctile/kernels/detail.hpp"

namespace ct::kernels {

struct layer_norm_t {};
struct rms_norm_t {};

namespace detail {

inline constexpr int max_norm_cols = 8192;

// The normalised rows of t (f32 [BM, BN] loaded from T, columns past `cols` zero), times w
// (plus b for layer norm). w and b load after the row statistics, so they do not hold
// registers across the reductions (loaded both before either was used, they made ptxas spill
// 96 bytes and cost 9 %). Layer norm's variance is a second pass over the centred row in
// registers: one pass over the sums of d = x - x[row, 0] and of d^2 (independent reductions,
// exact enough with the shift) ran 5 % slower at 32768 x 8192 bf16 on an H100, 2 % ragged,
// for the extra load and its registers (bench/results/2026-12-06-bandwidth.md).
template <class Kind, class T, int BN, class X>
CT_HD auto normalize(const X& t, const ct::in<T, 1>& w, const ct::in<T, 1>& b, index_t cols, float eps) {
  const float inv_cols = 1.0f / float(cols);
  auto row = [](const ct::in<T, 1>& v) { return ct::astype<float>(ct::load(v, {0}, ct::shape<BN>{})); };
  if constexpr (std::is_same_v<Kind, rms_norm_t>) {
    (void)b;
    const auto scale = ct::rsqrt(ct::sum(t * t, ct::axis<1>, ct::keepdims) * inv_cols + eps);
    return t * scale * row(w);
  } else {
    const auto mean = ct::sum(t, ct::axis<1>, ct::keepdims) * inv_cols;
    // Padding stays out of the variance. The column index has x's element size, so its tile is
    // laid out like x's and the mask meets it without moving data (int16 counts to 32767).
    using I = std::conditional_t<sizeof(T) == 2, std::int16_t, std::int32_t>;
    const auto d = ct::where(ct::arange<I, BN>() < I(cols), t - mean, 0.0f);
    const auto scale = ct::rsqrt(ct::sum(d * d, ct::axis<1>, ct::keepdims) * inv_cols + eps);
    return d * scale * row(w) + row(b);
  }
}

// A CTA normalises one row of up to 8192 columns, loaded whole, then reduced across the CTA
// (once for rms norm, twice for layer norm) while none of its loads are in flight: the bytes in
// flight per SM come from how many CTAs it holds. 16-bit layer norm asks for four (cuTile's
// `occupancy` hint: 128 registers; it took 130-132, so three fitted, where rms norm's 124-128
// let four: bench/results/2026-12-04-bandwidth-e.md, 0.58 of the copy ceiling against 0.90).
// f32 rows (32 KiB) spill at 128 registers, and other kernels keep their build as measured.
template <class T, class Kind, int BM>
using norm_occupancy = occupancy_hint<BM == 1 && sizeof(T) == 2 && std::is_same_v<Kind, layer_norm_t>, 4>;

template <class T, class Kind, int BM, int BN>
struct norm_map : norm_occupancy<T, Kind, BM> {
  static constexpr const char* name = "ct_kernels_norm";
  CT_TILE void operator()(ct::out<T, ct::shape<BM, BN>> y, ct::in<T, 2> x, ct::in<T, 1> w, ct::in<T, 1> b,
                          float eps) const {
    y.store(ct::astype<T>(normalize<Kind, T, BN>(ct::astype<float>(x.load_like(y)), w, b, x.extent(1), eps)));
  }
};

template <class T, class Kind, int BM, int BN>
struct residual_norm_map : norm_occupancy<T, Kind, BM> {
  static constexpr const char* name = "ct_kernels_residual_norm";
  CT_TILE void operator()(ct::out<T, ct::shape<BM, BN>> y, ct::out<T, ct::shape<BM, BN>> h, ct::in<T, 2> x,
                          ct::in<T, 2> r, ct::in<T, 1> w, ct::in<T, 1> b, float eps) const {
    const auto sum = ct::astype<T>(ct::astype<float>(x.load_like(y)) + ct::astype<float>(r.load_like(y)));
    h.store(sum);
    y.store(ct::astype<T>(normalize<Kind, T, BN>(ct::astype<float>(sum), w, b, x.extent(1), eps)));
  }
};

template <class T>
void check_norm_args(const char* what, const ct::tensor<T>& y, const ct::tensor<T>& x, const ct::tensor<T>& w) {
  require_rank(what, "x", x, 2);
  require_same_extents(what, "x", x, "y", y);
  require_rank(what, "w", w, 1);
  require_extent(what, "w", w, 0, x.extent(1));
  require(x.extent(1) >= 1 && x.extent(1) <= max_norm_cols,
          kernels::detail::what(what, "rows of " + std::to_string(x.extent(1)) + " columns; 1 to " +
                                          std::to_string(max_norm_cols) + " are supported"));
}

template <class Kind, class T>
ct::pending norm(const char* what, const ct::stream& s, ct::tensor<T>& y, const ct::tensor<T>& x,
                 const ct::tensor<T>& w, const ct::tensor<T>* b, float eps) {
  check_norm_args(what, y, x, w);
  const ct::tensor<T>& bias = b ? *b : w;  // rms norm reads no bias; any row vector binds
  if (b) require_extent(what, "b", *b, 0, x.extent(1));
  if (x.extent(1) <= 1024)
    return ct::launch(s, norm_map<T, Kind, 8, 1024>{}, y.partition(ct::shape<8, 1024>{}), x, w, bias, eps);
  return ct::launch(s, norm_map<T, Kind, 1, max_norm_cols>{}, y.partition(ct::shape<1, max_norm_cols>{}), x, w, bias,
                    eps);
}

template <class Kind, class T>
ct::pending residual_norm(const char* what, const ct::stream& s, ct::tensor<T>& y, ct::tensor<T>& h,
                          const ct::tensor<T>& x, const ct::tensor<T>& r, const ct::tensor<T>& w,
                          const ct::tensor<T>* b, float eps) {
  check_norm_args(what, y, x, w);
  require_same_extents(what, "r", r, "x", x);
  require_same_extents(what, "h", h, "x", x);
  const ct::tensor<T>& bias = b ? *b : w;
  if (b) require_extent(what, "b", *b, 0, x.extent(1));
  const index_t cols = x.extent(1);
  if (cols <= 1024) {
    return ct::launch(s, residual_norm_map<T, Kind, 8, 1024>{}, y.partition(ct::shape<8, 1024>{}),
                      h.partition(ct::shape<8, 1024>{}), x, r, w, bias, eps);
  }
  return ct::launch(s, residual_norm_map<T, Kind, 1, max_norm_cols>{}, y.partition(ct::shape<1, max_norm_cols>{}),
                    h.partition(ct::shape<1, max_norm_cols>{}), x, r, w, bias, eps);
}

}  // namespace detail

// y = layernorm(x) * w + b over the last axis.
template <class T>
ct::pending layernorm(const ct::stream& s, ct::tensor<T>& y, const ct::tensor<T>& x, const ct::tensor<T>& w,
                      const ct::tensor<T>& b, float eps = 1e-5f) {
  return detail::norm<layer_norm_t>("layernorm", s, y, x, w, &b, eps);
}

// y = rmsnorm(x) * w over the last axis.
template <class T>
ct::pending rmsnorm(const ct::stream& s, ct::tensor<T>& y, const ct::tensor<T>& x, const ct::tensor<T>& w,
                    float eps = 1e-6f) {
  return detail::norm<rms_norm_t>("rmsnorm", s, y, x, w, static_cast<const ct::tensor<T>*>(nullptr), eps);
}

// h = x + r; y = layernorm(h) * w + b.
template <class T>
ct::pending layernorm_residual(const ct::stream& s, ct::tensor<T>& y, ct::tensor<T>& h, const ct::tensor<T>& x,
                               const ct::tensor<T>& r, const ct::tensor<T>& w, const ct::tensor<T>& b,
                               float eps = 1e-5f) {
  return detail::residual_norm<layer_norm_t>("layernorm_residual", s, y, h, x, r, w, &b, eps);
}

// h = x + r; y = rmsnorm(h) * w.
template <class T>
ct::pending rmsnorm_residual(const ct::stream& s, ct::tensor<T>& y, ct::tensor<T>& h, const ct::tensor<T>& x,
                             const ct::tensor<T>& r, const ct::tensor<T>& w, float eps = 1e-6f) {
  return detail::residual_norm<rms_norm_t>("rmsnorm_residual", s, y, h, x, r, w,
                                           static_cast<const ct::tensor<T>*>(nullptr), eps);
}

}  // namespace ct::kernels
