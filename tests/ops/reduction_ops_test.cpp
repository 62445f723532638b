// Reductions of one tile along one axis: ct::sum, ct::prod, ct::max, ct::min, ct::argmax,
// ct::argmin and a custom ct::reduce, along axis 0 and axis 1 of rank-2 tiles, the only axis of
// rank-1 tiles and the middle or first axis of rank-3 tiles, with and without ct::keepdims, for
// every arithmetic element type, on tiles of each GPU layout regime (replicated, a row per
// lane group, a row across warps, a row across the whole block). The reduced axis of the tensor
// is at most one tile long, so zero padding takes part where it is shorter; the other axes are
// ragged. Inputs are powers of two (sums and products exact in any order) with many ties, so
// results must match exactly; float inputs carry lines that are all NaN, half NaN and NaN first:
// max / min / argmax / argmin ignore NaN unless every value is NaN, argmax / argmin return the
// lowest index among ties.
#include "ops/ops_util.hpp"

namespace {
using namespace ct_test;

// A custom reduction (commutative and associative): xor for integers, the largest magnitude for
// floats (computed in f32).
struct xor_op {
  template <class T>
  CT_HD T operator()(T a, T b) const { return T(a ^ b); }
};
struct max_magnitude_op {
  CT_HD float operator()(float a, float b) const { return std::fmax(std::fabs(a), std::fabs(b)); }
};

template <class T, class S, int Axis, class... Keep>
struct reductions {
  static constexpr const char* name = "ops_reductions";
  static constexpr int R = S::rank;
  static constexpr bool keep = sizeof...(Keep) == 1;
  using RS = typename decltype(ct::sum(std::declval<ct::tile<T, S>>(), ct::axis<Axis>, Keep{}...))::shape_type;
  using value_out = ct::out<T, RS>;
  using index_out = ct::out<std::int32_t, RS>;
  CT_TILE void operator()(value_out sum, value_out prod, value_out max, value_out min, index_out argmax,
                          index_out argmin, value_out custom, ct::in<T, R> x) const {
    // This block's input tile: 0 along Axis, the output's tile index along the other axes.
    const auto out_index = sum.tile_index();
    ct::coord<R> idx;
    for (int i = 0, j = 0; i < R; ++i) {
      idx[i] = i == Axis ? 0 : out_index[j];
      j += i != Axis || keep;
    }
    const auto t = ct::load(x, idx, S{});
    sum.store(ct::sum(t, ct::axis<Axis>, Keep{}...));
    prod.store(ct::prod(t, ct::axis<Axis>, Keep{}...));
    max.store(ct::max(t, ct::axis<Axis>, Keep{}...));
    min.store(ct::min(t, ct::axis<Axis>, Keep{}...));
    argmax.store(ct::argmax(t, ct::axis<Axis>, Keep{}...));
    argmin.store(ct::argmin(t, ct::axis<Axis>, Keep{}...));
    if constexpr (ct::is_floating_v<T>)
      custom.store(ct::astype<T>(ct::reduce(ct::astype<float>(t), ct::axis<Axis>, 0.0f, max_magnitude_op{}, Keep{}...)));
    else
      custom.store(ct::reduce(t, ct::axis<Axis>, 0, xor_op{}, Keep{}...));
  }
};

struct reduction_ops : on_device {};

// The references for one line (its values, then the padding zeros of the tile).
template <class T>
struct line_reference {
  std::vector<T> values;
  bool has_nan() const {
    return std::any_of(values.begin(), values.end(), [](T x) { return std::isnan(to_f64(x)); });
  }
  T sum() const {
    if constexpr (is_int_v<T>) {
      T s = 0;
      for (T x : values) s = wrapping_add(s, x);
      return s;
    } else {
      double s = 0;
      for (T x : values) s += to_f64(x);
      return ct::convert<T>(rounded<T>(s));
    }
  }
  T prod() const {
    if constexpr (is_int_v<T>) {
      T p = 1;
      for (T x : values) p = wrapping_mul(p, x);
      return p;
    } else {
      double p = 1;
      for (T x : values) p *= to_f64(x);
      return ct::convert<T>(rounded<T>(p));
    }
  }
  // Index of the first greatest (Max) or least value, NaN ignored unless all are NaN.
  template <bool Max>
  std::int32_t arg() const {
    std::int32_t best = -1;
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (is_nan(values[i])) continue;
      if (best < 0 || (Max ? less(values[std::size_t(best)], values[i]) : less(values[i], values[std::size_t(best)])))
        best = std::int32_t(i);
    }
    return best < 0 ? 0 : best;
  }
  T custom() const {
    if constexpr (is_int_v<T>) {
      T r = 0;
      for (T x : values) r = T(r ^ x);
      return r;
    } else {
      double m = 0;
      for (T x : values) m = std::max(m, std::fabs(to_f64(x)));
      return ct::convert<T>(m);
    }
  }
  static bool is_nan(T x) {
    if constexpr (is_int_v<T>) return false;
    else return std::isnan(to_f64(x));
  }
  static bool less(T a, T b) {
    if constexpr (is_int_v<T>) return a < b;
    else return to_f64(a) < to_f64(b);
  }
};

// Reduces tensors of `extents` (extent along Axis at most the tile's) tile by tile.
template <class T, class S, int Axis, bool Keep>
void check_reduce(const ct::device& dev, const ct::extents_t& extents) {
  SCOPED_TRACE(cat(case_name<T, S>(extents), " axis ", Axis, Keep ? " keepdims" : ""));
  ASSERT_LE(extents[Axis], S::dim(Axis)) << "the test reduces one tile per line";
  using kernel = std::conditional_t<Keep, reductions<T, S, Axis, ct::keepdims_t>, reductions<T, S, Axis>>;
  using RS = typename kernel::RS;
  const std::size_t n = element_count(extents);
  auto vx = powers_of_two<T>(n);
  const auto lines = lines_along(extents, Axis);
  if constexpr (ct::is_floating_v<T>) {
    // Line 0 all NaN, line 1 NaN at even positions, line 2 NaN first (where they exist).
    for (std::size_t l = 0; l < lines.size() && l < 3; ++l)
      for (std::size_t j = 0; j < lines[l].size(); ++j)
        if (l == 0 || (l == 1 && j % 2 == 0) || (l == 2 && j == 0)) vx[lines[l][j]] = ct::convert<T>(NAN);
  }
  const auto x = tensor_of(vx, extents, dev);
  ct::extents_t out_extents;
  for (int i = 0; i < int(extents.size()); ++i)
    if (i != Axis) out_extents.push_back(extents[std::size_t(i)]);
    else if (Keep) out_extents.push_back(1);

  std::vector<ct::tensor<T>> r;
  for (int i = 0; i < 5; ++i) r.push_back(poisoned<T>(out_extents, dev));
  auto argmax = poisoned<std::int32_t>(out_extents, dev), argmin = poisoned<std::int32_t>(out_extents, dev);
  ct::launch(kernel{}, r[0].partition(RS{}), r[1].partition(RS{}), r[2].partition(RS{}), r[3].partition(RS{}),
             argmax.partition(RS{}), argmin.partition(RS{}), r[4].partition(RS{}), x)
      .wait();

  std::vector<line_reference<T>> ref;
  for (const auto& line : lines) {
    line_reference<T> l;
    for (std::size_t i : line) l.values.push_back(vx[i]);
    l.values.resize(std::size_t(S::dim(Axis)), T(0));  // the tile's padding
    ref.push_back(l);
  }
  const std::size_t m = ref.size();
  const auto at = [&](auto f) { return [&ref, f](std::size_t i) { return f(ref[i]); }; };
  EXPECT_TRUE(all_same(r[0].to_host(), reference_of<T>(m, at([](const auto& l) { return l.sum(); })))) << "sum";
  EXPECT_TRUE(all_same(r[1].to_host(), reference_of<T>(m, at([](const auto& l) { return l.prod(); })))) << "prod";
  const auto value_at = [&](std::size_t line, std::int32_t j) { return ref[line].values[std::size_t(j)]; };
  EXPECT_TRUE(all_same(r[2].to_host(), reference_of<T>(m, [&](std::size_t i) { return value_at(i, ref[i].template arg<true>()); }))) << "max";
  EXPECT_TRUE(all_same(r[3].to_host(), reference_of<T>(m, [&](std::size_t i) { return value_at(i, ref[i].template arg<false>()); }))) << "min";
  EXPECT_TRUE(all_same(argmax.to_host(), reference_of<std::int32_t>(m, at([](const auto& l) { return l.template arg<true>(); })))) << "argmax";
  EXPECT_TRUE(all_same(argmin.to_host(), reference_of<std::int32_t>(m, at([](const auto& l) { return l.template arg<false>(); })))) << "argmin";
  // The custom op's identity (0) is not neutral for NaN, so lines holding NaN are left out.
  auto custom = r[4].to_host();
  auto custom_ref = reference_of<T>(m, at([](const auto& l) { return l.custom(); }));
  for (std::size_t i = 0; i < m; ++i)
    if (ref[i].has_nan()) custom[i] = custom_ref[i] = T(0);
  EXPECT_TRUE(all_same(custom, custom_ref)) << "custom ct::reduce";
}

// Tile shapes: replicated (shape<1>, shape<4>, shape<2,2>), rows within a lane group
// (shape<16,16>, shape<8,128>), rows across warps (shape<32,256>), a row across the whole
// block (shape<1,8192>), and axis-0 reductions through shared memory in several rounds
// (shape<64,128>, and shape<64,256> past the duplicate-line search).
TEST_P(reduction_ops, f32_axis1) {
  check_reduce<float, ct::shape<16, 16>, 1, true>(dev(), {31, 16});
  check_reduce<float, ct::shape<16, 16>, 1, true>(dev(), {5, 13});
  check_reduce<float, ct::shape<1, 8192>, 1, false>(dev(), {3, 8192});
  check_reduce<float, ct::shape<1, 8192>, 1, false>(dev(), {4, 8000});
}
TEST_P(reduction_ops, f32_axis0) {
  check_reduce<float, ct::shape<64, 128>, 0, true>(dev(), {64, 257});
  check_reduce<float, ct::shape<64, 128>, 0, true>(dev(), {50, 130});
  // 128 slots a thread on the GPU: past the duplicate-line search (it made nvcc give up on this
  // tile's constant evaluation), so every slot is reduced.
  check_reduce<float, ct::shape<64, 256>, 0, true>(dev(), {50, 257});
}
TEST_P(reduction_ops, f32_rank3_middle_axis) { check_reduce<float, ct::shape<4, 8, 16>, 1, false>(dev(), {5, 8, 17}); }
TEST_P(reduction_ops, int32_rank3_first_axis) {
  check_reduce<std::int32_t, ct::shape<2, 4, 8>, 0, true>(dev(), {2, 5, 9});
}
TEST_P(reduction_ops, f64) { check_reduce<double, ct::shape<8, 128>, 0, false>(dev(), {8, 257}); }
TEST_P(reduction_ops, f16) { check_reduce<ct::f16, ct::shape<32, 256>, 1, false>(dev(), {37, 256}); }
TEST_P(reduction_ops, bf16) { check_reduce<ct::bf16, ct::shape<2, 2>, 0, true>(dev(), {2, 5}); }
TEST_P(reduction_ops, int8) { check_reduce<std::int8_t, ct::shape<16, 16>, 1, false>(dev(), {31, 16}); }
TEST_P(reduction_ops, int16) {
  check_reduce<std::int16_t, ct::shape<4>, 0, true>(dev(), {4});
  check_reduce<std::int16_t, ct::shape<4>, 0, true>(dev(), {1});
}
TEST_P(reduction_ops, int32) { check_reduce<std::int32_t, ct::shape<32, 256>, 1, true>(dev(), {37, 256}); }
TEST_P(reduction_ops, int64) { check_reduce<std::int64_t, ct::shape<2, 2>, 1, false>(dev(), {5, 2}); }
TEST_P(reduction_ops, uint8) { check_reduce<std::uint8_t, ct::shape<8, 128>, 0, true>(dev(), {8, 257}); }
TEST_P(reduction_ops, uint16) { check_reduce<std::uint16_t, ct::shape<16, 16>, 0, false>(dev(), {16, 31}); }
TEST_P(reduction_ops, uint32) { check_reduce<std::uint32_t, ct::shape<1>, 0, true>(dev(), {1}); }
TEST_P(reduction_ops, uint64) { check_reduce<std::uint64_t, ct::shape<8, 128>, 1, true>(dev(), {17, 128}); }

CT_INSTANTIATE_ON_DEVICES(reduction_ops);

}  // namespace
