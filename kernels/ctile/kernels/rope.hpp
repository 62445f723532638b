// Rotary position embedding (RoPE), rotate-half convention, on x [batch, seq, heads, head_dim]:
//   x1 = x[..., :D/2], x2 = x[..., D/2:]
//   y[..., :D/2] = x1 * cos - x2 * sin,   y[..., D/2:] = x2 * cos + x1 * sin
// with cos and sin [seq, D/2] in f32, shared by every batch and head. Math in f32, stored as T.
// A block takes SB positions x HB heads, so it reads SB rows of cos and sin, each thread the
// columns of its own x elements (laid out as x1, ct::layout_of: a row loaded in its natural f32
// layout, 4-element chunks against x's 8, reached x's layout through shared memory, with two
// barriers a row).
#pragma once
#include <limits>

#include "ctile/kernels/detail.hpp"

namespace ct::kernels {
namespace detail {

// Which of rope_for_dim's launches a rope_map serves: all heads, or those past a multiple of a
// tile's (named apart, so that which launch ran is visible in a profile and to the tests).
enum class rope_heads { all, leftover };

template <class T, int SB, int HB, int D, rope_heads Heads = rope_heads::all>
struct rope_map {
  static constexpr const char* name = Heads == rope_heads::leftover ? "ct_kernels_rope_leftover_heads" : "ct_kernels_rope";
  // y and x viewed as [batch * seq, heads, D], cos and sin as [seq, 1, D / 2].
  CT_TILE void operator()(ct::out<T, ct::shape<SB, HB, D>> y, ct::in<T, 3> x, ct::in<float, 3> cos,
                          ct::in<float, 3> sin, index_t seq) const {
    const auto [i, j, unused] = y.tile_index();  // (position tile of batch * seq, head tile, 0)
    (void)unused;
    const index_t pos = i * SB % seq;
    // The two halves load as tiles of their own (views of x), so no element changes thread, and
    // the results are stored as the two halves of this block's tile.
    // x's halves and the tables' rows are loaded before any of them is used (a wrapping tile's
    // second table load aside). Widened to f32 as they were loaded, x's halves were waited for
    // before the tables' loads went out, so every block paid both latencies one after the other
    // (the SASS of 2026-12-05's build; 0.52 of the copy ceiling).
    constexpr auto half = ct::shape<SB, HB, D / 2>{};
    const auto x1 = x.slice(2, 0, D / 2).tiled(half).load(i, j, 0);
    const auto x2 = x.slice(2, D / 2, D).tiled(half).load(i, j, 0);
    // SB rows of a table from row `first` on (a tiled view with a step of one row).
    const auto table = [&](const ct::in<float, 3>& t, index_t first) {
      const auto from_any_row = t.tiled(ct::shape<SB, 1, D / 2>{}, ct::pad::zero, ct::steps(1, 1, 1));
      return from_any_row.load(first, 0, 0, ct::layout_of(x1));
    };
    const auto c = table(cos, pos), s = table(sin, pos);
    const auto f1 = ct::astype<float>(x1), f2 = ct::astype<float>(x2);
    auto y1 = f1 * c - f2 * s, y2 = f2 * c + f1 * s;
    // A tile that runs into the next batch (one at most: SB <= seq, none where SB divides seq) takes
    // the rest of its rows from the tables' start: rows past a table's end loaded as zeros above,
    // and so do those before its start in a load from pos - seq, so the two add up.
    if (SB > 1 && pos + SB > seq) {
      const auto c2 = table(cos, pos - seq), s2 = table(sin, pos - seq);
      y1 = y1 + (f1 * c2 - f2 * s2), y2 = y2 + (f2 * c2 + f1 * s2);
    }
    const auto halves = y.subtiles(half);
    halves.store({0, 0, 0}, ct::astype<T>(y1));
    halves.store({0, 0, 1}, ct::astype<T>(y2));
  }
};

// Heads [h0, h1) of every position.
template <class T, int SB, int HB, int D, rope_heads Heads = rope_heads::all>
ct::pending rope_launch(const ct::stream& s, ct::tensor<T>& y, const ct::tensor<T>& x, const ct::tensor<float>& cos,
                        const ct::tensor<float>& sin, index_t h0, index_t h1) {
  const index_t b = x.extent(0), seq = x.extent(1), heads = x.extent(2);
  // rope_map handles a tile that runs into the next batch once: a tile taller than seq would
  // span three batches and compute rows with the wrong positions' tables.
  require(SB == 1 || seq >= SB, what("rope", "internal error: tiles of " + std::to_string(SB) +
                                                 " positions chosen for seq " + std::to_string(seq)));
  auto y3 = y.reshape({b * seq, heads, D}).slice(1, h0, h1);
  return ct::launch(s, rope_map<T, SB, HB, D, Heads>{}, y3.partition(ct::shape<SB, HB, D>{}),
                    x.reshape({b * seq, heads, D}).slice(1, h0, h1), cos.unsqueeze(1), sin.unsqueeze(1), seq);
}

// Elements a launch covers with tiles of sb positions x hb heads (the tensor padded up to them).
inline index_t padded_work(index_t seq, index_t heads, index_t sb, index_t hb) {
  return (seq + sb - 1) / sb * sb * ((heads + hb - 1) / hb * hb);
}

// Tiles of 4K elements (16-bit x: four 16-byte chunks a thread): all heads of one position
// where they fill the tile. Heads past a multiple of that (33 of 128) take a second launch, one
// head a tile, as many positions as the first's tiles have heads: at 3 x 4095 x 33 x 128 bf16
// on an H100 this ran 1756 GB/s against 1525-1543 for tiles of 8 positions x 4 heads over all
// of them (their cos and sin rows, 8 of each per 4 heads, cost L2 traffic), and 1565-1617 with
// the rest in 8 x 4 tiles (bench/results/2026-12-07-h100-d.md). Two positions a tile at
// 4 x 8192 x 64 x 128 lost (1446 against 2612). Fewer heads than a tile holds take 4 or 8
// positions of fewer heads, whichever pads least: tiles of one position fit 33 heads of 128 in
// 48 rows of 16-head tiles (0.39 of the copy ceiling there). A tile spans at most two batches
// (rope_map), so it is never taller than seq.
template <class T, int D>
ct::pending rope_for_dim(const ct::stream& s, ct::tensor<T>& y, const ct::tensor<T>& x, const ct::tensor<float>& cos,
                         const ct::tensor<float>& sin) {
  constexpr int heads_a_tile = 4096 / D;  // at one position
  const index_t seq = x.extent(1), heads = x.extent(2);
  if (heads > heads_a_tile && heads % heads_a_tile != 0 && seq >= heads_a_tile) {
    const index_t whole = heads / heads_a_tile * heads_a_tile;
    (void)rope_launch<T, 1, heads_a_tile, D>(s, y, x, cos, sin, 0, whole);
    return rope_launch<T, heads_a_tile, 1, D, rope_heads::leftover>(s, y, x, cos, sin, whole, heads);
  }
  constexpr index_t never = std::numeric_limits<index_t>::max();
  const index_t one = padded_work(seq, heads, 1, heads_a_tile),
                four = seq >= 4 ? padded_work(seq, heads, 4, heads_a_tile / 4) : never,
                eight = seq >= 8 ? padded_work(seq, heads, 8, heads_a_tile / 8) : never;
  if (one <= four && one <= eight) return rope_launch<T, 1, heads_a_tile, D>(s, y, x, cos, sin, 0, heads);
  if (four <= eight) return rope_launch<T, 4, heads_a_tile / 4, D>(s, y, x, cos, sin, 0, heads);
  return rope_launch<T, 8, heads_a_tile / 8, D>(s, y, x, cos, sin, 0, heads);
}

}  // namespace detail

// y = rope(x) with the tables cos and sin [seq, head_dim / 2]; head_dim is 64, 128 or 256.
template <class T>
ct::pending rope(const ct::stream& s, ct::tensor<T>& y, const ct::tensor<T>& x, const ct::tensor<float>& cos,
                 const ct::tensor<float>& sin) {
  detail::require_rank("rope", "x", x, 4);
  detail::require_same_extents("rope", "x", x, "y", y);
  detail::require(x.contiguous() && y.contiguous(), detail::what("rope", "x and y must be contiguous"));
  const index_t seq = x.extent(1), d = x.extent(3);
  for (const auto* t : {&cos, &sin}) {
    const char* name = t == &cos ? "cos" : "sin";
    detail::require_rank("rope", name, *t, 2);
    detail::require_extent("rope", name, *t, 0, seq);
    detail::require_extent("rope", name, *t, 1, d / 2);
  }
  if (d == 64) return detail::rope_for_dim<T, 64>(s, y, x, cos, sin);
  if (d == 128) return detail::rope_for_dim<T, 128>(s, y, x, cos, sin);
  if (d == 256) return detail::rope_for_dim<T, 256>(s, y, x, cos, sin);
  detail::fail(detail::what("rope", "head_dim " + std::to_string(d) + " is not one of 64, 128, 256"));
}

}  // namespace ct::kernels
