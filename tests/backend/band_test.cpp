// backend/exchange.hpp's bands: which sub-tiles ct::extract takes without moving data
// (band_is_local), and that band_of's slot run holds, in every thread of a GPU block, exactly the
// band's elements in the band's layout. The threads are simulated: layouts are plain arithmetic
// on the thread index, so this checks the GPU's 128-thread layouts on the host.
#include <gtest/gtest.h>

#include "ctile/backend/exchange.hpp"

namespace {

using ct::shape;
using ct::backend::band_is_local;
using ct::backend::blocked_layout;

// An f32 accumulator of a 128 x 128 GEMM tile as ct::pipelined returns it on the GPU: 8-element
// chunks over 128 threads (16 chunks a row, 8 rows a round of the threads).
using acc_shape = shape<1, 128, 128>;
using acc_layout = blocked_layout<acc_shape, 8, 128>;

TEST(bands, whole_rounds_of_rows_are_local) {
  static_assert(band_is_local<shape<1, 32, 128>, acc_shape, acc_layout>());
  static_assert(band_is_local<shape<1, 64, 128>, acc_shape, acc_layout>());
  static_assert(band_is_local<shape<1, 8, 128>, acc_shape, acc_layout>());    // one round: 128 chunks
  static_assert(band_is_local<shape<1, 128, 128>, acc_shape, acc_layout>());  // the whole tile
  // Parts of a round: each thread holds only some of the band's chunks.
  static_assert(!band_is_local<shape<1, 4, 128>, acc_shape, acc_layout>());
  static_assert(!band_is_local<shape<1, 1, 128>, acc_shape, acc_layout>());
  // Not a contiguous range of the flat order.
  static_assert(!band_is_local<shape<1, 128, 64>, acc_shape, acc_layout>());
  static_assert(!band_is_local<shape<1, 32, 64>, acc_shape, acc_layout>());
  // Rank 2; a band of a row-major tile along its first axis, and across the batch axis.
  static_assert(band_is_local<shape<16, 64>, shape<64, 64>, blocked_layout<shape<64, 64>, 4, 128>>());
  static_assert(
      band_is_local<shape<1, 8, 128>, shape<2, 8, 128>, blocked_layout<shape<2, 8, 128>, 8, 128>>());
  static_assert(
      !band_is_local<shape<2, 4, 128>, shape<2, 8, 128>, blocked_layout<shape<2, 8, 128>, 8, 128>>());
  // A replicated tile, and a slice layout (a reduction's), are not cut this way.
  static_assert(!band_is_local<shape<1, 4>, shape<2, 4>, blocked_layout<shape<2, 4>, 4, 128>>());
  static_assert(
      !band_is_local<shape<1, 32, 1>, shape<1, 128, 1>, blocked_layout<shape<1, 128, 128>, 8, 128>>());
  SUCCEED();
}

// For every thread and slot: the band's element at slot s is the parent's element at slot
// s + first / threads, shifted by the band's origin.
template <class S2, class S, class P>
void expect_band_slots_match(int band) {
  using P2 = blocked_layout<S2, P::vec, P::threads>;
  static_assert(band_is_local<S2, S, P>());
  constexpr int axis = 1;
  ct::coord<S::rank> origin{};
  origin[axis] = band * S2::dim(axis);
  const ct::index_t first = ct::detail::flatten<S>(origin);
  for (int t = 0; t < P::threads; ++t)
    for (int s = 0; s < P2::slots; ++s) {
      auto want = ct::backend::slot_coord<S2, P2>(t, s);
      for (int i = 0; i < S::rank; ++i) want[i] += origin[i];
      const auto got = ct::backend::slot_coord<S, P>(t, int(s + first / P::threads));
      for (int i = 0; i < S::rank; ++i)
        ASSERT_EQ(got[i], want[i]) << "band " << band << ", thread " << t << ", slot " << s << ", axis " << i;
    }
}

TEST(bands, band_slots_hold_the_band_in_every_thread) {
  for (int band = 0; band < 4; ++band)
    expect_band_slots_match<shape<1, 32, 128>, acc_shape, acc_layout>(band);
  for (int band = 0; band < 16; ++band)
    expect_band_slots_match<shape<1, 8, 128>, acc_shape, acc_layout>(band);
  for (int band = 0; band < 2; ++band)
    expect_band_slots_match<shape<1, 32, 64>, shape<1, 64, 64>, blocked_layout<shape<1, 64, 64>, 4, 128>>(
        band);
}

TEST(bands, band_of_copies_the_slot_run) {
  ct::tile<float, acc_shape, acc_layout> x;
  for (int s = 0; s < acc_layout::slots; ++s) x.v[s] = float(s);
  using S2 = shape<1, 32, 128>;
  using P2 = blocked_layout<S2, 8, 128>;
  for (int band = 0; band < 4; ++band) {
    const auto r = ct::backend::band_of<S2, P2>(x, ct::index_t(band) * S2::size);
    for (int s = 0; s < P2::slots; ++s)
      ASSERT_EQ(r.v[s], float(s + band * P2::slots)) << "band " << band << ", slot " << s;
  }
}

}  // namespace
