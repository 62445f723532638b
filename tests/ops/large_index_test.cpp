// 64-bit indexing: an int8 tensor of 2^31 + 3 elements, scaled tile by tile (block indices and
// element offsets past 2^31), and gathered from at int64 indices past 2^31. Every element past
// index 2^31 - 8 is checked, plus a sample of the rest. On a GPU this always runs (it skips
// without one); on the CPU only with CTILE_LARGE_TESTS=1, since it needs about 7 GB of memory.
#include "ops/ops_util.hpp"

namespace {
using namespace ct_test;

struct scale_int8 {
  static constexpr const char* name = "ops_large_scale";
  CT_TILE void operator()(ct::out<std::int8_t, ct::shape<4096>> y, ct::in<std::int8_t, 1> x) const {
    y.store(x.load_like(y) * std::int8_t(3) + std::int8_t(1));
  }
};

struct gather_far {
  static constexpr const char* name = "ops_large_gather";
  CT_TILE void operator()(ct::out<std::int8_t, ct::shape<256>> y, ct::in<std::int8_t, 1> x,
                          ct::in<std::int64_t, 1> idx) const {
    y.store(ct::gather(x, idx.load_like(y)));
  }
};

struct large_index : on_device {
  void SetUp() override {
    on_device::SetUp();
    if (IsSkipped()) return;
    const char* flag = std::getenv("CTILE_LARGE_TESTS");
    if (dev().is_cpu() && !(flag && std::string(flag) == "1"))
      GTEST_SKIP() << "set CTILE_LARGE_TESTS=1 to run the 2^31-element test on the CPU (it needs about 7 GB)";
  }
};

constexpr ct::index_t big = (ct::index_t(1) << 31) + 3;

// x[i] = (i * 7 + i / 4093) mod 256, as int8: no period of a power of two, so a truncated
// offset would read a different value.
std::int8_t pattern(ct::index_t i) { return std::int8_t(std::uint8_t(i * 7 + i / 4093)); }

TEST_P(large_index, scale_and_gather_past_2_to_the_31) {
  std::vector<std::int8_t> hx(static_cast<std::size_t>(big));
  for (ct::index_t i = 0; i < big; ++i) hx[std::size_t(i)] = pattern(i);
  const auto x = tensor_of(hx, {big}, dev());
  hx = {};
  {
    auto y = poisoned<std::int8_t>({big}, dev());
    ct::launch(scale_int8{}, y.partition(ct::shape<4096>{}), x).wait();
    const auto hy = y.to_host();
    const auto want = [](ct::index_t i) { return std::int8_t(std::uint8_t(pattern(i) * 3 + 1)); };
    std::size_t bad = 0;
    for (ct::index_t i = (ct::index_t(1) << 31) - 8; i < big; ++i) bad += hy[std::size_t(i)] != want(i);
    for (ct::index_t i = 0; i < big; i += 65537) bad += hy[std::size_t(i)] != want(i);
    EXPECT_EQ(bad, 0u) << "elements of x * 3 + 1 wrong (the tail past 2^31, and a sample)";
  }
  std::vector<std::int64_t> vi;
  for (ct::index_t k = 0; k < 1000; ++k) vi.push_back(k < 500 ? big - 1 - k * 3 : (k * 2147483) % big);
  vi.push_back(big);  // one past the end: reads 0
  const auto idx = tensor_of(vi, {ct::index_t(vi.size())}, dev());
  auto g = poisoned<std::int8_t>({ct::index_t(vi.size())}, dev());
  ct::launch(gather_far{}, g.partition(ct::shape<256>{}), x, idx).wait();
  EXPECT_TRUE(all_same(g.to_host(), reference_of<std::int8_t>(vi.size(), [&](std::size_t k) {
    return vi[k] < big ? pattern(vi[k]) : std::int8_t(0);
  })));
}

CT_INSTANTIATE_ON_DEVICES(large_index);

}  // namespace
