// Host-side tensors on the CPU device: creation (empty, zeros, ones, full, arange, rand, randn),
// host copies, views that share memory (view, reshape, slice, transpose) and their errors,
// clone, moved-from handles, and borrowing foreign host memory with its own strides.
#include <numeric>

#include "common/test_util.hpp"

namespace {
using namespace ct_test;

const ct::device cpu = ct::device::cpu();

auto error_with(const std::string& text) { return ThrowsMessage<ct::error>(HasSubstr(text)); }

std::vector<float> iota(std::size_t n) {
  std::vector<float> v(n);
  std::iota(v.begin(), v.end(), 0.0f);
  return v;
}

// ---- Creation -----------------------------------------------------------------------------------

TEST(tensor_create, empty_is_contiguous_with_the_given_extents) {
  const auto t = ct::empty<float>({2, 3, 5}, cpu);
  EXPECT_TRUE(t.valid());
  EXPECT_EQ(t.rank(), 3);
  EXPECT_EQ(t.extents(), (ct::extents_t{2, 3, 5}));
  EXPECT_EQ(t.strides(), (ct::extents_t{15, 5, 1}));
  EXPECT_EQ(t.size(), 30);
  EXPECT_TRUE(t.contiguous());
  EXPECT_EQ(t.dev(), cpu);
  EXPECT_THAT(
      [] {
        (void)ct::empty<float>({2, -1}, cpu);
      },
      error_with("ct::empty: negative extent in [2, -1]"));
}

TEST(tensor_create, constant_fills) {
  EXPECT_TRUE(all_equal(host_f64(ct::zeros<float>({7}, cpu)), std::vector<double>(7, 0.0)));
  EXPECT_TRUE(all_equal(host_f64(ct::ones<ct::f16>({2, 3}, cpu)), std::vector<double>(6, 1.0)));
  EXPECT_TRUE(all_equal(host_f64(ct::full<ct::bf16>({4}, 2.5, cpu)), std::vector<double>(4, 2.5)));
  EXPECT_TRUE(all_equal(host_f64(ct::full<std::int32_t>({3}, -9, cpu)), std::vector<double>(3, -9.0)));
}

TEST(tensor_create, arange) {
  EXPECT_TRUE(all_equal(host_f64(ct::arange<float>(5, cpu)), {0, 1, 2, 3, 4}));
  EXPECT_TRUE(all_equal(host_f64(ct::arange<std::int64_t>(3, cpu)), {0, 1, 2}));
  EXPECT_EQ(ct::arange<float>(0, cpu).size(), 0);
}

// Same seed, same values; another seed, other values.
template <class Make>
void expect_seeded(Make make) {
  const auto a = host_f64(make(11)), b = host_f64(make(11)), c = host_f64(make(12));
  EXPECT_TRUE(all_equal(a, b)) << "same seed";
  std::size_t same = 0;
  for (std::size_t i = 0; i < a.size(); ++i) same += a[i] == c[i];
  EXPECT_LT(same, a.size() / 100) << "different seeds gave mostly equal values";
}

// Mean and standard deviation of a sample.
std::pair<double, double> moments(const std::vector<double>& v) {
  const double mean = std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
  double var = 0;
  for (double x : v) var += (x - mean) * (x - mean);
  return {mean, std::sqrt(var / double(v.size()))};
}

TEST(tensor_create, rand_is_uniform_in_range_and_seeded) {
  const auto v = host_f64(ct::rand<float>({100000}, fresh_seed(), -2.0, 6.0, cpu));
  EXPECT_TRUE(std::all_of(v.begin(), v.end(), [](double x) { return x >= -2.0 && x < 6.0; }));
  const auto [mean, sd] = moments(v);
  EXPECT_NEAR(mean, 2.0, 0.05);                  // uniform on [-2, 6): mean 2
  EXPECT_NEAR(sd, 8.0 / std::sqrt(12.0), 0.05);  // and standard deviation 8 / sqrt(12)
  expect_seeded([](std::uint64_t seed) { return ct::rand<float>({1000}, seed, 0.0, 1.0, cpu); });
}

TEST(tensor_create, randn_is_normal_and_seeded) {
  const auto [mean, sd] = moments(host_f64(ct::randn<float>({100000}, fresh_seed(), 3.0, cpu)));
  EXPECT_NEAR(mean, 0.0, 0.05);  // the standard error of the mean is 0.01
  EXPECT_NEAR(sd, 3.0, 0.05);
  expect_seeded([](std::uint64_t seed) { return ct::randn<ct::bf16>({1000}, seed, 1.0, cpu); });
}

// ---- Host copies --------------------------------------------------------------------------------

TEST(tensor_copy, host_round_trip) {
  const auto values = iota(12);
  auto t = ct::from_host(values, {3, 4}, cpu);
  EXPECT_EQ(t.to_host(), values);
  const std::vector<float> other(12, -1.5f);
  t.copy_from_host(other);
  EXPECT_EQ(t.to_host(), other);
  EXPECT_THAT([&] { t.copy_from_host(iota(5)); },
              error_with("ct::tensor::copy_from_host: got 5 values for a tensor of 12 elements [3, 4]"));
}

TEST(tensor_copy, clone_is_a_contiguous_independent_copy) {
  auto t = ct::from_host(iota(6), {2, 3}, cpu);
  const auto transposed = t.transpose();
  auto c = transposed.clone();
  EXPECT_TRUE(c.contiguous());
  EXPECT_EQ(c.extents(), (ct::extents_t{3, 2}));
  EXPECT_EQ(c.to_host(), transposed.to_host());
  c.copy_from_host(std::vector<float>(6, 9.0f));
  EXPECT_EQ(t.to_host(), iota(6)) << "writing the clone changed the original";
}

TEST(tensor_views, unsqueeze_adds_a_unit_axis_to_any_view) {
  auto t = ct::from_host(iota(6), {2, 3}, cpu);
  const auto front = t.unsqueeze(0), back = t.unsqueeze(2);
  EXPECT_EQ(front.extents(), (ct::extents_t{1, 2, 3}));
  EXPECT_TRUE(front.contiguous());
  EXPECT_EQ(back.extents(), (ct::extents_t{2, 3, 1}));
  EXPECT_TRUE(back.contiguous());
  EXPECT_EQ(front.to_host(), iota(6));
  const auto transposed = t.transpose().unsqueeze(1);  // [3, 1, 2], strided
  EXPECT_EQ(transposed.extents(), (ct::extents_t{3, 1, 2}));
  EXPECT_EQ(transposed.to_host(), t.transpose().to_host());
  EXPECT_THAT([&] { (void)t.unsqueeze(3); }, error_with("ct::tensor::unsqueeze: axis 3 out of range for rank 2"));
}

TEST(tensor_views, squeeze_drops_a_unit_axis) {
  auto t = ct::from_host(iota(6), {2, 1, 3}, cpu);
  const auto s = t.squeeze(1);
  EXPECT_EQ(s.extents(), (ct::extents_t{2, 3}));
  EXPECT_EQ(s.to_host(), iota(6));
  EXPECT_EQ(t.transpose(0, 2).squeeze(1).to_host(), t.squeeze(1).transpose().to_host());
  EXPECT_THAT([&] { (void)t.squeeze(0); }, error_with("ct::tensor::squeeze: axis 0 has extent 2, not 1"));
}

TEST(tensor_views, unflatten_cuts_an_axis_into_equal_parts) {
  auto t = ct::from_host(iota(12), {2, 6}, cpu);
  const auto cols = t.unflatten(1, 3);  // [2, 3, 2]: row r, part p = columns 2p, 2p + 1
  EXPECT_EQ(cols.extents(), (ct::extents_t{2, 3, 2}));
  EXPECT_TRUE(cols.contiguous());
  EXPECT_EQ(cols.to_host(), iota(12));
  const auto parts_first = cols.transpose(0, 1);  // [3, 2, 2]: part p of every row
  EXPECT_EQ(parts_first.to_host(), (std::vector<float>{0, 1, 6, 7, 2, 3, 8, 9, 4, 5, 10, 11}));
  const auto rows = t.transpose().unflatten(0, 2);  // [2, 3, 2] of the transposed [6, 2]
  EXPECT_EQ(rows.to_host(), (std::vector<float>{0, 6, 1, 7, 2, 8, 3, 9, 4, 10, 5, 11}));
  EXPECT_THAT([&] { (void)t.unflatten(1, 4); },
              error_with("ct::tensor::unflatten: axis 1 of extent 6 does not split into 4 equal parts"));
  EXPECT_THAT([&] { (void)t.unflatten(1, 0); },
              error_with("ct::tensor::unflatten: axis 1 of extent 6 does not split into 0 equal parts"));
  EXPECT_THAT([&] { (void)t.unflatten(2, 1); }, error_with("ct::tensor::unflatten"));
}

TEST(tensor_copy, moved_from_and_default_tensors_are_empty) {
  auto t = ct::zeros<float>({4}, cpu);
  const auto moved = std::move(t);
  EXPECT_FALSE(t.valid());
  EXPECT_TRUE(moved.valid());
  const std::string empty = "ct::tensor: this tensor is empty (default-constructed or moved from)";
  EXPECT_THAT([&] { (void)t.to_host(); }, error_with(empty));
  EXPECT_THAT([&] { (void)t.view(); }, error_with(empty));
  EXPECT_THAT([&] { (void)ct::tensor<float>().data(); }, error_with(empty));
}

// ---- Views --------------------------------------------------------------------------------------

TEST(tensor_view, views_share_memory) {
  auto t = ct::from_host(iota(12), {3, 4}, cpu);
  auto v = t.view();
  v.copy_from_host(std::vector<float>(12, 7.0f));
  EXPECT_EQ(t.to_host(), std::vector<float>(12, 7.0f));
}

TEST(tensor_view, reshape) {
  auto t = ct::from_host(iota(12), {2, 6}, cpu);
  auto r = t.reshape({3, -1});
  EXPECT_EQ(r.extents(), (ct::extents_t{3, 4}));
  EXPECT_EQ(r.to_host(), iota(12));
  EXPECT_EQ(t.reshape({-1}).extents(), (ct::extents_t{12}));
  r.copy_from_host(std::vector<float>(12, 1.0f));
  EXPECT_EQ(t.to_host(), std::vector<float>(12, 1.0f)) << "reshape copied";
}

TEST(tensor_view, reshape_errors) {
  const auto t = ct::from_host(iota(12), {2, 6}, cpu);
  EXPECT_THAT(
      [&] {
        (void)t.reshape({-1, -1});
      },
      error_with("ct::tensor::reshape: at most one extent may be -1"));
  EXPECT_THAT(
      [&] {
        (void)t.reshape({5, -1});
      },
      error_with("ct::tensor::reshape: cannot infer the -1 extent for 12 elements"));
  EXPECT_THAT([&] { (void)t.reshape({5}); },
              error_with("ct::tensor::reshape: [5] holds a different number of elements than [2, 6]"));
  EXPECT_THAT([&] { (void)t.reshape({-2, -6}); }, error_with("ct::tensor::reshape: negative extent"));
  EXPECT_THAT([&] { (void)t.transpose().reshape({12}); },
              error_with("ct::tensor::reshape: the tensor is not contiguous [6, 2]; clone() it first"));
}

TEST(tensor_view, slice) {
  auto t = ct::from_host(iota(20), {4, 5}, cpu);
  const auto rows = t.slice(0, 1, 3), cols = t.slice(1, 2, 4);
  EXPECT_EQ(rows.extents(), (ct::extents_t{2, 5}));
  EXPECT_TRUE(all_equal(host_f64(rows), {5, 6, 7, 8, 9, 10, 11, 12, 13, 14}));
  EXPECT_FALSE(cols.contiguous());
  EXPECT_TRUE(all_equal(host_f64(cols), {2, 3, 7, 8, 12, 13, 17, 18}));
  EXPECT_EQ(t.slice(0, 2, 2).size(), 0);
  EXPECT_THAT([&] { (void)t.slice(0, 2, 9); },
              error_with("ct::tensor::slice: range [2, 9) is outside axis 0 of extent 4"));
  EXPECT_THAT([&] { (void)t.slice(2, 0, 1); },
              error_with("ct::tensor::slice: axis 2 out of range for rank 2"));
}

TEST(tensor_view, transpose) {
  const auto t = ct::from_host(iota(6), {2, 3}, cpu);
  const auto tt = t.transpose();
  EXPECT_EQ(tt.extents(), (ct::extents_t{3, 2}));
  EXPECT_EQ(tt.strides(), (ct::extents_t{1, 3}));
  EXPECT_TRUE(all_equal(host_f64(tt), {0, 3, 1, 4, 2, 5}));
  const auto cube = ct::from_host(iota(24), {2, 3, 4}, cpu).transpose(0, 2);
  EXPECT_EQ(cube.extents(), (ct::extents_t{4, 3, 2}));
  EXPECT_EQ(cube.to_host()[1], 12.0f);  // element (0, 0, 1) is the original (1, 0, 0)
  EXPECT_THAT([&] { (void)t.transpose(0, 2); },
              error_with("ct::tensor::transpose: axis 2 out of range for rank 2"));
}

// Host writes through a strided view land at the strided positions only.
TEST(tensor_view, copy_into_a_strided_view) {
  auto t = ct::zeros<float>({3, 4}, cpu);
  auto col = t.slice(1, 1, 2);
  col.copy_from_host({1, 2, 3});
  EXPECT_TRUE(all_equal(host_f64(t), {0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0}));
}

// ---- Borrowed host memory -----------------------------------------------------------------------

TEST(tensor_borrow, uses_foreign_memory_in_place_with_its_strides) {
  std::vector<float> buffer = iota(10);
  {
    auto every_other = ct::tensor<float>::borrow(cpu, buffer.data(), {5}, {2});
    EXPECT_TRUE(all_equal(host_f64(every_other), {0, 2, 4, 6, 8}));
    every_other.copy_from_host({-1, -2, -3, -4, -5});
  }
  EXPECT_EQ(buffer, (std::vector<float>{-1, 1, -2, 3, -3, 5, -4, 7, -5, 9}));  // still ours, and written
}

TEST(tensor_borrow, errors) {
  std::vector<float> buffer(8);
  using t = ct::tensor<float>;
  EXPECT_THAT([&] { (void)t::borrow(cpu, nullptr, {4}, {1}); },
              error_with("ct::tensor::borrow: data pointer is null"));
  EXPECT_THAT(
      [&] {
        (void)t::borrow(cpu, buffer.data(), {2, 2}, {1});
      },
      error_with("ct::tensor::borrow: got 2 extents but 1 strides"));
  EXPECT_THAT(
      [&] {
        (void)t::borrow(cpu, reinterpret_cast<float*>(reinterpret_cast<char*>(buffer.data()) + 1), {2}, {1});
      },
      error_with("ct::tensor::borrow: pointer is not aligned to 4 bytes, as f32 needs"));
  EXPECT_THAT([&] { (void)t::borrow(cpu, buffer.data() + 7, {4}, {-1}); },
              error_with("ct::tensor::borrow: negative strides are not supported"));
}

}  // namespace
