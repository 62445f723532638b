// backend/warp_rows.hpp's byte bookkeeping, driven over a simulated warp: 32 lanes whose chunks
// are consecutive in one row, the row starting at every offset a 16-byte block allows and ending
// at every chunk of the warp. The GPU code is these functions plus one load or store a block and
// one shuffle; here the shuffle is an index into the lanes' array.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "ctile/backend/warp_rows.hpp"

namespace {

using ct::backend::detail::block_bytes;
using ct::backend::detail::bytes_at;
using ct::backend::detail::chunk16;
using ct::backend::detail::warp_row_chunk;

constexpr int lanes = 32;

chunk16 random_chunk(std::mt19937& rng) {
  chunk16 c;
  for (auto& w : c.word) w = std::uint32_t(rng());
  return c;
}

const unsigned char* bytes(const chunk16& c) { return reinterpret_cast<const unsigned char*>(c.word); }

TEST(warp_rows, bytes_at_takes_16_bytes_at_every_shift) {
  std::mt19937 rng(7);
  const chunk16 lo = random_chunk(rng), hi = random_chunk(rng);
  unsigned char both[32];
  std::memcpy(both, lo.word, 16);
  std::memcpy(both + 16, hi.word, 16);
  for (unsigned shift = 0; shift <= 16; ++shift) {
    const chunk16 got = bytes_at(lo, hi, shift);
    EXPECT_EQ(0, std::memcmp(bytes(got), both + shift, 16)) << "shift " << shift;
  }
}

// One warp slot: chunk t of the warp holds columns [first + t * vec, first + (t + 1) * vec) of a
// row of `cols` elements of `size` bytes that starts `phase` bytes into a 16-byte block, inside
// a buffer with room on both sides (other rows' bytes).
struct warp_case {
  int size, phase, cols, first;
  bool row_inside = true;

  int vec() const { return 16 / size; }
  std::string name() const {
    return "size " + std::to_string(size) + ", phase " + std::to_string(phase) + ", cols " + std::to_string(cols) +
           ", first column " + std::to_string(first) + (row_inside ? "" : ", row outside");
  }
};

struct simulated_memory {
  static constexpr int margin = 64;
  std::vector<unsigned char> storage;
  unsigned char* base;  // 16-byte aligned
  std::uintptr_t row_lo, row_hi, span_lo, span_hi;

  explicit simulated_memory(const warp_case& c) {
    const std::size_t row_bytes = std::size_t(c.cols) * c.size;
    const std::size_t need = margin + c.phase + row_bytes + std::size_t(lanes + 2) * 16 + margin;
    storage.resize(need + 16);
    base = storage.data() + (16 - reinterpret_cast<std::uintptr_t>(storage.data()) % 16) % 16;
    row_lo = reinterpret_cast<std::uintptr_t>(base) + margin + c.phase;
    row_hi = c.row_inside ? row_lo + row_bytes : row_lo;
    span_lo = reinterpret_cast<std::uintptr_t>(base);
    span_hi = span_lo + need;
  }
  std::uintptr_t chunk_address(const warp_case& c, int lane) const {
    return row_lo + std::uintptr_t(c.first + lane * c.vec()) * c.size;  // row_lo: the row's column 0
  }
  bool in_row(std::uintptr_t a) const { return a >= row_lo && a < row_hi; }
};

void check_load(const warp_case& c) {
  SCOPED_TRACE(c.name());
  simulated_memory m(c);
  std::mt19937 rng(c.size * 1000 + c.phase * 100 + c.cols);
  for (std::uintptr_t a = m.span_lo; a < m.span_hi; ++a) *reinterpret_cast<unsigned char*>(a) = (unsigned char)rng();
  std::vector<warp_row_chunk> w;
  std::array<chunk16, lanes> own{}, next{};
  std::uintptr_t shift = 0;
  for (int t = 0; t < lanes; ++t) {
    w.emplace_back(m.chunk_address(c, t), m.row_lo, m.row_hi, t);
    if (t == 0) shift = w[t].shift;
    EXPECT_EQ(shift, w[t].shift) << "lane " << t << ": the shift differs across the warp";
    auto read = [&](std::uintptr_t block) {
      EXPECT_EQ(0u, block % 16) << "lane " << t;
      bool holds = false;
      for (std::uintptr_t a = block; a < block + 16; ++a) holds = holds || m.in_row(a);
      EXPECT_TRUE(holds) << "lane " << t << " reads a block without a byte of its row";
      EXPECT_TRUE(block >= m.span_lo && block + 16 <= m.span_hi);
      chunk16 x;
      std::memcpy(x.word, reinterpret_cast<const void*>(block), 16);
      return x;
    };
    if (w[t].read_block) own[t] = read(w[t].block);
    if (w[t].read_next) {
      EXPECT_EQ(lanes - 1, t) << "only the last lane reads its neighbour's block";
      EXPECT_NE(0u, w[t].shift) << "an aligned chunk needs no second block";
      next[t] = read(w[t].block + 16);
    }
  }
  for (int t = 0; t < lanes; ++t) {
    const chunk16 chunk = w[t].chunk_from(own[t], t + 1 < lanes ? own[t + 1] : next[t]);
    const std::uintptr_t at = m.chunk_address(c, t);
    for (int b = 0; b < 16; ++b) {
      if (!m.in_row(at + b)) continue;  // outside the row: the caller pads it
      ASSERT_EQ(*reinterpret_cast<const unsigned char*>(at + b), bytes(chunk)[b]) << "lane " << t << " byte " << b;
    }
  }
}

void check_store(const warp_case& c) {
  SCOPED_TRACE(c.name());
  simulated_memory m(c);
  std::mt19937 rng(c.size * 7000 + c.phase * 300 + c.cols);
  const unsigned char sentinel = 0xA5;
  for (std::uintptr_t a = m.span_lo; a < m.span_hi; ++a) *reinterpret_cast<unsigned char*>(a) = sentinel;
  std::array<chunk16, lanes> x{};
  for (auto& chunk : x) chunk = random_chunk(rng);
  std::set<std::uintptr_t> written;
  for (int t = 0; t < lanes; ++t) {
    const warp_row_chunk w(m.chunk_address(c, t), m.row_lo, m.row_hi, t);
    auto store = [&](std::uintptr_t block, const chunk16& d, block_bytes b) {
      if (!b.any()) return;
      EXPECT_EQ(0u, b.begin % c.size) << "lane " << t << " writes part of an element";
      EXPECT_EQ(0u, b.end % c.size) << "lane " << t << " writes part of an element";
      for (std::uintptr_t a = block + b.begin; a < block + b.end; ++a)
        EXPECT_TRUE(written.insert(a).second) << "lane " << t << " writes a byte a second time";
      auto* at = reinterpret_cast<unsigned char*>(block);
      using ct::backend::detail::store_block_bytes;
      switch (c.size) {  // element by element, as the GPU writes partial blocks
        case 1: store_block_bytes<1>(at, d, b); break;
        case 2: store_block_bytes<2>(at, d, b); break;
        case 4: store_block_bytes<4>(at, d, b); break;
        default: store_block_bytes<8>(at, d, b); break;
      }
    };
    // shfl_up gives lane 0 its own chunk.
    store(w.block, w.block_from(x[t > 0 ? t - 1 : 0], x[t]), w.write);
    if (w.write_next.any()) {
      EXPECT_EQ(lanes - 1, t) << "only the last lane writes into its neighbour's block";
      store(w.block + 16, w.next_block_from(x[t]), w.write_next);
    }
  }
  // The warp's chunks cover bytes [chunk_address(0), chunk_address(0) + 32 * 16); the row's part of
  // it must hold x, and every other byte keep the sentinel.
  const std::uintptr_t lo = m.chunk_address(c, 0), hi = lo + lanes * 16;
  for (std::uintptr_t a = m.span_lo; a < m.span_hi; ++a) {
    const unsigned char got = *reinterpret_cast<const unsigned char*>(a);
    if (a >= lo && a < hi && m.in_row(a)) {
      const std::uintptr_t k = a - lo;
      ASSERT_EQ(bytes(x[k / 16])[k % 16], got) << "byte " << (a - m.row_lo) << " of the row";
    } else {
      ASSERT_EQ(sentinel, got) << "byte " << std::intptr_t(a - m.row_lo) << " from the row's start, outside the tile";
    }
  }
}

// Rows starting at each phase an element size allows, ending before, at every chunk of, and
// after the warp's columns; warps at the row's start and further in.
std::vector<warp_case> cases() {
  std::vector<warp_case> all;
  for (int size : {1, 2, 4, 8}) {
    const int vec = 16 / size, span = lanes * vec;
    for (int phase = 0; phase < 16; phase += size) {
      for (int first : {0, span, 3 * span}) {
        for (int end = first - vec; end <= first + span + vec; end += (vec > 1 ? vec / 2 : 1)) {
          if (end < 1) continue;
          all.push_back({size, phase, end, first});
        }
        all.push_back({size, phase, first + span + 1, first, /*row_inside=*/false});
      }
    }
  }
  return all;
}

TEST(warp_rows, loads_give_each_lane_its_chunk_reading_only_row_blocks) {
  for (const auto& c : cases()) check_load(c);
}

TEST(warp_rows, stores_write_each_byte_of_the_tile_once_and_nothing_else) {
  for (const auto& c : cases()) check_store(c);
}

// Where the row holds every chunk of the warp, the constructor without range tests agrees.
TEST(warp_rows, whole_rows_need_no_range_tests) {
  int checked = 0;
  for (const auto& c : cases()) {
    if (!c.row_inside || c.cols < c.first + lanes * c.vec()) continue;
    SCOPED_TRACE(c.name());
    simulated_memory m(c);
    for (int t = 0; t < lanes; ++t) {
      const std::uintptr_t at = m.chunk_address(c, t);
      const warp_row_chunk clipped(at, m.row_lo, m.row_hi, t), whole(at, t);
      EXPECT_EQ(clipped.block, whole.block);
      EXPECT_EQ(clipped.shift, whole.shift);
      EXPECT_EQ(clipped.read_block, whole.read_block);
      EXPECT_EQ(clipped.read_next, whole.read_next);
      EXPECT_EQ(clipped.write.begin, whole.write.begin);
      EXPECT_EQ(clipped.write.end, whole.write.end);
      EXPECT_EQ(clipped.write_next.any(), whole.write_next.any());
      if (whole.write_next.any()) {
        EXPECT_EQ(clipped.write_next.begin, whole.write_next.begin);
        EXPECT_EQ(clipped.write_next.end, whole.write_next.end);
      }
    }
    ++checked;
  }
  EXPECT_GT(checked, 100);
}

TEST(warp_rows, block_bytes_clip_a_range_to_a_block) {
  using ct::backend::detail::bytes_of_range_in;
  EXPECT_FALSE(bytes_of_range_in(32, 0, 32).any());
  EXPECT_FALSE(bytes_of_range_in(32, 48, 64).any());
  EXPECT_TRUE(bytes_of_range_in(32, 0, 100).all());
  const block_bytes inner = bytes_of_range_in(32, 35, 41);
  EXPECT_EQ(3u, inner.begin);
  EXPECT_EQ(9u, inner.end);
}

}  // namespace
