// Rotary position embedding (RoPE), rotate-half convention, on x [batch, seq, heads, head_dim]:
//   x1 = x[..., :D/2], x2 = x[..., D/2:]
//   y[..., :D/2] = x1 * cos - x2 * sin,   y[..., D/2:] = x2 * cos + x1 * sin
// with cos and sin [seq, D/2] in f32, shared by every batch and head. Math in f32, stored as T.
// A block takes a group of heads at one (batch, position), so it reads one row of cos and sin,
// each thread the columns of its own x elements (laid out as x1, ct::layout_of): a row loaded
// in its natural f32 layout (4-element chunks against x's 8) reached x's layout through shared
// memory, with two barriers a row.
#pragma once
#include "ctile/kernels/detail.hpp"

namespace ct::kernels {
namespace detail {

template <class T, int HB, int D>
struct rope_map {
  static constexpr const char* name = "ct_kernels_rope";
  // y and x viewed as [batch * seq, heads, D], cos and sin as [seq, 1, D / 2].
  CT_TILE void operator()(ct::out<T, ct::shape<1, HB, D>> y, ct::in<T, 3> x, ct::in<float, 3> cos,
                          ct::in<float, 3> sin, index_t seq) const {
    const auto [i, j, unused] = y.tile_index();  // (batch * seq + position, head tile, 0)
    (void)unused;
    const index_t pos = i % seq;
    // The two halves load as tiles of their own (views of x), so no element changes thread, and
    // the results are stored as the two halves of this block's tile.
    // All four loads are issued before any of them is used: widened to f32 as they were loaded,
    // x's halves were waited for before the tables' loads went out, so every block paid both
    // latencies one after the other (the SASS of 2026-12-05's build; 0.52 of the copy ceiling).
    constexpr auto half = ct::shape<1, HB, D / 2>{};
    const auto x1 = x.slice(2, 0, D / 2).tiled(half).load(i, j, 0);
    const auto x2 = x.slice(2, D / 2, D).tiled(half).load(i, j, 0);
    constexpr auto row = ct::shape<1, 1, D / 2>{};
    const auto c = ct::load(cos, {pos, 0, 0}, row, ct::pad::zero, ct::layout_of(x1));
    const auto s = ct::load(sin, {pos, 0, 0}, row, ct::pad::zero, ct::layout_of(x1));
    const auto f1 = ct::astype<float>(x1), f2 = ct::astype<float>(x2);
    const auto halves = y.subtiles(half);
    halves.store({0, 0, 0}, ct::astype<T>(f1 * c - f2 * s));
    halves.store({0, 0, 1}, ct::astype<T>(f2 * c + f1 * s));
  }
};

template <class T, int HB, int D>
ct::pending rope_launch(const ct::stream& s, ct::tensor<T>& y, const ct::tensor<T>& x, const ct::tensor<float>& cos,
                        const ct::tensor<float>& sin) {
  const index_t b = x.extent(0), seq = x.extent(1), heads = x.extent(2);
  auto y3 = y.reshape({b * seq, heads, D});
  return ct::launch(s, rope_map<T, HB, D>{}, y3.partition(ct::shape<1, HB, D>{}), x.reshape({b * seq, heads, D}),
                    cos.unsqueeze(1), sin.unsqueeze(1), seq);
}

// Heads padded up to a whole number of head tiles of `per_tile` heads.
inline index_t padded_heads(index_t heads, index_t per_tile) { return (heads + per_tile - 1) / per_tile * per_tile; }

// Tiles of 4K elements (16-bit x: four 16-byte chunks a thread), or of 2K where those pad fewer heads:
// 33 heads of 128 fill 33 of 64 rows of 32-head tiles, 33 of 48 of 16-head ones. (Smaller
// tiles would leave threads without a chunk of each half.)
template <class T, int D>
ct::pending rope_for_dim(const ct::stream& s, ct::tensor<T>& y, const ct::tensor<T>& x, const ct::tensor<float>& cos,
                         const ct::tensor<float>& sin) {
  constexpr int big = 4096 / D, small = 2048 / D;
  const index_t heads = x.extent(2);
  if (padded_heads(heads, small) < padded_heads(heads, big)) return rope_launch<T, small, D>(s, y, x, cos, sin);
  return rope_launch<T, big, D>(s, y, x, cos, sin);
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
