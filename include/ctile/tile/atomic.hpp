// Tile atomics on a ct::unsafe::global view: each element's update is atomic (the tile as a whole
// is not), and each returns the tile of old values.
//   ct::atomic_add(dst, indices, values [, options...])     also _max, _min, _and, _or, _xor, _xchg
//   ct::atomic_cas(dst, indices, expected, desired [, options...])
// `indices` is an index tile (1-D tensors) or ct::indices(i, j, ...). Options, in any order: a
// bool mask tile, a memory order (ct::relaxed, ct::acquire, ct::release, ct::acq_rel; default
// acq_rel), a scope (ct::block_scope, ct::device_scope, ct::system_scope; default device),
// ct::unchecked. Out-of-range or masked-off elements are not touched and return 0.
#pragma once
#include "ctile/backend/atomic.hpp"
#include "ctile/tile/gather.hpp"

namespace ct {

template <memory_order O>
struct order_t {};
inline constexpr order_t<memory_order::relaxed> relaxed{};
inline constexpr order_t<memory_order::acquire> acquire{};
inline constexpr order_t<memory_order::release> release{};
inline constexpr order_t<memory_order::acq_rel> acq_rel{};

template <memory_scope S>
struct scope_t {};
inline constexpr scope_t<memory_scope::block> block_scope{};
inline constexpr scope_t<memory_scope::device> device_scope{};
inline constexpr scope_t<memory_scope::system> system_scope{};

namespace detail {

template <class T>
constexpr bool atomic_type_check() {
  static_assert(std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::uint32_t> ||
                    std::is_same_v<T, std::int64_t> || std::is_same_v<T, std::uint64_t> ||
                    std::is_same_v<T, float> || std::is_same_v<T, double>,
                "ct atomics: the tensor's element type must be int32, uint32, int64, uint64, f32 or f64");
  return true;
}

// What one trailing option of an atomic says.
template <class X>
struct option_traits {
  static constexpr bool is_order = false, is_scope = false, is_unchecked = false;
  static constexpr bool is_mask = is_mask_tile<X>::value;
  static constexpr memory_order order = memory_order::acq_rel;
  static constexpr memory_scope scope = memory_scope::device;
};
template <memory_order O>
struct option_traits<order_t<O>> : option_traits<void> {
  static constexpr bool is_order = true;
  static constexpr memory_order order = O;
};
template <memory_scope S>
struct option_traits<scope_t<S>> : option_traits<void> {
  static constexpr bool is_scope = true;
  static constexpr memory_scope scope = S;
};
template <>
struct option_traits<unchecked_t> : option_traits<void> {
  static constexpr bool is_unchecked = true;
};

template <class... Opts>
struct atomic_options {
  static constexpr int orders = (0 + ... + int(option_traits<Opts>::is_order));
  static constexpr int scopes = (0 + ... + int(option_traits<Opts>::is_scope));
  static constexpr int masks = (0 + ... + int(option_traits<Opts>::is_mask));
  static constexpr int known = orders + scopes + masks + (0 + ... + int(option_traits<Opts>::is_unchecked));
  static_assert(known == int(sizeof...(Opts)),
                "ct atomics: options must be a bool mask tile, a memory order (ct::relaxed, ...), a "
                "scope (ct::device_scope, ...) or ct::unchecked");
  static_assert(orders <= 1 && scopes <= 1 && masks <= 1, "ct atomics: an option is given twice");
  static constexpr bool checked = !(false || ... || option_traits<Opts>::is_unchecked);
  static constexpr memory_order order = [] {
    memory_order o = memory_order::acq_rel;
    ((o = option_traits<Opts>::is_order ? option_traits<Opts>::order : o), ...);
    return o;
  }();
  static constexpr memory_scope scope = [] {
    memory_scope sc = memory_scope::device;
    ((sc = option_traits<Opts>::is_scope ? option_traits<Opts>::scope : sc), ...);
    return sc;
  }();
};

CT_HD inline tile<bool, shape<>> pick_mask() { return all_active(); }
template <class First, class... Rest>
CT_HD auto pick_mask(const First& first, const Rest&... rest) {
  if constexpr (is_mask_tile<First>::value) return first;
  else return pick_mask(rest...);
}

template <class I>
CT_HD auto as_index_list(const I& idx) {
  if constexpr (is_tile_v<I>) return indices(idx);
  else return idx;
}

// Runs `update(pointer, slot)` on each active element (its canonical copy) and returns the old
// values, in the frame (S, P) of the operands, with replicated copies filled from the canonical.
template <class T, class S, class P, class R>
CT_HD tile<T, S, P> share_canonical(const tile<T, S, P>& r) {
  if constexpr (P::replicated || !std::is_same_v<typename P::shape_type, S>) {
    tile<T, S, P> out = r;
    backend::exchange_into(out, r, [](const coord<S::rank>& c) { return ct::detail::flatten<S>(c); });
    return out;
  } else {
    return r;
  }
}

template <class O, class T, int R, class Update, class... Vals, class Mask, class... Idx>
CT_HD auto atomic_apply(const unsafe::global<T, R>& dst, Update update, const Mask& mask,
                        const index_list<Idx...>& list, const Vals&... vals) {
  static_assert(atomic_type_check<T>());
  static_assert((index_tile_check<Idx>() && ...));
  static_assert((std::is_same_v<typename Vals::element_type, T> && ...),
                "ct atomics: the values' element type differs from the tensor's; use ct::astype");
  using S = typename common_shape<Mask, Vals..., Idx...>::type;
  using P = typename common_layout<T, S, Vals..., Idx..., Mask>::type;
  tile<T, S, P> old;
  apply_indices(
      [&](const auto&... idx) {
        const auto args = indices(backend::align_to<S, P>(vals)...);
        visit_elements<S, P, O::checked>(
            dst.g,
            [&](int s, index_t off, bool active) {
              old.v[s] = T(0);
              if (active && tile<T, S, P>::canonical(s)) old.v[s] = apply_indices([&](const auto&... v) { return update(dst.data + off, v.v[s]...); }, args);
            },
            backend::align_to<S, P>(mask), backend::align_to<S, P>(idx)...);
        return 0;
      },
      list);
  return share_canonical<T, S, P, void>(old);
}

}  // namespace detail

#define CT_DEFINE_ATOMIC(NAME, OP)                                                                       \
  template <class T, int R, class... A>                                                                   \
  CT_HD auto NAME(const in<T, R>&, const A&...) {                                                         \
    static_assert(detail::always_false<T, A...>,                                                          \
                  "ct atomics write to arbitrary elements, so they need a ct::unsafe::global<T, R> "      \
                  "parameter (bound with ct::unsafe::shared(tensor)); a ct::in view is read-only");       \
  }                                                                                                       \
  template <class T, int R, class I, class V, class... Opts>                                             \
  CT_HD auto NAME(const unsafe::global<T, R>& dst, const I& idx, const V& values, Opts... opts) {  \
    static_assert(OP == atomic_op::add || OP == atomic_op::max || OP == atomic_op::min ||                 \
                      OP == atomic_op::exchange || std::is_integral_v<T>,                                \
                  "ct atomics: and/or/xor need an integer tensor");                                      \
    using O = detail::atomic_options<Opts...>;                                                           \
    const auto vals = detail::as_tile_of<V, T>(values);                                                  \
    return detail::atomic_apply<O>(                                                                      \
        dst, [](T* p, T v) { return backend::atomic_rmw<OP, O::order, O::scope>(p, v); },                \
        detail::pick_mask(opts...), detail::as_index_list(idx), vals);                                   \
  }
CT_DEFINE_ATOMIC(atomic_add, atomic_op::add)
CT_DEFINE_ATOMIC(atomic_max, atomic_op::max)
CT_DEFINE_ATOMIC(atomic_min, atomic_op::min)
CT_DEFINE_ATOMIC(atomic_and, atomic_op::bit_and)
CT_DEFINE_ATOMIC(atomic_or, atomic_op::bit_or)
CT_DEFINE_ATOMIC(atomic_xor, atomic_op::bit_xor)
CT_DEFINE_ATOMIC(atomic_xchg, atomic_op::exchange)
#undef CT_DEFINE_ATOMIC

// Tile-wise atomic update without old values (cuTile's TiledView.atomic_store_*): element
// (c0, c1, ...) of x updates tile `index`'s element atomically, relaxed, device scope.
template <atomic_op Op, class T, int R, class S, class P>
CT_HD void atomic_store(const unsafe::global<T, R>& dst, const coord<R>& index, const tile<T, S, P>& x) {
  static_assert(detail::atomic_type_check<T>());
  static_assert(S::rank == R, "ct::atomic_store: the tile's rank must equal the tensor's rank");
  CT_UNROLL
  for (int s = 0; s < P::slots; ++s) {
    if (!tile<T, S, P>::canonical(s)) continue;
    const auto c = tile<T, S, P>::coord_of(s);
    index_t at[R];
    for (int i = 0; i < R; ++i) at[i] = index[i] * S::dim(i) + c[i];
    index_t off;
    bool inside = true;
    off = 0;
    for (int i = 0; i < R; ++i) {
      inside = inside && at[i] >= 0 && at[i] < dst.g.extent[i];
      off += at[i] * dst.g.stride[i];
    }
    if (inside) backend::atomic_rmw<Op, memory_order::relaxed, memory_scope::device>(dst.data + off, x.v[s]);
  }
}
#define CT_DEFINE_ATOMIC_STORE(NAME, OP)                                                             \
  template <class T, int R, class S, class P>                                                        \
  CT_HD void NAME(const unsafe::global<T, R>& dst, const coord<R>& index, const tile<T, S, P>& x) {  \
    atomic_store<OP>(dst, index, x);                                                                 \
  }
CT_DEFINE_ATOMIC_STORE(atomic_store_add, atomic_op::add)
CT_DEFINE_ATOMIC_STORE(atomic_store_max, atomic_op::max)
CT_DEFINE_ATOMIC_STORE(atomic_store_min, atomic_op::min)
CT_DEFINE_ATOMIC_STORE(atomic_store_and, atomic_op::bit_and)
CT_DEFINE_ATOMIC_STORE(atomic_store_or, atomic_op::bit_or)
CT_DEFINE_ATOMIC_STORE(atomic_store_xor, atomic_op::bit_xor)
#undef CT_DEFINE_ATOMIC_STORE

template <class T, int R, class I, class E, class D, class... Opts>
CT_HD auto atomic_cas(const unsafe::global<T, R>& dst, const I& idx, const E& expected, const D& desired,
                      Opts... opts) {
  using O = detail::atomic_options<Opts...>;
  return detail::atomic_apply<O>(
      dst, [](T* p, T e, T d) { return backend::atomic_cas<O::order, O::scope>(p, e, d); },
      detail::pick_mask(opts...), detail::as_index_list(idx), detail::as_tile_of<E, T>(expected),
      detail::as_tile_of<D, T>(desired));
}

}  // namespace ct
