// Softmax over the last axis of a 2-D tensor, in f32 (exponentials approximate for 16-bit T:
// detail::exp_for), stored as T.
// Rows up to 8192 columns live in one tile: one read, one write. Rows up to 131072 columns are
// split over a group of up to eight tile blocks (ct::block_group: a thread-block cluster on a
// Hopper GPU) that combine the row's max and sum of exponentials, where groups run (the CPU,
// and GPUs of compute capability 9.0 and later); each block reads its 16K columns twice. Longer
// rows, and GPUs without clusters, stream through the row twice in one block: the first pass
// keeps a running max and a running sum of exponentials rescaled to that max (online softmax),
// the second writes exp(x - max) / sum.
#pragma once
#include <limits>

#include "ctile/kernels/detail.hpp"
#include "ctile/kernels/row_window.hpp"

namespace ct::kernels {
namespace detail {

template <class T, int BM, int BN>
struct softmax_tile_map {
  static constexpr const char* name = "ct_kernels_softmax";
  CT_TILE void operator()(ct::out<T, ct::shape<BM, BN>> y, ct::in<T, 2> x) const {
    const auto t = ct::astype<float>(x.load_like(y, ct::pad::neg_inf));
    const auto e = exp_for<T>(t - ct::max(t, ct::axis<1>, ct::keepdims));
    y.store(ct::astype<T>(e * (1.0f / ct::sum(e, ct::axis<1>, ct::keepdims))));
  }
};

// Rows of up to 8192 columns off 16 bytes (rows_by_window(x)), read and written as windows
// (row_window.hpp): 0.74 -> 0.92 of the copy ceiling at 32767 x 8191 bf16 on an H100 against
// the tile kernel's straddling loads and stores (bench/results/2026-12-07-h100-c.md). The row
// stays in T and its exponentials are computed twice (for the sum, then for the output): 95
// registers; holding them in f32 instead was not tried.
template <class T>
struct softmax_window_map {
  static constexpr const char* name = "ct_kernels_softmax_window";
  static constexpr bool aligned_input_rows_build = true;
  using window = row_window<T, 8192>;
  CT_TILE void operator()(ct::out<T, ct::shape<1, 8192>> y, ct::in<T, 1> x, index_t cols) const {
    const window win(y.tile_index()[0], cols);
    typename window::part p[window::parts];
    win.load(x, p, ct::pad::neg_inf);
    const auto f = [](const auto& t) { return ct::astype<float>(t); };
    auto top = win.first_part(f(p[0]), -std::numeric_limits<float>::infinity());
    CT_UNROLL
    for (int k = 1; k < window::parts; ++k) top = ct::maximum(top, f(p[k]));
    const auto m = ct::max(top, ct::axis<0>, ct::keepdims);
    const auto e = [&](int k) { return exp_for<T>(f(p[k]) - m); };
    auto acc = win.first_part(e(0), 0.0f);  // past the row: exp(-inf) = 0
    CT_UNROLL
    for (int k = 1; k < window::parts; ++k) acc = acc + e(k);
    const auto inv = 1.0f / ct::sum(acc, ct::axis<0>, ct::keepdims);
    CT_UNROLL
    for (int k = 0; k < window::parts; ++k) win.store(y, k, ct::astype<T>(e(k) * inv));
  }
};

// A row of up to group_blocks * group_cols columns, split over a group of tile blocks (a
// thread-block cluster on a Hopper GPU): tile block (i, j) takes columns
// [j * group_cols, (j + 1) * group_cols) of row i in parts of group_part. It reads its slice
// twice: once for its running max and sum of exponentials (online, group_batch parts in flight
// at once), which the group combines into the row's; once more to write exp(x - max) / sum.
// The hope was that the second read would find the slice in L2, as a one-block-per-row kernel's
// cannot once rows outgrow it; it mostly does not (ncu at 1024 x 262144 bf16, 32K columns a
// block: DRAM read twice the input, L2 hit rate 41 %). Still, at 4096 x 65536 bf16 on an H100
// it ran 2240 GB/s against the online kernel's 1955 (0.75 and 0.65 of the copy ceiling), with
// 16K columns a block and two parts in flight; 32K columns, or one or four parts in flight,
// gained nothing or lost; at 262144 columns (16-block groups) it matched the online kernel
// (1945 against 1904), so rows that long keep that one (bench/results/2026-12-07-h100-d.md).
// Holding the slice in registers instead (16 blocks of 16K columns, 249 registers, two blocks
// an SM) ran at 0.16 of the copy ceiling (bench/results/2026-12-07-h100.md).
inline constexpr int group_part = 4096, group_cols = 16384, group_batch = 2, group_blocks = 8;

template <class T>
struct softmax_group_map {
  static constexpr const char* name = "ct_kernels_softmax_group";
  static constexpr ct::block_group block_group{/*axis=*/1};
  static constexpr int parts = group_cols / group_part, batch = group_batch;
  static_assert(parts % batch == 0, "softmax_group_map: whole batches of parts a block");
  CT_TILE void operator()(ct::out<T, ct::shape<1, group_cols>> y, ct::in<T, 2> x) const {
    const auto [i, j] = y.tile_index();
    const auto view = x.tiled(ct::shape<1, group_part>{}, ct::pad::neg_inf);
    const index_t first = index_t(j) * parts;
    using part = decltype(view.load(i, first));
    const auto f = [](const part& p) { return ct::astype<float>(p); };
    // Parts b .. b + batch - 1 of this block's slice, all loads issued before any is used.
    const auto load_batch = [&](int b, part(&p)[batch]) {
      CT_UNROLL
      for (int k = 0; k < batch; ++k) p[k] = view.load(i, first + b + k);
    };
    auto m = ct::full<float>(ct::shape<1, 1>{}, -std::numeric_limits<float>::infinity());
    auto l = ct::full<float>(ct::shape<1, 1>{}, 0.0f);
    CT_NO_UNROLL  // a batch's registers at a time
    for (int b = 0; b < parts; b += batch) {
      part p[batch];
      load_batch(b, p);
      auto top = f(p[0]);
      CT_UNROLL
      for (int k = 1; k < batch; ++k) top = ct::maximum(top, f(p[k]));
      // A block's first part always holds some of the row, so m_new is finite from the first
      // batch on (a later batch wholly past the row's end leaves m as it was).
      const auto m_new = ct::maximum(m, ct::max(top, ct::axis<1>, ct::keepdims));
      auto e = exp_for<T>(f(p[0]) - m_new);
      CT_UNROLL
      for (int k = 1; k < batch; ++k) e = e + exp_for<T>(f(p[k]) - m_new);
      l = l * exp_for<T>(m - m_new) + ct::sum(e, ct::axis<1>, ct::keepdims);
      m = m_new;
    }
    const auto row_max = ct::max_across_blocks(m);
    const auto inv = 1.0f / ct::sum_across_blocks(l * exp_for<T>(m - row_max));
    const auto out = y.subtiles(ct::shape<1, group_part>{});
    CT_NO_UNROLL  // a batch's registers at a time
    for (int b = 0; b < parts; b += batch) {
      part p[batch];
      load_batch(b, p);
      CT_UNROLL
      for (int k = 0; k < batch; ++k) out.store({0, b + k}, ct::astype<T>(exp_for<T>(f(p[k]) - row_max) * inv));
    }
  }
};

// One block per row; its output tile is the whole row (up to max_row columns), written in
// sub-tiles of BN.
inline constexpr int max_row = 1 << 24;

template <class T, int BN>
struct softmax_online_map {
  static constexpr const char* name = "ct_kernels_softmax_online";
  CT_TILE void operator()(ct::out<T, ct::shape<1, max_row>> y, ct::in<T, 2> x) const {
    const auto [i, unused] = y.tile_index();
    (void)unused;
    const auto view = x.tiled(ct::shape<1, BN>{}, ct::pad::neg_inf);
    const index_t tiles = ct::num_tiles(view, 1);
    // Running max m and sum l of exp(x - m), per row (1 x 1 tiles).
    auto m = ct::full<float>(ct::shape<1, 1>{}, -std::numeric_limits<float>::infinity());
    auto l = ct::full<float>(ct::shape<1, 1>{}, 0.0f);
    for (index_t k = 0; k < tiles; ++k) {
      const auto t = ct::astype<float>(view.load(i, k));
      const auto m_new = ct::maximum(m, ct::max(t, ct::axis<1>, ct::keepdims));
      l = l * exp_for<T>(m - m_new) + ct::sum(exp_for<T>(t - m_new), ct::axis<1>, ct::keepdims);
      m = m_new;
    }
    const auto inv = 1.0f / l;
    const auto row = y.subtiles(ct::shape<1, BN>{});
    for (index_t k = 0; k < tiles; ++k) {
      const auto t = ct::astype<float>(view.load(i, k));
      row.store({0, k}, ct::astype<T>(exp_for<T>(t - m) * inv));
    }
  }
};

}  // namespace detail

// y = softmax(x) along the last axis, x and y [M, N].
template <class T>
ct::pending softmax(const ct::stream& s, ct::tensor<T>& y, const ct::tensor<T>& x) {
  detail::require_rank("softmax", "x", x, 2);
  detail::require_same_extents("softmax", "x", x, "y", y);
  const index_t cols = x.extent(1);
  detail::require(cols <= detail::max_row, detail::what("softmax", std::to_string(cols) + " columns is more than the " +
                                                                       std::to_string(detail::max_row) + " supported"));
  if (cols <= 1024) return ct::launch(s, detail::softmax_tile_map<T, 8, 1024>{}, y.partition(ct::shape<8, 1024>{}), x);
  if (cols <= 8192 && detail::rows_by_window(x))
    return ct::launch(s, detail::softmax_window_map<T>{}, y.partition(ct::shape<1, 8192>{}), x.reshape({-1}), cols);
  if (cols <= 8192) return ct::launch(s, detail::softmax_tile_map<T, 1, 8192>{}, y.partition(ct::shape<1, 8192>{}), x);
  // Groups of at most eight blocks: the portable cluster size, which every Hopper GPU schedules.
  if (cols <= index_t(detail::group_blocks) * detail::group_cols) {
    const detail::softmax_group_map<T> group;
    if (ct::block_groups_run(s, group)) return ct::launch(s, group, y.partition(ct::shape<1, detail::group_cols>{}), x);
  }
  return ct::launch(s, detail::softmax_online_map<T, 8192>{}, y.partition(ct::shape<1, detail::max_row>{}), x);
}

}  // namespace ct::kernels
