// ct::tile: an immutable block-wide value with a static shape and an element type. Its layout
// (which thread holds which element) is part of its type and chosen by the backend; user code
// never names it.
#pragma once
#include "ctile/backend/exec.hpp"
#include "ctile/backend/layout.hpp"
#include "ctile/core/dtype.hpp"
#include "ctile/core/shape.hpp"

namespace ct {

inline constexpr index_t max_tile_elements = index_t(1) << 20;

// Element types plus the few internal value types the backend reduces (for example argmax's
// (value, index) pairs), which user code never sees.
template <class T>
struct tile_value : std::bool_constant<is_element_v<T>> {};

template <class T, class S>
constexpr bool check_tile_type() {
  static_assert(tile_value<T>::value, "ct::tile: element type is not a ctile element type (f64, f32, "
                                 "f16, bf16, bool, int8-64, uint8-64)");
  static_assert(is_shape<S>::value, "ct::tile: the shape must be a ct::shape<...>");
  return true;
}

template <class T, class S, class P = backend::natural_layout<T, S>>
struct tile {
  static_assert(check_tile_type<T, S>());
  static_assert(backend::fits_layout<S, P>(), "ct::tile: shape does not fit its layout");

  using element_type = T;
  using shape_type = S;
  using layout_type = P;
  static constexpr int rank = S::rank;
  static constexpr int slots = P::slots;

  T v[slots];

  CT_HD static coord<S::rank> coord_of(int s) {
    return backend::slot_coord<S, P>(backend::thread_index(), s);
  }
  CT_HD static bool canonical(int s) { return backend::slot_canonical<S, P>(backend::thread_index(), s); }
};

namespace detail {
// For static_asserts in templates that must only fire when instantiated.
template <class...>
inline constexpr bool always_false = false;
}  // namespace detail

template <class X>
struct is_tile : std::false_type {};
template <class T, class S, class P>
struct is_tile<tile<T, S, P>> : std::true_type {};
template <class X>
inline constexpr bool is_tile_v = is_tile<std::remove_cvref_t<X>>::value;

// ct::layout_of(x): given to a load (ct::load, a tiled view's load), lays the loaded tile out as
// x is laid out, so that combining the two, broadcast or not, moves no data between threads. A
// load of a slice of x's shape (a [1, N] row for an [M, N] x) puts each element in every thread
// and slot where x holds an element of its column. The layout is the backend's business; the
// request only names the tile to match.
template <class P>
struct layout_tag {
  using layout_type = P;
};
template <class T, class S, class P>
CT_HD constexpr layout_tag<P> layout_of(const tile<T, S, P>&) {
  return {};
}
template <class X>
struct is_layout_tag : std::false_type {};
template <class P>
struct is_layout_tag<layout_tag<P>> : std::true_type {};

// Legal tile shapes follow cuTile: every dim a power of two, at most 2^20 elements.
template <int... D>
constexpr bool check_tile_shape() {
  static_assert(detail::legal_tile_dims<D...>(),
                "ct::shape: every tile dimension must be a power of two (1, 2, 4, ...); pad the "
                "tensor view instead (loads outside a tensor return the padding value)");
  static_assert((index_t(1) * ... * index_t(D)) <= max_tile_elements,
                "ct::shape: a tile may hold at most 2^20 elements");
  return true;
}

}  // namespace ct
