// The CPU backend and the GPU agree, op family by op family, within the numeric contract of
// docs/numerics.md: one representative kernel per family runs on both devices with the same
// inputs. Bitwise for integer ops, data movement, conversions and the exactly rounded float ops
// (+ * maximum where, astype, sqrt); within each function's documented ulps (CUDA's plus the host
// library's) for transcendentals; within a few roundings times sum |x| (or sum |a * b|) for sums,
// scans and mma, whose order of accumulation differs. Only the nvcc build has GPU code, so the
// host build reports these tests as skipped.
#include "ops/ops_util.hpp"

namespace {
using namespace ct_test;

#if defined(__CUDACC__)

struct cpu_gpu_agreement : ::testing::Test {
  void SetUp() override {
    if (ct::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA GPU: agreement needs both devices";
    gpu = ct::device::cuda(0);  // here, not in a member initialiser: without a GPU that throws
  }
  const ct::device cpu = ct::device::cpu();
  ct::device gpu = ct::device::cpu();
};

// A copy of host values on `dev`.
template <class T>
ct::tensor<T> on(const ct::device& dev, const std::vector<T>& v, const ct::extents_t& e) {
  return ct::from_host(v, e, dev);
}

// Runs `launch(dev)` (which returns the output tensors' host values) on both devices.
template <class F>
auto both(const ct::device& cpu, const ct::device& gpu, F launch) {
  return std::make_pair(launch(cpu), launch(gpu));
}

// ---- Elementwise and integer ops: bitwise --------------------------------------------------

template <class S>
struct exact_ops {
  static constexpr const char* name = "agree_exact_ops";
  CT_TILE void operator()(ct::out<float, S> f, ct::out<std::int32_t, S> i, ct::out<ct::f16, S> h, ct::in<float, 2> a,
                          ct::in<float, 2> b, ct::in<std::int32_t, 2> p, ct::in<std::int32_t, 2> q) const {
    const auto ta = a.load_like(f), tb = b.load_like(f);
    const auto tp = p.load_like(i), tq = q.load_like(i);
    f.store(ct::where(ta > tb, ta * tb, ct::maximum(ta + tb, ct::sqrt(ct::abs(tb)))));
    i.store(ct::floordiv(tp, tq) ^ (ct::mod(tp, tq) << (tq & 7)) ^ ct::cdiv(tp, tq) ^ (tp >> (tq & 31)));
    h.store(ct::astype<ct::f16>(ta / tb));
  }
};

TEST_F(cpu_gpu_agreement, elementwise_integer_and_conversion_ops_bitwise) {
  using S = ct::shape<16, 64>;
  const ct::extents_t e = {67, 257};
  const std::size_t n = element_count(e);
  const auto va = random_floats<float>(n, 4.0, true), vb = random_floats<float>(n, 4.0, false);
  const auto vp = random_ints<std::int32_t>(n, true), vq = random_ints<std::int32_t>(n, false);
  const auto [c, g] = both(cpu, gpu, [&](const ct::device& dev) {
    auto f = poisoned<float>(e, dev);
    auto i = poisoned<std::int32_t>(e, dev);
    auto h = poisoned<ct::f16>(e, dev);
    ct::launch(exact_ops<S>{}, f.partition(S{}), i.partition(S{}), h.partition(S{}), on(dev, va, e), on(dev, vb, e),
               on(dev, vp, e), on(dev, vq, e))
        .wait();
    return std::make_tuple(f.to_host(), i.to_host(), h.to_host());
  });
  EXPECT_TRUE(all_same(std::get<0>(g), std::get<0>(c), true)) << "f32 where / * / maximum / + / sqrt / abs";
  EXPECT_TRUE(all_same(std::get<1>(g), std::get<1>(c))) << "int32 floordiv / mod / cdiv / shifts / xor";
  EXPECT_TRUE(all_same(std::get<2>(g), std::get<2>(c), true)) << "astype<f16>(a / b)";
}

// ---- Transcendentals: within ulps ------------------------------------------------------------

template <class T, class S>
struct transcendentals {
  static constexpr const char* name = "agree_transcendentals";
  using o = ct::out<T, S>;
  CT_TILE void operator()(o exp, o log, o tanh, o sin, o pow, o atan2, ct::in<T, 2> x, ct::in<T, 2> p) const {
    const auto tx = x.load_like(exp), tp = p.load_like(exp);
    exp.store(ct::exp(tx));
    log.store(ct::log(tp));
    tanh.store(ct::tanh(tx));
    sin.store(ct::sin(tx));
    pow.store(ct::pow(tp, tx));
    atan2.store(ct::atan2(tx, tp));
  }
};

template <class T>
void check_transcendentals(const ct::device& cpu, const ct::device& gpu) {
  SCOPED_TRACE(ct::dtype_name<T>());
  using S = ct::shape<8, 128>;
  const ct::extents_t e = {33, 300};
  const std::size_t n = element_count(e);
  auto gen = rng();
  std::uniform_real_distribution<double> ux(-6, 6), up(1.0 / 64, 64);
  std::vector<T> vx(n), vp(n);
  for (std::size_t k = 0; k < n; ++k) vx[k] = ct::convert<T>(ux(gen)), vp[k] = ct::convert<T>(up(gen));
  const auto [c, g] = both(cpu, gpu, [&](const ct::device& dev) {
    std::vector<ct::tensor<T>> r;
    for (int k = 0; k < 6; ++k) r.push_back(poisoned<T>(e, dev));
    ct::launch(transcendentals<T, S>{}, r[0].partition(S{}), r[1].partition(S{}), r[2].partition(S{}),
               r[3].partition(S{}), r[4].partition(S{}), r[5].partition(S{}), on(dev, vx, e), on(dev, vp, e))
        .wait();
    std::vector<std::vector<double>> h;
    for (const auto& t : r) h.push_back(host_f64(t));
    return h;
  });
  // CUDA's documented maximum ulp errors in f32 (exp 2, log 1, tanh 2, sin 2, pow 4, atan2 3),
  // plus 1 for the host library, plus 1 rounding when the result is stored as f16 or bf16.
  const double ulps[] = {3, 2, 3, 3, 5, 4};
  const char* what[] = {"exp", "log", "tanh", "sin", "pow", "atan2"};
  for (std::size_t k = 0; k < 6; ++k) {
    const tolerance tol = std::is_same_v<T, float> ? rounding<float>(2 * ulps[k])
                                                   : tolerance{2 * unit_roundoff<T>() + 2 * ulps[k] * unit_roundoff<float>(),
                                                               subnormal_step<T>()};
    // sin near its zeros: an absolute error of a few ulps of the argument.
    const tolerance with_abs{tol.rtol, std::max(tol.atol, k == 3 ? 8 * unit_roundoff<T>() : 0.0)};
    EXPECT_TRUE(all_close(g[k], c[k], with_abs)) << what[k];
  }
}

TEST_F(cpu_gpu_agreement, transcendentals_within_ulps) {
  check_transcendentals<float>(cpu, gpu);
  check_transcendentals<ct::bf16>(cpu, gpu);
}

// ---- Reductions and scans: within roundings times sum |x| ------------------------------------

template <class S, int Axis>
struct reduce_and_scan {
  static constexpr const char* name = "agree_reduce_scan";
  using RS = typename decltype(ct::sum(std::declval<ct::tile<float, S>>(), ct::axis<Axis>, ct::keepdims))::shape_type;
  CT_TILE void operator()(ct::out<float, RS> sum, ct::out<float, RS> max, ct::out<std::int32_t, RS> argmax,
                          ct::out<float, S> cumsum, ct::out<std::int32_t, S> icumsum, ct::in<float, 2> x,
                          ct::in<std::int32_t, 2> p) const {
    const auto [i, j] = cumsum.tile_index();
    const auto t = x.tiled(S{}).load(i, j);
    sum.store(ct::sum(t, ct::axis<Axis>, ct::keepdims));
    max.store(ct::max(t, ct::axis<Axis>, ct::keepdims));
    argmax.store(ct::argmax(t, ct::axis<Axis>, ct::keepdims));
    cumsum.store(ct::cumsum(t, ct::axis<Axis>));
    icumsum.store(ct::cumsum(p.load_like(icumsum), ct::axis<Axis>, ct::reverse));
  }
};

template <class S, int Axis>
void check_reduce_and_scan(const ct::device& cpu, const ct::device& gpu, const ct::extents_t& e) {
  SCOPED_TRACE(cat(shape_name<S>(), " axis ", Axis));
  const std::size_t n = element_count(e);
  auto gen = rng();
  std::normal_distribution<double> normal;
  std::vector<float> vx(n);
  for (auto& v : vx) v = float(normal(gen));
  const auto vp = random_ints<std::int32_t>(n, true);
  const ct::index_t tiles0 = (e[0] + S::dim(0) - 1) / S::dim(0), tiles1 = (e[1] + S::dim(1) - 1) / S::dim(1);
  using RS = typename reduce_and_scan<S, Axis>::RS;
  const ct::extents_t re = {tiles0 * RS::dim(0), tiles1 * RS::dim(1)};
  const auto [c, g] = both(cpu, gpu, [&](const ct::device& dev) {
    auto sum = poisoned<float>(re, dev), max = poisoned<float>(re, dev);
    auto argmax = poisoned<std::int32_t>(re, dev);
    auto cumsum = poisoned<float>(e, dev);
    auto icumsum = poisoned<std::int32_t>(e, dev);
    ct::launch(reduce_and_scan<S, Axis>{}, sum.partition(RS{}), max.partition(RS{}), argmax.partition(RS{}),
               cumsum.partition(S{}), icumsum.partition(S{}), on(dev, vx, e), on(dev, vp, e))
        .wait();
    return std::make_tuple(host_f64(sum), max.to_host(), argmax.to_host(), host_f64(cumsum), icumsum.to_host());
  });
  // Sums: within (length + 2) roundings of sum |x| over what was summed (padding adds zeros).
  constexpr ct::index_t d = S::dim(Axis);
  const double u = unit_roundoff<float>();
  const auto abs_sum = [&](ct::index_t r, ct::index_t col, ct::index_t from, ct::index_t to) {
    double s = 0;
    for (ct::index_t k = from; k < to; ++k) {
      const ct::index_t rr = Axis == 0 ? k : r, cc = Axis == 1 ? k : col;
      if (rr < e[0] && cc < e[1]) s += std::fabs(vx[std::size_t(rr * e[1] + cc)]);
    }
    return (d + 2) * u * s;
  };
  std::vector<double> sum_bound, scan_bound;
  for (ct::index_t f = 0; f < ct::index_t(element_count(re)); ++f) {
    const ct::index_t r = f / re[1], col = f % re[1], from = (Axis == 0 ? r : col) * d;  // a whole tile's line
    sum_bound.push_back(abs_sum(r, col, from, from + d));
  }
  for (ct::index_t f = 0; f < ct::index_t(n); ++f) {
    const ct::index_t r = f / e[1], col = f % e[1], at = Axis == 0 ? r : col;  // the prefix within the tile
    scan_bound.push_back(abs_sum(r, col, at / d * d, at + 1));
  }
  EXPECT_TRUE(all_within(std::get<0>(g), std::get<0>(c), sum_bound)) << "sum";
  EXPECT_TRUE(all_same(std::get<1>(g), std::get<1>(c), true)) << "max";
  EXPECT_TRUE(all_same(std::get<2>(g), std::get<2>(c))) << "argmax";
  EXPECT_TRUE(all_within(std::get<3>(g), std::get<3>(c), scan_bound)) << "cumsum";
  EXPECT_TRUE(all_same(std::get<4>(g), std::get<4>(c))) << "int32 reverse cumsum";
}

TEST_F(cpu_gpu_agreement, reductions_and_scans) {
  check_reduce_and_scan<ct::shape<1, 8192>, 1>(cpu, gpu, {3, 9000});
  check_reduce_and_scan<ct::shape<64, 128>, 0>(cpu, gpu, {100, 300});
  check_reduce_and_scan<ct::shape<16, 16>, 1>(cpu, gpu, {31, 37});
}

// ---- Data movement: bitwise ------------------------------------------------------------------

struct movement {
  static constexpr const char* name = "agree_movement";
  using S = ct::shape<32, 64>;
  CT_TILE void operator()(ct::out<float, ct::shape<64, 32>> joined, ct::out<float, S> gathered,
                          ct::out<ct::bf16, ct::shape<64, 32>> flipped, ct::in<float, 2> x,
                          ct::in<std::int32_t, 2> idx) const {
    const auto [i, j] = gathered.tile_index();
    const auto t = x.tiled(S{}, ct::pad::nan).load(i, j);
    joined.store(ct::cat(ct::transpose(ct::extract(t, ct::shape<32, 32>{}, 0, 1)), ct::extract(t, ct::shape<32, 32>{}, 0, 0),
                         ct::axis<0>));
    gathered.store(ct::gather(x, ct::indices(idx.load_like(gathered), ct::arange<std::int32_t, 64>())));
    flipped.store(ct::astype<ct::bf16>(ct::permute(t, ct::axes<1, 0>)));
  }
};

TEST_F(cpu_gpu_agreement, data_movement_bitwise) {
  const ct::extents_t e = {70, 130};
  const std::size_t n = element_count(e);
  const auto vx = random_floats<float>(n, 3.0, true);
  std::vector<std::int32_t> vi(n);
  auto gen = rng();
  for (auto& v : vi) v = std::int32_t(gen() % 80) - 5;  // some out of range
  const auto [c, g] = both(cpu, gpu, [&](const ct::device& dev) {
    auto joined = poisoned<float>({3 * 64, 3 * 32}, dev), gathered = poisoned<float>(e, dev);
    auto flipped = poisoned<ct::bf16>({3 * 64, 3 * 32}, dev);
    ct::launch(movement{}, joined.partition(ct::shape<64, 32>{}), gathered.partition(movement::S{}),
               flipped.partition(ct::shape<64, 32>{}), on(dev, vx, e), on(dev, vi, e))
        .wait();
    return std::make_tuple(joined.to_host(), gathered.to_host(), flipped.to_host());
  });
  EXPECT_TRUE(all_same(std::get<0>(g), std::get<0>(c), true)) << "extract / transpose / cat";
  EXPECT_TRUE(all_same(std::get<1>(g), std::get<1>(c), true)) << "gather";
  EXPECT_TRUE(all_same(std::get<2>(g), std::get<2>(c), true)) << "permute / astype<bf16>";
}

// ---- Atomics and mma -------------------------------------------------------------------------

struct accumulate {
  static constexpr const char* name = "agree_accumulate";
  CT_TILE void operator()(ct::out<float, ct::shape<64, 64>> product, ct::out<std::int32_t, ct::shape<64, 64>> iproduct,
                          ct::unsafe::global<std::int64_t, 1> counts, ct::in<ct::bf16, 2> a, ct::in<ct::bf16, 2> b,
                          ct::in<std::int8_t, 2> p, ct::in<std::int8_t, 2> q) const {
    const auto [i, j] = product.tile_index();
    const auto ta = a.tiled(ct::shape<64, 32>{});
    const auto tb = b.tiled(ct::shape<32, 64>{});
    auto acc = ct::zeros<float, 64, 64>();
    for (ct::index_t k = 0; k < ct::num_tiles(ta, 1); ++k) acc = ct::mma(ta.load(i, k), tb.load(k, j), acc);
    product.store(acc);
    const auto tp = p.tiled(ct::shape<64, 32>{});
    const auto tq = q.tiled(ct::shape<32, 64>{});
    auto iacc = ct::zeros<std::int32_t, 64, 64>();
    for (ct::index_t k = 0; k < ct::num_tiles(tp, 1); ++k) iacc = ct::mma(tp.load(i, k), tq.load(k, j), iacc);
    iproduct.store(iacc);
    (void)ct::atomic_add(counts, ct::mod(ct::astype<std::int64_t>(iacc), std::int64_t(97)), std::int64_t(1));
  }
};

TEST_F(cpu_gpu_agreement, mma_and_atomics) {
  const ct::index_t m = 100, nn = 70, k = 90;
  auto gen = rng();
  std::normal_distribution<double> normal;
  std::vector<ct::bf16> va(std::size_t(m * k)), vb(std::size_t(k * nn));
  for (auto& v : va) v = ct::bf16(float(normal(gen)));
  for (auto& v : vb) v = ct::bf16(float(normal(gen)));
  const auto vp = random_ints<std::int8_t>(std::size_t(m * k), true), vq = random_ints<std::int8_t>(std::size_t(k * nn), false);
  const auto [c, g] = both(cpu, gpu, [&](const ct::device& dev) {
    auto product = poisoned<float>({m, nn}, dev);
    auto iproduct = poisoned<std::int32_t>({m, nn}, dev);
    auto counts = ct::zeros<std::int64_t>({97}, dev);
    ct::launch(accumulate{}, product.partition(ct::shape<64, 64>{}), iproduct.partition(ct::shape<64, 64>{}),
               ct::unsafe::shared(counts), on(dev, va, {m, k}), on(dev, vb, {k, nn}), on(dev, vp, {m, k}),
               on(dev, vq, {k, nn}))
        .wait();
    return std::make_tuple(host_f64(product), iproduct.to_host(), counts.to_host());
  });
  std::vector<double> bound;
  for (ct::index_t r = 0; r < m; ++r)
    for (ct::index_t col = 0; col < nn; ++col) {
      double s = 0;
      for (ct::index_t kk = 0; kk < k; ++kk) s += std::fabs(to_f64(va[std::size_t(r * k + kk)]) * to_f64(vb[std::size_t(kk * nn + col)]));
      bound.push_back(double(k + 2) * unit_roundoff<float>() * s);
    }
  EXPECT_TRUE(all_within(std::get<0>(g), std::get<0>(c), bound)) << "bf16 -> f32 mma";
  EXPECT_TRUE(all_same(std::get<1>(g), std::get<1>(c))) << "int8 -> int32 mma";
  EXPECT_TRUE(all_same(std::get<2>(g), std::get<2>(c))) << "atomic_add counts";
}

#else

TEST(cpu_gpu_agreement, needs_the_nvcc_build) {
  GTEST_SKIP() << "CPU-GPU agreement runs in ctile_tests_cuda (the nvcc build), on a machine with a GPU";
}

#endif

}  // namespace
