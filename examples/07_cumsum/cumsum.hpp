// Example 7: cumulative sums along rows of any length. Pass 1 scans each BN-wide piece of a row
// and keeps the piece's total; pass 2 adds to every piece the sum of the totals before it in its
// row (an exclusive scan of the totals, itself a cumsum minus the piece's own total).
#pragma once
#include <ctile/ctile.hpp>

namespace examples {

template <class T, int BM, int BN>
struct scan_pieces {
  static constexpr const char* name = "cumsum_pieces";
  CT_TILE void operator()(ct::out<T, ct::shape<BM, BN>> y, ct::out<T, ct::shape<BM, 1>> totals,
                          ct::in<T, 2> x) const {
    const auto s = ct::cumsum(x.load_like(y), ct::axis<1>);
    y.store(s);
    totals.store(ct::extract(s, ct::shape<BM, 1>{}, 0, BN - 1));  // the last column: the piece's sum
  }
};

template <class T, int BM, int BN, int MaxPieces>
struct add_offsets {
  static constexpr const char* name = "cumsum_offsets";
  CT_TILE void operator()(ct::out<T, ct::shape<BM, BN>> y, ct::in<T, 2> pieces, ct::in<T, 2> totals) const {
    const auto [m, n] = y.tile_index();
    const auto t = ct::load(totals, {m, 0}, ct::shape<BM, MaxPieces>{});
    const auto before = ct::where(ct::arange<int, MaxPieces>() < int(n), t, T(0));
    y.store(pieces.load_like(y) + ct::sum(before, ct::axis<1>, ct::keepdims));
  }
};

// y = cumsum(x, axis=1) for a 2-D x with up to 64 * 1024 columns.
template <class T>
void cumsum_rows(ct::tensor<T>& y, const ct::tensor<T>& x) {
  constexpr int bm = 4, bn = 1024, max_pieces = 64;
  const ct::index_t rows = x.extent(0), pieces = (x.extent(1) + bn - 1) / bn;
  ct::detail::require(pieces <= max_pieces, "cumsum_rows: more than 64 * 1024 columns");
  auto scanned = ct::empty<T>({rows, x.extent(1)}, x.dev());
  auto totals = ct::empty<T>({rows, pieces}, x.dev());
  // Both launches are on the same stream, so the second runs after the first.
  auto first = ct::launch(scan_pieces<T, bm, bn>{}, scanned.partition(ct::shape<bm, bn>{}),
                          totals.partition(ct::shape<bm, 1>{}), x);
  auto second = ct::launch(add_offsets<T, bm, bn, max_pieces>{}, y.partition(ct::shape<bm, bn>{}), scanned, totals);
  first.wait();
  second.wait();
}

}  // namespace examples
