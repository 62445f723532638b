// Loads and stores through the tensor views: in.load_like, ct::load and tiled(...).load with
// every padding mode (zero, neg_zero, nan, pos_inf, neg_inf; zero and neg_zero on integers),
// tiled views with traversal steps smaller (overlapping windows) and larger (gaps) than the tile
// and ct::num_tiles over them, in.slice (clamped ranges; elements past the slice read as
// padding even though the tensor holds them), in.permuted and loads through a transposed (non-
// contiguous) tensor, out.store clipping at the edge of a view into a larger tensor, and
// ct::store through a ct::unsafe::global to another block's tile (with an explicit grid), with
// ct::assume_divisible_by and the grid-dependency controls in the same kernel, copies of rows
// that start off a 16-byte boundary at every offset, loads laid out as another tile
// (ct::layout_of), and windows off the tile grid (ct::load_from, out::store_shifted). Outputs
// are poisoned, and a margin around each destination view must stay poisoned; results must
// match bit for bit (the sign of zero included).
#include "ops/ops_util.hpp"

namespace {
using namespace ct_test;

// Each padding mode through a different spelling of a load. Integer tensors allow only zero and
// neg_zero; their other three outputs get zero padding.
template <class T, class S>
struct paddings {
  static constexpr const char* name = "ops_paddings";
  static constexpr int R = S::rank;
  using tile_out = ct::out<T, S>;
  CT_TILE void operator()(tile_out zero, tile_out neg_zero, tile_out nan, tile_out pos_inf, tile_out neg_inf,
                          ct::in<T, R> x) const {
    zero.store(x.load_like(zero));  // the default padding
    neg_zero.store(ct::load(x, neg_zero.tile_index(), S{}, ct::pad::neg_zero));
    if constexpr (ct::is_floating_v<T>) {
      nan.store(ct::load_like(x, nan, ct::pad::nan));
      pos_inf.store(x.load_like(pos_inf, ct::pad::pos_inf));
      const auto idx = neg_inf.tile_index();
      if constexpr (R == 1) neg_inf.store(x.tiled(S{}, ct::pad::neg_inf).load(idx[0]));
      else neg_inf.store(x.tiled(S{}, ct::pad::neg_inf).load(idx[0], idx[1]));
    } else {
      nan.store(ct::load_like(x, nan, ct::pad::zero));
      pos_inf.store(ct::load_like(x, pos_inf, ct::pad::zero));
      neg_inf.store(ct::load_like(x, neg_inf, ct::pad::zero));
    }
  }
};

// Tile (i, j) of a view with traversal steps (si, sj); `counts` holds num_tiles of the view.
template <class T, class S>
struct windows {
  static constexpr const char* name = "ops_windows";
  CT_TILE void operator()(ct::out<T, S> y, ct::out<std::int64_t, S> counts, ct::in<T, 2> x, ct::index_t si,
                          ct::index_t sj) const {
    const auto view = x.tiled(S{}, ct::pad::neg_zero, ct::steps(si, sj));
    const auto [i, j] = y.tile_index();
    y.store(view.load(i, j));
    counts.store(ct::full<std::int64_t>(S{}, ct::num_tiles(view, 0) * 1000 + view.num_tiles(1)));
  }
};

// Columns [start, stop) of x (clamped) and x with its axes swapped, through in.slice and
// in.permuted.
template <class T, class S>
struct sub_views {
  static constexpr const char* name = "ops_sub_views";
  CT_TILE void operator()(ct::out<T, S> sliced, ct::out<T, S> swapped, ct::in<T, 2> x, ct::index_t start,
                          ct::index_t stop) const {
    sliced.store(x.slice(1, start, stop).load_like(sliced, ct::pad::neg_zero));
    swapped.store(x.permuted(ct::axes<1, 0>).load_like(swapped));
  }
};

// Block (i, j) stores x's tile (i, j) as tile (gm - 1 - i, gn - 1 - j) of dst.
template <class T, class S>
struct mirrored_store {
  static constexpr const char* name = "ops_mirrored_store";
  CT_TILE void operator()(ct::unsafe::global<T, 2> dst, ct::in<T, 2> x) const {
    ct::grid_dependency_control_wait();
    const ct::index_t i = ct::bid(0), j = ct::bid(1), gm = ct::num_blocks(0), gn = ct::num_blocks(1);
    const auto t = x.tiled(S{}).load(i, j);
    const ct::index_t width = ct::assume_divisible_by(ct::index_t(S::dim(1)) * gn, ct::index_t(S::dim(1)));
    ct::store(dst, {gm - 1 - i, width / S::dim(1) - 1 - j}, t);
    ct::grid_dependency_control_launch_dependents();
  }
};

// y = x through a plain partition (the clipping of out.store at a view's edge).
template <class T, class S>
struct copy_tiles {
  static constexpr const char* name = "ops_copy";
  CT_TILE void operator()(ct::out<T, S> y, ct::in<T, S::rank> x) const { y.store(x.load_like(y)); }
};

struct memory_ops : on_device {};

template <class T>
std::vector<T> memory_input(std::size_t n) {
  if constexpr (ct::is_floating_v<T>) return random_floats<T>(n, 4.0, true);
  else return random_ints<T>(n, true);
}

// Value `c` of the row-major tensor (values, extents), or `pad` outside it.
template <class T>
T at_or(const std::vector<T>& v, const ct::extents_t& e, const std::vector<ct::index_t>& c, T pad) {
  std::size_t f = 0;
  for (std::size_t i = 0; i < e.size(); ++i) {
    if (c[i] < 0 || c[i] >= e[i]) return pad;
    f = f * std::size_t(e[i]) + std::size_t(c[i]);
  }
  return v[f];
}

// The coordinates of flat index f in a row-major tensor of extents e.
inline std::vector<ct::index_t> coords(std::size_t f, const ct::extents_t& e) {
  std::vector<ct::index_t> c(e.size());
  for (int i = int(e.size()) - 1; i >= 0; --i) {
    c[std::size_t(i)] = ct::index_t(f % std::size_t(e[std::size_t(i)]));
    f /= std::size_t(e[std::size_t(i)]);
  }
  return c;
}

// A tensor of `inner` extents, placed at `offset` inside a larger poisoned one: the view a kernel
// writes to, and its surroundings, which must stay poisoned.
template <class T>
struct framed {
  ct::tensor<T> whole, view;
  ct::extents_t offset;
  framed(const ct::extents_t& inner, const ct::extents_t& margin, const ct::device& dev) : offset(margin) {
    ct::extents_t outer;
    for (std::size_t i = 0; i < inner.size(); ++i) outer.push_back(inner[i] + 2 * margin[i]);
    whole = poisoned<T>(outer, dev);
    view = whole.view();
    for (int i = 0; i < int(inner.size()); ++i) view = view.slice(i, margin[std::size_t(i)], margin[std::size_t(i)] + inner[std::size_t(i)]);
  }
  // The whole tensor as expected: `inner(c)` inside the view, the poison around it.
  template <class F>
  std::vector<T> expected(F inner) const {
    const T poison = poison_value<T>();
    std::vector<T> r(std::size_t(whole.size()));
    for (std::size_t f = 0; f < r.size(); ++f) {
      auto c = coords(f, whole.extents());
      bool inside = true;
      for (std::size_t i = 0; i < c.size(); ++i) {
        c[i] -= offset[i];
        inside = inside && c[i] >= 0 && c[i] < view.extent(int(i));
      }
      r[f] = inside ? inner(c) : poison;
    }
    return r;
  }
};

template <class T, class S>
void check_paddings(const ct::device& dev, const ct::extents_t& extents) {
  SCOPED_TRACE((case_name<T, S>(extents)));
  const auto vx = memory_input<T>(element_count(extents));
  const auto x = tensor_of(vx, extents, dev);
  ct::extents_t rounded_up;  // whole tiles, so the padding lands in the outputs
  for (int i = 0; i < S::rank; ++i) rounded_up.push_back((extents[std::size_t(i)] + S::dim(i) - 1) / S::dim(i) * S::dim(i));
  std::vector<ct::tensor<T>> r;
  for (int i = 0; i < 5; ++i) r.push_back(poisoned<T>(rounded_up, dev));
  ct::launch(paddings<T, S>{}, r[0].partition(S{}), r[1].partition(S{}), r[2].partition(S{}), r[3].partition(S{}),
             r[4].partition(S{}), x)
      .wait();
  const bool floating = ct::is_floating_v<T>;
  const double pads[] = {0.0, -0.0, floating ? NAN : 0.0, floating ? INFINITY : 0.0, floating ? -INFINITY : 0.0};
  const char* what[] = {"zero (default) via in.load_like", "neg_zero via ct::load", "nan via ct::load_like",
                        "pos_inf via in.load_like", "neg_inf via tiled(...).load"};
  for (std::size_t k = 0; k < 5; ++k) {
    const T pad = ct::convert<T>(pads[k]);
    EXPECT_TRUE(all_same(r[k].to_host(), reference_of<T>(element_count(rounded_up), [&](std::size_t f) {
      return at_or(vx, extents, coords(f, rounded_up), pad);
    }), true)) << what[k];
  }
}

TEST_P(memory_ops, paddings_f32) {
  check_paddings<float, ct::shape<2, 2>>(dev(), {5, 7});
  check_paddings<float, ct::shape<64, 128>>(dev(), {67, 257});
  check_paddings<float, ct::shape<2, 256>>(dev(), {5, 259});
}
TEST_P(memory_ops, paddings_f16) { check_paddings<ct::f16, ct::shape<16, 16>>(dev(), {31, 17}); }
// Rows off 16-byte boundaries whose last tile is cut by the row's end (not the tensor's last
// row): those tiles' chunks come from aligned blocks that hold the next row's first elements,
// which must load as the padding.
TEST_P(memory_ops, paddings_bf16) {
  check_paddings<ct::bf16, ct::shape<1, 8192>>(dev(), {2, 8197});
  check_paddings<ct::bf16, ct::shape<1, 2048>>(dev(), {5, 2051});
  check_paddings<ct::bf16, ct::shape<2, 256>>(dev(), {7, 263});
}
TEST_P(memory_ops, paddings_f64) { check_paddings<double, ct::shape<8, 128>>(dev(), {17, 257}); }
TEST_P(memory_ops, paddings_int32) { check_paddings<std::int32_t, ct::shape<4>>(dev(), {31}); }
TEST_P(memory_ops, paddings_uint8) { check_paddings<std::uint8_t, ct::shape<32, 256>>(dev(), {37, 257}); }

template <class T, class S>
void check_windows(const ct::device& dev, const ct::extents_t& extents, ct::index_t si, ct::index_t sj) {
  SCOPED_TRACE(cat(case_name<T, S>(extents), " steps (", si, ", ", sj, ")"));
  const auto vx = memory_input<T>(element_count(extents));
  const auto x = tensor_of(vx, extents, dev);
  const ct::index_t ti = (extents[0] + si - 1) / si, tj = (extents[1] + sj - 1) / sj;  // tile origins inside x
  const ct::extents_t out_extents = {ti * S::dim(0), tj * S::dim(1)};
  auto y = poisoned<T>(out_extents, dev);
  auto counts = poisoned<std::int64_t>(out_extents, dev);
  ct::launch(windows<T, S>{}, y.partition(S{}), counts.partition(S{}), x, si, sj).wait();
  EXPECT_TRUE(all_same(y.to_host(), reference_of<T>(element_count(out_extents), [&](std::size_t f) {
    const auto c = coords(f, out_extents);
    const ct::index_t i = c[0] / S::dim(0), j = c[1] / S::dim(1);
    return at_or(vx, extents, {i * si + c[0] % S::dim(0), j * sj + c[1] % S::dim(1)}, ct::convert<T>(-0.0));
  }), true)) << "tiles of the stepped view";
  EXPECT_TRUE(all_same(counts.to_host(), std::vector<std::int64_t>(element_count(out_extents), ti * 1000 + tj)))
      << "ct::num_tiles of the stepped view";
}

TEST_P(memory_ops, overlapping_windows) {
  check_windows<float, ct::shape<4, 8>>(dev(), {13, 29}, 1, 3);
  check_windows<std::int16_t, ct::shape<16, 16>>(dev(), {40, 33}, 8, 5);
}
TEST_P(memory_ops, windows_with_gaps) {
  check_windows<float, ct::shape<4, 8>>(dev(), {13, 29}, 5, 11);
  check_windows<std::int16_t, ct::shape<16, 16>>(dev(), {40, 70}, 17, 31);
}

template <class T, class S>
void check_sub_views(const ct::device& dev, ct::index_t rows, ct::index_t cols, ct::index_t start, ct::index_t stop) {
  SCOPED_TRACE(cat(case_name<T, S>({rows, cols}), " slice [", start, ", ", stop, ")"));
  const auto vx = memory_input<T>(std::size_t(rows * cols));
  const auto x = tensor_of(vx, {rows, cols}, dev);
  const ct::index_t lo = std::clamp<ct::index_t>(start, 0, cols), hi = std::clamp<ct::index_t>(stop, lo, cols);
  // Both outputs cover cols x cols: more than either view, so padding shows where the views end.
  auto sliced = poisoned<T>({cols, cols}, dev), swapped = poisoned<T>({cols, cols}, dev);
  ct::launch(sub_views<T, S>{}, sliced.partition(S{}), swapped.partition(S{}), x, start, stop).wait();
  const std::size_t n = std::size_t(cols * cols);
  EXPECT_TRUE(all_same(sliced.to_host(), reference_of<T>(n, [&](std::size_t f) {
    const auto c = coords(f, {cols, cols});
    return c[1] < hi - lo ? at_or(vx, {rows, cols}, {c[0], lo + c[1]}, ct::convert<T>(-0.0)) : ct::convert<T>(-0.0);
  }), true)) << "in.slice(1, start, stop)";
  EXPECT_TRUE(all_same(swapped.to_host(), reference_of<T>(n, [&](std::size_t f) {
    const auto c = coords(f, {cols, cols});
    return at_or(vx, {rows, cols}, {c[1], c[0]}, T(0));
  }), true)) << "in.permuted(axes<1, 0>)";
}

TEST_P(memory_ops, slice_and_permuted_views) {
  check_sub_views<float, ct::shape<16, 16>>(dev(), 20, 37, 5, 30);
  check_sub_views<float, ct::shape<16, 16>>(dev(), 20, 37, -4, 1000);  // clamped to the tensor
  check_sub_views<std::int8_t, ct::shape<8, 128>>(dev(), 130, 140, 3, 131);
}

TEST_P(memory_ops, loads_through_a_transposed_tensor) {
  const auto base = ct::randn<float>({45, 31}, fresh_seed(), 1.0, dev());
  const auto x = base.transpose();  // 31 x 45, strides (1, 31)
  auto y = poisoned<float>({31, 45}, dev());
  ct::launch(copy_tiles<float, ct::shape<8, 16>>{}, y.partition(ct::shape<8, 16>{}), x).wait();
  EXPECT_TRUE(all_same(y.to_host(), x.to_host(), true));
}

template <class T, class S>
void check_clipped_store(const ct::device& dev, const ct::extents_t& extents) {
  SCOPED_TRACE((case_name<T, S>(extents)));
  const auto vx = memory_input<T>(element_count(extents));
  const auto x = tensor_of(vx, extents, dev);
  framed<T> y(extents, ct::extents_t(extents.size(), 3), dev);
  ct::launch(copy_tiles<T, S>{}, y.view.partition(S{}), x).wait();
  EXPECT_TRUE(all_same(y.whole.to_host(), y.expected([&](const auto& c) { return at_or(vx, extents, c, T(0)); }), true));
}

TEST_P(memory_ops, out_store_clips_at_the_view_edge) {
  check_clipped_store<float, ct::shape<16, 16>>(dev(), {31, 37});
  check_clipped_store<ct::f16, ct::shape<1, 8192>>(dev(), {2, 8197});
  check_clipped_store<std::int64_t, ct::shape<4>>(dev(), {7});
}

// Rows that start off a 16-byte boundary at every element offset (odd widths), read from a view
// that starts `skip` columns into its tensor and ends at that tensor's last element, written into
// a view inside a poisoned frame. With CTILE_STRADDLE_ROWS (the default), whole chunks of such rows go
// through the straddling loads and stores on the GPU (backend/straddle.hpp): the frame catches a
// store piece in the wrong place, compute-sanitizer a read past the tensor's end.
template <class T, class S>
void check_misaligned_rows(const ct::device& dev, ct::index_t rows, ct::index_t cols, ct::index_t skip) {
  SCOPED_TRACE(cat(case_name<T, S>({rows, cols}), " from column ", skip));
  const ct::extents_t source_extents = {rows, cols + skip};
  const auto vx = memory_input<T>(element_count(source_extents));
  const auto x = tensor_of(vx, source_extents, dev).slice(1, skip, cols + skip);
  framed<T> y({rows, cols}, {1, skip + 1}, dev);
  ct::launch(copy_tiles<T, S>{}, y.view.partition(S{}), x).wait();
  EXPECT_TRUE(all_same(y.whole.to_host(), y.expected([&](const auto& c) {
    return at_or(vx, source_extents, {c[0], c[1] + skip}, T(0));
  }), true));
}

TEST_P(memory_ops, rows_off_a_16_byte_boundary) {
  for (ct::index_t skip : {0, 1, 3}) check_misaligned_rows<ct::bf16, ct::shape<2, 1024>>(dev(), 9, 3001, skip);
  check_misaligned_rows<ct::f16, ct::shape<1, 2048>>(dev(), 17, 2047, 0);
  check_misaligned_rows<float, ct::shape<4, 256>>(dev(), 7, 1031, 0);
  check_misaligned_rows<float, ct::shape<4, 256>>(dev(), 5, 1029, 1);
  check_misaligned_rows<double, ct::shape<2, 64>>(dev(), 3, 129, 1);
  check_misaligned_rows<std::int8_t, ct::shape<2, 512>>(dev(), 19, 1001, 0);
  check_misaligned_rows<std::int8_t, ct::shape<2, 512>>(dev(), 3, 999, 2);
}

// Windows off the tile grid: each block loads the tile at its own origin shifted by `shift`
// (ct::load_from, element coordinates, negative ones included) and stores it shifted as much
// (out::store_shifted). Only the part of the window inside the block's own tile and inside the
// view may be written: columns of x at their own places there, the rest of the view and the
// frame around it poisoned. With AlignedWindow both spell ct::aligned_window, which must stay
// correct where the window is not on a 16-byte boundary after all (element by element there).
template <class T, class S, bool AlignedWindow>
struct shifted_copy {
  static constexpr const char* name = "ops_shifted_copy";
  CT_TILE void operator()(ct::out<T, S> y, ct::in<T, 2> x, ct::index_t row_shift, ct::index_t col_shift) const {
    ct::coord<2> at = y.origin();
    at[0] += row_shift;
    at[1] += col_shift;
    if constexpr (AlignedWindow)
      y.store_shifted({row_shift, col_shift}, ct::load_from(x, at, S{}, ct::pad::zero, ct::aligned_window),
                      ct::aligned_window);
    else
      y.store_shifted({row_shift, col_shift}, ct::load_from(x, at, S{}));
  }
};

template <class T, class S, bool AlignedWindow = false>
void check_shifted_windows(const ct::device& dev, const ct::extents_t& extents, ct::index_t row_shift,
                           ct::index_t col_shift, const ct::extents_t& frame = {2, 9}) {
  SCOPED_TRACE(cat(case_name<T, S>(extents), " shifted by ", row_shift, ", ", col_shift,
                   AlignedWindow ? " (ct::aligned_window)" : ""));
  const auto vx = memory_input<T>(element_count(extents));
  const auto x = tensor_of(vx, extents, dev);
  framed<T> y(extents, frame, dev);
  ct::launch(shifted_copy<T, S, AlignedWindow>{}, y.view.partition(S{}), x, row_shift, col_shift).wait();
  const auto in_window = [](ct::index_t c, ct::index_t d, ct::index_t shift) {
    const ct::index_t k = c % d;  // place in the block's own tile
    return shift >= 0 ? k >= shift : k < d + shift;
  };
  EXPECT_TRUE(all_same(y.whole.to_host(), y.expected([&](const auto& c) {
    const bool written = in_window(c[0], S::dim(0), row_shift) && in_window(c[1], S::dim(1), col_shift);
    return written ? at_or(vx, extents, c, T(0)) : poison_value<T>();
  }), true));
}

TEST_P(memory_ops, windows_off_the_tile_grid) {
  // A row of 8191 bf16 read from the 16-byte boundary before it, and from past its start.
  for (ct::index_t shift : {-7, -1, 0, 5})
    check_shifted_windows<ct::bf16, ct::shape<1, 8192>>(dev(), {9, 8191}, 0, shift);
  check_shifted_windows<float, ct::shape<4, 256>>(dev(), {9, 1000}, -1, 3);
  check_shifted_windows<float, ct::shape<4, 256>>(dev(), {9, 1000}, 2, -300);  // past the tile: nothing stored
  check_shifted_windows<std::int32_t, ct::shape<1, 8>>(dev(), {3, 37}, 0, -2);
  // ct::aligned_window: on the boundary (rows of 8192 in a frame that keeps them there), and off
  // it (the cases above).
  for (ct::index_t shift : {-8, 0, 16})
    check_shifted_windows<ct::bf16, ct::shape<1, 8192>, true>(dev(), {9, 8192}, 0, shift, {2, 0});
  for (ct::index_t shift : {-7, -1, 0, 5})
    check_shifted_windows<ct::bf16, ct::shape<1, 8192>, true>(dev(), {9, 8191}, 0, shift);
  check_shifted_windows<float, ct::shape<4, 256>, true>(dev(), {9, 1000}, -1, 3);
}

// Loads laid out as another tile (ct::layout_of): x's bf16 tile as f32 keeps 8-element chunks;
// a [1, N] row of f32 loaded laid out as it (a slice: each thread the columns of its own
// elements), and an f32 tile loaded laid out as it (wide chunks, two 16-byte pieces each), from
// rows off 16-byte boundaries with a partial tile; y = x * row + w, and the sums of the rows of
// each of w's tiles, whose padding (zero) outside the tensor must not count.
template <class S>
struct laid_out_loads {
  static constexpr const char* name = "ops_laid_out_loads";
  CT_TILE void operator()(ct::out<float, S> y, ct::out<float, ct::shape<S::dim(0), 1>> sums, ct::in<ct::bf16, 2> x,
                          ct::in<float, 2> row, ct::in<float, 2> w) const {
    const auto [i, j] = y.tile_index();
    const auto xf = ct::astype<float>(x.load_like(y));
    const auto r = ct::load(row, {0, j}, ct::shape<1, S::dim(1)>{}, ct::pad::nan, ct::layout_of(xf));
    const auto wf = w.tiled(S{}).load(i, j, ct::layout_of(xf));
    y.store(xf * r + wf);
    sums.store(ct::sum(wf, ct::axis<1>, ct::keepdims));
  }
};

template <class S>
void check_laid_out_loads(const ct::device& dev, ct::index_t rows, ct::index_t cols) {
  SCOPED_TRACE(cat(case_name<float, S>({rows, cols})));
  // Small integers: every product and sum is exact, fused or not.
  const auto ints = [](std::size_t n, int seed) {
    std::vector<float> v(n);
    for (std::size_t f = 0; f < n; ++f) v[f] = float(int((f * 7 + std::size_t(seed) * 13) % 17) - 8);
    return v;
  };
  const auto vx = ints(std::size_t(rows * cols), 1), vrow = ints(std::size_t(cols), 2);
  const auto vw = ints(std::size_t(rows * S::dim(1)), 3);  // w: one tile of columns
  std::vector<ct::bf16> vxb(vx.size());
  for (std::size_t f = 0; f < vx.size(); ++f) vxb[f] = ct::convert<ct::bf16>(vx[f]);
  const auto x = tensor_of(vxb, {rows, cols}, dev);
  const auto row = tensor_of(vrow, {1, cols}, dev);
  // w's rows start off 16-byte boundaries: a view one column into a wider tensor.
  std::vector<float> vw_wide(std::size_t(rows * (S::dim(1) + 1)), -1000.0f);
  for (ct::index_t r = 0; r < rows; ++r)
    for (ct::index_t c = 0; c < S::dim(1) - 3; ++c)
      vw_wide[std::size_t(r * (S::dim(1) + 1) + c + 1)] = vw[std::size_t(r * S::dim(1) + c)];
  const ct::index_t w_cols = S::dim(1) - 3;  // a partial tile: its last 3 columns are padding
  const auto w = tensor_of(vw_wide, {rows, S::dim(1) + 1}, dev).slice(1, 1, 1 + w_cols);
  framed<float> y({rows, cols}, {1, 3}, dev);
  const ct::index_t row_tiles = (rows + S::dim(0) - 1) / S::dim(0), col_tiles = (cols + S::dim(1) - 1) / S::dim(1);
  auto sums = poisoned<float>({row_tiles * S::dim(0), col_tiles}, dev);
  ct::launch(laid_out_loads<S>{}, y.view.partition(S{}), sums.partition(ct::shape<S::dim(0), 1>{}), x, row, w)
      .wait();
  EXPECT_TRUE(all_same(y.whole.to_host(), y.expected([&](const auto& c) {
    // w has one partial tile of columns; beyond it, padding (zero).
    const float wv = c[1] < w_cols ? vw[std::size_t(c[0] * S::dim(1) + c[1])] : 0.0f;
    return vx[std::size_t(c[0] * cols + c[1])] * vrow[std::size_t(c[1])] + wv;
  }))) << "x * row + w";
  EXPECT_TRUE(all_same(sums.to_host(), reference_of<float>(std::size_t(row_tiles * S::dim(0) * col_tiles), [&](std::size_t f) {
    const std::size_t r = f / std::size_t(col_tiles), j = f % std::size_t(col_tiles);
    float sum = 0.0f;
    for (ct::index_t c = 0; j == 0 && c < w_cols && ct::index_t(r) < rows; ++c) sum += vw[r * std::size_t(S::dim(1)) + std::size_t(c)];
    return sum;
  }))) << "row sums of w's tiles";
}

TEST_P(memory_ops, loads_laid_out_as_another_tile) {
  check_laid_out_loads<ct::shape<4, 256>>(dev(), 9, 515);
  check_laid_out_loads<ct::shape<16, 64>>(dev(), 37, 131);
}

// A slice whose collapsed dim is not a leading one: rows of a [rows, 1, N] table laid out as the
// [R, H, N] tile they multiply (RoPE's cos rows over its heads), from a first row that may lie
// before the table (those rows load as padding, zero). The rule that broadcast a row in
// registers had taken such a slice's chunk k mod 4 where it needed chunk k / H.
template <int R, int H, int N>
struct laid_out_middle_slice {
  static constexpr const char* name = "ops_laid_out_middle_slice";
  CT_TILE void operator()(ct::out<float, ct::shape<R, H, N>> y, ct::in<ct::bf16, 3> x, ct::in<float, 3> table,
                          ct::index_t first) const {
    const auto [i, unused_h, unused_n] = y.tile_index();
    (void)unused_h, (void)unused_n;
    const auto xf = ct::astype<float>(x.load_like(y));
    const auto rows = table.tiled(ct::shape<R, 1, N>{}, ct::pad::zero, ct::steps(1, 1, 1));  // from any row
    const auto t = rows.load(i * R + first, 0, 0, ct::layout_of(xf));
    y.store(xf * t);
  }
};

template <int R, int H, int N>
void check_laid_out_middle_slice(const ct::device& dev, ct::index_t rows, ct::index_t first) {
  SCOPED_TRACE(cat("[", R, ", ", H, ", ", N, "] tiles of ", rows, " rows, first table row ", first));
  const ct::index_t table_rows = rows + 2;
  std::vector<ct::bf16> vx(std::size_t(rows * H * N));
  std::vector<float> vx_f(vx.size()), vt(std::size_t(table_rows * N));
  for (std::size_t f = 0; f < vx.size(); ++f) vx[f] = ct::convert<ct::bf16>(vx_f[f] = float(int(f * 5 % 11) - 5));
  for (std::size_t f = 0; f < vt.size(); ++f) vt[f] = float(int(f * 3 % 13) - 6);
  const auto x = tensor_of(vx, {rows, H, N}, dev);
  const auto table = tensor_of(vt, {table_rows, 1, N}, dev);
  auto y = poisoned<float>({rows, H, N}, dev);
  ct::launch(laid_out_middle_slice<R, H, N>{}, y.partition(ct::shape<R, H, N>{}), x, table, first).wait();
  EXPECT_TRUE(all_same(y.to_host(), reference_of<float>(vx.size(), [&](std::size_t f) {
    const ct::index_t a = ct::index_t(f) / (H * N), n = ct::index_t(f) % N, row = a + first;
    const float t = row >= 0 && row < table_rows ? vt[std::size_t(row * N + n)] : 0.0f;
    return vx_f[f] * t;
  })));
}

TEST_P(memory_ops, loads_slices_with_a_middle_dim_of_one_laid_out_as_another_tile) {
  check_laid_out_middle_slice<4, 8, 64>(dev(), 10, 0);
  check_laid_out_middle_slice<4, 8, 64>(dev(), 10, -3);
  check_laid_out_middle_slice<8, 4, 64>(dev(), 9, 2);
  check_laid_out_middle_slice<4, 2, 4>(dev(), 6, 1);
}

template <class T, class S>
void check_mirrored_store(const ct::device& dev, const ct::extents_t& extents) {
  SCOPED_TRACE((case_name<T, S>(extents)));
  const auto vx = memory_input<T>(element_count(extents));
  const auto x = tensor_of(vx, extents, dev);
  framed<T> dst(extents, {2, 5}, dev);
  const ct::index_t gm = (extents[0] + S::dim(0) - 1) / S::dim(0), gn = (extents[1] + S::dim(1) - 1) / S::dim(1);
  ct::launch(ct::grid(gm, gn), mirrored_store<T, S>{}, ct::unsafe::shared(dst.view), x).wait();
  EXPECT_TRUE(all_same(dst.whole.to_host(), dst.expected([&](const auto& c) {
    // dst tile (p, q) came from x's tile (gm - 1 - p, gn - 1 - q), zero padded.
    const ct::index_t p = c[0] / S::dim(0), q = c[1] / S::dim(1);
    return at_or(vx, extents, {(gm - 1 - p) * S::dim(0) + c[0] % S::dim(0), (gn - 1 - q) * S::dim(1) + c[1] % S::dim(1)},
                 T(0));
  }), true));
}

TEST_P(memory_ops, store_to_another_blocks_tile_through_unsafe_global) {
  check_mirrored_store<float, ct::shape<2, 2>>(dev(), {5, 7});
  check_mirrored_store<ct::bf16, ct::shape<32, 256>>(dev(), {70, 300});
}

CT_INSTANTIATE_ON_DEVICES(memory_ops);

}  // namespace
