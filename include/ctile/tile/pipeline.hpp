// ct::pipelined: a loop over K tiles whose operand loads the backend may stage ahead of use.
//
//   auto acc = ct::pipelined(c.tile_index(), ct::num_tiles(ta, 1),
//       ct::stages(ct::stage(ta, a_at), ct::stage(tb, b_at)),   // a_at(t, k) -> tile coordinate
//       ct::zeros<float, BM, BN>(),
//       [](auto acc, auto a, auto b) { return ct::mma(a, b, acc); });
//
// means acc = init; for k in [0, trips): acc = body(acc, ta.load(a_at(t, k)), tb.load(b_at(t, k))).
// It is written this way, and not as a plain loop, so that a fast backend can run the loads of
// later trips while the tensor cores work on earlier ones (a ring of shared-memory stages filled
// by cp.async or TMA, possibly by other warps). Three rules make that possible, and are checked
// here on every backend so that a kernel that compiles today keeps its meaning there:
// - an index map captures nothing (it is a plain function of the tile index and the trip), so
//   the loads of any trip can be issued without running the body;
// - the operands reach the body as ct::staged tiles, which only ct::mma (and ct::astype, for
//   tf32) accept: they may live in shared memory rather than in registers;
// - the running accumulator reaches the body as ct::in_flight, which only ct::mma accepts: the
//   tensor cores may still be writing it. The result of ct::pipelined is an ordinary tile.
// On the CPU backend, and on the GPU until the staged paths exist (issue 6), it is that plain
// loop: the same loads, the same ct::mma, the same bits.
#pragma once
#include <type_traits>
#include <utility>

#include "ctile/tile/mma.hpp"
#include "ctile/tile/view.hpp"

namespace ct {

namespace detail {
// The key to the wrappers below: ct::pipelined and ct::mma use it; kernels have no business
// with it (it is in detail, outside the vocabulary).
struct pipeline_key {};

// A minimal tuple usable in device code (std::tuple's members are not all __device__).
template <std::size_t I, class T>
struct pack_leaf {
  T value;
};
template <class Seq, class... T>
struct pack_base;
template <std::size_t... I, class... T>
struct pack_base<std::index_sequence<I...>, T...> : pack_leaf<I, T>... {
  CT_HD explicit pack_base(const T&... v) : pack_leaf<I, T>{v}... {}
};
template <class... T>
struct pack : pack_base<std::index_sequence_for<T...>, T...> {
  using pack_base<std::index_sequence_for<T...>, T...>::pack_base;
  template <std::size_t I>
  CT_HD const auto& get() const {
    return get_leaf<I>(*this).value;
  }

 private:
  template <std::size_t I, class U>
  CT_HD static const pack_leaf<I, U>& get_leaf(const pack_leaf<I, U>& leaf) {
    return leaf;
  }
};

template <class X>
struct is_tiled_view : std::false_type {};
template <class T, class S, int R, class Pad>
struct is_tiled_view<tiled_view<T, S, R, Pad>> : std::true_type {};
}  // namespace detail

// An operand tile of a pipelined loop: accepted by ct::mma and ct::astype only.
template <class Tile>
class staged {
 public:
  using tile_type = Tile;
  CT_HD explicit staged(const Tile& t) : t_(t) {}
  CT_HD const Tile& get(detail::pipeline_key) const { return t_; }

 private:
  Tile t_;
};

// The loop-carried accumulator inside a pipelined loop: accepted by ct::mma only.
template <class Tile>
class in_flight {
 public:
  using tile_type = Tile;
  CT_HD explicit in_flight(const Tile& t) : t_(t) {}
  CT_HD const Tile& get(detail::pipeline_key) const { return t_; }

 private:
  Tile t_;
};

// One operand stream: trip k of the block at tile index t loads view's tile Map{}(t, k).
template <class View, class Map>
struct stage_spec {
  using map_type = Map;
  View view;
};

namespace detail {
template <class X>
struct is_stage_spec : std::false_type {};
template <class View, class Map>
struct is_stage_spec<stage_spec<View, Map>> : std::true_type {};
}  // namespace detail

template <class View, class Map>
CT_HD stage_spec<View, Map> stage(const View& view, Map) {
  static_assert(detail::is_tiled_view<View>::value,
                "ct::stage: the first argument must be a tiled view (x.tiled(ct::shape<...>{}))");
  static_assert(std::is_empty_v<Map> && std::is_default_constructible_v<Map>,
                "ct::stage: the index map must not capture anything: it is a function of the tile "
                "index and the trip alone, so that a backend can issue later trips' loads ahead of "
                "the loop body; pass views through ct::stage and tile indices as the map's arguments");
  return {view};
}

template <class... Specs>
struct stage_list {
  detail::pack<Specs...> specs;
};

template <class... Specs>
CT_HD stage_list<Specs...> stages(const Specs&... specs) {
  static_assert(sizeof...(Specs) >= 1, "ct::stages: give at least one ct::stage(view, map)");
  static_assert((detail::is_stage_spec<Specs>::value && ...), "ct::stages: each argument must be a ct::stage(view, map)");
  return stage_list<Specs...>{detail::pack<Specs...>(specs...)};
}

namespace detail {

template <class Map, class View, int R>
CT_HD auto load_stage(const View& view, const coord<R>& t, index_t k) {
  const auto at = Map{}(t, k);
  return staged<decltype(view.load_at(at))>(view.load_at(at));
}

template <class Acc, class Body, class... Specs, int R, std::size_t... I>
CT_HD Acc run_pipelined(const coord<R>& t, index_t trips, const stage_list<Specs...>& st, const Acc& init, Body& body,
                        std::index_sequence<I...>) {
  using result = decltype(body(std::declval<in_flight<Acc>>(),
                               load_stage<typename Specs::map_type>(st.specs.template get<I>().view, t, 0)...));
  static_assert(std::is_same_v<std::remove_cvref_t<result>, in_flight<Acc>>,
                "ct::pipelined: the body must return the new accumulator, ct::mma(a, b, acc), with the "
                "accumulator's type and shape");
  in_flight<Acc> acc(init);
  for (index_t k = 0; k < trips; ++k)
    acc = body(acc, load_stage<typename Specs::map_type>(st.specs.template get<I>().view, t, k)...);
  return acc.get(pipeline_key{});
}

}  // namespace detail

// acc = init; for k in [0, trips): acc = body(acc, staged operands of trip k); the final acc.
template <int R, class... Specs, class Acc, class Body>
CT_HD Acc pipelined(const coord<R>& tile_index, index_t trips, const stage_list<Specs...>& st, const Acc& init,
                    Body body) {
  static_assert(is_tile_v<Acc>, "ct::pipelined: the initial accumulator must be a tile (e.g. ct::zeros)");
  return detail::run_pipelined(tile_index, trips, st, init, body, std::index_sequence_for<Specs...>{});
}

// ct::mma on staged operands: with the in-flight accumulator of a pipelined loop, or with an
// ordinary one (then the result is ordinary too, ready to read: attention's S = Q K^T).
template <class A, class B, class C>
CT_HD in_flight<C> mma(const staged<A>& a, const staged<B>& b, const in_flight<C>& acc) {
  return in_flight<C>(mma(a.get(detail::pipeline_key{}), b.get(detail::pipeline_key{}), acc.get(detail::pipeline_key{})));
}
template <class A, class B, class TC, class SC, class PC>
CT_HD tile<TC, SC, PC> mma(const staged<A>& a, const staged<B>& b, const tile<TC, SC, PC>& acc) {
  return mma(a.get(detail::pipeline_key{}), b.get(detail::pipeline_key{}), acc);
}

namespace detail {
template <class X>
struct is_pipeline_wrapper : std::false_type {};
template <class Tile>
struct is_pipeline_wrapper<staged<Tile>> : std::true_type {};
template <class Tile>
struct is_pipeline_wrapper<in_flight<Tile>> : std::true_type {};
template <class A, class B>
inline constexpr bool pipeline_operand_v =
    is_pipeline_wrapper<std::remove_cvref_t<A>>::value || is_pipeline_wrapper<std::remove_cvref_t<B>>::value;
}  // namespace detail

// Arithmetic on the wrappers is refused with a message rather than "no operator".
#define CT_REFUSE_PIPELINE_OPERATOR(SYM)                                                                   \
  template <class A, class B, std::enable_if_t<detail::pipeline_operand_v<A, B>, int> = 0>                \
  CT_HD auto operator SYM(const A&, const B&) {                                                            \
    static_assert(detail::always_false<A, B>,                                                              \
                  "ct::pipelined: inside the loop body the accumulator (ct::in_flight) and the operands " \
                  "(ct::staged) may only be passed to ct::mma; compute with the result of ct::pipelined " \
                  "after the loop");                                                                       \
  }
CT_REFUSE_PIPELINE_OPERATOR(+)
CT_REFUSE_PIPELINE_OPERATOR(-)
CT_REFUSE_PIPELINE_OPERATOR(*)
CT_REFUSE_PIPELINE_OPERATOR(/)
#undef CT_REFUSE_PIPELINE_OPERATOR

// A staged operand converted (for example to tf32) stays staged.
template <class U, class Tile>
CT_HD auto astype(const staged<Tile>& x) {
  using R = decltype(astype<U>(x.get(detail::pipeline_key{})));
  return staged<R>(astype<U>(x.get(detail::pipeline_key{})));
}

}  // namespace ct
