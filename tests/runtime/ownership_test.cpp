// The runtime's ownership rules, each with a test that fails if the rule is broken:
//   (a) an output is exclusively borrowed until its launch is waited on; same-stream use is
//       ordered, other-stream use is an error, and host writes to an input wait for readers;
//   (b) a tensor dropped while a launch uses it is released only after that launch;
//   (c) an output may not share memory with another argument of the same launch;
//   (d) borrowed foreign memory stays its owner's;
//   (e) a dropped pending result detaches, and host access then waits for the work.
// Launches that must still be running when the test acts use the slow kernel, and the tests
// check that they were.
#include <cuda_runtime_api.h>

#include <algorithm>

#include "01_vector_add/vector_add.hpp"
#include "common/test_kernels.hpp"
#include "common/test_util.hpp"

namespace {
using namespace ct_test;

using add_kernel = examples::vector_add<float, 2048>;
using add_tile = ct::shape<2048>;

class ownership : public on_device {
 protected:
  static constexpr ct::index_t n = ct::index_t(1) << 18;

  ct::tensor<float> input() const { return ct::randn<float>({n}, fresh_seed(), 1.0, dev()); }

  ct::pending slow(const ct::stream& s, ct::tensor<float>& c, const ct::tensor<float>& a) const {
    return ct::launch(s, slow_double{}, c.partition(ct::shape<slow_double::tile>{}), a, slow_iters(dev()));
  }
  ct::pending slow(ct::tensor<float>& c, const ct::tensor<float>& a) const {
    return slow(ct::default_stream(dev()), c, a);
  }
  // What slow_double computes from `a`'s values.
  static std::vector<double> slow_result(const std::vector<double>& a) {
    return reference(a.size(), [&](std::size_t i) { return 2 * a[i]; });
  }
};

const char* const not_in_flight =
    "the slow launch had already finished, so this test proved nothing; "
    "raise slow_iters() for this device";

auto borrowed_by(const std::string& kernel) {
  return ThrowsMessage<ct::error>(AllOf(HasSubstr("exclusively borrowed"), HasSubstr("'" + kernel + "'")));
}

// ---- (a) exclusive borrow of outputs ------------------------------------------------------------

TEST_P(ownership, pending_output_refuses_host_access_until_wait) {
  const auto a = input();
  auto c = poisoned<float>({n}, dev());
  auto p = slow(c, a);
  EXPECT_THAT([&] { (void)c.to_host(); }, borrowed_by("slow_double"));
  EXPECT_THAT([&] { c.copy_from_host(std::vector<float>(std::size_t(n), 1.0f)); },
              borrowed_by("slow_double"));
  p.wait();
  EXPECT_TRUE(all_equal(host_f64(c), slow_result(host_f64(a))));
  c.copy_from_host(std::vector<float>(std::size_t(n), 1.0f));  // given back: writable again
  EXPECT_TRUE(all_equal(host_f64(c), std::vector<double>(std::size_t(n), 1.0)));
}

TEST_P(ownership, host_write_to_an_input_waits_for_its_readers) {
  const auto a0 = input();
  auto a = a0.clone();
  auto c = poisoned<float>({n}, dev());
  auto p = slow(c, a);
  ASSERT_FALSE(p.done()) << not_in_flight;
  a.copy_from_host(std::vector<float>(std::size_t(n), 1000.0f));
  p.wait();
  EXPECT_TRUE(all_equal(host_f64(c), slow_result(host_f64(a0))));
}

TEST_P(ownership, pending_output_refused_by_other_streams) {
  const auto a = input();
  auto c = poisoned<float>({n}, dev()), d = poisoned<float>({n}, dev());
  auto p = slow(c, a);
  const ct::stream other(dev());
  const auto on_other_stream =
      ThrowsMessage<ct::error>(AllOf(HasSubstr("kernel 'vector_add'"), HasSubstr("exclusively borrowed"),
                                     HasSubstr("kernel 'slow_double' on another stream")));
  EXPECT_THAT([&] { ct::launch(other, add_kernel{}, d.partition(add_tile{}), c, a).wait(); }, on_other_stream)
      << "as an input";
  EXPECT_THAT([&] { ct::launch(other, add_kernel{}, c.partition(add_tile{}), a, a).wait(); }, on_other_stream)
      << "as an output";
  p.wait();
  ct::launch(other, add_kernel{}, d.partition(add_tile{}), c, a).wait();  // given back: allowed
  const auto ha = host_f64(a), hc = host_f64(c);
  EXPECT_TRUE(all_close(host_f64(d), reference(ha.size(), [&](std::size_t i) { return hc[i] + ha[i]; }),
                        rounding<float>(1)));
}

// A second launch on the same stream may read the pending output: the stream orders it after
// the first, so it sees the finished result, not the poison.
TEST_P(ownership, same_stream_launches_chain_in_order) {
  const ct::stream s(dev());
  const auto a = input();
  auto c = poisoned<float>({n}, dev()), d = poisoned<float>({n}, dev());
  auto first = slow(s, c, a);
  auto second = ct::launch(s, add_kernel{}, d.partition(add_tile{}), c, a);
  second.wait();
  first.wait();
  const auto ha = host_f64(a), scaled = slow_result(ha);
  EXPECT_TRUE(all_close(host_f64(d), reference(ha.size(), [&](std::size_t i) { return scaled[i] + ha[i]; }),
                        rounding<float>(1)));
}

// ---- (b) stream-ordered release -----------------------------------------------------------------

// Fresh tensors that together take more memory than the dropped tensor held, filled with
// `value`: had its memory been freed early, some of them would take it over and the kernel would
// read or overwrite them. Half-size tensors fit into the freed block whatever the allocator's
// overheads, and all are allocated before any is filled, so the fill's host buffers cannot take
// the freed memory first.
std::vector<ct::tensor<float>> reuse_memory(const ct::device& dev, ct::index_t size, float value) {
  std::vector<ct::tensor<float>> t;
  for (int i = 0; i < 8; ++i) t.push_back(ct::empty<float>({size / 2}, dev));
  for (auto& x : t) x.copy_from_host(std::vector<float>(std::size_t(size / 2), value));
  return t;
}

TEST_P(ownership, dropped_input_outlives_the_launch) {
  const ct::stream s(dev());  // not the stream that frees memory: the free must wait for it
  auto c = poisoned<float>({n}, dev());
  std::vector<double> expected;
  auto p = [&] {  // the input lives only in here: dropped as soon as the launch is made
    const auto a = input();
    expected = slow_result(host_f64(a));
    return slow(s, c, a);
  }();
  ASSERT_FALSE(p.done()) << not_in_flight;
  const auto others = reuse_memory(dev(), n, 1000.0f);
  p.wait();
  EXPECT_TRUE(all_equal(host_f64(c), expected));
}

TEST_P(ownership, dropped_output_outlives_the_launch) {
  const ct::stream s(dev());
  const auto a = input();
  auto p = [&] {  // the output lives only in here
    auto c = poisoned<float>({n}, dev());
    return slow(s, c, a);
  }();
  ASSERT_FALSE(p.done()) << not_in_flight;
  const auto others = reuse_memory(dev(), n, 1000.0f);
  p.wait();
  for (const auto& t : others)
    EXPECT_TRUE(all_equal(host_f64(t), std::vector<double>(std::size_t(n / 2), 1000.0)))
        << "the kernel wrote freed memory";
}

// ---- (c) aliasing -------------------------------------------------------------------------------

TEST_P(ownership, output_aliasing_an_input_is_rejected_before_any_work) {
  auto c = ct::randn<float>({5000}, fresh_seed(), 1.0, dev());
  const auto b = ct::randn<float>({5000}, fresh_seed(), 1.0, dev());
  const auto before = host_f64(c);
  EXPECT_THAT([&] { examples::add(c, c, b).wait(); },
              ThrowsMessage<ct::error>(HasSubstr("kernel 'vector_add', argument 0 is an output whose memory "
                                                 "overlaps argument 1 (an input)")));
  EXPECT_TRUE(all_equal(host_f64(c), before)) << "the rejected launch modified its output";
}

TEST_P(ownership, two_outputs_sharing_memory_are_rejected) {
  auto y = poisoned<float>({3000}, dev());
  const auto x = ct::randn<float>({3000}, fresh_seed(), 1.0, dev());
  EXPECT_THAT(
      [&] {
        ct::launch(copy_twice{}, y.partition(copy_twice::tile_shape{}), y.partition(copy_twice::tile_shape{}),
                   x)
            .wait();
      },
      ThrowsMessage<ct::error>(
          HasSubstr("argument 0 is an output whose memory overlaps argument 1 (another output)")));
  const auto hy = host_f64(y);
  EXPECT_EQ(std::count_if(hy.begin(), hy.end(), [](double v) { return !std::isnan(v); }), 0)
      << "the rejected launch modified its output";
}

// Slices of one tensor: overlapping ones are caught, disjoint ones (and one input read twice)
// are fine.
TEST_P(ownership, overlapping_slices_are_rejected_disjoint_ones_allowed) {
  auto x = ct::randn<float>({2000}, fresh_seed(), 1.0, dev());
  const auto before = host_f64(x);
  auto low = x.slice(0, 0, 1000);
  const auto overlapping = x.slice(0, 999, 1999), high = x.slice(0, 1000, 2000);
  EXPECT_THAT(
      [&] { examples::add(low, high, overlapping).wait(); },
      ThrowsMessage<ct::error>(HasSubstr("argument 0 is an output whose memory overlaps argument 2")));
  EXPECT_TRUE(all_equal(host_f64(x), before)) << "the rejected launch modified its output";

  examples::add(low, high, high).wait();
  EXPECT_TRUE(all_equal(host_f64(x), reference(before.size(), [&](std::size_t i) {
                          return i < 1000 ? 2 * before[i + 1000] : before[i];
                        })));
}

// ---- (d) borrowed foreign memory ----------------------------------------------------------------

// Memory ctile does not own: a host vector for the CPU, cudaMalloc'd memory for a GPU.
class foreign_buffer {
 public:
  foreign_buffer(const ct::device& dev, const std::vector<float>& values)
      : gpu_(dev.is_cuda()), host_(values) {
    if (!gpu_) return;
    EXPECT_EQ(cudaMalloc(&gpu_ptr_, bytes()), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(gpu_ptr_, values.data(), bytes(), cudaMemcpyHostToDevice), cudaSuccess);
  }
  ~foreign_buffer() {
    if (gpu_) {
      EXPECT_EQ(cudaFree(gpu_ptr_), cudaSuccess) << "ctile freed memory it had only borrowed";
    }
  }
  foreign_buffer(const foreign_buffer&) = delete;
  foreign_buffer& operator=(const foreign_buffer&) = delete;

  float* data() { return gpu_ ? static_cast<float*>(gpu_ptr_) : host_.data(); }
  std::vector<double> read() {
    if (gpu_) {
      EXPECT_EQ(cudaMemcpy(host_.data(), gpu_ptr_, bytes(), cudaMemcpyDeviceToHost), cudaSuccess);
    }
    return {host_.begin(), host_.end()};
  }

 private:
  std::size_t bytes() const { return host_.size() * sizeof(float); }
  bool gpu_;
  std::vector<float> host_;
  void* gpu_ptr_ = nullptr;
};

TEST_P(ownership, borrowed_memory_is_used_in_place_and_left_to_its_owner) {
  const ct::index_t size = 3001;
  const auto values = ct::randn<float>({size}, fresh_seed(), 1.0, ct::device::cpu()).to_host();
  foreign_buffer a_mem(dev(), values), c_mem(dev(), std::vector<float>(std::size_t(size), NAN));
  const auto b = ct::randn<float>({size}, fresh_seed(), 1.0, dev());
  {
    const auto a = ct::tensor<float>::borrow(dev(), a_mem.data(), {size}, {1});
    auto c = ct::tensor<float>::borrow(dev(), c_mem.data(), {size}, {1});
    EXPECT_TRUE(all_equal(host_f64(a), a_mem.read()));
    examples::add(c, a, b).wait();
  }  // the handles are gone; the memory is still the owner's
  const std::vector<double> ha(values.begin(), values.end());
  const auto hb = host_f64(b);
  EXPECT_TRUE(all_equal(a_mem.read(), ha)) << "ctile changed a borrowed input";
  EXPECT_TRUE(all_close(c_mem.read(), reference(ha.size(), [&](std::size_t i) { return ha[i] + hb[i]; }),
                        rounding<float>(1)));
}

// ---- (e) dropped pending results ----------------------------------------------------------------

TEST_P(ownership, dropped_pending_result_detaches_and_host_access_waits) {
  const auto a = input();
  auto c = poisoned<float>({n}, dev());
  ct::event done;
  {
    auto p = slow(c, a);
    done = p.event();
  }
  ASSERT_FALSE(done.done()) << not_in_flight;
  EXPECT_TRUE(all_equal(host_f64(c), slow_result(host_f64(a))));  // to_host waited for the work
  EXPECT_NO_THROW(c.copy_from_host(std::vector<float>(std::size_t(n), 3.0f))) << "still borrowed";
}

CT_INSTANTIATE_ON_DEVICES(ownership);

}  // namespace
