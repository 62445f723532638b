// ct::mma and ct::matmul for every operand -> accumulator pair cuTile allows: f16 -> f16 / f32,
// bf16 -> f32, f32 -> f32, f64 -> f64, tf32 -> f32 (f32 data converted in the kernel with
// ct::astype<ct::tf32>), e4m3 / e5m2 -> f16 / f32, int8 / uint8 -> int32; rank 2 with a loop
// over K tiles (ragged M, N and K: the zero padding must not contribute), and batched rank 3
// with a batch extent of 1 that broadcasts. Inputs are small multiples of 1/4 (exact products
// and sums), so results must equal the host's exact sums rounded to the accumulator type after
// each mma (each call rounds its result once); f32 and tf32 get random data and a bound of a few
// roundings times sum |a_ik * b_kj|, which would not hold if f32 were silently run as tf32, or
// tf32 data were not rounded to tf32. ct::matmul of the first K tile is checked too, in the type
// ct::matmul returns.
#include "ops/ops_util.hpp"

namespace {
using namespace ct_test;

// x as an mma operand of type In (converted in the kernel when the tensor holds another type).
template <class In, class T, class S, class P>
CT_HD auto operand(const ct::tile<T, S, P>& x) {
  if constexpr (std::is_same_v<In, T>) return x;
  else return ct::astype<In>(x);
}

template <class In, int M, int N, int K>
using matmul_t = typename decltype(ct::matmul(std::declval<ct::tile<In, ct::shape<M, K>>>(),
                                              std::declval<ct::tile<In, ct::shape<K, N>>>()))::element_type;

template <class Load, class In, class Acc, int M, int N, int K>
struct mma_2d {
  static constexpr const char* name = "ops_mma_2d";
  using S = ct::shape<M, N>;
  CT_TILE void operator()(ct::out<Acc, S> d, ct::out<matmul_t<In, M, N, K>, S> product, ct::in<Load, 2> a,
                          ct::in<Load, 2> b, ct::in<Acc, 2> c) const {
    const auto [i, j] = d.tile_index();
    const auto ta = a.tiled(ct::shape<M, K>{});
    const auto tb = b.tiled(ct::shape<K, N>{});
    auto acc = c.load_like(d);
    for (ct::index_t k = 0; k < ct::num_tiles(ta, 1); ++k)
      acc = ct::mma(operand<In>(ta.load(i, k)), operand<In>(tb.load(k, j)), acc);
    d.store(acc);
    product.store(ct::matmul(operand<In>(ta.load(i, 0)), operand<In>(tb.load(0, j))));
  }
};

// Batched: a is [BA, M, K] and b [BB, K, N] per tile, BA and BB each B or 1 (broadcast).
template <class In, class Acc, int B, int BA, int BB, int M, int N, int K>
struct mma_3d {
  static constexpr const char* name = "ops_mma_3d";
  using S = ct::shape<B, M, N>;
  CT_TILE void operator()(ct::out<Acc, S> d, ct::out<matmul_t<In, M, N, K>, S> product, ct::in<In, 3> a,
                          ct::in<In, 3> b, ct::in<Acc, 3> c) const {
    const auto [z, i, j] = d.tile_index();
    const auto ta = a.tiled(ct::shape<BA, M, K>{});
    const auto tb = b.tiled(ct::shape<BB, K, N>{});
    auto acc = c.load_like(d);
    for (ct::index_t k = 0; k < ct::num_tiles(ta, 2); ++k) acc = ct::mma(ta.load(z, i, k), tb.load(z, k, j), acc);
    d.store(acc);
    product.store(ct::matmul(ta.load(z, i, 0), tb.load(z, 0, j)));  // a batch extent of 1 broadcasts here too
  }
};

struct mma_ops : on_device {};

// Values k/4 for |k| <= 12 (integers: arbitrary values of the type), as T; or, with `random`,
// normal values of full precision.
template <class T>
std::vector<T> mma_input(std::size_t n, bool random) {
  if constexpr (is_int_v<T>) return random_ints<T>(n, true);
  auto gen = rng();
  std::normal_distribution<double> normal;
  std::vector<T> v(n);
  for (auto& x : v) x = ct::convert<T>(random ? normal(gen) : double(int(gen() % 25) - 12) / 4);
  return v;
}

// tf32 rounding as the GPU's cvt.rna.tf32.f32: 11 significant bits, ties away from zero.
double round_tf32(double x) {
  if (x == 0 || !std::isfinite(x)) return x;
  const double ulp = std::ldexp(1.0, std::ilogb(x) - 10);
  return std::copysign(std::floor(std::fabs(x) / ulp + 0.5) * ulp, x);
}

// A batch of matrices on the host: element (z, r, c) of [batch, rows, cols], zero outside.
struct host_batch {
  std::vector<double> v;
  ct::index_t batch, rows, cols;
  double at(ct::index_t z, ct::index_t r, ct::index_t c) const {
    if (batch == 1) z = 0;  // broadcast
    return r < rows && c < cols ? v[std::size_t((z * rows + r) * cols + c)] : 0.0;
  }
};

// d = c + a @ b, k tile by k tile, rounded by `round` after each tile (as each ct::mma returns
// its accumulator type); `bound` gets `ulps` roundings of u times sum |a * b| + |c|.
template <class Round>
std::vector<double> reference_mma(const host_batch& a, const host_batch& b, const host_batch& c, ct::index_t kt,
                                  Round round, double u, std::vector<double>* bound, ct::index_t k_limit) {
  std::vector<double> d;
  const ct::index_t batch = c.batch, k_total = std::min(a.cols, k_limit);
  for (ct::index_t z = 0; z < batch; ++z)
    for (ct::index_t r = 0; r < c.rows; ++r)
      for (ct::index_t col = 0; col < c.cols; ++col) {
        double acc = c.at(z, r, col), magnitude = std::fabs(acc);
        for (ct::index_t k0 = 0; k0 < k_total; k0 += kt) {
          for (ct::index_t k = k0; k < std::min(k0 + kt, k_total); ++k) {
            acc += a.at(z, r, k) * b.at(z, k, col);
            magnitude += std::fabs(a.at(z, r, k) * b.at(z, k, col));
          }
          acc = round(acc);
        }
        d.push_back(acc);
        if (bound) bound->push_back(double(k_total + 2) * u * magnitude);
      }
  return d;
}

// The rounding a result of type T gets: to nearest for floats (none for f64), wrapping for ints.
template <class T>
double round_as(double x) {
  if constexpr (is_int_v<T>) return double(wrap<T>(std::uint64_t(std::int64_t(x))));
  else return rounded<T>(x);
}

template <class Load, class In>
host_batch host_operand(const std::vector<Load>& v, ct::index_t batch, ct::index_t rows, ct::index_t cols) {
  host_batch h{{}, batch, rows, cols};
  for (const Load x : v) h.v.push_back(std::is_same_v<In, ct::tf32> ? round_tf32(to_f64(x)) : to_f64(ct::convert<In>(x)));
  return h;
}

// Runs the kernel on [batch, m, k] x [batch, k, n] (batch extents ba / bb may be 1) and checks
// both outputs. `random` data gets a rounding bound, grid data must be exact.
template <class Load, class In, class Acc, class MM, class Launch>
void check_products(const ct::device& dev, ct::index_t batch, ct::index_t ba, ct::index_t bb, ct::index_t m,
                    ct::index_t n, ct::index_t k, ct::index_t kt, bool random, Launch launch) {
  const auto va = mma_input<Load>(std::size_t(ba * m * k), random), vb = mma_input<Load>(std::size_t(bb * k * n), random);
  const auto vc = mma_input<Acc>(std::size_t(batch * m * n), false);
  const bool rank3 = batch > 1 || ba > 1;
  const auto ext = [&](ct::index_t z, ct::index_t r, ct::index_t c) {
    return rank3 ? ct::extents_t{z, r, c} : ct::extents_t{r, c};
  };
  const auto a = tensor_of(va, ext(ba, m, k), dev), b = tensor_of(vb, ext(bb, k, n), dev);
  const auto c = tensor_of(vc, ext(batch, m, n), dev);
  auto d = poisoned<Acc>(ext(batch, m, n), dev);
  auto product = poisoned<MM>(ext(batch, m, n), dev);
  launch(d, product, a, b, c);

  const auto ha = host_operand<Load, In>(va, ba, m, k), hb = host_operand<Load, In>(vb, bb, k, n);
  const auto hc = host_operand<Acc, Acc>(vc, batch, m, n);
  const double u = random ? unit_roundoff<float>() : 0.0;  // random data is f32 or tf32 into f32
  std::vector<double> bound, product_bound;
  const auto want = reference_mma(ha, hb, hc, kt, round_as<Acc>, u, &bound, k);
  const host_batch no_c{std::vector<double>(hc.v.size(), 0.0), batch, m, n};
  const auto want_product = reference_mma(ha, hb, no_c, kt, round_as<MM>, u, &product_bound, kt);
  EXPECT_TRUE(all_within(host_f64(d), want, bound)) << "ct::mma over all K tiles";
  EXPECT_TRUE(all_within(host_f64(product), want_product, product_bound)) << "ct::matmul of the first K tile";
}

template <class Load, class In, class Acc, int M, int N, int K>
void check_mma_2d(const ct::device& dev, ct::index_t m, ct::index_t n, ct::index_t k, bool random = false) {
  SCOPED_TRACE(cat(ct::dtype_name<In>(), " -> ", ct::dtype_name<Acc>(), " tile ", M, "x", N, "x", K, ", problem ", m, "x",
                   n, "x", k));
  using kernel = mma_2d<Load, In, Acc, M, N, K>;
  using MM = matmul_t<In, M, N, K>;
  check_products<Load, In, Acc, MM>(dev, 1, 1, 1, m, n, k, K, random, [](auto& d, auto& product, auto& a, auto& b, auto& c) {
    ct::launch(kernel{}, d.partition(ct::shape<M, N>{}), product.partition(ct::shape<M, N>{}), a, b, c).wait();
  });
}

template <class In, class Acc, int B, int BA, int BB, int M, int N, int K>
void check_mma_3d(const ct::device& dev, ct::index_t m, ct::index_t n, ct::index_t k) {
  SCOPED_TRACE(cat(ct::dtype_name<In>(), " -> ", ct::dtype_name<Acc>(), " batch ", B, " (a ", BA, ", b ", BB, ") tile ", M,
                   "x", N, "x", K, ", problem ", m, "x", n, "x", k));
  using kernel = mma_3d<In, Acc, B, BA, BB, M, N, K>;
  using MM = matmul_t<In, M, N, K>;
  check_products<In, In, Acc, MM>(dev, B, BA, BB, m, n, k, K, false, [](auto& d, auto& product, auto& a, auto& b, auto& c) {
    ct::launch(kernel{}, d.partition(ct::shape<B, M, N>{}), product.partition(ct::shape<B, M, N>{}), a, b, c).wait();
  });
}

TEST_P(mma_ops, f16_to_f16) { check_mma_2d<ct::f16, ct::f16, ct::f16, 16, 16, 16>(dev(), 37, 41, 50); }
TEST_P(mma_ops, f16_to_f32_batched_b_broadcast) { check_mma_3d<ct::f16, float, 2, 2, 1, 16, 16, 16>(dev(), 20, 17, 40); }
TEST_P(mma_ops, bf16_to_f32) { check_mma_2d<ct::bf16, ct::bf16, float, 64, 64, 32>(dev(), 70, 65, 70); }
// On sm_80 and up these run on the tensor cores (backend/sm80/mma_tile.hpp), as bf16_to_f32
// does: an f16 tile of two fragments a warp, and a 64 x 128 x 64 tile staged in two K slices
// whose products leave in two rounds of rows.
TEST_P(mma_ops, f16_to_f32_tensor_core_fragments) { check_mma_2d<ct::f16, ct::f16, float, 32, 32, 32>(dev(), 45, 37, 70); }
TEST_P(mma_ops, bf16_to_f32_wide_tile) { check_mma_2d<ct::bf16, ct::bf16, float, 64, 128, 64>(dev(), 150, 131, 140); }
TEST_P(mma_ops, f32_to_f32_full_precision) { check_mma_2d<float, float, float, 8, 8, 8>(dev(), 19, 13, 29, true); }
TEST_P(mma_ops, f64_to_f64) { check_mma_2d<double, double, double, 4, 4, 8>(dev(), 7, 9, 19); }
TEST_P(mma_ops, tf32_to_f32_from_f32_data) { check_mma_2d<float, ct::tf32, float, 32, 32, 16>(dev(), 33, 40, 37, true); }
TEST_P(mma_ops, e4m3_to_f16) { check_mma_2d<ct::e4m3, ct::e4m3, ct::f16, 16, 16, 32>(dev(), 31, 17, 70); }
TEST_P(mma_ops, e4m3_to_f32_batched) { check_mma_3d<ct::e4m3, float, 2, 2, 2, 8, 8, 16>(dev(), 9, 15, 33); }
TEST_P(mma_ops, e5m2_to_f16) { check_mma_2d<ct::e5m2, ct::e5m2, ct::f16, 8, 16, 16>(dev(), 17, 31, 20); }
TEST_P(mma_ops, e5m2_to_f32) { check_mma_2d<ct::e5m2, ct::e5m2, float, 16, 16, 16>(dev(), 16, 16, 16); }
TEST_P(mma_ops, int8_to_int32) { check_mma_2d<std::int8_t, std::int8_t, std::int32_t, 32, 32, 64>(dev(), 40, 33, 130); }
TEST_P(mma_ops, uint8_to_int32_batched_a_broadcast) {
  check_mma_3d<std::uint8_t, std::int32_t, 2, 1, 2, 4, 4, 8>(dev(), 5, 7, 17);
}

CT_INSTANTIATE_ON_DEVICES(mma_ops);

}  // namespace
