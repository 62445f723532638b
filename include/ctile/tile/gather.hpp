// Gather and scatter with index tiles.
//   ct::gather(src, i [, mask [, padding]])                 src[i], 1-D tensor
//   ct::gather(src, ct::indices(i, j, ...) [, mask [, padding]])  src[i, j, ...]
//   ct::scatter(dst, indices, values [, mask])              dst[indices] = values
// Index tiles, the mask (true = active) and the values broadcast together; the result has their
// common shape. Out-of-range indices (negative ones included) read the padding value (0 unless
// given) and are never written. Passing ct::unchecked instead of a mask drops the bounds check.
// Scatter writes through a ct::unsafe::global view: blocks may write anywhere, so which write
// wins where two land on one element is unspecified.
#pragma once
#include "ctile/tile/shape_ops.hpp"
#include "ctile/tile/unsafe_view.hpp"

namespace ct {

// A list of index tiles, one per tensor axis.
template <class... Tiles>
struct index_list;
template <>
struct index_list<> {};
template <class First, class... Rest>
struct index_list<First, Rest...> {
  First first;
  index_list<Rest...> rest;
};

CT_HD inline index_list<> indices() { return {}; }
template <class First, class... Rest>
CT_HD index_list<First, Rest...> indices(const First& first, const Rest&... rest) {
  return {first, indices(rest...)};
}

namespace detail {

template <class Tile>
constexpr bool index_tile_check() {
  static_assert(is_tile_v<Tile>, "ct::gather/scatter: indices must be integer tiles");
  using E = typename Tile::element_type;
  static_assert(std::is_integral_v<E> && !std::is_same_v<E, bool>,
                "ct::gather/scatter: index tiles must have an integer element type");
  return true;
}

// Calls f(tiles...) with the index list unpacked.
template <class F, class... Done>
CT_HD auto apply_indices(F f, const index_list<>&, const Done&... done) {
  return f(done...);
}
template <class F, class First, class... Rest, class... Done>
CT_HD auto apply_indices(F f, const index_list<First, Rest...>& list, const Done&... done) {
  return apply_indices(f, list.rest, done..., list.first);
}

template <class X>
struct is_mask_tile : std::false_type {};
template <class S, class P>
struct is_mask_tile<tile<bool, S, P>> : std::true_type {};

CT_HD inline tile<bool, shape<>> all_active() { return full<bool>(shape<>{}, true); }

// Element offset of the coordinate (c...) in the view, and whether it is inside the tensor.
template <int R, class... I>
CT_HD bool locate(const backend::global_view<R>& g, index_t& offset, I... c) {
  static_assert(sizeof...(I) == R, "ct::gather/scatter: give one index tile per tensor axis");
  const index_t idx[R] = {index_t(c)...};
  bool inside = true;
  offset = 0;
  for (int i = 0; i < R; ++i) {
    inside = inside && idx[i] >= 0 && idx[i] < g.extent[i];
    offset += idx[i] * g.stride[i];
  }
  return inside;
}

// Calls body(slot, offset, active) for each slot of the common frame (S, P) of the aligned tiles.
template <class S, class P, bool Checked, int R, class Body, class M, class... A>
CT_HD void visit_elements(const backend::global_view<R>& g, Body body, const M& mask, const A&... idx) {
  CT_UNROLL
  for (int s = 0; s < P::slots; ++s) {
    index_t off;
    const bool inside = locate<R>(g, off, idx.v[s]...);
    body(s, off, mask.v[s] && (!Checked || inside));
  }
}

template <bool Checked, class T, int R, class Mask, class... Idx>
CT_HD auto gather_impl(const in<T, R>& src, const Mask& mask, T pad, const index_list<Idx...>& list) {
  static_assert((index_tile_check<Idx>() && ...));
  using S = typename common_shape<Mask, Idx...>::type;
  using P = typename common_layout<T, S, Idx..., Mask>::type;
  tile<T, S, P> r;
  apply_indices(
      [&](const auto&... idx) {
        visit_elements<S, P, Checked>(
            src.g, [&](int s, index_t off, bool active) { r.v[s] = active ? src.data[off] : pad; },
            backend::align_to<S, P>(mask), backend::align_to<S, P>(idx)...);
        return 0;
      },
      list);
  return r;
}

template <bool Checked, class T, int R, class Values, class Mask, class... Idx>
CT_HD void scatter_impl(const unsafe::global<T, R>& dst, const Values& values, const Mask& mask,
                        const index_list<Idx...>& list) {
  static_assert((index_tile_check<Idx>() && ...));
  static_assert(std::is_same_v<typename Values::element_type, T>,
                "ct::scatter: the values' element type differs from the tensor's; use ct::astype");
  using S = typename common_shape<Values, Mask, Idx...>::type;
  using P = typename common_layout<T, S, Values, Idx..., Mask>::type;
  const auto v = backend::align_to<S, P>(values);
  apply_indices(
      [&](const auto&... idx) {
        visit_elements<S, P, Checked>(
            dst.g,
            [&](int s, index_t off, bool active) {
              if (active && tile<T, S, P>::canonical(s)) dst.data[off] = v.v[s];
            },
            backend::align_to<S, P>(mask), backend::align_to<S, P>(idx)...);
        return 0;
      },
      list);
}

}  // namespace detail

template <class T, int R, class... Idx>
CT_HD auto gather(const in<T, R>& src, const index_list<Idx...>& idx) {
  return detail::gather_impl<true>(src, detail::all_active(), convert<T>(0), idx);
}
template <class T, int R, class... Idx, class SM, class PM>
CT_HD auto gather(const in<T, R>& src, const index_list<Idx...>& idx, const tile<bool, SM, PM>& mask) {
  return detail::gather_impl<true>(src, mask, convert<T>(0), idx);
}
template <class T, int R, class... Idx, class SM, class PM, class V>
CT_HD auto gather(const in<T, R>& src, const index_list<Idx...>& idx, const tile<bool, SM, PM>& mask, V padding) {
  return detail::gather_impl<true>(src, mask, convert<T>(padding), idx);
}
template <class T, int R, class... Idx>
CT_HD auto gather(const in<T, R>& src, const index_list<Idx...>& idx, unchecked_t) {
  return detail::gather_impl<false>(src, detail::all_active(), convert<T>(0), idx);
}
// 1-D shorthand: a bare index tile.
template <class T, class I, class S, class P, class... Opts>
CT_HD auto gather(const in<T, 1>& src, const tile<I, S, P>& idx, Opts... opts) {
  return gather(src, indices(idx), opts...);
}

// Scatter writes anywhere, so it needs the spelled-out opt-out view.
template <class T, int R, class... A>
CT_HD void scatter(const in<T, R>&, const A&...) {
  static_assert(detail::always_false<T, A...>,
                "ct::scatter writes to arbitrary elements, so it needs a ct::unsafe::global<T, R> "
                "parameter (bound with ct::unsafe::shared(tensor)); a ct::in view is read-only");
}
template <class T, class S, class... A>
CT_HD void scatter(const out<T, S>&, const A&...) {
  static_assert(detail::always_false<T, A...>,
                "ct::scatter writes to arbitrary elements, so it needs a ct::unsafe::global<T, R> "
                "parameter (bound with ct::unsafe::shared(tensor)); a ct::out view writes only its own tile");
}

template <class T, int R, class... Idx, class V>
CT_HD void scatter(const unsafe::global<T, R>& dst, const index_list<Idx...>& idx, const V& values) {
  detail::scatter_impl<true>(dst, values, detail::all_active(), idx);
}
template <class T, int R, class... Idx, class V, class SM, class PM>
CT_HD void scatter(const unsafe::global<T, R>& dst, const index_list<Idx...>& idx, const V& values,
                   const tile<bool, SM, PM>& mask) {
  detail::scatter_impl<true>(dst, values, mask, idx);
}
template <class T, int R, class... Idx, class V>
CT_HD void scatter(const unsafe::global<T, R>& dst, const index_list<Idx...>& idx, const V& values, unchecked_t) {
  detail::scatter_impl<false>(dst, values, detail::all_active(), idx);
}
template <class T, class I, class S, class P, class V, class... Opts>
CT_HD void scatter(const unsafe::global<T, 1>& dst, const tile<I, S, P>& idx, const V& values, Opts... opts) {
  scatter(dst, indices(idx), values, opts...);
}

// ---- Advanced indexing (cuTile's load/store_advanced_indexing) --------------------------------
// One axis is indexed by a 1-D index tile, every other by a dense ct::slice<Len>(start):
//   ct::load_advanced_indexing(src, ct::slice<64>(r0), idx)   -> tile [64, len(idx)]
// It is a gather whose index tiles are the index tile and aranges, each along its own axis.

template <int Len>
struct slice_t {
  index_t start;
};
template <int Len>
CT_HD slice_t<Len> slice(index_t start) {
  static_assert(detail::is_pow2(Len), "ct::slice: the length must be a power of two");
  return {start};
}

namespace detail {
template <int R, int Axis, int Len>
struct along_axis_shape {
  template <int... I>
  static auto make(std::integer_sequence<int, I...>) -> shape<(I == Axis ? Len : 1)...>;
  using type = decltype(make(std::make_integer_sequence<int, R>{}));
};

// The index tile for `Axis` of an R-D advanced index: extent Len along Axis, 1 elsewhere.
template <int R, int Axis, int Len>
CT_HD auto index_part(slice_t<Len> s) {
  return reshape(arange<std::int64_t, Len>() + s.start, typename along_axis_shape<R, Axis, Len>::type{});
}
template <int R, int Axis, class I, int Len, class P>
CT_HD auto index_part(const tile<I, shape<Len>, P>& idx) {
  return reshape(astype<std::int64_t>(idx), typename along_axis_shape<R, Axis, Len>::type{});
}

template <class Part>
struct is_index_tile_part : std::bool_constant<is_tile_v<Part>> {};

template <int R, class... Parts, std::size_t... A>
CT_HD auto advanced_indices(std::index_sequence<A...>, const Parts&... parts) {
  static_assert((0 + ... + int(is_index_tile_part<Parts>::value)) == 1,
                "ct advanced indexing: exactly one axis takes a 1-D index tile, the others ct::slice<Len>(start)");
  return indices(index_part<R, int(A)>(parts)...);
}
}  // namespace detail

template <class T, int R, class... Parts>
CT_HD auto load_advanced_indexing(const in<T, R>& src, const Parts&... parts) {
  static_assert(sizeof...(Parts) == R, "ct::load_advanced_indexing: give one index part per tensor axis");
  return gather(src, detail::advanced_indices<R>(std::index_sequence_for<Parts...>{}, parts...));
}
template <class T, int R, class V, class... Parts>
CT_HD void store_advanced_indexing(const unsafe::global<T, R>& dst, const V& values, const Parts&... parts) {
  static_assert(sizeof...(Parts) == R, "ct::store_advanced_indexing: give one index part per tensor axis");
  scatter(dst, detail::advanced_indices<R>(std::index_sequence_for<Parts...>{}, parts...), values);
}

}  // namespace ct
