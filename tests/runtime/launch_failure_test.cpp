// Issue 4's launch-failure suite: one test per check that ct::launch makes before any work, each
// pinning the message (which names the kernel and, where there is one, the argument) and checking
// that the rejected launch did not run (the output still holds its poison).
#include "01_vector_add/vector_add.hpp"
#include "common/test_kernels.hpp"
#include "common/test_util.hpp"

namespace {
using namespace ct_test;

struct launch_failures : on_device {
  static bool untouched(const ct::tensor<float>& t) {
    const auto v = host_f64(t);
    return std::all_of(v.begin(), v.end(), [](double x) { return std::isnan(x); });
  }
};

auto error_with(const std::string& text) { return ThrowsMessage<ct::error>(HasSubstr(text)); }

// y = x for a 2-D x whose column count is fixed at 64, and which must have a row count divisible
// by 4 and equal to the length of `bias`.
struct fixed_copy {
  static constexpr const char* name = "fixed_copy";
  static constexpr ct::precondition preconditions[] = {ct::divisible(ct::extent_of(1, 0), 4),
                                                       ct::equal(ct::extent_of(1, 0), ct::extent_of(2, 0)),
                                                       ct::at_most(ct::extent_of(1, 0), 64)};
  CT_TILE void operator()(ct::out<float, ct::shape<4, 64>> y, ct::in_static<float, ct::extents<ct::dyn, 64>> x,
                          ct::in<float, 1> bias) const {
    const auto [m, n] = y.tile_index();
    (void)n;
    const auto b = ct::reshape(ct::load(bias, {m}, ct::shape<4>{}), ct::shape<4, 1>{});
    y.store(x.load_like(y) + b * 0.0f);
  }
};

// Fills g's first tile with ones; launched over an explicit grid.
struct fill_shared {
  static constexpr const char* name = "fill_shared";
  CT_TILE void operator()(ct::unsafe::global<float, 1> g) const {
    ct::store(g, ct::coord<1>{{ct::bid(0)}}, ct::ones<float, 8>());
  }
};

TEST_P(launch_failures, static_extent_contradicted) {
  const auto x = ct::zeros<float>({8, 65}, dev()), bias = ct::zeros<float>({8}, dev());
  auto y = poisoned<float>({8, 65}, dev());
  EXPECT_THAT([&] { ct::launch(fixed_copy{}, y.partition(ct::shape<4, 64>{}), x, bias).wait(); },
              error_with("kernel 'fixed_copy', argument 1: extent 1 is 65 but the kernel's ct::in_static requires 64"));
  EXPECT_TRUE(untouched(y));
}

TEST_P(launch_failures, divisibility_precondition) {
  const auto x = ct::zeros<float>({6, 64}, dev()), bias = ct::zeros<float>({6}, dev());
  auto y = poisoned<float>({6, 64}, dev());
  EXPECT_THAT([&] { ct::launch(fixed_copy{}, y.partition(ct::shape<4, 64>{}), x, bias).wait(); },
              error_with("kernel 'fixed_copy': precondition failed: extent 0 of argument 1 (= 6) must be divisible by 4"));
  EXPECT_TRUE(untouched(y));
}

TEST_P(launch_failures, equality_precondition) {
  const auto x = ct::zeros<float>({8, 64}, dev()), bias = ct::zeros<float>({12}, dev());
  auto y = poisoned<float>({8, 64}, dev());
  EXPECT_THAT([&] { ct::launch(fixed_copy{}, y.partition(ct::shape<4, 64>{}), x, bias).wait(); },
              error_with("kernel 'fixed_copy': precondition failed: extent 0 of argument 1 (= 8) must equal extent 0 of "
                         "argument 2 (= 12)"));
  EXPECT_TRUE(untouched(y));
}

TEST_P(launch_failures, bound_precondition) {
  const auto x = ct::zeros<float>({68, 64}, dev()), bias = ct::zeros<float>({68}, dev());
  auto y = poisoned<float>({68, 64}, dev());
  EXPECT_THAT([&] { ct::launch(fixed_copy{}, y.partition(ct::shape<4, 64>{}), x, bias).wait(); },
              error_with("precondition failed: extent 0 of argument 1 (= 68) must be at most 64"));
  EXPECT_TRUE(untouched(y));
}

TEST_P(launch_failures, preconditions_that_hold_run) {
  const auto x = ct::ones<float>({8, 64}, dev()), bias = ct::zeros<float>({8}, dev());
  auto y = poisoned<float>({8, 64}, dev());
  ct::launch(fixed_copy{}, y.partition(ct::shape<4, 64>{}), x, bias).wait();
  const auto v = host_f64(y);
  EXPECT_TRUE(std::all_of(v.begin(), v.end(), [](double e) { return e == 1.0; }));
}

TEST_P(launch_failures, output_aliasing_an_input) {
  auto c = poisoned<float>({1000}, dev());
  const auto b = ct::zeros<float>({1000}, dev());
  EXPECT_THAT([&] { examples::add(c, c, b).wait(); },
              error_with("kernel 'vector_add', argument 0 is an output whose memory overlaps argument 1 (an input)"));
  EXPECT_TRUE(untouched(c));
}

TEST_P(launch_failures, output_aliasing_an_overlapping_view) {
  auto whole = poisoned<float>({2000}, dev());
  auto c = whole.slice(0, 0, 1000);
  const auto a = whole.slice(0, 999, 1999), b = ct::zeros<float>({1000}, dev());
  EXPECT_THAT([&] { examples::add(c, a, b).wait(); }, error_with("argument 0 is an output whose memory overlaps argument 1"));
  EXPECT_TRUE(untouched(whole));
}

TEST_P(launch_failures, two_outputs_sharing_memory) {
  const auto x = ct::zeros<float>({1024}, dev());
  auto y = poisoned<float>({1024}, dev());
  auto y_again = y.view();
  EXPECT_THAT([&] { ct::launch(copy_twice{}, y.partition(ct::shape<1024>{}), y_again.partition(ct::shape<1024>{}), x).wait(); },
              error_with("kernel 'copy_twice', argument 0 is an output whose memory overlaps argument 1 (another output)"));
  EXPECT_TRUE(untouched(y));
}

TEST_P(launch_failures, empty_output_tensor) {
  const auto a = ct::zeros<float>({10}, dev()), b = ct::zeros<float>({10}, dev());
  ct::tensor<float> c;
  EXPECT_THAT([&] { (void)c.partition(ct::shape<2048>{}); }, error_with("ct::tensor: this tensor is empty"));
}

TEST_P(launch_failures, moved_from_input) {
  auto a = ct::zeros<float>({10}, dev());
  const auto b = ct::zeros<float>({10}, dev());
  auto c = poisoned<float>({10}, dev());
  auto moved = std::move(a);
  EXPECT_THAT([&] { examples::add(c, a, b).wait(); },
              error_with("kernel 'vector_add', argument 1: the tensor is empty (default-constructed or moved from)"));
  EXPECT_TRUE(untouched(c));
}

TEST_P(launch_failures, explicit_grid_differs_from_partition) {
  const auto x = ct::zeros<float>({4096}, dev());
  auto y = poisoned<float>({4096}, dev());
  EXPECT_THAT([&] { ct::launch(ct::grid(3), copy_tiles<ct::shape<1024>>{}, y.partition(ct::shape<1024>{}), x).wait(); },
              error_with("kernel 'copy_tiles': the explicit grid 3x1x1 differs from the grid of the output partition (argument 0)"));
  EXPECT_TRUE(untouched(y));
}

TEST_P(launch_failures, explicit_grid_over_the_limit) {
  auto g = poisoned<float>({8}, dev());
  EXPECT_THAT([&] { ct::launch(ct::grid(1, 70000), fill_shared{}, ct::unsafe::shared(g)).wait(); },
              error_with("kernel 'fill_shared': grid axis 1 has 70000 blocks; the limit is 0 ... 65535"));
  EXPECT_TRUE(untouched(g));
}

TEST_P(launch_failures, explicit_grid_runs) {
  auto g = poisoned<float>({16}, dev());
  ct::launch(ct::grid(2), fill_shared{}, ct::unsafe::shared(g)).wait();
  const auto v = host_f64(g);
  EXPECT_TRUE(std::all_of(v.begin(), v.end(), [](double e) { return e == 1.0; }));
}

TEST_P(launch_failures, shared_tensor_rank) {
  auto g = poisoned<float>({2, 8}, dev());
  EXPECT_THAT([&] { ct::launch(ct::grid(1), fill_shared{}, ct::unsafe::shared(g)).wait(); },
              error_with("kernel 'fill_shared', argument 0: the kernel expects a rank-1 tensor, got rank 2 [2, 8]"));
  EXPECT_TRUE(untouched(g));
}

TEST_P(launch_failures, borrowed_output_on_another_stream) {
  const auto a = ct::ones<float>({1 << 18}, dev());
  auto c = poisoned<float>({1 << 18}, dev());
  auto slow = ct::launch(slow_double{}, c.partition(ct::shape<slow_double::tile>{}), a, slow_iters(dev()));
  const ct::stream other(dev());
  auto d = poisoned<float>({1 << 18}, dev());
  EXPECT_THAT([&] { ct::launch(other, copy_tiles<ct::shape<1024>>{}, d.partition(ct::shape<1024>{}), c).wait(); },
              error_with("kernel 'copy_tiles': an argument is exclusively borrowed as an output of the pending launch of "
                         "kernel 'slow_double' on another stream"));
  slow.wait();
  EXPECT_TRUE(untouched(d));
}

TEST_P(launch_failures, host_read_of_a_borrowed_output) {
  const auto a = ct::ones<float>({1 << 18}, dev());
  auto c = poisoned<float>({1 << 18}, dev());
  auto slow = ct::launch(slow_double{}, c.partition(ct::shape<slow_double::tile>{}), a, slow_iters(dev()));
  EXPECT_THAT([&] { (void)c.to_host(); },
              error_with("ct::tensor::to_host: the tensor is exclusively borrowed as an output of the pending launch of "
                         "kernel 'slow_double'; call wait() on its pending result first"));
  slow.wait();
  EXPECT_EQ(host_f64(c)[0], 2.0);
}

TEST_P(launch_failures, input_rank) {
  const auto a = ct::zeros<float>({2, 5}, dev()), b = ct::zeros<float>({10}, dev());
  auto c = poisoned<float>({10}, dev());
  EXPECT_THAT([&] { examples::add(c, a, b).wait(); },
              error_with("kernel 'vector_add', argument 1: the kernel expects a rank-1 tensor, got rank 2 [2, 5]"));
  EXPECT_TRUE(untouched(c));
}

CT_INSTANTIATE_ON_DEVICES(launch_failures);

}  // namespace
