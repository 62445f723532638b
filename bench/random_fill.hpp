// Fresh random inputs for the benchmarks, generated on the device by a ctile kernel: a host
// generator would spend seconds per 512 MB tensor. Each element is a hash of (seed, index),
// uniform in [lo, hi).
#pragma once
#include <cstdint>

#include <ctile/ctile.hpp>

namespace bench {

template <class T>
struct random_fill_map {
  static constexpr const char* name = "bench_random_fill";
  static constexpr int tile = 4096;
  CT_TILE void operator()(ct::out<T, ct::shape<tile>> y, std::uint32_t seed, float lo, float hi) const {
    auto h = (ct::arange<std::uint32_t, tile>() + std::uint32_t(y.origin()[0])) ^ (seed * 0x9e3779b1u);
    h = (h ^ (h >> 16u)) * 0x7feb352du;  // an integer mixer: every input bit reaches every output bit
    h = (h ^ (h >> 15u)) * 0x846ca68bu;
    h = h ^ (h >> 16u);
    const auto unit = ct::astype<float>(h >> 8u) * (1.0f / 16777216.0f);
    y.store(ct::astype<T>(lo + (hi - lo) * unit));
  }
};

// Fills t (contiguous) with values uniform in [lo, hi).
template <class T>
void random_fill(const ct::stream& s, ct::tensor<T>& t, std::uint32_t seed, float lo = -2.0f, float hi = 2.0f) {
  auto flat = t.reshape({-1});
  (void)ct::launch(s, random_fill_map<T>{}, flat.partition(ct::shape<random_fill_map<T>::tile>{}), seed, lo, hi);
}

}  // namespace bench
