// ct::unsafe::global<T, Rank>: a tensor every block may write anywhere in, for scatter and
// atomics. It gives up the guarantee that a block writes only its own tile, so it is spelled
// `unsafe` in the kernel signature and bound on the host with ct::unsafe::shared(tensor), both
// visible in review. Accesses through it are still bounds-checked unless ct::unchecked is said.
#pragma once
#include "ctile/tile/view.hpp"

namespace ct {

namespace unsafe {

template <class T, int R>
struct global {
  static_assert(is_element_v<T>, "ct::unsafe::global: element type is not a ctile element type");
  static_assert(R >= 1 && R <= 8, "ct::unsafe::global: tensor rank must be between 1 and 8");
  using element_type = T;
  static constexpr int rank = R;

  T* data;
  backend::global_view<R> g;

  CT_HD index_t extent(int axis) const { return g.extent[axis]; }
  // Reading through it is allowed too (another block may be writing: use atomics to order).
  CT_HD in<T, R> as_in() const { return in<T, R>{data, g}; }
};

}  // namespace unsafe

// Stores x as tile `index` (in units of x's shape) of the tensor: any tile, so only through a
// ct::unsafe::global (cuTile's ct.store / TiledView.store). Elements outside the tensor are dropped.
template <class T, int R, class S, class P>
CT_HD void store(const unsafe::global<T, R>& dst, const coord<R>& index, const tile<T, S, P>& x) {
  static_assert(S::rank == R, "ct::store: the tile's rank must equal the tensor's rank");
  coord<R> origin;
  for (int i = 0; i < R; ++i) origin[i] = index[i] * S::dim(i);
  backend::store_laid_out<T, S, R>(dst.data, dst.g, origin, x);
}
template <class T, int R, class U, class S, class P>
CT_HD void store(const unsafe::global<T, R>&, const coord<R>&, const tile<U, S, P>&) {
  static_assert(std::is_same_v<T, U>, "ct::store: the tile's element type differs from the tensor's; use ct::astype");
}

namespace detail {

// Element offset of coordinate `c` in a view, and whether it is inside.
template <int R>
CT_HD bool locate(const backend::global_view<R>& g, const index_t (&c)[R], index_t& offset) {
  bool inside = true;
  offset = 0;
  for (int i = 0; i < R; ++i) {
    inside = inside && c[i] >= 0 && c[i] < g.extent[i];
    offset += c[i] * g.stride[i];
  }
  return inside;
}

}  // namespace detail

}  // namespace ct
