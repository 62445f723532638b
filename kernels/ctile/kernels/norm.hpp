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
#include "ctile/kernels/row_window.hpp"

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

// Rows off 16 bytes (rows_by_window(x)) are read and written as windows (row_window.hpp), kept
// in T and widened where used. Tiles on a row's own columns straddle two aligned blocks with
// every chunk: layer norm and rms norm ran at 0.47 and 0.66 of the copy ceiling at 32767 x 8191
// bf16 on an H100 that way, 0.58 and 0.76 as windows (with the residual: 0.33 -> 0.72 and
// 0.69 -> 0.87; bench/results/2026-12-07-h100-c.md).
//
// w's (and b's) parts load `vector_group` at a time, each group before its parts are stored
// (a load placed after a store waits for it: the compiler cannot tell that y is not w). All
// nine at once took layer norm to 168 registers (three blocks an SM); three at a time keep it
// at 128 (four): 1621 -> 1742 GB/s at 32767 x 8191 bf16, with the residual 1972 -> 2149. Rms
// norm holds no b and loads all nine (with the residual 2612 GB/s, 2487 three at a time).
template <class Kind, int Parts>
inline constexpr int vector_group = std::is_same_v<Kind, layer_norm_t> ? 3 : Parts;

// Stores y's parts normalized(k) * w (+ b for layer norm).
template <class Kind, class T, class Window, class Normalized>
CT_HD void store_window(const Window& win, const ct::out<T, ct::shape<1, max_norm_cols>>& y, const ct::in<T, 1>& w,
                        const ct::in<T, 1>& b, const Normalized& normalized) {
  constexpr int parts = Window::parts, group = vector_group<Kind, parts>;
  constexpr bool bias = std::is_same_v<Kind, layer_norm_t>;
  CT_UNROLL
  for (int g = 0; g < parts; g += group) {
    typename Window::part wp[group], bp[group];
    CT_UNROLL
    for (int k = g; k < g + group && k < parts; ++k) {
      wp[k - g] = win.vector_part(w, k);
      if constexpr (bias) bp[k - g] = win.vector_part(b, k);
    }
    CT_UNROLL
    for (int k = g; k < g + group && k < parts; ++k) {
      auto v = normalized(k) * ct::astype<float>(wp[k - g]);
      if constexpr (bias) v = v + ct::astype<float>(bp[k - g]);
      win.store(y, k, ct::astype<T>(v));
    }
  }
}

// y = the row held in the parts p, normalised, times w (plus b for layer norm). Part 0's
// elements before the row are the previous row's, those past the row's end zeros.
template <class Kind, class T, class Window>
CT_HD void normalize_window(const Window& win, const typename Window::part (&p)[Window::parts],
                            const ct::out<T, ct::shape<1, max_norm_cols>>& y, const ct::in<T, 1>& w,
                            const ct::in<T, 1>& b, float eps) {
  constexpr int parts = Window::parts;
  const auto f = [&](int k) { return ct::astype<float>(p[k]); };
  const auto total = [](const auto& a) { return ct::sum(a, ct::axis<0>, ct::keepdims); };
  const float inv_cols = 1.0f / float(win.cols);
  if constexpr (std::is_same_v<Kind, rms_norm_t>) {
    auto acc = win.first_part(f(0) * f(0), 0.0f);
    CT_UNROLL
    for (int k = 1; k < parts; ++k) acc = acc + f(k) * f(k);
    const auto scale = ct::rsqrt(total(acc) * inv_cols + eps);
    store_window<Kind>(win, y, w, b, [&](int k) { return f(k) * scale; });
  } else {
    auto acc = win.first_part(f(0), 0.0f);
    CT_UNROLL
    for (int k = 1; k < parts; ++k) acc = acc + f(k);
    const auto mean = total(acc) * inv_cols;
    const auto d = [&](int k) { return ct::where(win.inside(k), f(k) - mean, 0.0f); };
    auto acc2 = d(0) * d(0);
    CT_UNROLL
    for (int k = 1; k < parts; ++k) acc2 = acc2 + d(k) * d(k);
    const auto scale = ct::rsqrt(total(acc2) * inv_cols + eps);
    store_window<Kind>(win, y, w, b, [&](int k) { return d(k) * scale; });
  }
}

// w and b are the shifted copies of the norm's vectors (shifted_copies).
template <class T, class Kind>
struct norm_window_map {
  static constexpr const char* name = "ct_kernels_norm_window";
  static constexpr bool aligned_input_rows_build = true;
  using window = row_window<T, max_norm_cols>;
  CT_TILE void operator()(ct::out<T, ct::shape<1, max_norm_cols>> y, ct::in<T, 1> x, ct::in<T, 1> w,
                          ct::in<T, 1> b, index_t cols, float eps) const {
    const window win(y.tile_index()[0], cols);
    typename window::part p[window::parts];
    win.load(x, p);
    normalize_window<Kind>(win, p, y, w, b, eps);
  }
};

// h = x + r stored, then normalised; x's and r's parts all load before the first is used.
template <class T, class Kind>
struct residual_norm_window_map {
  static constexpr const char* name = "ct_kernels_residual_norm_window";
  static constexpr bool aligned_input_rows_build = true;
  using window = row_window<T, max_norm_cols>;
  CT_TILE void operator()(ct::out<T, ct::shape<1, max_norm_cols>> y, ct::out<T, ct::shape<1, max_norm_cols>> h,
                          ct::in<T, 1> x, ct::in<T, 1> r, ct::in<T, 1> w, ct::in<T, 1> b, index_t cols,
                          float eps) const {
    const window win(y.tile_index()[0], cols);
    typename window::part p[window::parts], q[window::parts];
    win.load(x, p);
    win.load(r, q);
    CT_UNROLL
    for (int k = 0; k < window::parts; ++k) {
      p[k] = ct::astype<T>(ct::astype<float>(p[k]) + ct::astype<float>(q[k]));
      win.store(h, k, p[k]);
    }
    normalize_window<Kind>(win, p, y, w, b, eps);
  }
};

// launch(w's copies, b's copies): the window kernels' launch with the shifted copies
// (row_window.hpp) of w and b; rms norm reads no b and gets w's copies for it.
template <class T, class Launch>
ct::pending with_shifted_vectors(const ct::stream& s, const ct::tensor<T>& w, const ct::tensor<T>* b,
                                 const Launch& launch) {
  const auto w_copies = shifted_copies<T, max_norm_cols>(s, w);
  const auto b_copies = b ? shifted_copies<T, max_norm_cols>(s, *b) : ct::tensor<T>{};
  return launch(w_copies, b ? b_copies : w_copies);
}

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
  if (rows_by_window(x))
    return with_shifted_vectors(s, w, b, [&](const ct::tensor<T>& wc, const ct::tensor<T>& bc) {
      return ct::launch(s, norm_window_map<T, Kind>{}, y.partition(ct::shape<1, max_norm_cols>{}), x.reshape({-1}),
                        wc, bc, x.extent(1), eps);
    });
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
  if (rows_by_window(x) && rows_by_window(r))
    return with_shifted_vectors(s, w, b, [&](const ct::tensor<T>& wc, const ct::tensor<T>& bc) {
      return ct::launch(s, residual_norm_window_map<T, Kind>{}, y.partition(ct::shape<1, max_norm_cols>{}),
                        h.partition(ct::shape<1, max_norm_cols>{}), x.reshape({-1}), r.reshape({-1}), wc, bc, cols,
                        eps);
    });
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
