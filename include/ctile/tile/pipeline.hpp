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
// On the CPU backend it is that plain loop: the same loads, the same ct::mma, the same bits. On
// the GPU too, except where a tensor-core path takes the fold's shapes (16-bit operand tiles
// [BM, 64] and [64, BN] into an f32 accumulator): wgmma on sm_90a (backend/sm90/wgmma_fold.hpp,
// BN = 128, or 256 with BM = 64), else mma.sync from sm_80 on (backend/sm80/mma_sync_fold.hpp,
// BM and BN of 64 or 128, or 64 x 256). Those stage the operands in a ring in the kernel's
// dynamic shared memory, which the kernel declares
// (static constexpr std::size_t shared_bytes = ct::pipeline_shared_bytes); without it their
// launch fails.
#pragma once
#include <tuple>
#include <type_traits>
#include <utility>

#include "ctile/backend/sm80/mma_sync_fold.hpp"
#include "ctile/backend/sm90/wgmma_fold.hpp"
#include "ctile/tile/fold_result.hpp"
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

// A stage's element type, tile shape and padding.
template <class X>
struct stage_traits;
template <class Map, class T, class S, int R, class Pad>
struct stage_traits<stage_spec<tiled_view<T, S, R, Pad>, Map>> {
  using element_type = T;
  using shape_type = S;
  static constexpr bool zero_padded = Pad::mode == padding_mode::zero;
};

// The tile ct::pipelined returns: init's element type and shape; an f32 accumulator over 16-bit
// operands is laid out as a 16-bit tile of its shape would be (8 elements a chunk), so that the
// usual epilogue (operands loaded from 16-bit tensors, a 16-bit result stored) moves no data
// between threads.
template <class Acc, class T>
using fold_result_t =
    std::conditional_t<std::is_same_v<typename Acc::element_type, float> &&
                           (std::is_same_v<T, bf16> || std::is_same_v<T, f16>),
                       tile<float, typename Acc::shape_type, backend::natural_layout<T, typename Acc::shape_type>>, Acc>;

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
// Where trip k's tile of a stage starts in its tensor.
template <class Spec, int R>
__device__ coord<R> stage_origin(const Spec& spec, const coord<R>& t, index_t k) {
  const auto at = typename Spec::map_type{}(t, k);
  coord<R> origin;
  for (int i = 0; i < R; ++i) origin[i] = at[i] * spec.view.traversal.step[i];
  return origin;
}

// Whether a fold of two stages into Acc runs as a wgmma fold on this device pass (sm_90a only).
template <class Acc, class SpecA, class SpecB>
constexpr bool wgmma_fold_applies() {
  using A = stage_traits<SpecA>;
  using B = stage_traits<SpecB>;
  return CTILE_HAS_WGMMA && std::is_same_v<typename A::element_type, typename B::element_type> &&
         A::zero_padded && B::zero_padded &&
         backend::sm90::fold_eligible<typename Acc::element_type, typename Acc::shape_type, typename A::element_type,
                                      typename A::shape_type, typename B::shape_type>();
}

// Whether a fold of two stages into Acc can run as an mma.sync fold (sm_80 and later; on
// sm_90a only where the wgmma fold does not apply, which is asked first).
template <class Acc, class SpecA, class SpecB>
constexpr bool mma_sync_fold_applies() {
  using A = stage_traits<SpecA>;
  using B = stage_traits<SpecB>;
  return std::is_same_v<typename A::element_type, typename B::element_type> && A::zero_padded && B::zero_padded &&
         backend::sm80::mma_sync_fold_eligible<typename Acc::element_type, typename Acc::shape_type,
                                               typename A::element_type, typename A::shape_type,
                                               typename B::shape_type>();
}

// The mma.sync fold of one tile block over its own ring at `smem` (backend/sm80/mma_sync_fold.hpp).
// Its threads copy trip k + S - 1's tiles while the warps multiply trip k's: per trip, once
// this thread's copies of trip k have landed, a barrier (every thread's have, and every warp is
// done with trip k - 1's stage), then the copies into that stage, then trip k's mmas. The
// copies go by cp.async where the tile allows (copies_by_chunks), else element by element,
// complete before the next barrier. The ring is free on entry: a fold's exchange ends with a
// barrier after the buffer over the ring is read out.
template <class Result, class Acc, class Body, class SpecA, class SpecB, int R>
__device__ Result run_mma_sync_fold(const coord<R>& t, index_t trips, const SpecA& spec_a,
                                    const SpecB& spec_b, const Acc& init, Body& body, unsigned char* smem) {
  namespace sm80 = backend::sm80;
  using T = typename stage_traits<SpecA>::element_type;
  using SA = typename stage_traits<SpecA>::shape_type;
  using SB = typename stage_traits<SpecB>::shape_type;
  using ring = sm80::ring<SA, SB, 1>;
  constexpr int S = ring::stages, threads = config::gpu_block_threads;
  using SC = typename Acc::shape_type;
  constexpr int BM = sm80::rows_of<SC>(), BN = sm80::cols_of<SC>();
  using accumulator = sm80::mma_sync_accumulator<BM, BN>;
  using tile_a = sm80::smem_tile<T, SA>;
  using tile_b = sm80::smem_tile<T, SB>;
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(body(std::declval<in_flight<accumulator>>(),
                                                                 std::declval<staged<tile_a>>(),
                                                                 std::declval<staged<tile_b>>()))>,
                               in_flight<accumulator>>,
                "ct::pipelined: the body must return ct::mma(a, b, acc) of its staged operands and accumulator");
  const int thread = backend::thread_index_here();
  const auto issue = [&](index_t k) {
    if (k < trips) {
      unsigned char* stage = smem + std::uint32_t(k % S) * ring::stage_bytes;
      const coord<R> oa = stage_origin(spec_a, t, k), ob = stage_origin(spec_b, t, k);
      sm80::stage_tile<T, SA, threads>(stage, spec_a.view.data, spec_a.view.g, oa,
                                       sm80::copies_by_chunks(spec_a.view.data, spec_a.view.g, oa), thread);
      sm80::stage_tile<T, SB, threads>(stage + ring::b_offset, spec_b.view.data, spec_b.view.g, ob,
                                       sm80::copies_by_chunks(spec_b.view.data, spec_b.view.g, ob), thread);
    }
    sm80::cp_async_commit();  // an empty group past the end keeps the wait counts uniform
  };
  for (int k = 0; k < S - 1; ++k) issue(k);
  in_flight<accumulator> acc{accumulator{}};
  const std::uint32_t ring_addr = sm80::smem_u32(smem);
  for (index_t k = 0; k < trips; ++k) {
    sm80::cp_async_wait<S - 2>();  // this thread's copies of trip k have landed ...
    backend::sync_block();         // ... and every thread's; trip k - 1's stage is free
    issue(k + S - 1);
    const std::uint32_t stage = ring_addr + std::uint32_t(k % S) * ring::stage_bytes;
    acc = body(acc, staged<tile_a>(tile_a{stage}), staged<tile_b>(tile_b{stage + ring::b_offset}));
  }
  sm80::cp_async_wait<0>();
  // The exchange buffer lies over the ring; fold_result's first barrier orders every warp's
  // last reads of it before the writes.
  const accumulator& d = acc.get(pipeline_key{});
  float* const buf = reinterpret_cast<float*>(smem);
  using W = sm80::mma_sync_tiling<BM, BN>;
  return fold_result<Result, BM, exchange_plan<BN, 0>>(
      [&](auto) {
        const int lane = thread % 32, warp = thread / 32;
        CT_UNROLL
        for (int fm = 0; fm < W::frags_m; ++fm)
          CT_UNROLL
          for (int fn = 0; fn < W::frags_n; ++fn)
            CT_UNROLL
            for (int i = 0; i < 4; i += 2)
              put_pair<exchange_plan<BN, 0>>(buf, sm80::accumulator_row<BM, BN>(warp, lane, fm, i),
                                             sm80::accumulator_col<BM, BN>(warp, lane, fn, i), d.d[fm][fn][i],
                                             d.d[fm][fn][i + 1]);
      },
      init, buf);
}

// Runs the mma.sync fold where the kernel declared its ring (shared_bytes); false where not.
// Co-scheduled tile blocks (ct::co_schedule) each run their own ring in their share of it; a
// producer warpgroup has nothing to load for them and leaves.
template <class Result, class Acc, class Body, class SpecA, class SpecB, int R>
__device__ bool try_mma_sync_fold(const coord<R>& t, index_t trips, const SpecA& spec_a, const SpecB& spec_b,
                                  const Acc& init, Body& body, Result& result) {
  namespace sm80 = backend::sm80;
  using SA = typename stage_traits<SpecA>::shape_type;
  using SB = typename stage_traits<SpecB>::shape_type;
  using ring = sm80::ring<SA, SB, 1>;
  constexpr std::uint32_t alone = ring::stages * ring::stage_bytes;
  unsigned char* smem = nullptr;
  if (!backend::cuda::co_scheduled()) {
    smem = sm80::declared_smem(alone);
  } else {
    if (backend::cuda::is_producer()) backend::cuda::leave();
    smem = sm80::declared_smem(alone * backend::cuda::tile_blocks());
    if (smem) smem += backend::cuda::slot() * alone;
    // A persistent CTA's launch checks that each tile ran one fold (the producer's rule).
    if (smem && backend::cuda::persistent() && threadIdx.x == 0)
      ++backend::cuda::context().tile_folds[backend::cuda::slot()];
  }
  if (!smem) return false;
  result = run_mma_sync_fold<Result>(t, trips, spec_a, spec_b, init, body, smem);
  return true;
}
#endif

#if CTILE_HAS_WGMMA

// Which grid axes a stage's index map ignores (bit a: moving the tile index along axis a
// leaves the map's result unchanged), when the map can be evaluated at compile time; 0 when it
// cannot. A stage whose map ignores the co-scheduled axis is loaded once for the whole CTA.
template <class Map, int R>
constexpr unsigned map_ignored_axes() {
  if constexpr (requires { typename std::integral_constant<index_t, Map{}(coord<R>{}, 1)[0]>; }) {
    unsigned mask = 0;
    for (int axis = 0; axis < R; ++axis) {
      bool same = true;
      for (index_t k = 0; k < 3; ++k)
        for (index_t base = 0; base < 3; ++base) {
          coord<R> t0{}, t1{};
          for (int i = 0; i < R; ++i) t0[i] = t1[i] = base;
          t1[axis] = base + 1;
          const auto a = Map{}(t0, k), b = Map{}(t1, k);
          for (int i = 0; i < R; ++i) same = same && a[i] == b[i];
        }
      if (same) mask |= 1u << axis;
    }
    return mask;
  } else {
    return 0;
  }
}

// f(h, i, row, col) for each pair of accumulator registers d[h][i], d[h][i + 1] of a BM x BN
// wgmma fold that exchange pass p moves: the tile row and column of their first element. The
// pass of a pair is known at compile time from its band and half; a 16-row pass is one pair of
// warps' (fold_result.hpp), and the others skip it.
template <int BM, int BN, class Plan, int p, class F>
__device__ void for_each_accumulator_pair(F f) {
  const int thread = backend::thread_index_here();
  constexpr int pair = Plan::writer_pair(p);
  if constexpr (Plan::rows == 16)
    if (thread / 64 != pair) return;
  CT_UNROLL
  for (int h = 0; h < BM / 64; ++h)
    CT_UNROLL
    for (int i = 0; i < BN / 2; i += 2)
      if (Plan::pass(64 * h + 8 * ((i / 2) % 2)) + pair == p)  // warp 0's pass, plus this pair's offset
        f(h, i, 64 * h + backend::sm90::wgmma_acc_row(thread, i), backend::sm90::wgmma_acc_col(thread, i));
}

// The finished wgmma accumulator d plus init, as a Result tile, through `buf` (fold_result).
template <class Result, class Plan, int BM, int BN, class Acc>
__device__ __forceinline__ Result result_from(const backend::sm90::wgmma_accumulator<BM, BN>& d, const Acc& init,
                                              float* buf) {
  return fold_result<Result, BM, Plan>(
      [&](auto pass) {
        for_each_accumulator_pair<BM, BN, Plan, decltype(pass)::value>([&](int h, int i, int row, int col) {
          put_pair<Plan>(buf, row, col, d.d[h][i], d.d[h][i + 1]);
        });
      },
      init, buf);
}

// The ring a producer warpgroup fills runs on across the tiles of a persistent CTA: trip k of
// the CTA's n-th tile is its trip j = n * trips + k, in stage j % S. Stage j % S is refilled
// for trip j once trip j - S is released. Trip j's full barrier completes for the (j / S)-th
// time; the release of trip m is the (m + 1) / S-th completion of empty[m % S], counting from
// trip -1: the tile blocks hold the stage of each tile's last trip past the loop, to move the
// result out through it, and release it only then (the first tile releases stage S - 1, as if
// trip -1 had held it).
__device__ inline unsigned full_parity(unsigned j, unsigned S) { return (j / S) & 1u; }
__device__ inline unsigned empty_parity_before(unsigned j, unsigned S) { return ((j + 1) / S - 1) & 1u; }

// The geometry of a wgmma fold of `Blocks` tile blocks over stages SpecA and SpecB into Acc.
template <int Blocks, class Acc, class SpecA, class SpecB>
struct fold_geometry {
  static constexpr int blocks = Blocks;
  using T = typename stage_traits<SpecA>::element_type;
  using SA = typename stage_traits<SpecA>::shape_type;
  using SB = typename stage_traits<SpecB>::shape_type;
  using ring = backend::sm90::ring<SA, SB, Blocks>;
  static constexpr int BM = backend::sm90::rows_of<typename Acc::shape_type>();
  static constexpr int BN = backend::sm90::cols_of<typename Acc::shape_type>();
  static constexpr int S = ring::stages;
  using accumulator = backend::sm90::wgmma_accumulator<BM, BN>;
};

// The producer warpgroup's loop (its thread 0): for each tile the CTA runs (persistent_cta),
// trip k of each of its tile blocks into the ring by TMA, once the trip S before is released.
// In a cluster of two CTAs running neighbouring tiles along the cluster axis, whose A tiles are
// the same (A's map ignores that axis): CTA r loads tile block r's A tile into both CTAs'
// stages (multicast), so each A tile leaves L2 once for the pair; a stage is then refilled only
// once both CTAs' tile blocks have released it (their warps arrive on both CTAs' barriers).
template <class G, class SpecA, class SpecB, int R>
__device__ void produce_stages(index_t trips, const SpecA& spec_a, const SpecB& spec_b, const CUtensorMap* map_a,
                               const CUtensorMap* map_b, unsigned char* smem) {
  namespace sm90 = backend::sm90;
  using SA = typename G::SA;
  using SB = typename G::SB;
  using ring = typename G::ring;
  constexpr int Blocks = G::blocks, S = G::S;
  constexpr std::uint32_t bytes = Blocks * sm90::tma_tile_bytes<SA> + sm90::tma_tile_bytes<SB>;
  sm90::ring_barriers& bars = sm90::fold_barriers(0);
  const backend::cuda::cta_context& c = backend::cuda::context();
  const int axis = c.axis;
  const bool paired = c.cluster == 2;
  const bool multicast = paired && ((map_ignored_axes<typename SpecA::map_type, R>() >> c.cluster_axis) & 1u) != 0;
  const unsigned rank = paired ? sm90::cluster_rank() : 0u;
  const unsigned total = backend::cuda::persistent_ctas();
  unsigned j = 0;
  for (unsigned v = blockIdx.x; v < total; v += gridDim.x) {
    int cta[3];
    backend::cuda::persistent_cta(v, cta);
    // Tile block b's tile. B's map ignores the co-scheduled axis (else the blocks would not
    // share its stage), so block 0's tile serves for it.
    coord<R> tiles[Blocks];
    CT_UNROLL
    for (int b = 0; b < Blocks; ++b)
      for (int i = 0; i < R; ++i) tiles[b][i] = i == axis ? index_t(cta[i]) * Blocks + b : cta[i];
    for (index_t k = 0; k < trips; ++k, ++j) {
      const std::uint32_t s = j % unsigned(S);
      // At CTA scope even for the peer's releases: what they release is read by wgmma before
      // the arrival, and overwritten by TMA after this wait, which no L1 holds. (Acquiring at
      // cluster scope invalidates the SM's L1 at every wait, CCTL.IVALL, where the tile blocks
      // keep their spilled registers.)
      if (j >= unsigned(S) - 1) sm90::mbarrier_wait(&bars.empty[s], empty_parity_before(j, S));
      unsigned char* stage = smem + s * ring::stage_bytes;
      sm90::mbarrier_arrive_expect_tx(&bars.full[s], bytes);  // the peer's A tile lands on it too
      CT_UNROLL
      for (int b = 0; b < Blocks; ++b) {
        if (!multicast)
          sm90::tma_stage_tile<SA>(stage + b * ring::bytes_a, map_a, stage_origin(spec_a, tiles[b], k), &bars.full[s]);
        else if (unsigned(b) % 2u == rank)
          sm90::tma_stage_tile<SA>(stage + b * ring::bytes_a, map_a, stage_origin(spec_a, tiles[b], k), &bars.full[s],
                                   0b11);
      }
      sm90::tma_stage_tile<SB>(stage + ring::b_offset, map_b, stage_origin(spec_b, tiles[0], k), &bars.full[s]);
    }
  }
  // In a cluster, the peer's tile blocks arrive on this CTA's barriers until they release the
  // last trips: this thread waits for the releases of the last S trips (of trips -1 .. j - 1
  // when there are fewer; m = trip + 1), so that the CTA, whose own tile blocks may be done
  // sooner, does not exit under the peer's arrivals. (Each stage's last release only: an older
  // phase's parity would name the phase after it.)
  if (paired)
    for (unsigned m = j < unsigned(S) ? 0u : j - unsigned(S) + 1; m <= j; ++m)
      sm90::mbarrier_wait(&bars.empty[(m + S - 1) % S], empty_parity_before(m + S - 1, S));
}

// A tile block's part of a fold whose stages a producer warpgroup fills (Blocks tile blocks
// sharing the B stage): the ring carries on from the CTA's previous tile (the trip numbers
// above). The result leaves through the stage of the tile's last trip, in passes of 32 rows
// over the tile block's own A tile there, so that the tile blocks need not wait for each other
// (the shared B tile stays untouched), or, where a pass of 256 columns would not fit there, in
// 16-row passes over the tile block's half of the B tile, once both are done with it; the
// stage is released only then.
template <int Blocks, class Result, class Acc, class Body, class SpecA, class SpecB>
__device__ __forceinline__ Result run_fed_fold(index_t trips, const Acc& init, Body& body, unsigned char* smem) {
  namespace sm90 = backend::sm90;
  using G = fold_geometry<Blocks, Acc, SpecA, SpecB>;
  constexpr int S = G::S;
  // The result leaves in passes of 32 rows over the tile block's A tile there (rows of 128
  // floats), or of 16 rows over its share of the B tile (rows of 256: fold_result.hpp), which
  // the tile blocks read until every one of them is done with the stage.
  constexpr bool over_a = 32u * G::BN * 4 <= G::ring::bytes_a;
  using plan = exchange_plan<G::BN, over_a ? 32 : 16>;
  static_assert(over_a || 16u * G::BN * 4 * Blocks <= G::ring::bytes_b,
                "wgmma fold: an exchange pass must fit the tile block's A tile or its share of the B tile");
  const int slot = backend::cuda::slot(), thread = int(threadIdx.x);
  sm90::ring_barriers& bars = sm90::fold_barriers(0);
  unsigned& done = backend::cuda::context().ring_trips[slot];
  const unsigned base = done == ~0u ? 0u : done;
  // A warp releases a stage to its own CTA's producer and, in a cluster, to the peer's, which
  // may multicast into it (produce_stages). Wgmma's reads need no ordering at cluster scope
  // (relaxed), the exchange's writes do (`wrote`). The cluster size is read where it is used,
  // rather than kept in a register across the main loop.
  const auto release = [&](unsigned stage, bool wrote) {
    if (thread % 32 != 0) return;
    sm90::mbarrier_arrive(&bars.empty[stage]);
    if (backend::cuda::context().cluster == 2)
      sm90::mbarrier_arrive_peer(&bars.empty[stage], sm90::cluster_rank() ^ 1u, wrote);
  };
  if (done == ~0u) {
    // The ring's barriers were set by the entry (init_fed_ring). The producer loads the same
    // trip count for every tile: a tile block that disagreed would read other tiles' stages.
    sm90::mbarrier_wait(&bars.ready, 0);
    // The first tile holds no stage: release the one of trip -1.
    release(S - 1, false);
  }
  const unsigned n = unsigned(trips);  // 32 bits: one register across the main loop
  if (n != backend::cuda::context().tile_trips || index_t(n) != trips) __trap();

  in_flight<typename G::accumulator> acc{typename G::accumulator{}};
  const std::uint32_t smem_addr = sm90::smem_address(smem);
  for (unsigned k = 0; k < n; ++k) {
    const unsigned j = base + k;
    const std::uint32_t stage = smem_addr + (j % S) * G::ring::stage_bytes;
    sm90::mbarrier_wait(&bars.full[j % S], full_parity(j, S));
    sm90::wgmma_fence();
    using tile_a = sm90::smem_tile<typename G::T, typename G::SA>;
    using tile_b = sm90::smem_tile<typename G::T, typename G::SB>;
    acc = body(acc, staged<tile_a>(tile_a{stage + slot * G::ring::bytes_a}), staged<tile_b>(tile_b{stage + G::ring::b_offset}));
    sm90::wgmma_commit();
    sm90::wgmma_wait<1>();  // trip j-1's batch is done in this warp
    if (k > 0) release((j - 1) % S, false);
  }
  sm90::wgmma_wait<0>();
  // The last trip's stage is held: the result leaves through this tile block's A tile there
  // (result_from's first barrier waits for every warp's wgmmas on it), and only then is the
  // stage released.
  const unsigned last = (base + n + S - 1) % S;
  unsigned char* const held = smem + last * G::ring::stage_bytes;
  if constexpr (!over_a)  // every tile block's wgmmas on the B tile are done
    asm volatile("bar.sync 4, %0;\n" ::"n"(Blocks * config::gpu_block_threads) : "memory");
  float* const buf = reinterpret_cast<float*>(over_a ? held + slot * G::ring::bytes_a
                                                     : held + G::ring::b_offset + slot * (G::ring::bytes_b / Blocks));
  const Result r = result_from<Result, plan>(acc.get(pipeline_key{}), init, buf);
  if (thread == 0) done = base + n;  // every thread has read it (result_from's barriers)
  sm90::fence_proxy_async_shared();                // the exchange's accesses before TMA's refill
  __syncwarp();
  release(last, true);
  return r;
}

// ct::pipelined on sm_90a (backend/sm90/wgmma_fold.hpp says how the ring runs), by `Blocks`
// co-scheduled tile blocks sharing the B stage (Blocks = 1: this tile block alone) in the ring
// at `smem`. Every tile block of the CTA runs it with the same trip count.
template <int Blocks, class Result, class Acc, class Body, class SpecA, class SpecB, int R>
__device__ __forceinline__ Result run_wgmma_fold(const coord<R>& t, index_t trips, const SpecA& spec_a,
                                                 const SpecB& spec_b, const Acc& init, Body& body,
                                                 unsigned char* smem) {
  namespace sm90 = backend::sm90;
  using G = fold_geometry<Blocks, Acc, SpecA, SpecB>;
  using T = typename G::T;
  using SA = typename G::SA;
  using SB = typename G::SB;
  using ring = typename G::ring;
  constexpr int BM = G::BM, BN = G::BN, S = G::S, threads = config::gpu_block_threads;
  using accumulator = typename G::accumulator;
  using staged_a = staged<sm90::smem_tile<T, SA>>;
  using staged_b = staged<sm90::smem_tile<T, SB>>;
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(body(std::declval<in_flight<accumulator>>(),
                                                                 std::declval<staged_a>(), std::declval<staged_b>()))>,
                               in_flight<accumulator>>,
                "ct::pipelined: the body must return ct::mma(a, b, acc) of its staged operands and accumulator");
  const CUtensorMap* map_a = sm90::find_tma(spec_a.view.data, spec_a.view.g);
  const CUtensorMap* map_b = sm90::find_tma(spec_b.view.data, spec_b.view.g);
  const bool tma = map_a && map_b;
  // With a producer warpgroup in the CTA (ct::co_schedule), it fills the stages of all of the
  // CTA's tiles by TMA and leaves; without TMA it leaves at once, and the tile blocks stage by
  // threads.
  const bool producer = Blocks > 1 && int(blockDim.y) > Blocks;
  if (producer) {
    if (backend::cuda::slot() == Blocks) {
      if (tma && threadIdx.x == 0) {
        backend::cuda::context().tile_trips = unsigned(trips);
        sm90::mbarrier_arrive(&sm90::fold_barriers(0).ready);  // released to the tile blocks' first wait
        produce_stages<G, SpecA, SpecB, R>(trips, spec_a, spec_b, map_a, map_b, smem);
      }
      backend::cuda::leave();
    }
    // One fold a tile: the producer serves the first fold's stages only.
    if (threadIdx.x == 0 && backend::cuda::context().tile_folds[backend::cuda::slot()]++ != 0) __trap();
    if (tma) return run_fed_fold<Blocks, Result, Acc, Body, SpecA, SpecB>(trips, init, body, smem);
  }
  // With a shared stage every barrier spans the tile blocks of the CTA (not its producer);
  // alone, the tile block's own.
  const auto barrier = [producer] {
    if constexpr (Blocks > 1) {
      if (producer) asm volatile("bar.sync 4, %0;\n" ::"n"(Blocks * config::gpu_block_threads) : "memory");
      else __syncthreads();
    } else {
      backend::sync_block();
    }
  };
  const int slot = Blocks > 1 ? backend::cuda::slot() : 0;
  const int thread = int(threadIdx.x);
  const std::uint32_t smem_addr = sm90::smem_address(smem);
  // Trip k's wgmmas on stage k % S, committed as one batch.
  const auto consume = [&](in_flight<accumulator>& acc, index_t k) {
    const std::uint32_t stage = smem_addr + std::uint32_t(k % S) * ring::stage_bytes;
    sm90::wgmma_fence();
    acc = body(acc, staged_a(sm90::smem_tile<T, SA>{stage + slot * ring::bytes_a}),
               staged_b(sm90::smem_tile<T, SB>{stage + ring::b_offset}));
    sm90::wgmma_commit();
  };

  // The accumulator starts from zero; the result leaves through this tile block's region of
  // the ring once the loop is done, with init added there (result_from).
  constexpr std::uint32_t exchange_bytes = std::uint32_t(BM) * BN * 4;
  static_assert(Blocks * exchange_bytes <= std::uint32_t(S) * ring::stage_bytes, "wgmma fold: accumulator exchange too big");
  float* buf = reinterpret_cast<float*>(smem + slot * exchange_bytes);
  in_flight<accumulator> acc{accumulator{}};

  if (tma) {
    // TMA: thread 0 of each tile block loads its A tile (and block 0 the B tile) into a stage
    // and announces the bytes on full[s]; every warp, once its wgmmas of a trip are done,
    // arrives on that stage's empty barrier, which the loaders wait on before refilling it. The
    // refill of trip k + S - 2 is issued in trip k, after the stage of trip k - 2 is empty: one
    // trip of slack, so the loaders rarely wait, and S - 2 trips of loads ahead of the wgmmas.
    // (Testing the barrier instead and refilling whatever is free, up to trip k + S - 1, was
    // measured slower: 0.64 against 0.76 of cuBLAS over the sweep.)
    //
    // Two CTAs of a cluster (ct::co_schedule's cluster) whose A tiles are the same (the A map
    // ignores the cluster axis) load each A tile once: CTA r loads tile block r's and multicasts
    // it into both. A stage is then refilled only once the warps of both CTAs are done with it:
    // each warp arrives on its own CTA's empty barrier and on the peer's. Should the two
    // disagree on the trip count, each loads its own tiles (and its warps arrive twice on their
    // own barrier). It halves the A traffic from L2 but was measured slower (0.63 against 0.76
    // of cuBLAS over the sweep): each loader is a consumer thread, and waiting for the slower
    // of two CTAs holds back its warpgroup's wgmmas. A producer warp should let it pay.
    constexpr unsigned a_ignores = map_ignored_axes<typename SpecA::map_type, R>();
    unsigned peers = 1;  // CTAs whose warps free a stage
    if constexpr (Blocks > 1)
      if (((a_ignores >> backend::cuda::context().cluster_axis) & 1u) != 0) peers = sm90::cluster_size();
    sm90::ring_barriers& bars = sm90::fold_barriers(Blocks > 1 ? 0 : backend::cuda::slot());
    if (thread == 0 && slot == 0) {
      for (int s = 0; s < S; ++s) {
        sm90::mbarrier_init(&bars.full[s], Blocks);
        sm90::mbarrier_init(&bars.empty[s], peers * Blocks * threads / 32);
      }
      bars.trips = unsigned(trips);
      sm90::fence_barrier_init();
    }
    sm90::fence_proxy_async_shared();  // a previous fold's exchange in the ring before TMA's writes to it
    const unsigned rank = peers > 1 ? sm90::cluster_rank() : 0;
    bool multicast = false;
    if (peers > 1) {
      sm90::cluster_sync();  // both CTAs' barriers are set and rings idle before either loads
      multicast = sm90::peer_shared_u32(&bars.trips, rank ^ 1u) == unsigned(trips);
    } else {
      barrier();
    }
    const auto load = [&](index_t k) {
      const std::uint32_t s = std::uint32_t(k % S);
      unsigned char* stage = smem + s * ring::stage_bytes;
      constexpr std::uint32_t a_bytes = sm90::tma_tile_bytes<SA>, b_bytes = sm90::tma_tile_bytes<SB>;
      sm90::mbarrier_arrive_expect_tx(&bars.full[s], slot == 0 ? a_bytes + b_bytes : a_bytes);
      if (!multicast)
        sm90::tma_stage_tile<SA>(stage + slot * ring::bytes_a, map_a, stage_origin(spec_a, t, k), &bars.full[s]);
      else if (unsigned(slot) == rank)
        sm90::tma_stage_tile<SA>(stage + slot * ring::bytes_a, map_a, stage_origin(spec_a, t, k), &bars.full[s], 0b11);
      if (slot == 0) sm90::tma_stage_tile<SB>(stage + ring::b_offset, map_b, stage_origin(spec_b, t, k), &bars.full[s]);
    };
    if (thread == 0)
      for (index_t k = 0; k < S - 1 && k < trips; ++k) load(k);
    for (index_t k = 0; k < trips; ++k) {
      sm90::mbarrier_wait(&bars.full[k % S], unsigned(k / S) & 1u);
      consume(acc, k);
      sm90::wgmma_wait<1>();  // trip k-1's batch is done in this warp
      if (k > 0 && thread % 32 == 0) {
        std::uint64_t* empty = &bars.empty[(k - 1) % S];
        sm90::mbarrier_arrive(empty);
        if (peers > 1) {
          if (multicast) sm90::mbarrier_arrive_peer(empty, rank ^ 1u);
          else sm90::mbarrier_arrive(empty);
        }
      }
      const index_t next = k + S - 2;
      if (thread == 0 && k > 0 && next < trips) {
        if (next >= S) {  // the stage held trip next - S: wait until every warp is done with it
          std::uint64_t* empty = &bars.empty[next % S];
          const unsigned parity = unsigned(next / S - 1) & 1u;
          // A peer's arrivals are releases at cluster scope: acquire at that scope.
          if (peers > 1) sm90::mbarrier_wait_cluster(empty, parity);
          else sm90::mbarrier_wait(empty, parity);
        }
        load(next);
      }
    }
    sm90::wgmma_wait<0>();
    // Neither CTA of a cluster leaves (or reuses its ring) while the other may still arrive on
    // its barriers.
    if (peers > 1) sm90::cluster_sync();
    else barrier();
    if (thread == 0 && slot == 0)
      for (int s = 0; s < S; ++s) sm90::mbarrier_inval(&bars.full[s]), sm90::mbarrier_inval(&bars.empty[s]);
  } else {
    // Threads: every thread copies its share of each stage by cp.async (or element by element);
    // a barrier after the copies land, and another once every warp's wgmmas of the previous
    // trip are done, before that stage is refilled. The copies read their thread index anew
    // (thread_index_here): offsets made from it before the TMA test were kept, and spilled, by
    // ptxas in the producer kernels.
    const auto issue = [&](index_t k) {
      if (k < trips) {
        unsigned char* stage = smem + std::uint32_t(k % S) * ring::stage_bytes;
        const coord<R> oa = stage_origin(spec_a, t, k), ob = stage_origin(spec_b, t, k);
        sm90::stage_tile<T, SA, threads>(stage + slot * ring::bytes_a, spec_a.view.data, spec_a.view.g, oa,
                                         sm90::copies_by_chunks(spec_a.view.data, spec_a.view.g, oa),
                                         backend::thread_index_here());
        sm90::stage_tile<T, SB, threads * Blocks>(stage + ring::b_offset, spec_b.view.data, spec_b.view.g, ob,
                                                  sm90::copies_by_chunks(spec_b.view.data, spec_b.view.g, ob),
                                                  backend::thread_index_here() + slot * threads);
      }
      backend::sm80::cp_async_commit();  // an empty group past the end keeps the wait counts uniform
    };
    barrier();  // every tile block has its start before the prologue's copies overwrite the ring
    for (int k = 0; k < S - 1; ++k) issue(k);
    for (index_t k = 0; k < trips; ++k) {
      backend::sm80::cp_async_wait<S - 2>();  // this thread's copies of trip k have landed
      sm90::fence_proxy_async_shared();        // ... and are visible to wgmma's (async proxy) reads
      barrier();                               // ... and so are every other thread's
      consume(acc, k);
      sm90::wgmma_wait<1>();  // trip k-1's batch is done in this warp ...
      barrier();              // ... and in every warp: its stage may be refilled
      issue(k + S - 1);
    }
    sm90::wgmma_wait<0>();
    backend::sm80::cp_async_wait<0>();
    barrier();
  }

  const Result r = result_from<Result, exchange_plan<BN, 0>>(acc.get(pipeline_key{}), init, buf);
  barrier();  // the ring may be refilled by a later fold
  return r;
}

// Runs the wgmma fold this launch can run; false when its shared memory is missing. Inlined,
// as what it calls is: a call between the wgmmas and their wait serializes every wgmma (C7510),
// and ptxas declined to inline it for 64 x 256 tile blocks.
template <class Result, class Acc, class Body, class SpecA, class SpecB, int R>
__device__ __forceinline__ bool try_wgmma_fold(const coord<R>& t, index_t trips, const SpecA& spec_a,
                                               const SpecB& spec_b, const Acc& init, Body& body, Result& result) {
  namespace sm90 = backend::sm90;
  using SA = typename stage_traits<SpecA>::shape_type;
  using SB = typename stage_traits<SpecB>::shape_type;
  constexpr std::uint32_t alone = sm90::ring<SA, SB, 1>::stages * sm90::ring<SA, SB, 1>::stage_bytes;
  constexpr std::uint32_t paired = sm90::ring<SA, SB, 2>::stages * sm90::ring<SA, SB, 2>::stage_bytes;
  constexpr unsigned b_ignores = map_ignored_axes<typename SpecB::map_type, R>();
  if (!backend::cuda::co_scheduled()) {
    unsigned char* smem = sm90::declared_smem(alone);
    if (!smem) return false;
    result = run_wgmma_fold<1, Result>(t, trips, spec_a, spec_b, init, body, smem);
    return true;
  }
  // Two tile blocks in the CTA: they share B when its map ignores their axis, else each runs
  // alone in its half of the ring (a CTA-uniform choice). With a producer warpgroup they must
  // share it (ct::co_schedule): its kernels carry no code for tile blocks alone, whose
  // register needs at the launch's count would make ptxas serialize every wgmma (C7512).
  const bool shared_b = ((b_ignores >> backend::cuda::context().axis) & 1u) != 0;
  if (blockDim.y == 3 && !shared_b) {
    __trap();
    __builtin_unreachable();
  }
  if (blockDim.y == 3 || (blockDim.y == 2 && shared_b)) {
    unsigned char* smem = sm90::declared_smem(paired);
    if (!smem) return false;
    result = run_wgmma_fold<2, Result>(t, trips, spec_a, spec_b, init, body, smem);
    return true;
  }
  if (backend::cuda::is_producer()) backend::cuda::leave();  // each tile block loads its own stages
  unsigned char* smem = sm90::declared_smem(alone * backend::cuda::tile_blocks());
  if (!smem) return false;
  result = run_wgmma_fold<1, Result>(t, trips, spec_a, spec_b, init, body, smem + backend::cuda::slot() * alone);
  return true;
}
#endif  // CTILE_HAS_WGMMA

template <class Acc, class Body, class... Specs, int R, std::size_t... I>
CT_HD auto run_pipelined(const coord<R>& t, index_t trips, const stage_list<Specs...>& st, const Acc& init, Body& body,
                         std::index_sequence<I...>) {
  using result = decltype(body(std::declval<in_flight<Acc>>(),
                               load_stage<typename Specs::map_type>(st.specs.template get<I>().view, t, 0)...));
  static_assert(std::is_same_v<std::remove_cvref_t<result>, in_flight<Acc>>,
                "ct::pipelined: the body must return the new accumulator, ct::mma(a, b, acc), with the "
                "accumulator's type and shape");
  using Result = fold_result_t<Acc, typename stage_traits<std::tuple_element_t<0, std::tuple<Specs...>>>::element_type>;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (sizeof...(Specs) == 2) {
    const auto& spec_a = st.specs.template get<0>();
    const auto& spec_b = st.specs.template get<1>();
    using SpecA = std::remove_cvref_t<decltype(spec_a)>;
    using SpecB = std::remove_cvref_t<decltype(spec_b)>;
    constexpr bool wgmma = wgmma_fold_applies<Acc, SpecA, SpecB>();
    if constexpr (wgmma || mma_sync_fold_applies<Acc, SpecA, SpecB>()) {
      Result r;
      bool ran = false;
#if CTILE_HAS_WGMMA
      if constexpr (wgmma) ran = try_wgmma_fold(t, trips, spec_a, spec_b, init, body, r);
#endif
      if constexpr (!wgmma) ran = try_mma_sync_fold(t, trips, spec_a, spec_b, init, body, r);
      if (ran) return r;
      // No plain-loop fallback here: a 128-row tile of register products costs minutes of
      // compile time (30 s more per kernel beside the mma.sync fold, which it made spill 11 KB)
      // and would never be fast. The launch fails instead, by a trap: the kernel lacks
      //   static constexpr std::size_t shared_bytes = ct::pipeline_shared_bytes;
      // (docs/backend.md). Not by __assert_fail with that message: any call in a kernel makes
      // ptxas serialize all of its wgmmas (C7510), which costs a third of the GEMM's speed.
      // Unreachable past it, so that the code after the fold is reached only from the fold:
      // ptxas then keeps it at the tile blocks' registers when a producer warpgroup gave
      // them its own (else at the launch's count, where the epilogue spills).
      __trap();
      __builtin_unreachable();
    }
  }
#endif
  in_flight<Acc> acc(init);
  for (index_t k = 0; k < trips; ++k)
    acc = body(acc, load_stage<typename Specs::map_type>(st.specs.template get<I>().view, t, k)...);
  return backend::relayout<typename Result::layout_type>(acc.get(pipeline_key{}));
}

}  // namespace detail

// acc = init; for k in [0, trips): acc = body(acc, staged operands of trip k); the final acc, a
// tile with init's element type and shape.
template <int R, class... Specs, class Acc, class Body>
CT_HD auto pipelined(const coord<R>& tile_index, index_t trips, const stage_list<Specs...>& st, const Acc& init,
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

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
namespace detail {
// One trip's products of a tensor-core fold, by its accumulator's kind.
template <class T, class SA, class SB, int BM, int BN>
__device__ void fold_trip(backend::sm80::mma_sync_accumulator<BM, BN>& d, const backend::sm80::smem_tile<T, SA>& a,
                          const backend::sm80::smem_tile<T, SB>& b) {
  backend::sm80::mma_sync_trip(d, a, b, backend::thread_index_here());
}
#if CTILE_HAS_WGMMA
template <class T, class SA, class SB, int BM, int BN>
__device__ void fold_trip(backend::sm90::wgmma_accumulator<BM, BN>& d, const backend::sm80::smem_tile<T, SA>& a,
                          const backend::sm80::smem_tile<T, SB>& b) {
  backend::sm90::wgmma_trip(d, a, b);
}
#endif
}  // namespace detail

// ct::mma on operands staged in shared memory by a tensor-core fold: one trip's products into
// the in-flight accumulator (wgmma's issued asynchronously: the fold commits and waits).
template <class T, class SA, class SB, class Acc>
__device__ in_flight<Acc> mma(const staged<backend::sm80::smem_tile<T, SA>>& a,
                              const staged<backend::sm80::smem_tile<T, SB>>& b, const in_flight<Acc>& acc) {
  static_assert(backend::sm80::cols_of<SA>() == backend::sm80::rows_of<SB>(),
                "ct::mma: inner dimensions differ: a is [.., M, K] and b must be [.., K, N] with the same K");
  static_assert(backend::sm80::rows_of<SA>() == Acc::rows && backend::sm80::cols_of<SB>() == Acc::cols,
                "ct::mma: acc must be [.., M, N] for a [.., M, K] and b [.., K, N]");
  auto d = acc.get(detail::pipeline_key{});
  detail::fold_trip(d, a.get(detail::pipeline_key{}), b.get(detail::pipeline_key{}));
  return in_flight<Acc>(d);
}
#endif

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
