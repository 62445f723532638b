// Elementwise kernels: add, mul, scale, bias + activation (GELU, SiLU, ReLU) and SwiGLU.
// Storage in T (bf16, f16 or f32), math in f32. Contiguous tensors are processed as one flat
// vector, so every tile is whole 16-byte chunks whatever the row length; other layouts take
// 2-D tiles.
#pragma once
#include <cstdint>
#include <type_traits>

#include "ctile/kernels/detail.hpp"

namespace ct::kernels {

// ---- Activations (f32 tiles in, f32 tiles out) -----------------------------------------------
// Each may be given ct::approx after its tile, to compute its exponential and division
// approximately (the bandwidth kernels do for 16-bit results: detail::math_for).

struct relu {
  template <class X, class... Mode>
  CT_HD X operator()(const X& x, Mode...) const { return ct::where(x > 0.0f, x, 0.0f); }
};

struct silu {
  template <class X, class... Mode>
  CT_HD X operator()(const X& x, Mode... m) const { return ct::truediv(x, 1.0f + ct::exp(-x, m...), m...); }
};

// GELU, tanh approximation (torch's approximate="tanh"): 0.5 x (1 + tanh(z)) with
// z = sqrt(2/pi) (x + 0.044715 x^3), computed as x / (1 + exp(-2z)), the same function with one
// exponential and no cancellation in 1 + tanh(z) for negative x.
struct gelu_tanh {
  template <class X, class... Mode>
  CT_HD X operator()(const X& x, Mode... m) const {
    const X two_z = 1.5957691216f * (x + 0.044715f * x * x * x);
    return ct::truediv(x, 1.0f + ct::exp(-two_z, m...), m...);
  }
};

namespace detail {

struct plus {
  template <class X, class... Mode>
  CT_HD X operator()(const X& a, const X& b, Mode...) const { return a + b; }
};
struct times {
  template <class X, class... Mode>
  CT_HD X operator()(const X& a, const X& b, Mode...) const { return a * b; }
};
struct swiglu_op {  // silu(a) * b
  template <class X, class... Mode>
  CT_HD X operator()(const X& a, const X& b, Mode... m) const { return silu{}(a, m...) * b; }
};

// Elements per block of the flat kernels: 512 16-byte chunks per operand, four per thread of a
// 128-thread block, enough bytes in flight per SM to cover memory latency. (A constant, not
// derived from ct::config::block_threads: that differs between nvcc's host and device passes,
// and the tile shape must be the same in both.)
template <class T>
inline constexpr int flat_tile = vec<T> * 512;

template <class T, class S, class Op>
struct binary_map {
  static constexpr const char* name = "ct_kernels_binary";
  CT_TILE void operator()(ct::out<T, S> y, ct::in<T, S::rank> a, ct::in<T, S::rank> b) const {
    y.store(ct::astype<T>(math_for<T>(Op{}, ct::astype<float>(a.load_like(y)), ct::astype<float>(b.load_like(y)))));
  }
};

template <class T, class S>
struct scale_map {
  static constexpr const char* name = "ct_kernels_scale";
  CT_TILE void operator()(ct::out<T, S> y, ct::in<T, S::rank> x, float alpha) const {
    y.store(ct::astype<T>(ct::astype<float>(x.load_like(y)) * alpha));
  }
};

template <class T, int BM, int BN, class Act>
struct bias_act_map {
  static constexpr const char* name = "ct_kernels_bias_act";
  CT_TILE void operator()(ct::out<T, ct::shape<BM, BN>> y, ct::in<T, 2> x, ct::in<T, 1> bias) const {
    const auto [i, j] = y.tile_index();
    (void)i;
    const auto b = ct::astype<float>(bias.tiled(ct::shape<BN>{}).load(j));
    y.store(ct::astype<T>(math_for<T>(Act{}, ct::astype<float>(x.load_like(y)) + b)));
  }
};

// The same over contiguous [M, N] tensors as one flat vector, when N is a multiple of the flat
// tile: flat tile f then lies in one row, at bias tile f % (N / BN).
template <class T, int BN, class Act>
struct bias_act_flat_map {
  static constexpr const char* name = "ct_kernels_bias_act_flat";
  CT_TILE void operator()(ct::out<T, ct::shape<BN>> y, ct::in<T, 1> x, ct::in<T, 1> bias, index_t tiles_per_row) const {
    const index_t f = y.tile_index()[0];
    const auto b = ct::astype<float>(bias.tiled(ct::shape<BN>{}).load(f % tiles_per_row));
    y.store(ct::astype<T>(math_for<T>(Act{}, ct::astype<float>(x.load_like(y)) + b)));
  }
};

// The same over contiguous [M, N] tensors of any width N of at least one flat tile: flat element
// k takes bias element k mod N, gathered (the bias is a few KiB and stays in L1). Rows then need
// not start on 16-byte boundaries: x and y go as one flat vector, where 2-D tiles over rows of
// odd width straddle 16-byte boundaries (half the copy ceiling at 32767 x 8191 bf16,
// bench/results/2026-12-05-bandwidth.md). The column indices are unsigned integers as wide as T,
// so that they, the gathered bias and x share one layout and nothing moves between threads
// (column_index_t, detail.hpp; 16-bit indices for 16-bit T: rows of up to 65536 - BN elements).

template <class T, int BN, class Act>
struct bias_act_flat_gather_map {
  static constexpr const char* name = "ct_kernels_bias_act_flat_gather";
  CT_TILE void operator()(ct::out<T, ct::shape<BN>> y, ct::in<T, 1> x, ct::in<T, 1> bias, index_t n) const {
    using I = column_index_t<T>;
    const I width = I(n);
    // Tile f starts at column (f * BN) mod N and, as BN <= N, wraps into the next row at most once.
    const auto col = ct::arange<I, BN>() + I(y.tile_index()[0] * BN % n);
    const auto b = ct::astype<float>(ct::gather(bias, ct::where(col >= width, col - width, col), ct::unchecked));
    y.store(ct::astype<T>(math_for<T>(Act{}, ct::astype<float>(x.load_like(y)) + b)));
  }
};

// Whether bias_act_flat_gather_map serves rows of n elements: at least a tile, and every column
// index it forms (below n + BN) fits column_index_t<T>.
template <class T, int BN>
bool bias_act_gathers(index_t n) {
  return n >= BN && n + BN <= (index_t(1) << (8 * sizeof(column_index_t<T>)));
}

// Launches `kernel` over y's elements: as one flat vector when every tensor is contiguous,
// else in 2-D tiles (rank 2 only).
template <template <class, class> class K, class T, class... A>
ct::pending flat_or_2d(const char* what, const ct::stream& s, ct::tensor<T>& y, const A&... args) {
  const bool flat = y.contiguous() && (... && [](const auto& a) {
    if constexpr (std::is_same_v<std::decay_t<decltype(a)>, ct::tensor<T>>) return a.contiguous();
    else return true;
  }(args));
  auto view = [&](const auto& a) -> decltype(auto) {
    if constexpr (std::is_same_v<std::decay_t<decltype(a)>, ct::tensor<T>>) return a.reshape({-1});
    else return a;
  };
  if (flat) {
    using S = ct::shape<flat_tile<T>>;
    auto yv = y.reshape({-1});
    return ct::launch(s, K<T, S>{}, yv.partition(S{}), view(args)...);
  }
  require(y.rank() == 2, kernels::detail::what(what, "non-contiguous tensors must be 2-D, not " +
                                                         ct::detail::format_extents(y.extents())));
  using S = ct::shape<4, 64 * vec<T>>;
  return ct::launch(s, K<T, S>{}, y.partition(S{}), args...);
}

template <class Op>
struct bind_binary {
  template <class T, class S>
  using kernel = binary_map<T, S, Op>;
};

template <class Op, class T>
ct::pending binary(const char* what, const ct::stream& s, ct::tensor<T>& y, const ct::tensor<T>& a,
                   const ct::tensor<T>& b) {
  require_same_extents(what, "a", a, "y", y);
  require_same_extents(what, "b", b, "y", y);
  return flat_or_2d<bind_binary<Op>::template kernel>(what, s, y, a, b);
}

}  // namespace detail

// ---- Entry points ------------------------------------------------------------------------------

// y = a + b
template <class T>
ct::pending add(const ct::stream& s, ct::tensor<T>& y, const ct::tensor<T>& a, const ct::tensor<T>& b) {
  return detail::binary<detail::plus>("add", s, y, a, b);
}

// y = a * b
template <class T>
ct::pending mul(const ct::stream& s, ct::tensor<T>& y, const ct::tensor<T>& a, const ct::tensor<T>& b) {
  return detail::binary<detail::times>("mul", s, y, a, b);
}

// y = silu(a) * b, the gated linear unit of SwiGLU.
template <class T>
ct::pending swiglu(const ct::stream& s, ct::tensor<T>& y, const ct::tensor<T>& a, const ct::tensor<T>& b) {
  return detail::binary<detail::swiglu_op>("swiglu", s, y, a, b);
}

// y = alpha * x
template <class T>
ct::pending scale(const ct::stream& s, ct::tensor<T>& y, const ct::tensor<T>& x, float alpha) {
  detail::require_same_extents("scale", "x", x, "y", y);
  return detail::flat_or_2d<detail::scale_map>("scale", s, y, x, alpha);
}

// y = Act(x + bias[None, :]) for x [M, N] and bias [N]; Act is relu, silu or gelu_tanh:
//   ct::kernels::bias_act<ct::kernels::gelu_tanh>(stream, y, x, bias).
template <class Act, class T>
ct::pending bias_act(const ct::stream& s, ct::tensor<T>& y, const ct::tensor<T>& x, const ct::tensor<T>& bias) {
  detail::require_rank("bias_act", "x", x, 2);
  detail::require_same_extents("bias_act", "x", x, "y", y);
  detail::require_rank("bias_act", "bias", bias, 1);
  detail::require_extent("bias_act", "bias", bias, 0, x.extent(1));
  constexpr int flat = detail::flat_tile<T>;
  const index_t n = x.extent(1);
  if (y.contiguous() && x.contiguous() && bias.contiguous()) {
    auto yv = y.reshape({-1});
    const auto tiles = yv.partition(ct::shape<flat>{});
    if (n % flat == 0)
      return ct::launch(s, detail::bias_act_flat_map<T, flat, Act>{}, tiles, x.reshape({-1}), bias, n / flat);
    if (detail::bias_act_gathers<T, flat>(n))
      return ct::launch(s, detail::bias_act_flat_gather_map<T, flat, Act>{}, tiles, x.reshape({-1}), bias, n);
  }
  constexpr int BM = 8, BN = 64 * detail::vec<T>;  // 4 chunks a thread of each operand, as flat_tile
  return ct::launch(s, detail::bias_act_map<T, BM, BN, Act>{}, y.partition(ct::shape<BM, BN>{}), x, bias);
}

}  // namespace ct::kernels
