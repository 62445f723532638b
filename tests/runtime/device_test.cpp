// Device selection: ct::device::cpu(), ct::parse_device, ct::device::cuda and the CTILE_DEVICE
// variable read by ct::default_device, with the wording of each error pinned. The GPU answers
// depend on the machine, so each test states what it expects both with and without GPUs.
#include "common/test_util.hpp"

namespace {
using namespace ct_test;

auto error_with(const std::string& text) { return ThrowsMessage<ct::error>(HasSubstr(text)); }

const std::string no_gpu =
    "ctile: no CUDA GPU is available (no device or no driver); use ct::device::cpu() or set CTILE_DEVICE=cpu";

TEST(device, cpu_device) {
  const ct::device d = ct::device::cpu();
  EXPECT_TRUE(d.is_cpu());
  EXPECT_FALSE(d.is_cuda());
  EXPECT_EQ(d.kind(), ct::device_kind::cpu);
  EXPECT_EQ(d.name(), "cpu");
  EXPECT_THAT(d.description(), HasSubstr("CPU backend"));
  EXPECT_EQ(d.multiprocessors(), 0);
  EXPECT_EQ(d.shared_memory_per_block(), 0);
  EXPECT_EQ(d, ct::device::cpu());
}

TEST(device, parse_cpu) { EXPECT_EQ(ct::parse_device("cpu"), ct::device::cpu()); }

TEST(device, parse_rejects_malformed_names) {
  for (const std::string spec : {"bogus", "cuda:x", "cuda:", "cuda:-1", "cuda:0x", "CPU", ""}) {
    SCOPED_TRACE("'" + spec + "'");
    EXPECT_THAT([&] { (void)ct::parse_device(spec); },
                error_with("ctile: unknown device '" + spec + "'; expected cpu, cuda or cuda:N"));
  }
}

TEST(device, parse_cuda) {
  for (const std::string spec : {"cuda", "cuda:0", "gpu"}) {
    SCOPED_TRACE(spec);
    if (ct::cuda_device_count() == 0) {
      EXPECT_THAT([&] { (void)ct::parse_device(spec); }, error_with(no_gpu));
    } else {
      const ct::device d = ct::parse_device(spec);
      EXPECT_TRUE(d.is_cuda());
      EXPECT_EQ(d.name(), "cuda:0");
    }
  }
}

TEST(device, missing_gpu_is_an_error) {
  const int count = ct::cuda_device_count();
  const int absent = std::max(5, count);
  if (count == 0) {
    EXPECT_THAT([&] { (void)ct::device::cuda(absent); }, error_with(no_gpu));
    EXPECT_THAT([&] { (void)ct::device::cuda(); }, error_with(no_gpu));
  } else {
    EXPECT_THAT([&] { (void)ct::device::cuda(absent); },
                error_with("CUDA device " + std::to_string(absent) + " does not exist; this machine has " +
                           std::to_string(count) + " GPU(s)"));
    EXPECT_THAT([&] { (void)ct::device::cuda(-1); }, error_with("CUDA device -1 does not exist"));
    EXPECT_THAT(ct::device::cuda(0).description(), HasSubstr("(sm_"));
    // The SM count (the persistent grid's size) agrees with the device's properties.
    const int sms = ct::device::cuda(0).multiprocessors();
    EXPECT_GT(sms, 0);
    EXPECT_THAT(ct::device::cuda(0).description(), HasSubstr(", " + std::to_string(sms) + " SMs)"));
    // Every GPU ctile runs on (sm_80 on) lets a block opt in to more than the default 48 KiB.
    EXPECT_GT(ct::device::cuda(0).shared_memory_per_block(), 48 * 1024);
  }
}

// ---- CTILE_DEVICE -------------------------------------------------------------------------------

TEST(ctile_device_env, selects_the_cpu) {
  const scoped_env env("CTILE_DEVICE", "cpu");
  EXPECT_EQ(ct::default_device(), ct::device::cpu());
}

TEST(ctile_device_env, unset_or_empty_means_cpu_in_host_compiled_code) {
  {
    const scoped_env env("CTILE_DEVICE", nullptr);
    EXPECT_EQ(ct::default_device(), ct::device::cpu());
  }
  const scoped_env env("CTILE_DEVICE", "");
  EXPECT_EQ(ct::default_device(), ct::device::cpu());
}

TEST(ctile_device_env, malformed_value_names_the_variable) {
  const scoped_env env("CTILE_DEVICE", "bogus");
  EXPECT_THAT(
      [] { (void)ct::default_device(); },
      ThrowsMessage<ct::error>(
          AllOf(HasSubstr("ctile: CTILE_DEVICE=bogus: unknown device 'bogus'; expected cpu, cuda or cuda:N"),
                ::testing::Not(HasSubstr("ctile: ctile:")))));
}

TEST(ctile_device_env, absent_gpu_names_the_variable) {
  const scoped_env env("CTILE_DEVICE", "cuda:7");
  const int count = ct::cuda_device_count();
  if (count > 7) GTEST_SKIP() << "this machine has a GPU 7";
  EXPECT_THAT([] { (void)ct::default_device(); },
              error_with(count == 0 ? "CTILE_DEVICE=cuda:7: no CUDA GPU is available"
                                    : "CTILE_DEVICE=cuda:7: CUDA device 7 does not exist"));
}

}  // namespace
