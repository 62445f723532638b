// ct::kernels::gemm from bf16 to bf16 against a float64 reference (gemm_checks.hpp): exact on
// small-integer inputs, every tensor-core configuration by name (refused off Hopper), TMA and
// thread staging giving the same bits, random inputs, the epilogue (alpha, beta * residual, bias,
// activations) and the argument errors. The other types: gemm_test.cpp.
#include "kernels/gemm_checks.hpp"

namespace {
using namespace ct_test;
using namespace gemm_test;

struct gemm_bf16 : on_device {};

TEST_P(gemm_bf16, small_integers_are_exact) { check_exact_on<ct::bf16, ct::bf16>(dev(), shapes); }
TEST_P(gemm_bf16, tensor_core_shapes_are_exact) { check_exact_on<ct::bf16, ct::bf16>(dev(), tensor_core_shapes); }

// Each tensor-core configuration by name, on a Hopper GPU (automatic picks one of them; f16 ->
// f32: gemm_test.cpp); on other devices naming one is refused with a message, and the output is
// left alone.
TEST_P(gemm_bf16, tensor_core_configurations_by_name) {
  const bool hopper = dev().is_cuda() && dev().compute_capability() == 90;
  for (const auto tiles : {kn::gemm_tiling::wgmma, kn::gemm_tiling::wgmma_paired, kn::gemm_tiling::wgmma_cluster,
                           kn::gemm_tiling::wgmma_producer, kn::gemm_tiling::wgmma_producer_cluster,
                           kn::gemm_tiling::wgmma_wide}) {
    if (hopper) {
      check_exact_on<ct::bf16, ct::bf16>(dev(), tensor_core_shapes, tiles);
      continue;
    }
    const auto a = small_ints<ct::bf16>({8, 16}, dev()), b = small_ints<ct::bf16>({16, 4}, dev());
    auto c = poisoned<ct::bf16>({8, 4}, dev());
    kn::gemm_args<ct::bf16> args;
    args.tiles = tiles;
    EXPECT_THAT([&] { kn::gemm(ct::default_stream(dev()), c, a, b, args).wait(); },
                ThrowsMessage<ct::error>(HasSubstr("tensor-core tiles need bf16 or f16 inputs and a Hopper GPU")));
    EXPECT_TRUE(std::isnan(host_f64(c)[0])) << "the refused call wrote its output";
  }
}

// The same operands as contiguous tensors (on Hopper: staged by TMA) and as views with odd
// row strides (staged element by element by the threads) give the same bits, and the product.
TEST_P(gemm_bf16, tma_and_thread_staging_give_the_same_bits) {
  for (const dims& d : {dims{0, 200, 264, 328}, dims{2, 136, 256, 192}}) {
    SCOPED_TRACE(name_of(d));
    const auto a_wide = random<ct::bf16>(batched(d, d.m, d.k + 1), dev());
    const auto b_wide = random<ct::bf16>(batched(d, d.k, d.n + 1), dev());
    const int last = d.b == 0 ? 1 : 2;
    const auto a_odd = a_wide.slice(last, 0, d.k), b_odd = b_wide.slice(last, 0, d.n);
    const auto a = a_odd.clone(), b = b_odd.clone();
    auto by_tma = poisoned<ct::bf16>(batched(d, d.m, d.n), dev()), by_threads = poisoned<ct::bf16>(batched(d, d.m, d.n), dev());
    auto by_copies = poisoned<ct::bf16>(batched(d, d.m, d.n), dev());
    kn::gemm(ct::default_stream(dev()), by_tma, a, b).wait();
    // Named, the configuration takes the odd rows as they are (its threads stage them); left to
    // the heuristic, they are first copied onto 16-byte rows (kn::detail::copy_on_16_bytes).
    kn::gemm_args<ct::bf16> named;
    named.tiles = kn::detail::gemm_use_wgmma(dev()) ? kn::gemm_tiling::wgmma_producer : kn::gemm_tiling::automatic;
    kn::gemm(ct::default_stream(dev()), by_threads, a_odd, b_odd, named).wait();
    kn::gemm(ct::default_stream(dev()), by_copies, a_odd, b_odd).wait();
    EXPECT_TRUE(all_equal(host_f64(by_threads), host_f64(by_tma)));
    EXPECT_TRUE(all_equal(host_f64(by_copies), host_f64(by_tma)));
    const auto want = reference_product(host_f64(a), host_f64(b), counted(d));
    EXPECT_TRUE(close_to<ct::bf16>(host_f64(by_tma), want.c, want.scale, d.k));
  }
}

TEST_P(gemm_bf16, random_tensor_core_shapes) {
  for (const dims& d : {dims{0, 264, 392, 1000}, dims{2, 130, 256, 136}}) check_random<ct::bf16, ct::bf16>(dev(), d);
}

double gelu_tanh(double x) { return 0.5 * x * (1 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x))); }

// c = act(alpha * a @ b + beta * residual + bias), for each activation and each optional part.
template <class Act, class F>
void check_epilogue(const ct::device& dev, const dims& d, F act, bool with_residual, bool with_bias,
                    kn::gemm_tiling tiles = kn::gemm_tiling::automatic) {
  SCOPED_TRACE(name_of(d) + (with_residual ? " residual" : "") + (with_bias ? " bias" : ""));
  const auto a = random<ct::bf16>(batched(d, d.m, d.k), dev), b = random<ct::bf16>(batched(d, d.k, d.n), dev);
  const auto residual = random<ct::bf16>(batched(d, d.m, d.n), dev);
  const auto bias = random<ct::bf16>({d.n}, dev);
  kn::gemm_args<ct::bf16> args;
  args.alpha = 0.75f;
  args.tiles = tiles;
  if (with_residual) {
    args.beta = -1.5f;
    args.residual = &residual;
  }
  if (with_bias) args.bias = &bias;
  auto c = poisoned<ct::bf16>(batched(d, d.m, d.n), dev);
  kn::gemm<Act>(ct::default_stream(dev), c, a, b, args).wait();
  const auto p = reference_product(host_f64(a), host_f64(b), counted(d));
  const auto hr = host_f64(residual), hb = host_f64(bias);
  std::vector<double> want(p.c.size()), scale(p.c.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    const double pre = 0.75 * p.c[i] + (with_residual ? -1.5 * hr[i] : 0.0) + (with_bias ? hb[i % std::size_t(d.n)] : 0.0);
    want[i] = act(pre);
    // The activations' slopes are at most about 1.13, so the pre-activation error scale carries over.
    scale[i] = 1.2 * (0.75 * p.scale[i] + 1.5 * std::fabs(hr[i]) + 1.0 * std::fabs(hb[i % std::size_t(d.n)]));
  }
  EXPECT_TRUE(close_to<ct::bf16>(host_f64(c), want, scale, d.k + 2));
}

TEST_P(gemm_bf16, epilogue_alpha_beta_bias_activations) {
  const dims d{0, 67, 131, 45};
  const auto id = [](double x) { return x; };
  check_epilogue<kn::identity>(dev(), d, id, false, false);
  check_epilogue<kn::identity>(dev(), d, id, true, false);
  check_epilogue<kn::identity>(dev(), d, id, false, true);
  check_epilogue<kn::relu>(dev(), d, [](double x) { return x > 0 ? x : 0.0; }, true, true);
  check_epilogue<kn::silu>(dev(), {2, 33, 20, 17}, [](double x) { return x / (1 + std::exp(-x)); }, true, true);
  check_epilogue<kn::gelu_tanh>(dev(), {0, 129, 64, 30}, gelu_tanh, false, true);
  // Tiles inside the output on 16-byte rows (and cut ones at its edge), without and with inputs:
  // the untested stores of out::with_subtiles and the checked ones.
  check_epilogue<kn::relu>(dev(), {0, 256, 264, 72}, [](double x) { return x > 0 ? x : 0.0; }, false, false);
  check_epilogue<kn::identity>(dev(), {0, 256, 264, 72}, id, true, true);
}

// The 64 x 256 tile blocks' epilogue: their results leave the accumulator 8 rows a pass, and
// the residual and bias load in bands of 32 rows of 256 columns.
TEST_P(gemm_bf16, wide_tiles_epilogue) {
  if (!(dev().is_cuda() && dev().compute_capability() == 90)) GTEST_SKIP() << "needs a Hopper GPU";
  const auto wide = kn::gemm_tiling::wgmma_wide;
  check_epilogue<kn::identity>(dev(), {0, 200, 520, 136}, [](double x) { return x; }, true, true, wide);
  check_epilogue<kn::gelu_tanh>(dev(), {3, 70, 300, 64}, gelu_tanh, true, true, wide);
}

// K cut into parts multiplied side by side (gemm_args::split_k), for outputs of few tiles (f32
// inputs are refused: gemm_test.cpp): exact
// on small integers, the same bits as without the split there; with the epilogue within f32
// accumulation error of the float64 product, and reruns bitwise.
TEST_P(gemm_bf16, split_k) {
  struct split_case {
    dims d;
    int parts;
  } cases[] = {{{0, 1, 300, 512}, 4}, {{0, 70, 8, 1024}, 8}, {{0, 129, 131, 96}, 3}, {{0, 200, 264, 64}, 1}};
  for (const auto& [d, parts] : cases) {
    SCOPED_TRACE(name_of(d) + " in " + std::to_string(parts) + " parts");
    const auto a = small_ints<ct::bf16>({d.m, d.k}, dev()), b = small_ints<ct::bf16>({d.k, d.n}, dev());
    auto split = poisoned<ct::bf16>({d.m, d.n}, dev()), whole = poisoned<ct::bf16>({d.m, d.n}, dev());
    kn::gemm_args<ct::bf16> args;
    args.split_k = parts;
    ct::pending last = kn::gemm(ct::default_stream(dev()), split, a, b, args);
    // The values pass either way: that the parts were summed is seen in the last launch's name.
    EXPECT_EQ(std::string(last.kernel()), parts > 1 ? "ct_kernels_gemm_split_sum" : "ct_kernels_gemm");
    last.wait();
    kn::gemm(ct::default_stream(dev()), whole, a, b).wait();
    const auto want = reference_product(host_f64(a), host_f64(b), counted(d)).c;
    EXPECT_TRUE(all_equal(host_f64(split), reference(want.size(), [&](std::size_t i) { return round_to<ct::bf16>(want[i]); })));
    EXPECT_TRUE(all_equal(host_f64(split), host_f64(whole)));
  }
  // The epilogue after the sum, and a column-major b.
  const dims d{0, 33, 200, 768};
  const auto a = random<ct::bf16>({d.m, d.k}, dev()), b = random<ct::bf16>({d.n, d.k}, dev()).transpose();
  const auto residual = random<ct::bf16>({d.m, d.n}, dev()), bias = random<ct::bf16>({d.n}, dev());
  kn::gemm_args<ct::bf16> args;
  args.alpha = 0.75f;
  args.beta = -1.5f;
  args.residual = &residual;
  args.bias = &bias;
  args.split_k = 6;
  auto c = poisoned<ct::bf16>({d.m, d.n}, dev()), again = poisoned<ct::bf16>({d.m, d.n}, dev());
  kn::gemm<kn::relu>(ct::default_stream(dev()), c, a, b, args).wait();
  kn::gemm<kn::relu>(ct::default_stream(dev()), again, a, b, args).wait();
  EXPECT_TRUE(all_equal(host_f64(again), host_f64(c)));
  const auto p = reference_product(host_f64(a), host_f64(b), counted(d));
  const auto hr = host_f64(residual), hb = host_f64(bias);
  std::vector<double> want(p.c.size()), scale(p.c.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    want[i] = std::max(0.0, 0.75 * p.c[i] - 1.5 * hr[i] + hb[i % std::size_t(d.n)]);
    scale[i] = 0.75 * p.scale[i] + 1.5 * std::fabs(hr[i]) + std::fabs(hb[i % std::size_t(d.n)]);
  }
  EXPECT_TRUE(close_to<ct::bf16>(host_f64(c), want, scale, d.k + 2));
}

TEST_P(gemm_bf16, split_k_errors_name_the_problem) {
  const auto s = ct::default_stream(dev());
  const auto a = random<ct::bf16>({8, 96}, dev()), b = random<ct::bf16>({96, 4}, dev());
  auto c = poisoned<ct::bf16>({8, 4}, dev());
  const auto split = [&](int parts, kn::gemm_tiling tiles = kn::gemm_tiling::automatic) {
    kn::gemm_args<ct::bf16> args;
    args.split_k = parts;
    args.tiles = tiles;
    kn::gemm(s, c, a, b, args).wait();
  };
  EXPECT_THAT([&] { split(0); }, ThrowsMessage<ct::error>(HasSubstr("split_k = 0: K is cut into at least one part")));
  EXPECT_THAT([&] { split(5); }, ThrowsMessage<ct::error>(HasSubstr("split_k = 5 does not cut K = 96 into equal parts")));
  EXPECT_THAT([&] { split(2, kn::gemm_tiling::simt); }, ThrowsMessage<ct::error>(HasSubstr("split_k = 2 takes the automatic tiles")));
  const auto a3 = random<ct::bf16>({2, 8, 96}, dev()), b3 = random<ct::bf16>({2, 96, 4}, dev());
  auto c3 = poisoned<ct::bf16>({2, 8, 4}, dev());
  kn::gemm_args<ct::bf16> args;
  args.split_k = 2;
  EXPECT_THAT([&] { kn::gemm(s, c3, a3, b3, args).wait(); }, ThrowsMessage<ct::error>(HasSubstr("split_k = 2 needs an unbatched product")));
  EXPECT_TRUE(std::isnan(host_f64(c)[0])) << "a refused call wrote its output";
}

TEST_P(gemm_bf16, argument_errors_name_the_problem) {
  const auto s = ct::default_stream(dev());
  const auto a = random<ct::bf16>({8, 16}, dev()), b = random<ct::bf16>({16, 4}, dev()), b_bad = random<ct::bf16>({15, 4}, dev());
  auto c = poisoned<ct::bf16>({8, 4}, dev()), c_bad = poisoned<ct::bf16>({8, 5}, dev());
  EXPECT_THAT([&] { kn::gemm(s, c, a, b_bad).wait(); }, ThrowsMessage<ct::error>(HasSubstr("inner dimensions differ")));
  EXPECT_THAT([&] { kn::gemm(s, c_bad, a, b).wait(); }, ThrowsMessage<ct::error>(HasSubstr("b has extent 4 along axis 1, expected 5")));
  kn::gemm_args<ct::bf16> no_residual;
  no_residual.beta = 1.0f;
  EXPECT_THAT([&] { kn::gemm(s, c, a, b, no_residual).wait(); }, ThrowsMessage<ct::error>(HasSubstr("no residual")));
  const auto bias_bad = random<ct::bf16>({5}, dev());
  kn::gemm_args<ct::bf16> wrong_bias;
  wrong_bias.bias = &bias_bad;
  EXPECT_THAT([&] { kn::gemm(s, c, a, b, wrong_bias).wait(); }, ThrowsMessage<ct::error>(HasSubstr("bias has extent 5")));
  kn::gemm_args<ct::bf16> in_place;
  in_place.beta = 1.0f;
  in_place.residual = &c;
  EXPECT_THAT([&] { kn::gemm(s, c, a, b, in_place).wait(); }, ThrowsMessage<ct::error>(HasSubstr("overlaps")));
  // Also where a is one the heuristic would copy (rows of 15 elements, 17 apart).
  auto wide = random<ct::bf16>({8, 17}, dev());
  auto c_in_a = wide.slice(1, 0, 4);
  const auto a_odd = wide.slice(1, 0, 15), b15 = random<ct::bf16>({15, 4}, dev());
  EXPECT_THAT([&] { kn::gemm(s, c_in_a, a_odd, b15).wait(); }, ThrowsMessage<ct::error>(HasSubstr("overlaps an input")));
  const auto a3 = random<ct::bf16>({2, 8, 16}, dev()), b3 = random<ct::bf16>({3, 16, 4}, dev());
  auto c3 = poisoned<ct::bf16>({2, 8, 4}, dev());
  EXPECT_THAT([&] { kn::gemm(s, c3, a3, b3).wait(); }, ThrowsMessage<ct::error>(HasSubstr("b has extent 3 along axis 0")));
  EXPECT_THAT([&] { kn::gemm(s, c3, a, b).wait(); }, ThrowsMessage<ct::error>(HasSubstr("a must have rank 3")));
}

CT_INSTANTIATE_ON_DEVICES(gemm_bf16);

}  // namespace
