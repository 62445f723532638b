// Tiles combined across the tile blocks of a group (a kernel's ct::block_group, core/schedule.hpp):
//   ct::sum_across_blocks(x), ct::max_across_blocks(x), ct::min_across_blocks(x)
// give every tile block of the group the elementwise sum / maximum / minimum of x over all of
// the group's members (maximum and minimum ignore NaN as ct::maximum does), folded in the order
// of the members' coordinates along the group's axis, so each member gets the same bits. x is a
// small tile (at most config::arena_bytes), typically a row statistic: a long row split over
// the group's blocks finds its max and its sum of exponentials this way, reading the row once.
// Every tile block of the group must make the same calls in the same order (they wait for each
// other, like a barrier); the tile block's arena is in use during a call. Sums of 16-bit tiles
// add in their own type: widen to f32 first for accuracy.
#pragma once
#include "ctile/backend/block_group.hpp"
#include "ctile/tile/reduce.hpp"

namespace ct {

template <class T, class S, class P>
CT_HD tile<T, S, P> sum_across_blocks(const tile<T, S, P>& x) {
  return backend::combine_across_group(x, detail::sum_op{});
}
template <class T, class S, class P>
CT_HD tile<T, S, P> max_across_blocks(const tile<T, S, P>& x) {
  return backend::combine_across_group(x, detail::max_op{});
}
template <class T, class S, class P>
CT_HD tile<T, S, P> min_across_blocks(const tile<T, S, P>& x) {
  return backend::combine_across_group(x, detail::min_op{});
}

}  // namespace ct
