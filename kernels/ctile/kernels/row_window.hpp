// A row of a contiguous 2-D tensor whose rows start off 16 bytes (rows_by_window), read and
// written as its window: the row's flat range from the 16-byte boundary at or before it.
//
// Tiles on a row's own columns straddle two aligned 16-byte blocks with every chunk (both
// loaded, the chunk's bytes stored in pieces: backend/straddle.hpp). A plain CUDA norm that
// reads and writes each row's aligned window ran at the copy ceiling at 32767 x 8191 bf16 on an
// H100 (bench/probes/ragged_norm_probe.cu). Here row i of x is the flat range
// [i * cols, (i + 1) * cols) of x.reshape({-1}), read from the boundary at or before it in
// `parts` tiles of BN, so that every chunk is one aligned vector load (in the kernel's
// inputs' aligned build: aligned_input_rows_build), and written back from the same columns
// through out::store_shifted: aligned vector stores, element stores for the row's first and
// last chunks. Vectors indexed by column (a norm's w and b) load from copies shifted by each
// offset, so that those loads are aligned too.
#pragma once
#include <cstdint>
#include <type_traits>

#include "ctile/kernels/detail.hpp"

namespace ct::kernels::detail {

template <class T, int MaxCols>
struct row_window {
  static constexpr int BN = 1024, parts = (MaxCols + vec<T> - 1 + BN - 1) / BN, width = parts * BN;
  using part = ct::tile<T, ct::shape<BN>>;
  using index = std::conditional_t<sizeof(T) == 2, std::int16_t, std::int32_t>;  // laid out as T
  index_t lo, first, cols;  // the row's first element in flat x, the boundary at or before it

  CT_HD row_window(index_t row, index_t n) : lo(row * n), first(row * n / vec<T> * vec<T>), cols(n) {}

  // The row's offset from the boundary before it, and its column at element 0 of part k.
  CT_HD index_t offset() const { return lo - first; }
  CT_HD index_t column(int k) const { return k * BN - offset(); }

  // The parts of the row of flat x, all loaded before any is used; elements past the row's end
  // are `Pad`, those before its start (in part 0) the previous row's.
  template <class Pad = ct::padding_t<ct::padding_mode::zero>>
  CT_HD void load(const ct::in<T, 1>& x, part (&p)[parts], Pad pad = {}) const {
    const auto row = x.slice(0, first, lo + cols);
    CT_UNROLL
    for (int k = 0; k < parts; ++k) p[k] = ct::load_from(row, {k * BN}, ct::shape<BN>{}, pad, ct::aligned_window);
  }
  // Which elements of part k are the row's.
  CT_HD auto inside(int k) const {
    const auto c = ct::arange<index, BN>() + index(column(k));
    return (c >= index(0)) & (c < index(cols));
  }
  // Part 0 with its elements before the row replaced by `value`.
  template <class X, class U>
  CT_HD X first_part(const X& p0, U value) const {
    return ct::where(ct::arange<index, BN>() >= index(offset()), p0, value);
  }
  // Part k of a vector indexed by the row's columns (a norm's w), from its shifted copies
  // (shifted_copies: `width` elements a row, flat).
  CT_HD part vector_part(const ct::in<T, 1>& copies, int k) const {
    return ct::load_from(copies, {offset() * width + k * BN}, ct::shape<BN>{}, ct::pad::zero, ct::aligned_window);
  }
  CT_HD void store(const ct::out<T, ct::shape<1, MaxCols>>& y, int k, const part& t) const {
    y.store_shifted({0, column(k)}, ct::reshape(t, ct::shape<1, BN>{}), ct::aligned_window);
  }
};

// Row o of `copies` is v moved right by o elements (zeros around it), for o < vec<T>: a row at
// offset o from the 16-byte boundary finds v's element j at window column j + o.
template <class T, int BN>
struct shifted_copies_map {
  static constexpr const char* name = "ct_kernels_shifted_copies";
  CT_TILE void operator()(ct::out<T, ct::shape<1, BN>> copies, ct::in<T, 1> v) const {
    const auto [o, k] = copies.tile_index();
    copies.store(ct::reshape(ct::load_from(v, {k * BN - o}, ct::shape<BN>{}), ct::shape<1, BN>{}));
  }
};

// The shifted copies of v for row_window<T, MaxCols>::vector_part, flat.
template <class T, int MaxCols>
ct::tensor<T> shifted_copies(const ct::stream& s, const ct::tensor<T>& v) {
  using window = row_window<T, MaxCols>;
  auto copies = ct::empty<T>({vec<T>, window::width}, v.dev());
  (void)ct::launch(s, shifted_copies_map<T, window::BN>{}, copies.partition(ct::shape<1, window::BN>{}), v);
  return copies.reshape({-1});
}

}  // namespace ct::kernels::detail
