// backend/exchange.hpp's broadcasts of one element (a scalar operand, or a reduction's result in
// a slice of its input's layout) into large GPU-layout tiles (128 threads, simulated on the
// host): every slot of the result holds the value. These targets are past the general local
// search's limit; that the GPU build now broadcasts them without barriers was checked in its
// SASS (cuobjdump), which a host test cannot see: the arena fallback gives the same values here.
#include <gtest/gtest.h>

#include "ctile/backend/exchange.hpp"

namespace {

using ct::shape;
using ct::backend::blocked_layout;
using ct::backend::broadcast_exchange;

// A bf16 flat tile's f32 working copy on the GPU: [4096] in 8-element chunks, 32 slots a thread.
using flat_shape = shape<4096>;
using flat_layout = blocked_layout<flat_shape, 8, 128>;
// A GEMM band: [1, 32, 128] in the accumulator's 8-element chunks.
using band_shape = shape<1, 32, 128>;
using band_layout = blocked_layout<band_shape, 8, 128>;

TEST(broadcasts, a_scalar_fills_every_slot_of_a_large_tile) {
  ct::tile<float, shape<>, blocked_layout<shape<>, 1, 128>> x;
  x.v[0] = 2.5f;
  const auto flat = broadcast_exchange<flat_shape, flat_layout>(x);
  static_assert(flat_layout::slots == 32);
  for (int s = 0; s < flat_layout::slots; ++s) EXPECT_EQ(flat.v[s], 2.5f) << "slot " << s;
  const auto band = broadcast_exchange<band_shape, band_layout>(x);
  for (int s = 0; s < band_layout::slots; ++s) EXPECT_EQ(band.v[s], 2.5f) << "slot " << s;
}

TEST(broadcasts, a_reduced_row_fills_every_slot_of_its_tile) {
  // A [1, 1] result of reducing a [8, 1024] tile along both axes, in a slice of its layout:
  // every slot holds the one value.
  using parent = blocked_layout<shape<8, 1024>, 8, 128>;
  ct::tile<std::uint16_t, shape<1, 1>, parent> x;
  for (int s = 0; s < parent::slots; ++s) x.v[s] = 7;
  const auto r = broadcast_exchange<shape<8, 1024>, parent>(x);
  for (int s = 0; s < parent::slots; ++s) EXPECT_EQ(r.v[s], 7) << "slot " << s;
}

}  // namespace
