// Inclusive scans of one tile along one axis: ct::cumsum forward and with ct::reverse,
// ct::cumprod, and a custom ct::scan (a running maximum) in reverse, along axis 1 and axis 0 of
// rank-2 tiles, the only axis of rank-1 tiles and the middle axis of a rank-3 tile, for every
// arithmetic element type, on tiles of each GPU layout regime (replicated, a row per lane
// group, a row across warps, a row across the whole block). Each block scans its own tile of a
// ragged tensor, so the zero padding of a partial tile takes part (it comes first in a reverse
// scan). Inputs are powers of two, so sums and products are exact in any order and results must
// match the host reference exactly (halves accumulate in f32 and round each result once).
#include "ops/ops_util.hpp"

namespace {
using namespace ct_test;

struct max_op {
  template <class T>
  CT_HD T operator()(T a, T b) const { return a > b ? a : b; }
};

template <class T, class S, int Axis>
struct scans {
  static constexpr const char* name = "ops_scans";
  using tile_out = ct::out<T, S>;
  CT_TILE void operator()(tile_out cumsum, tile_out cumsum_reverse, tile_out cumprod, tile_out running_max_reverse,
                          ct::in<T, S::rank> x) const {
    const auto t = x.load_like(cumsum);
    cumsum.store(ct::cumsum(t, ct::axis<Axis>));
    cumsum_reverse.store(ct::cumsum(t, ct::axis<Axis>, ct::reverse));
    cumprod.store(ct::cumprod(t, ct::axis<Axis>));
    if constexpr (ct::is_floating_v<T>) {
      const auto m = ct::scan(ct::astype<float>(t), ct::axis<Axis>, -INFINITY, max_op{}, ct::reverse);
      running_max_reverse.store(ct::astype<T>(m));
    } else {
      running_max_reverse.store(ct::scan(t, ct::axis<Axis>, std::numeric_limits<T>::lowest(), max_op{}, ct::reverse));
    }
  }
};

struct scan_ops : on_device {};

// The reference's arithmetic: wrapping in T for integers, exact in double for these floats.
struct add_ref {
  template <class A>
  A operator()(A a, A b) const {
    if constexpr (is_int_v<A>) return wrapping_add(a, b);
    else return a + b;
  }
};
struct mul_ref {
  template <class A>
  A operator()(A a, A b) const {
    if constexpr (is_int_v<A>) return wrapping_mul(a, b);
    else return a * b;
  }
};

// The inclusive scan of one padded piece of a line under `op`, each result rounded to T once.
template <class T, class Op>
std::vector<T> scan_piece(const std::vector<T>& v, Op op, bool reverse) {
  using A = std::conditional_t<is_int_v<T>, T, double>;
  std::vector<T> r(v.size());
  A acc{};
  for (std::size_t k = 0; k < v.size(); ++k) {
    const std::size_t i = reverse ? v.size() - 1 - k : k;
    A x;
    if constexpr (is_int_v<T>) x = v[i];
    else x = to_f64(v[i]);
    acc = k == 0 ? x : op(acc, x);
    if constexpr (is_int_v<T>) r[i] = acc;
    else r[i] = ct::convert<T>(rounded<T>(acc));
  }
  return r;
}

template <class T, class S, int Axis>
void check_scan(const ct::device& dev, const ct::extents_t& extents) {
  SCOPED_TRACE(cat(case_name<T, S>(extents), " axis ", Axis));
  const std::size_t n = element_count(extents);
  const auto vx = powers_of_two<T>(n);
  const auto x = tensor_of(vx, extents, dev);
  std::vector<ct::tensor<T>> r;
  for (int i = 0; i < 4; ++i) r.push_back(poisoned<T>(extents, dev));
  ct::launch(scans<T, S, Axis>{}, r[0].partition(S{}), r[1].partition(S{}), r[2].partition(S{}), r[3].partition(S{}), x)
      .wait();

  // Each line, cut into the tile's pieces along Axis, the last one padded with zeros.
  std::vector<std::vector<T>> want(4, std::vector<T>(n));
  constexpr std::size_t d = std::size_t(S::dim(Axis));
  const auto max = [](auto a, auto b) { return a > b ? a : b; };
  for (const auto& line : lines_along(extents, Axis)) {
    for (std::size_t start = 0; start < line.size(); start += d) {
      std::vector<T> piece(d, T(0));
      for (std::size_t k = 0; k < d && start + k < line.size(); ++k) piece[k] = vx[line[start + k]];
      const std::vector<T> scanned[] = {scan_piece(piece, add_ref{}, false), scan_piece(piece, add_ref{}, true),
                                        scan_piece(piece, mul_ref{}, false), scan_piece(piece, max, true)};
      for (std::size_t o = 0; o < 4; ++o)
        for (std::size_t k = 0; k < d && start + k < line.size(); ++k) want[o][line[start + k]] = scanned[o][k];
    }
  }
  const char* what[] = {"cumsum", "cumsum reverse", "cumprod", "running max (custom scan) reverse"};
  for (int o = 0; o < 4; ++o) EXPECT_TRUE(all_same(r[std::size_t(o)].to_host(), want[std::size_t(o)])) << what[o];
}

template <class T, class S, int Axis>
void check_scan(const ct::device& dev) {
  check_scan<T, S, Axis>(dev, ragged_extents<S>());
}

TEST_P(scan_ops, f32) {
  check_scan<float, ct::shape<16, 16>, 1>(dev());
  check_scan<float, ct::shape<1, 8192>, 1>(dev(), {3, 8197});
  check_scan<float, ct::shape<64, 128>, 0>(dev());
}
TEST_P(scan_ops, f32_rank3_middle_axis) { check_scan<float, ct::shape<2, 4, 8>, 1>(dev(), {3, 7, 9}); }
TEST_P(scan_ops, f64) { check_scan<double, ct::shape<2, 2>, 0>(dev()); }
TEST_P(scan_ops, f16) { check_scan<ct::f16, ct::shape<8, 128>, 1>(dev()); }
TEST_P(scan_ops, bf16) { check_scan<ct::bf16, ct::shape<32, 256>, 1>(dev()); }
TEST_P(scan_ops, int8) { check_scan<std::int8_t, ct::shape<4>, 0>(dev()); }
TEST_P(scan_ops, int16) { check_scan<std::int16_t, ct::shape<16, 16>, 0>(dev()); }
TEST_P(scan_ops, int32) { check_scan<std::int32_t, ct::shape<8, 128>, 0>(dev()); }
TEST_P(scan_ops, int64) { check_scan<std::int64_t, ct::shape<1>, 0>(dev(), {1}); }
TEST_P(scan_ops, uint8) { check_scan<std::uint8_t, ct::shape<2, 2>, 1>(dev()); }
TEST_P(scan_ops, uint16) { check_scan<std::uint16_t, ct::shape<16, 16>, 1>(dev()); }
TEST_P(scan_ops, uint32) { check_scan<std::uint32_t, ct::shape<8, 128>, 1>(dev()); }
TEST_P(scan_ops, uint64) { check_scan<std::uint64_t, ct::shape<2, 2>, 0>(dev()); }

CT_INSTANTIATE_ON_DEVICES(scan_ops);

}  // namespace
