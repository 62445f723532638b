// examples::add (the tile kernel examples::vector_add) against a float64 reference: ragged
// lengths from 1 element to past 2^24, each float dtype, and operands that are slices of larger
// tensors (unaligned offsets, and a last tile whose out-of-range stores must be dropped).
#include "01_vector_add/vector_add.hpp"
#include "common/test_util.hpp"

namespace {
using namespace ct_test;

struct vector_add : on_device {};

// c = a + b on fresh random inputs; one correctly rounded add per element.
template <class T>
void check_add(const ct::device& dev, ct::index_t n) {
  SCOPED_TRACE("n = " + std::to_string(n));
  const auto a = ct::randn<T>({n}, fresh_seed(), 1.0, dev);
  const auto b = ct::randn<T>({n}, fresh_seed(), 1.0, dev);
  auto c = poisoned<T>({n}, dev);
  examples::add(c, a, b).wait();
  const auto ha = host_f64(a), hb = host_f64(b);
  EXPECT_TRUE(all_close(host_f64(c), reference(ha.size(), [&](std::size_t i) { return ha[i] + hb[i]; }),
                        rounding<T>(1)));
}

TEST_P(vector_add, f32_ragged_lengths) {
  for (ct::index_t n : {1, 31, 1000003}) check_add<float>(dev(), n);
}

TEST_P(vector_add, f32_past_2_pow_24) { check_add<float>(dev(), (ct::index_t(1) << 24) + 1); }

TEST_P(vector_add, f16) { check_add<ct::f16>(dev(), 1000003); }

TEST_P(vector_add, bf16) { check_add<ct::bf16>(dev(), 1000003); }

// Views at odd offsets defeat vector loads, and the output slice ends mid-tile: the elements
// of the parent past the slice must stay untouched (still poisoned).
TEST_P(vector_add, slices_of_larger_tensors) {
  const ct::index_t n = 100003, at = 5;  // c is big_c[at, at + n)
  const auto big_a = ct::randn<float>({n + 10}, fresh_seed(), 1.0, dev());
  const auto big_b = ct::randn<float>({n + 10}, fresh_seed(), 1.0, dev());
  const auto a = big_a.slice(0, 3, 3 + n), b = big_b.slice(0, 7, 7 + n);
  auto big_c = poisoned<float>({n + 3000}, dev());
  auto c = big_c.slice(0, at, at + n);
  examples::add(c, a, b).wait();

  const auto ha = host_f64(a), hb = host_f64(b);
  EXPECT_TRUE(all_close(host_f64(c), reference(ha.size(), [&](std::size_t i) { return ha[i] + hb[i]; }),
                        rounding<float>(1)));
  const auto whole = host_f64(big_c);
  std::size_t written_outside = 0;
  for (std::size_t i = 0; i < whole.size(); ++i)
    if ((ct::index_t(i) < at || ct::index_t(i) >= at + n) && !std::isnan(whole[i])) ++written_outside;
  EXPECT_EQ(written_outside, 0u) << "stores outside the output slice were not dropped";
}

CT_INSTANTIATE_ON_DEVICES(vector_add);

}  // namespace
