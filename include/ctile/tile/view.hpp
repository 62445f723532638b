// The views a kernel sees of global tensors, with the access mode in the type:
//   ct::in<T, Rank>        read-only; loads anywhere (tiles, tiled views, load_like).
//   ct::out<T, ct::shape>  this block's own tile of an output partition; `store` takes no
//                          index, so writing another block's tile cannot be written down.
// Loads outside the tensor give the padding value; stores outside it are dropped.
#pragma once
#include <limits>
#include <tuple>
#include <utility>

#include "ctile/backend/exchange.hpp"
#include "ctile/backend/memory.hpp"
#include "ctile/tile/shape_ops.hpp"

namespace ct {

// ---- Block coordinates ----------------------------------------------------------------------

// This block's index along grid axis 0, 1 or 2 (the output partition's tile index).
CT_HD inline int bid(int axis) { return backend::block_id(axis); }
// The grid's extent along axis 0, 1 or 2.
CT_HD inline int num_blocks(int axis) { return backend::grid_blocks(axis); }

// ---- Padding ----------------------------------------------------------------------------------

enum class padding_mode { zero, neg_zero, nan, pos_inf, neg_inf };

template <padding_mode M>
struct padding_t {
  static constexpr padding_mode mode = M;
  template <class T>
  CT_HD static T value() {
    using C = compute_t<T>;
    if constexpr (M == padding_mode::zero) return convert<T>(C(0));
    else if constexpr (M == padding_mode::neg_zero) return convert<T>(-C(0));
    else {
      static_assert(is_floating_v<T>, "ct padding: nan/pos_inf/neg_inf padding needs a float tensor");
      if constexpr (M == padding_mode::nan) return convert<T>(std::numeric_limits<C>::quiet_NaN());
      else if constexpr (M == padding_mode::pos_inf) return convert<T>(std::numeric_limits<C>::infinity());
      else return convert<T>(-std::numeric_limits<C>::infinity());
    }
  }
};

namespace pad {
inline constexpr padding_t<padding_mode::zero> zero{};
inline constexpr padding_t<padding_mode::neg_zero> neg_zero{};
inline constexpr padding_t<padding_mode::nan> nan{};
inline constexpr padding_t<padding_mode::pos_inf> pos_inf{};
inline constexpr padding_t<padding_mode::neg_inf> neg_inf{};
}  // namespace pad

// Spelled at a window's load or store (ct::load_from, out::store_shifted) whose tile starts on a
// 16-byte boundary, such as a row read from the boundary at or before it: the backend leaves out
// its code for chunks off the boundary, which only costs registers there (a softmax row window:
// 130 registers with it, 95 without). Chunks off the boundary, if any, then move element by
// element: correct, only slower.
struct aligned_window_t {};
inline constexpr aligned_window_t aligned_window{};

// Spelled at a call site to drop a bounds check (loads, stores, gather, scatter, atomics): the
// caller promises every access is inside the tensor; an access outside is undefined behaviour.
struct unchecked_t {};
inline constexpr unchecked_t unchecked{};

// ---- Views ------------------------------------------------------------------------------------

template <class T, int R>
struct in;

// Traversal steps of a tiled view: tile (i, j, ...) starts at (i * step0, j * step1, ...).
// Steps smaller than the tile give overlapping windows, larger ones gaps.
template <int R>
struct steps_t {
  index_t step[R];
};
template <class... I>
CT_HD steps_t<int(sizeof...(I))> steps(I... s) {
  return {{index_t(s)...}};
}

// A read-only tensor seen as a grid of tiles of shape S.
template <class T, class S, int R, class Pad>
struct tiled_view {
  static_assert(S::rank == R, "ct tiled view: the tile shape's rank must equal the tensor's rank");
  const T* data;
  backend::global_view<R> g;
  steps_t<R> traversal;

  // Number of tiles along `axis`: tile origins i * step inside the tensor (the last may be partial).
  CT_HD index_t num_tiles(int axis) const {
    const index_t step = traversal.step[axis];
    return step > 0 ? (g.extent[axis] + step - 1) / step : 0;
  }

  template <class... I>
  CT_HD tile<T, S> load(I... index) const {
    static_assert(sizeof...(I) == R, "ct tiled view load: give one tile index per tensor axis");
    const index_t idx[R] = {index_t(index)...};
    coord<R> at;
    for (int i = 0; i < R; ++i) at[i] = idx[i];
    return load_at(at);
  }
  // The same, with the tile index as one coordinate.
  CT_HD tile<T, S> load_at(const coord<R>& index) const {
    coord<R> origin;
    for (int i = 0; i < R; ++i) origin[i] = index[i] * traversal.step[i];
    return backend::load_tile<T, S, R>(data, g, origin, Pad::template value<T>());
  }

  // Either, laid out as tile x is: view.load(i, j, ct::layout_of(x)) (ct::layout_tag).
  template <class... A>
    requires(sizeof...(A) == R + 1 && is_layout_tag<std::tuple_element_t<R, std::tuple<A...>>>::value)
  CT_HD auto load(A... a) const {
    return load_tagged(std::make_index_sequence<R>{}, a...);
  }
  template <class P>
  CT_HD tile<T, S, P> load_at(const coord<R>& index, layout_tag<P>) const {
    static_assert(backend::fits_layout<S, P>(),
                  "ct tiled view load: a tile laid out as another (ct::layout_of) must have that tile's "
                  "shape, or a slice of it (dims of 1 where the other's are larger)");
    coord<R> origin;
    for (int i = 0; i < R; ++i) origin[i] = index[i] * traversal.step[i];
    return backend::load_laid_out<T, S, P, R>(data, g, origin, Pad::template value<T>());
  }

 private:
  template <std::size_t... K, class... A>
  CT_HD auto load_tagged(std::index_sequence<K...>, A... a) const {
    const auto args = std::make_tuple(a...);
    return load_at(coord<R>{{index_t(std::get<K>(args))...}}, std::get<R>(args));
  }
};

template <class T, class S>
struct out;

template <class T, int R>
struct in {
  static_assert(is_element_v<T>, "ct::in: element type is not a ctile element type");
  static_assert(R >= 1 && R <= 8, "ct::in: tensor rank must be between 1 and 8");
  using element_type = T;
  static constexpr int rank = R;

  const T* data;
  backend::global_view<R> g;

  CT_HD index_t extent(int axis) const { return g.extent[axis]; }
  CT_HD index_t stride(int axis) const { return g.stride[axis]; }

  template <int... D, class Pad = padding_t<padding_mode::zero>>
  CT_HD tiled_view<T, shape<D...>, R, Pad> tiled(shape<D...>, Pad = {}) const {
    static_assert(check_tile_shape<D...>());
    return {data, g, {{index_t(D)...}}};
  }
  template <int... D, class Pad>
  CT_HD tiled_view<T, shape<D...>, R, Pad> tiled(shape<D...>, Pad, steps_t<R> traversal) const {
    static_assert(check_tile_shape<D...>());
    return {data, g, traversal};
  }

  // Elements [start, stop) along `axis` (clamped to the tensor), as a view.
  CT_HD in slice(int axis, index_t start, index_t stop) const {
    in r = *this;
    start = start < 0 ? 0 : start > g.extent[axis] ? g.extent[axis] : start;
    stop = stop < start ? start : stop > g.extent[axis] ? g.extent[axis] : stop;
    r.data = data + start * g.stride[axis];
    r.g.extent[axis] = stop - start;
    return r;
  }

  // The same tensor with its axes reordered: axis i of the view is axis Order[i] of the tensor
  // (cuTile's `order=`). No copy; loads through it are strided.
  template <int... Order>
  CT_HD in permuted(axes_t<Order...>) const;

  // Inputs are read-only: spelled out so the compiler says so instead of "no member named store".
  template <class... A>
  CT_HD void store(const A&...) const {
    static_assert(detail::always_false<A...>,
                  "ct::in::store: an input view is read-only; write results through a ct::out "
                  "parameter (bound to tensor.partition(...))");
  }

  // The tile at this block's position in `like`'s partition, with `like`'s tile shape.
  template <class U, class S, class Pad = padding_t<padding_mode::zero>>
  CT_HD tile<T, S> load_like(const out<U, S>& like, Pad = {}) const;
  // The same without bounds checks: the tile must lie inside the tensor.
  template <class U, class S>
  CT_HD tile<T, S> load_like(const out<U, S>& like, unchecked_t) const;
};

template <class T, class S, class D, bool Whole = false>
struct out_subtiles;

namespace detail {
template <class D, class S>
constexpr bool divides_each() {
  for (int i = 0; i < S::rank; ++i)
    if (S::dim(i) % D::dim(i) != 0) return false;
  return true;
}
}  // namespace detail

template <class T, class S>
struct out {
  static_assert(is_element_v<T>, "ct::out: element type is not a ctile element type");
  static_assert(is_shape<S>::value, "ct::out: the second parameter must be a ct::shape<...>");
  static_assert(S::rank >= 1 && S::rank <= 3, "ct::out: output partitions have rank 1, 2 or 3");
  using element_type = T;
  using shape_type = S;
  static constexpr int rank = S::rank;

  T* data;
  backend::global_view<S::rank> g;

  CT_HD index_t extent(int axis) const { return g.extent[axis]; }

  // This block's tile index in the partition: (bid(0), bid(1), ...).
  CT_HD coord<S::rank> tile_index() const {
    coord<S::rank> c;
    for (int i = 0; i < S::rank; ++i) c[i] = bid(i);
    return c;
  }
  CT_HD coord<S::rank> origin() const {
    coord<S::rank> c = tile_index();
    for (int i = 0; i < S::rank; ++i) c[i] *= S::dim(i);
    return c;
  }

  // A block stores only its own tile: no index. Spelled out to say so.
  template <class I, class X>
  CT_HD void store(const I&, const X&) const {
    static_assert(detail::always_false<I, X>,
                  "ct::out::store takes no index: a block stores only its own tile of the output; "
                  "to write elsewhere use a ct::unsafe::global parameter and ct::store / ct::scatter");
  }
  // Outputs are not read: another block's tile could be mid-write. Spelled out to say so.
  template <class... A>
  CT_HD tile<T, S> load(const A&...) const {  // a tile return type keeps the message the first error
    static_assert(detail::always_false<A...>,
                  "ct::out::load: an output view cannot be loaded from (another block may be writing "
                  "it); pass the tensor as a ct::in parameter too, or keep the tile in a variable");
    return {};
  }

  // Writes this block's tile. Elements outside the tensor (ragged edges) are dropped.
  template <class U, class S2, class P>
  CT_HD void store(const tile<U, S2, P>& x) const {
    static_assert(std::is_same_v<U, T>,
                  "ct::out::store: the tile's element type differs from the output's; convert "
                  "it with ct::astype<T>(tile) first");
    static_assert(std::is_same_v<S2, S>,
                  "ct::out::store: the tile's shape differs from the output partition's tile shape");
    backend::store_laid_out<T, S, S::rank>(data, g, origin(), x);
  }
  // This block's tile in sub-tiles of shape D, stored one at a time: see ct::out_subtiles.
  template <int... D>
  CT_HD out_subtiles<T, S, shape<D...>> subtiles(shape<D...>) const;
  // The same, handed to f(subtiles), which is compiled twice: where this block's whole tile
  // lies inside the tensor with its rows aligned for vector stores (tested here, once), f gets
  // sub-tiles whose stores make no test and take one vector access a chunk; elsewhere, the
  // checked sub-tiles above. For a tile stored in many pieces (a GEMM's epilogue), whose
  // per-piece edge code would otherwise lie among the stores.
  template <int... D, class F>
  CT_HD void with_subtiles(shape<D...>, F&& f) const;

  // Stores x (any shape) with its element (0, ...) at this block's tile origin + `offset`
  // (elements; negative allowed): a window not on the tile's grid, such as a row read from the
  // 16-byte boundary before it (ct::load_from). Elements outside this block's tile, or outside
  // the tensor, are dropped, so the block still writes only its own tile.
  template <class U, class S2, class P>
  CT_HD void store_shifted(const coord<S::rank>& offset, const tile<U, S2, P>& x) const {
    store_shifted_as<true>(offset, x);
  }
  // The same for a window that starts on a 16-byte boundary (ct::aligned_window).
  template <class U, class S2, class P>
  CT_HD void store_shifted(const coord<S::rank>& offset, const tile<U, S2, P>& x, aligned_window_t) const {
    store_shifted_as<false>(offset, x);
  }

  // The same without bounds checks: this block's tile must lie inside the tensor.
  template <class U, class S2, class P>
  CT_HD void store(const tile<U, S2, P>& x, unchecked_t) const {
    static_assert(std::is_same_v<U, T> && std::is_same_v<S2, S>,
                  "ct::out::store: the tile's element type or shape differs from the output's");
    backend::store_laid_out<T, S, S::rank, false>(data, g, origin(), x);
  }

 private:
  template <bool Straddle, class U, class S2, class P>
  CT_HD void store_shifted_as(const coord<S::rank>& offset, const tile<U, S2, P>& x) const {
    static_assert(std::is_same_v<U, T>,
                  "ct::out::store_shifted: the tile's element type differs from the output's; convert "
                  "it with ct::astype<T>(tile) first");
    static_assert(S2::rank == S::rank, "ct::out::store_shifted: the tile's rank differs from the output's");
    const coord<S::rank> o = origin();
    backend::global_view<S::rank> own = g;  // this block's tile, cut at the tensor's edge
    for (int i = 0; i < S::rank; ++i) {
      const index_t left = g.extent[i] - o[i];
      own.extent[i] = left < S::dim(i) ? left : S::dim(i);
    }
    backend::store_laid_out<T, S2, S::rank, true, Straddle>(data + backend::detail::offset_of(g, o), own, offset, x);
  }
};

// This block's output tile cut into sub-tiles of shape D, for a block that writes its tile in
// pieces (a row longer than a register tile, streamed through in chunks). Sub-tile `index` is
// counted within this block's tile, so a block still writes only its own tile: an index outside
// it stores nothing, as elements past the tensor's edge are dropped. Whole: the tile was found
// inside the tensor with aligned rows (out::with_subtiles), so stores need no tests.
template <class T, class S, class D, bool Whole>
struct out_subtiles {
  static_assert(D::rank == S::rank, "ct::out::subtiles: the sub-tile's rank must equal the tile's");
  static_assert(detail::divides_each<D, S>(), "ct::out::subtiles: each sub-tile extent must divide the tile's");
  static constexpr bool whole = Whole;  // out::with_subtiles found the tile inside, on aligned rows
  out<T, S> own;  // this block's whole tile

  // Sub-tiles along `axis` that hold elements of the tensor.
  CT_HD index_t num_tiles(int axis) const {
    const index_t left = own.extent(axis) - own.origin()[axis];
    const index_t inside = left < S::dim(axis) ? left : S::dim(axis);
    return inside <= 0 ? 0 : (inside + D::dim(axis) - 1) / D::dim(axis);
  }

  template <class U, class S2, class P>
  CT_HD void store(const coord<S::rank>& index, const tile<U, S2, P>& x) const {
    static_assert(std::is_same_v<U, T>,
                  "ct::out::subtiles::store: the tile's element type differs from the output's; convert "
                  "it with ct::astype<T>(tile) first");
    static_assert(std::is_same_v<S2, D>, "ct::out::subtiles::store: the tile's shape differs from the sub-tile shape");
    coord<S::rank> origin = own.origin();
    for (int i = 0; i < S::rank; ++i) {
      if (index[i] < 0 || index[i] >= S::dim(i) / D::dim(i)) return;  // outside this block's tile
      origin[i] += index[i] * D::dim(i);
    }
    if constexpr (Whole) backend::store_whole_tile(own.data, own.g, origin, x);
    else backend::store_laid_out<T, D, S::rank>(own.data, own.g, origin, x);
  }
};

template <class T, class S>
template <int... D>
CT_HD out_subtiles<T, S, shape<D...>> out<T, S>::subtiles(shape<D...>) const {
  return {*this};
}

template <class T, class S>
template <int... D, class F>
CT_HD void out<T, S>::with_subtiles(shape<D...>, F&& f) const {
  constexpr int V = backend::natural_layout<T, shape<D...>>::vec;  // store_whole_tile's chunks
  const coord<S::rank> o = origin();
  if (backend::detail::whole_and_aligned<S, V, true>(data + backend::detail::offset_of(g, o), g, o))
    f(out_subtiles<T, S, shape<D...>, true>{*this});
  else
    f(out_subtiles<T, S, shape<D...>>{*this});
}

// ---- Static extents ---------------------------------------------------------------------------

inline constexpr index_t dyn = -1;

// Extents known at compile time (ct::dyn for run-time ones), e.g. ct::extents<ct::dyn, 128>.
template <index_t... E>
struct extents {
  static constexpr int rank = sizeof...(E);
  CT_HD static constexpr index_t value(int axis) {
    index_t r = dyn;
    int k = 0;
    ((r = (k++ == axis ? E : r)), ...);
    return r;
  }
};

// An input whose extents are partly fixed at compile time: the launch checks the tensor against
// them (a ct::error naming the argument), and extent(axis) is a constant for the fixed axes.
// It is a ct::in, so everything that takes a ct::in takes it.
template <class T, class E>
struct in_static : in<T, E::rank> {
  using extents_type = E;
  CT_HD index_t extent(int axis) const {
    return E::value(axis) == dyn ? this->g.extent[axis] : E::value(axis);
  }
};

template <class T, int R>
template <int... Order>
CT_HD in<T, R> in<T, R>::permuted(axes_t<Order...>) const {
  static_assert(sizeof...(Order) == R, "ct::in::permuted: give one axis per tensor axis");
  static_assert(detail::valid_permutation<R, axes_t<Order...>>(),
                "ct::in::permuted: the axes must name each tensor axis exactly once");
  in r = *this;
  const int order[R] = {Order...};
  for (int i = 0; i < R; ++i) {
    r.g.extent[i] = g.extent[order[i]];
    r.g.stride[i] = g.stride[order[i]];
  }
  return r;
}

template <class T, int R>
template <class U, class S, class Pad>
CT_HD tile<T, S> in<T, R>::load_like(const out<U, S>& like, Pad) const {
  static_assert(S::rank == R, "ct::in::load_like: the output's rank differs from this tensor's");
  return backend::load_tile<T, S, R>(data, g, like.origin(), Pad::template value<T>());
}

template <class T, int R>
template <class U, class S>
CT_HD tile<T, S> in<T, R>::load_like(const out<U, S>& like, unchecked_t) const {
  static_assert(S::rank == R, "ct::in::load_like: the output's rank differs from this tensor's");
  return backend::load_tile<T, S, R, false>(data, g, like.origin(), T{});
}

// Free-function spellings, as in cuTile.
template <class T, int R, class U, class S, class Pad = padding_t<padding_mode::zero>>
CT_HD tile<T, S> load_like(const in<T, R>& src, const out<U, S>& like, Pad p = {}) {
  return src.load_like(like, p);
}

template <class T, class S, class... A>
CT_HD void load(const out<T, S>&, const A&...) {
  static_assert(detail::always_false<T, A...>,
                "ct::load: an output view cannot be loaded from (another block may be writing it); "
                "pass the tensor as a ct::in parameter too");
}

// The tile of shape D whose element (0, ...) sits at element coordinate `origin` of src: a
// window anywhere, not only on the grid of D (ct::load's index counts tiles). Elements outside
// the tensor (origin may be negative) are the padding.
template <class T, int R, int... D, class Pad = padding_t<padding_mode::zero>>
CT_HD tile<T, shape<D...>> load_from(const in<T, R>& src, const coord<R>& origin, shape<D...>, Pad = {}) {
  static_assert(check_tile_shape<D...>());
  return backend::load_tile<T, shape<D...>, R>(src.data, src.g, origin, Pad::template value<T>());
}
// The same for a window that starts on a 16-byte boundary (ct::aligned_window).
template <class T, int R, int... D, class Pad>
CT_HD tile<T, shape<D...>> load_from(const in<T, R>& src, const coord<R>& origin, shape<D...>, Pad, aligned_window_t) {
  static_assert(check_tile_shape<D...>());
  return backend::load_tile<T, shape<D...>, R, true, false>(src.data, src.g, origin, Pad::template value<T>());
}

// The tile of shape D at tile index `index` (its element (0, ...) at index * D).
template <class T, int R, int... D, class Pad = padding_t<padding_mode::zero>>
CT_HD tile<T, shape<D...>> load(const in<T, R>& src, const coord<R>& index, shape<D...> s, Pad p = {}) {
  coord<R> origin;
  for (int i = 0; i < R; ++i) origin[i] = index[i] * shape<D...>::dim(i);
  return load_from(src, origin, s, p);
}

// The same, laid out as tile x is: ct::load(src, index, shape, ct::pad::zero, ct::layout_of(x)).
template <class T, int R, int... D, class Pad, class P>
CT_HD tile<T, shape<D...>, P> load(const in<T, R>& src, const coord<R>& index, shape<D...> s, Pad p, layout_tag<P> as) {
  return src.tiled(s, p).load_at(index, as);
}

template <class T, class S, int R, class Pad>
CT_HD index_t num_tiles(const tiled_view<T, S, R, Pad>& view, int axis) {
  return view.num_tiles(axis);
}

}  // namespace ct
