// Row and column reductions of a 2-D tensor: sum and max, in f32, stored as T.
//   row_sum / row_max:  y[i] = reduce_j x[i, j]     (y: [M])
//   col_sum / col_max:  y[j] = reduce_i x[i, j]     (y: [N])
// Each block accumulates whole tiles elementwise and reduces across the tile once at the end,
// so the loop body is only loads and adds. Columns are reduced in two passes: the rows are cut
// into splits that run as separate blocks (a tall matrix has few column tiles but needs a full
// GPU), then the per-split partials are reduced the same way.
#pragma once
#include <algorithm>

#include "ctile/kernels/detail.hpp"

namespace ct::kernels {

struct sum_t {
  template <class X>
  CT_HD static X combine(const X& a, const X& b) { return a + b; }
  template <int A, class X>
  CT_HD static auto across(const X& x) { return ct::sum(x, ct::axis<A>, ct::keepdims); }
  using pad = ct::padding_t<ct::padding_mode::zero>;
};

struct max_t {
  // Padding loads as -inf, so it never wins.
  template <class X>
  CT_HD static X combine(const X& a, const X& b) { return ct::maximum(a, b); }
  template <int A, class X>
  CT_HD static auto across(const X& x) { return ct::max(x, ct::axis<A>, ct::keepdims); }
  using pad = ct::padding_t<ct::padding_mode::neg_inf>;
};

namespace detail {

// part(0) combined elementwise with part(1) .. part(n - 1), each widened to f32, n >= 1. Eight
// parts are loaded before the first of them is used, so that eight loads are in flight (fewer
// leave the memory system idle between a block's loads), and each is widened (to f32) only as it
// is combined, so that the others wait in their 16-bit storage; the loop stays rolled. Measured
// on the H200 for the column reductions' first pass (bf16, 8 x 256 tiles): 2658 GB/s at
// 32768 x 8192 and 1102 at 32767 x 8191, against 2142 and 782 for four parts widened at once
// in an unrolled loop with 16 x 256 tiles (bench/results/2026-12-04-col-reduce.md).
template <class Op, class Part>
CT_HD auto accumulate_by_eights(const Part& part, index_t n) {
  const auto widen = [](const auto& x) { return ct::astype<float>(x); };
  auto acc = widen(part(0));
  index_t k = 1;
  CT_NO_UNROLL
  for (; k + 8 <= n; k += 8) {
    const auto p0 = part(k), p1 = part(k + 1), p2 = part(k + 2), p3 = part(k + 3);
    const auto p4 = part(k + 4), p5 = part(k + 5), p6 = part(k + 6), p7 = part(k + 7);
    acc = Op::combine(Op::combine(Op::combine(Op::combine(acc, widen(p0)), widen(p1)), widen(p2)), widen(p3));
    acc = Op::combine(Op::combine(Op::combine(Op::combine(acc, widen(p4)), widen(p5)), widen(p6)), widen(p7));
  }
  CT_NO_UNROLL
  for (; k < n; ++k) acc = Op::combine(acc, widen(part(k)));
  return acc;
}

// The same for a few small tiles (a row reduction's row is four of them): the first four in
// one step as well, and the loops kept rolled. Measured on the H200 (bench/results/
// 2026-12-03-bandwidth-d.md): row_sum 2430 -> 3820 GB/s with it and two-chunk tiles; the
// column reductions, whose splits are many tiles tall, lost a third with it (1841 -> 1283):
// they take accumulate_by_eights.
template <class Op, class Part>
CT_HD auto accumulate_by_fours(const Part& part, index_t n) {
  const auto four = [&](index_t k) {
    return Op::combine(Op::combine(part(k), part(k + 1)), Op::combine(part(k + 2), part(k + 3)));
  };
  auto acc = n >= 4 ? four(0) : part(0);
  index_t k = n >= 4 ? 4 : 1;
  CT_NO_UNROLL
  for (; k + 4 <= n; k += 4) acc = Op::combine(acc, four(k));
  CT_NO_UNROLL
  for (; k < n; ++k) acc = Op::combine(acc, part(k));
  return acc;
}

// A row reduction keeps four tiles' loads in flight a block, so the bytes in flight per SM
// come from how many blocks it holds. 16-bit rows ask for six (cuTile's `occupancy` hint: at
// most 85 registers; with no hint they took 126, so four fitted). Rows off 16 bytes (those of
// strided views and offset starts; contiguous ones take row_reduce_window_map) have one
// tile in flight, not four (their chunks are built from two aligned blocks before the next
// tile's loads go out), so they gain most from more blocks: 2017 -> 2433 GB/s at 32767 x 8191
// bf16 with six against five, while aligned rows run the build made for them
// (`aligned_rows_build`) at 3007 -> 3019 (H100, copy 2975-3006; eight an SM: 2341 and 2606;
// bench/results/2026-12-06-row-reduce.md). f32 rows hold twice the registers a tile and keep
// their build.
template <class T, int BN, class Op>
struct row_reduce_map : occupancy_hint<sizeof(T) == 2, 6> {
  static constexpr const char* name = "ct_kernels_row_reduce";
  static constexpr bool aligned_rows_build = true;
  CT_TILE void operator()(ct::out<T, ct::shape<1, 1>> y, ct::in<T, 2> x) const {
    const auto [i, unused] = y.tile_index();
    (void)unused;
    const auto view = x.tiled(ct::shape<1, BN>{}, typename Op::pad{});
    const auto part = [&](index_t k) { return ct::astype<float>(view.load(i, k)); };
    y.store(ct::astype<T>(Op::template across<1>(accumulate_by_fours<Op>(part, ct::num_tiles(view, 1)))));
  }
};

// Row reductions of a contiguous x whose rows start off 16 bytes (32767 x 8191 bf16): row i is
// the flat range [i * n, (i + 1) * n) of x, read as a window from the 16-byte boundary at or
// before it to its end, so that every chunk is one aligned vector load (the order of a sum's
// elements is free); the elements of the row before, at the start of the first tile, are
// masked out. The launch runs the aligned-rows build (x's first element on 16 bytes), where
// the compiler sees every tile of the window aligned and drops the straddling code: 2450 ->
// 2629 GB/s at 32767 x 8191 bf16 against the 1 x 2048 row tiles (H100, copy 3020; without the
// aligned build 2292, and 4096-element tiles spilled: 543; bench/results/2026-12-07-h100.md).
// A plain CUDA kernel of this scheme reached 0.98 of the copy ceiling there: the rest is open.
template <class T, int BN, class Op>
struct row_reduce_window_map : occupancy_hint<sizeof(T) == 2, 5> {
  static constexpr const char* name = "ct_kernels_row_reduce_window";
  static constexpr bool aligned_rows_build = true;
  CT_TILE void operator()(ct::out<T, ct::shape<1>> y, ct::in<T, 1> x, index_t n) const {
    using I = column_index_t<T>;
    const index_t lo = y.tile_index()[0] * n, hi = lo + n;
    const index_t first = lo / vec<T> * vec<T>;
    const auto view = x.slice(0, first, hi).tiled(ct::shape<BN>{}, typename Op::pad{});
    const auto part = [&](index_t k) { return ct::astype<float>(view.load(k)); };
    const auto pad = ct::full<float>(ct::shape<BN>{}, Op::pad::template value<float>());
    const auto first_tile = [&](const auto& p0) {  // the previous row's elements masked
      return ct::where(ct::arange<I, BN>() >= I(lo - first), p0, pad);
    };
    const index_t tiles = ct::num_tiles(view, 0);
    if (tiles == 5) {
      // Five tiles (a row of 4 * BN - vec + 1 .. 4 * BN columns from its window, 8191 among
      // them): all five loads go out together, where the fifth, a few columns, would otherwise
      // be waited for alone after the other four (2623 -> 2660 GB/s for row_sum at 32767 x 8191
      // bf16 with five blocks an SM, 2637 with six; bench/results/2026-12-07-h100-b.md).
      const auto p0 = part(0), p1 = part(1), p2 = part(2), p3 = part(3), p4 = part(4);
      const auto acc = Op::combine(Op::combine(Op::combine(first_tile(p0), p1), Op::combine(p2, p3)), p4);
      y.store(ct::astype<T>(Op::template across<0>(acc)));
      return;
    }
    auto acc = first_tile(part(0));
    if (tiles > 1) acc = Op::combine(acc, accumulate_by_fours<Op>([&](index_t k) { return part(k + 1); }, tiles - 1));
    y.store(ct::astype<T>(Op::template across<0>(acc)));
  }
};

// Reduces rows [s * rows_per_split, (s + 1) * rows_per_split) of x's column tile j into row s of y.
// Row segments (BM = 1, the first pass) take four in flight, widened as loaded; the taller tiles
// of the partials (f32) take eight. A launch whose rows all start on 16 bytes runs a build made
// for them (`aligned_rows_build`): without the code for rows off the boundary the first pass
// fits 128 registers instead of 255 and a stack, and ran 2474 -> 2706 GB/s at 32768 x 8192 bf16
// on an H100 (copy 2961; bench/results/2026-12-06-col-reduce.md). The 16-bit first pass asks for
// six blocks an SM (80 registers): the build for rows off the boundary then spills 64 bytes
// instead of taking 255 registers and 148 bytes, and ran 1249 -> 2056 GB/s at 32767 x 8191 bf16
// with a wave of six blocks an SM, while aligned rows kept their speed (2638 -> 2648 GB/s, H100,
// copy 2957; bench/results/2026-12-06-col-reduce-2.md).
inline constexpr int col_reduce_blocks_per_sm = 6;
template <class Tin, int BM>
using col_reduce_occupancy = occupancy_hint<BM == 1 && sizeof(Tin) == 2, col_reduce_blocks_per_sm>;

template <class Tin, class Tout, int BM, int BN, class Op>
struct col_reduce_map : col_reduce_occupancy<Tin, BM> {
  static constexpr const char* name = "ct_kernels_col_reduce";
  static constexpr bool aligned_rows_build = true;
  CT_TILE void operator()(ct::out<Tout, ct::shape<1, BN>> y, ct::in<Tin, 2> x, index_t rows_per_split) const {
    const auto [s, j] = y.tile_index();
    const index_t first = s * rows_per_split;
    const index_t last = first + rows_per_split < x.extent(0) ? first + rows_per_split : x.extent(0);
    const auto view = x.slice(0, first, last).tiled(ct::shape<BM, BN>{}, typename Op::pad{});
    const index_t n = ct::num_tiles(view, 0);
    if constexpr (BM == 1) {
      const auto part = [&](index_t k) { return ct::astype<float>(view.load(k, j)); };
      y.store(ct::astype<Tout>(Op::template across<0>(accumulate_by_fours<Op>(part, n))));
    } else {
      const auto part = [&](index_t k) { return view.load(k, j); };
      y.store(ct::astype<Tout>(Op::template across<0>(accumulate_by_eights<Op>(part, n))));
    }
  }
};

// Column reductions of a contiguous x whose rows start off 16 bytes (32767 x 8191 bf16: the
// straddling loads of col_reduce_map ran at 0.69 of the copy ceiling on an H100). The rows of
// one residue class of the row index mod vec start at one offset o from the 16-byte boundary
// (i * cols mod vec), so the first pass takes the rows of a class only, reads each as aligned
// tiles of x viewed flat from column -o (its window) and reduces them elementwise in window
// columns. Block b is split s = b / window_tiles (class s / class_splits) of window column
// tile b % window_tiles; its partial is row s of `partial` ([classes * class_splits,
// window_tiles * BN], flat), which the second pass (col_combine_window_map) reads back from
// column o: the window columns before o and past o + cols, which hold other rows' elements, are
// never read. 0.69 -> 0.84 of the copy ceiling at 32767 x 8191 bf16 on an H100, faster than
// torch.compile there (bench/results/2026-12-07-h100-b.md).
template <class T, int BN, class Op>
struct col_reduce_window_map : col_reduce_occupancy<T, 1> {
  static constexpr const char* name = "ct_kernels_col_reduce_window";
  static constexpr bool aligned_rows_build = true;
  CT_TILE void operator()(ct::out<float, ct::shape<BN>> partial, ct::in<T, 1> x, index_t rows, index_t cols,
                          index_t window_tiles, index_t class_splits, index_t rows_per_split) const {
    constexpr int V = vec<T>;
    const index_t b = partial.tile_index()[0], s = b / window_tiles, j = b % window_tiles;
    const index_t r = s / class_splits, o = r * cols % V;
    const index_t class_rows = (rows - r + V - 1) / V;  // rows r, r + V, ...
    const index_t first = s % class_splits * rows_per_split;
    const index_t n = std::min(first + rows_per_split, class_rows) - first;
    // The last window tile may hold only the up to vec - 1 columns past the others (8191 bf16:
    // 5 of 2048) and the next rows' elements; reading it as a 256-column tile instead was
    // measured slower (1671 against 2499 GB/s at 32767 x 8191 bf16, H100).
    const auto part = [&](index_t k) {
      const index_t row = n > 0 ? r + V * (first + k) : rows;  // an empty split reads padding
      const index_t at = row * cols + j * BN - o;
      return ct::astype<float>(ct::load_from(x, {at}, ct::shape<BN>{}, typename Op::pad{}));
    };
    partial.store(accumulate_by_fours<Op>(part, n > 0 ? n : 1));
  }
};

// y[c] = the partials of every class at window column c + o (that class's offset).
template <class T, int BM, int BN, class Op>
struct col_combine_window_map {
  static constexpr const char* name = "ct_kernels_col_combine_window";
  CT_TILE void operator()(ct::out<T, ct::shape<1, BN>> y, ct::in<float, 2> partial, index_t cols,
                          index_t class_splits) const {
    constexpr int V = vec<T>;
    const index_t j = y.tile_index()[1], tiles = (class_splits + BM - 1) / BM;
    const auto part = [&](index_t k) {
      const index_t r = k / tiles, o = r * cols % V;
      const auto class_partials = partial.slice(0, r * class_splits, (r + 1) * class_splits);
      return ct::load_from(class_partials, {k % tiles * BM, j * BN + o}, ct::shape<BM, BN>{},
                           typename Op::pad{});
    };
    y.store(ct::astype<T>(Op::template across<0>(accumulate_by_eights<Op>(part, V * tiles))));
  }
};

template <class Op, class T>
ct::pending row_reduce(const char* what, const ct::stream& s, ct::tensor<T>& y, const ct::tensor<T>& x) {
  require_rank(what, "x", x, 2);
  require_rank(what, "y", y, 1);
  require_extent(what, "y", y, 0, x.extent(0));
  require(x.extent(1) > 0, kernels::detail::what(what, "x has no columns to reduce"));
  if (rows_by_window(x))
    return ct::launch(s, row_reduce_window_map<T, 256 * vec<T>, Op>{}, y.partition(ct::shape<1>{}),
                      x.reshape({-1}), x.extent(1));
  auto y2 = y.reshape({y.extent(0), 1});
  // Tiles of two chunks a thread (16 f32 values): four in flight hold 64 registers, so several
  // blocks share an SM (one 8192-column tile took 255 registers and left two blocks an SM).
  return ct::launch(s, row_reduce_map<T, 256 * vec<T>, Op>{}, y2.partition(ct::shape<1, 1>{}), x);
}

template <class Op, class T>
ct::pending col_reduce(const char* what, const ct::stream& s, ct::tensor<T>& y, const ct::tensor<T>& x) {
  require_rank(what, "x", x, 2);
  require_rank(what, "y", y, 1);
  require_extent(what, "y", y, 0, x.extent(1));
  require(x.extent(0) > 0, kernels::detail::what(what, "x has no rows to reduce"));
  // The first pass reads one row segment a tile (1 x 2048 bf16: two 16-byte chunks a thread, a
  // contiguous 4 KiB). 8 x 256 tiles held the same bytes but took 226 registers (two blocks an
  // SM) and a row address a chunk: 1795 GB/s against 2526 for 1 x 2048 at
  // 32768 x 8192 bf16 on an H100 (copy 2978), both without the aligned build.
  constexpr int BN = 256 * vec<T>;
  const index_t rows = x.extent(0), cols = x.extent(1);
  constexpr int V = vec<T>;
  if (rows_by_window(x) && rows >= 16 * V) {
    // About 512 blocks, as for aligned rows.
    const index_t window_tiles = (cols + V - 1 + BN - 1) / BN, class_rows = (rows + V - 1) / V;
    const index_t class_splits =
        std::clamp<index_t>(512 / (window_tiles * V), 1, std::max<index_t>(1, class_rows / 16));
    const index_t rows_per_split = (class_rows + class_splits - 1) / class_splits;
    auto partial = ct::empty<float>({V * class_splits, window_tiles * BN}, x.dev());
    auto flat = partial.reshape({-1});
    (void)ct::launch(s, col_reduce_window_map<T, BN, Op>{}, flat.partition(ct::shape<BN>{}), x.reshape({-1}), rows,
                     cols, window_tiles, class_splits, rows_per_split);
    auto y2 = y.reshape({1, cols});
    return ct::launch(s, col_combine_window_map<T, 32, 32, Op>{}, y2.partition(ct::shape<1, 32>{}), partial, cols,
                      class_splits);
  }
  const index_t col_tiles = (cols + BN - 1) / BN;
  // About 512 blocks for aligned rows, each split at least 16 rows tall: fewer, longer blocks
  // measured best (512: 2706 GB/s, 1024: 2612; 2048 lost more), and the partials stay a small
  // fraction of the traffic (128 x 8192 f32 against 32768 x 8192 bf16). Rows off the boundary
  // wait on each tile's loads before the next tile's go out (backend/memory.hpp), so they need
  // every block an SM holds: a wave of col_reduce_blocks_per_sm (six; 792 on an H100's or
  // H200's 132 SMs: 1767 GB/s with 512 blocks, 2056 with 792, at 32767 x 8191 bf16). The CPU
  // backend splits as those GPUs do.
  const index_t sms = s.dev().is_cpu() ? 132 : s.dev().multiprocessors();
  const index_t want_blocks = rows_on_16_bytes(x) ? 512 : col_reduce_blocks_per_sm * sms;
  const index_t want_splits = std::clamp<index_t>(want_blocks / col_tiles, 1, std::max<index_t>(1, rows / 16));
  const index_t rows_per_split = (rows + want_splits - 1) / want_splits;
  const index_t splits = (rows + rows_per_split - 1) / rows_per_split;  // none left empty
  auto y2 = y.reshape({1, cols});
  if (splits == 1) return ct::launch(s, col_reduce_map<T, T, 1, BN, Op>{}, y2.partition(ct::shape<1, BN>{}), x, rows);
  auto partial = ct::empty<float>({splits, cols}, x.dev());
  (void)ct::launch(s, col_reduce_map<T, float, 1, BN, Op>{}, partial.partition(ct::shape<1, BN>{}), x, rows_per_split);
  // The partials (a few MiB, mostly still in L2) in narrow column tiles, so that the second pass
  // has blocks for every SM: 8 x 256 tiles gave 32 blocks at 8192 columns, 6 % of the time.
  constexpr int BM2 = 32, BN2 = 32;
  return ct::launch(s, col_reduce_map<float, T, BM2, BN2, Op>{}, y2.partition(ct::shape<1, BN2>{}), partial, splits);
}

}  // namespace detail

template <class T>
ct::pending row_sum(const ct::stream& s, ct::tensor<T>& y, const ct::tensor<T>& x) {
  return detail::row_reduce<sum_t>("row_sum", s, y, x);
}
template <class T>
ct::pending row_max(const ct::stream& s, ct::tensor<T>& y, const ct::tensor<T>& x) {
  return detail::row_reduce<max_t>("row_max", s, y, x);
}
template <class T>
ct::pending col_sum(const ct::stream& s, ct::tensor<T>& y, const ct::tensor<T>& x) {
  return detail::col_reduce<sum_t>("col_sum", s, y, x);
}
template <class T>
ct::pending col_max(const ct::stream& s, ct::tensor<T>& y, const ct::tensor<T>& x) {
  return detail::col_reduce<max_t>("col_max", s, y, x);
}

}  // namespace ct::kernels
