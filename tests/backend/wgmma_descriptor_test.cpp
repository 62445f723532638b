// advance_descriptor (backend/sm90/wgmma.hpp) against building the descriptor anew: the wgmma
// fold builds a stage's first descriptors from their addresses and reaches every other step's by
// a constant offset, so the two must agree bit for bit wherever the fold can use them: every
// 16-byte shared-memory address below 256 KiB, every offset a trip adds, both operand layouts.
#include <gtest/gtest.h>

#include <cstdint>

#include "ctile/backend/sm90/wgmma.hpp"

namespace {

namespace sm90 = ct::backend::sm90;

constexpr std::uint32_t smem_limit = 256u * 1024u;

TEST(wgmma_descriptor, advancing_equals_building_anew) {
  // The offsets wgmma_trip adds: K steps of 32 bytes inside a 128-byte row, panels of
  // 64 rows x 128 bytes, and B's 16-row steps of 2 KiB, up to a 64 KiB stage.
  const std::uint32_t offsets[] = {0u, 32u, 64u, 96u, 2048u, 8192u, 16384u + 96u, 24576u, 65535u & ~15u};
  const std::uint32_t panel_bytes[] = {128u * 64u, 128u * 256u};
  long checked = 0;
  for (std::uint32_t addr = 0; addr < smem_limit; addr += 16) {
    for (std::uint32_t off : offsets) {
      if (addr + off >= smem_limit) continue;
      ASSERT_EQ(sm90::advance_descriptor(sm90::kmajor_b128_descriptor(addr), off),
                sm90::kmajor_b128_descriptor(addr + off))
          << "K-major, address " << addr << " + " << off;
      for (std::uint32_t lbo : panel_bytes) {
        const auto built = [&](std::uint32_t a) {
          return sm90::smem_descriptor(a, lbo, 1024, sm90::smem_swizzle::b128);
        };
        ASSERT_EQ(sm90::advance_descriptor(built(addr), off), built(addr + off))
            << "MN-major, panel " << lbo << ", address " << addr << " + " << off;
      }
      ++checked;
    }
  }
  EXPECT_GT(checked, 100000);
}

TEST(wgmma_descriptor, advancing_keeps_the_other_fields) {
  // The top of the address range: the add must not carry into the leading-offset field.
  const std::uint64_t d = sm90::smem_descriptor(smem_limit - 32, 128u * 256u, 1024, sm90::smem_swizzle::b128);
  const std::uint64_t moved = sm90::advance_descriptor(d, 16);
  EXPECT_EQ(moved >> 14, d >> 14);
  EXPECT_EQ(moved & 0x3FFFu, (d & 0x3FFFu) + 1);
}

}  // namespace
