// Softmax over the last axis of a 2-D tensor, in f32 (exponentials approximate for 16-bit T:
// detail::exp_for), stored as T.
// Rows up to 8192 columns live in one tile: one read, one write. Rows up to 256K columns are
// split over a group of up to 16 tile blocks (ct::block_group: a thread-block cluster on a
// Hopper GPU), each holding 16K columns in registers; the group combines the row's max and sum
// across its blocks, so the row is still read once (on the CPU backend only: see softmax()
// below). Longer rows, and rows past 8192 columns on GPUs, stream through the row
// twice: the first pass keeps a running max and a running sum of exponentials rescaled to that
// max (online softmax), the second writes exp(x - max) / sum.
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

// A row of up to group_blocks * group_cols columns: tile block (i, j) holds columns
// [j * group_cols, (j + 1) * group_cols) of row i as four tiles of group_cols / 4, all loaded
// before any is used, and the blocks of row i combine its max and its sum of exponentials.
inline constexpr int group_cols = 16384, group_blocks = ct::max_block_group;

template <class T>
struct softmax_group_map {
  static constexpr const char* name = "ct_kernels_softmax_group";
  static constexpr ct::block_group block_group{/*axis=*/1};
  CT_TILE void operator()(ct::out<T, ct::shape<1, group_cols>> y, ct::in<T, 2> x) const {
    constexpr int part = group_cols / 4;
    const auto [i, j] = y.tile_index();
    const auto view = x.tiled(ct::shape<1, part>{}, ct::pad::neg_inf);
    const auto p0 = view.load(i, 4 * j), p1 = view.load(i, 4 * j + 1), p2 = view.load(i, 4 * j + 2),
               p3 = view.load(i, 4 * j + 3);
    const auto f = [](const auto& p) { return ct::astype<float>(p); };
    const auto local_max = ct::maximum(ct::maximum(f(p0), f(p1)), ct::maximum(f(p2), f(p3)));
    const auto m = ct::max_across_blocks(ct::max(local_max, ct::axis<1>, ct::keepdims));
    const auto e = [&](const auto& p) { return exp_for<T>(f(p) - m); };
    const auto l = ct::sum_across_blocks(ct::sum(e(p0) + e(p1) + e(p2) + e(p3), ct::axis<1>, ct::keepdims));
    const auto inv = 1.0f / l;
    const auto parts = y.subtiles(ct::shape<1, part>{});
    parts.store({0, 0}, ct::astype<T>(e(p0) * inv));
    parts.store({0, 1}, ct::astype<T>(e(p1) * inv));
    parts.store({0, 2}, ct::astype<T>(e(p2) * inv));
    parts.store({0, 3}, ct::astype<T>(e(p3) * inv));
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
  // A group of blocks per row reads it once (the online kernel reads it twice). GPUs keep the
  // online kernel: taken where ct::block_groups_run says groups run, the group kernel was
  // correct on an H100 but ran at 0.16 of the copy ceiling at 1024 x 262144 bf16 and 0.33 at
  // 4096 x 65536 (bench/results/2026-12-07-h100.md), below the online kernel's 0.53.
  const bool groups = s.dev().is_cpu();
  if (groups && cols <= index_t(detail::group_blocks) * detail::group_cols)
    return ct::launch(s, detail::softmax_group_map<T>{}, y.partition(ct::shape<1, detail::group_cols>{}), x);
  return ct::launch(s, detail::softmax_online_map<T, 8192>{}, y.partition(ct::shape<1, detail::max_row>{}), x);
}

}  // namespace ct::kernels
