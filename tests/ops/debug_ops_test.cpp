// Debugging ops: ct::print of scalars (int, unsigned, float, bool) and of tiles (rows cut into
// lines of at most 8 values, each line prefixed by the block's coordinates), ct::printf
// (prefixed by the block's coordinates, every line whole even when many blocks print at once),
// and ct::device_assert with a scalar and a tile condition: passing ones do nothing; on the CPU a
// failing one makes wait() throw a ct::error that names the kernel, the block and the message.
// On a GPU only the passing case runs, since a device trap poisons the CUDA context for the rest
// of the process. Printed output is captured from stdout (on the GPU too: device printf reaches
// stdout when the launch is waited for).
#include <regex>
#include <set>

#include "ops/ops_util.hpp"

namespace {
using namespace ct_test;

struct printer {
  static constexpr const char* name = "ops_printer";
  CT_TILE void operator()(ct::out<std::int32_t, ct::shape<1, 1>> y, ct::in<float, 2> x, int n) const {
    ct::print("n", n);
    ct::print("big", std::uint64_t(1) << 40);
    ct::print("half", 0.5f);
    ct::print("flag", ct::bid(1) == 1);
    ct::print("ramp", ct::reshape(ct::arange<std::int32_t, 32>(), ct::shape<2, 16>{}));
    ct::print("x", ct::load(x, {0, 0}, ct::shape<1, 4>{}));
    ct::printf("n=%d scaled=%.2f\n", n, 1.5 * n);
    y.store(ct::full<std::int32_t>(ct::shape<1, 1>{}, n));
  }
};

// Many blocks printing at once: every line must come out whole.
struct chorus {
  static constexpr const char* name = "ops_chorus";
  CT_TILE void operator()(ct::out<std::int32_t, ct::shape<1>> y) const {
    ct::printf("line of block %d of %d\n", ct::bid(0), ct::num_blocks(0));
    y.store(ct::zeros<std::int32_t, 1>());
  }
};

// Asserts that pass everywhere, and two that fail in block `bad_block` (scalar) or where x holds
// `bad_value` (tile); -1 / NaN never fail.
struct asserting {
  static constexpr const char* name = "ops_asserting";
  CT_TILE void operator()(ct::out<float, ct::shape<16>> y, ct::in<float, 1> x, int bad_block, float bad_value) const {
    const auto t = x.load_like(y);
    ct::device_assert(ct::bid(0) >= 0, "block ids are not negative");
    ct::device_assert(t > -1000.0f, "inputs are above -1000");
    ct::device_assert(ct::bid(0) != bad_block, "this block may not run");
    ct::device_assert(t != bad_value, "x holds the bad value");
    y.store(t * 2.0f);
  }
};

struct debug_ops : on_device {};

// Runs f with stdout captured and returns the captured lines, sorted (blocks print in any order).
template <class F>
std::vector<std::string> printed_lines(F f) {
  ::testing::internal::CaptureStdout();
  f();
  std::fflush(stdout);
  std::istringstream out(::testing::internal::GetCapturedStdout());
  std::vector<std::string> lines;
  for (std::string line; std::getline(out, line);) lines.push_back(line);
  std::sort(lines.begin(), lines.end());
  return lines;
}

TEST_P(debug_ops, print_and_printf_lines) {
  const auto x = tensor_of(std::vector<float>{0.5f, -1.25f, 3.0f, 1e-3f, 9.0f}, {1, 5}, dev());
  auto y = poisoned<std::int32_t>({1, 2}, dev());  // two blocks: (0, 0) and (0, 1)
  const auto lines = printed_lines([&] { ct::launch(printer{}, y.partition(ct::shape<1, 1>{}), x, 7).wait(); });
  std::vector<std::string> want;
  for (int b = 0; b < 2; ++b) {
    const std::string p = cat("[block 0,", b, ",0] ");
    for (const std::string& line :
         {p + "n = 7", p + "big = 1099511627776", p + "half = 0.5", p + (b ? "flag = true" : "flag = false"),
          p + "ramp[0, 0:] = 0 1 2 3 4 5 6 7", p + "ramp[0, 8:] = 8 9 10 11 12 13 14 15",
          p + "ramp[1, 0:] = 16 17 18 19 20 21 22 23", p + "ramp[1, 8:] = 24 25 26 27 28 29 30 31",
          p + "x[0, 0:] = 0.5 -1.25 3 0.001", p + "n=7 scaled=10.50"})
      want.push_back(line);
  }
  std::sort(want.begin(), want.end());
  EXPECT_EQ(lines, want);
  EXPECT_TRUE(all_same(y.to_host(), std::vector<std::int32_t>{7, 7}));
}

TEST_P(debug_ops, printf_lines_stay_whole_under_concurrency) {
  const int blocks = 3000;
  auto y = poisoned<std::int32_t>({blocks}, dev());
  const auto lines = printed_lines([&] { ct::launch(chorus{}, y.partition(ct::shape<1>{})).wait(); });
  ASSERT_EQ(lines.size(), std::size_t(blocks));
  const std::regex whole(R"(\[block (\d+),0,0\] line of block (\d+) of 3000)");
  std::set<int> seen;
  std::size_t broken = 0;
  for (const auto& line : lines) {
    std::smatch m;
    if (!std::regex_match(line, m, whole) || m[1] != m[2]) {
      if (++broken <= 3) ADD_FAILURE() << "garbled line: " << line;
      continue;
    }
    seen.insert(std::stoi(m[1]));
  }
  EXPECT_EQ(broken, 0u);
  EXPECT_EQ(seen.size(), std::size_t(blocks) - broken);
}

TEST_P(debug_ops, passing_asserts_do_nothing) {
  const auto x = ct::randn<float>({100}, fresh_seed(), 1.0, dev());
  auto y = poisoned<float>({100}, dev());
  ct::launch(asserting{}, y.partition(ct::shape<16>{}), x, -1, NAN).wait();
  const auto hx = x.to_host();
  EXPECT_TRUE(all_same(y.to_host(), reference_of<float>(100, [&](std::size_t i) { return 2 * hx[i]; })));
}

TEST_P(debug_ops, failing_assert_stops_the_launch_on_the_cpu) {
  if (!dev().is_cpu()) GTEST_SKIP() << "a failed device assert traps, which leaves the CUDA context unusable";
  const auto x = ct::randn<float>({100}, fresh_seed(), 1.0, dev());
  auto y = poisoned<float>({100}, dev());
  EXPECT_THAT([&] { ct::launch(asserting{}, y.partition(ct::shape<16>{}), x, 2, NAN).wait(); },
              ThrowsMessage<ct::error>(AllOf(HasSubstr("kernel 'ops_asserting' failed while running on cpu"),
                                             HasSubstr("ct::device_assert failed in block (2, 0, 0): this block may not run"))));
  const float bad = x.to_host()[37];  // in block 2 (elements 32 ... 47)
  EXPECT_THAT([&] { ct::launch(asserting{}, y.partition(ct::shape<16>{}), x, -1, bad).wait(); },
              ThrowsMessage<ct::error>(AllOf(HasSubstr("kernel 'ops_asserting' failed"),
                                             HasSubstr("ct::device_assert failed in block (2, 0, 0): x holds the bad value"))));
  // The device is still usable afterwards.
  ct::launch(asserting{}, y.partition(ct::shape<16>{}), x, -1, NAN).wait();
  EXPECT_EQ(y.to_host()[5], 2 * x.to_host()[5]);
}

CT_INSTANTIATE_ON_DEVICES(debug_ops);

}  // namespace
