// Creating tensors: empty, zeros, ones, full, arange, rand, randn, from_host. Random values come
// from a counter-based generator keyed by (seed, element index), so they are the same on every
// device and thread count.
#pragma once
#include <cmath>
#include <cstdint>

#include "ctile/runtime/tensor.hpp"

namespace ct {

template <class T>
tensor<T> empty(const extents_t& extents, const device& dev = default_device()) {
  return tensor<T>::empty(extents, dev);
}

template <class T>
tensor<T> from_host(const std::vector<T>& values, const extents_t& extents,
                    const device& dev = default_device()) {
  tensor<T> t = tensor<T>::empty(extents, dev);
  t.copy_from_host(values);
  return t;
}

template <class T, class V>
tensor<T> full(const extents_t& extents, V value, const device& dev = default_device()) {
  const index_t n = detail::element_count(extents, "ct::full");
  return from_host(std::vector<T>(static_cast<std::size_t>(n), convert<T>(value)), extents, dev);
}
template <class T>
tensor<T> zeros(const extents_t& extents, const device& dev = default_device()) {
  return full<T>(extents, 0, dev);
}
template <class T>
tensor<T> ones(const extents_t& extents, const device& dev = default_device()) {
  return full<T>(extents, 1, dev);
}

// 0, 1, 2, ... n-1 as a 1-D tensor.
template <class T>
tensor<T> arange(index_t n, const device& dev = default_device()) {
  std::vector<T> v(static_cast<std::size_t>(n > 0 ? n : 0));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = convert<T>(double(i));
  return from_host(v, {n}, dev);
}

namespace detail {
inline std::uint64_t mix64(std::uint64_t x) {  // splitmix64 finaliser
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
// Uniform in (0, 1), 53 random bits.
inline double uniform01(std::uint64_t seed, std::uint64_t i) {
  const std::uint64_t bits = mix64(mix64(seed) ^ (i * 0xd1b54a32d192ed03ull));
  return (double(bits >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}
}  // namespace detail

// Uniform in [lo, hi).
template <class T>
tensor<T> rand(const extents_t& extents, std::uint64_t seed, double lo = 0.0, double hi = 1.0,
               const device& dev = default_device()) {
  const index_t n = detail::element_count(extents, "ct::rand");
  std::vector<T> v(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = convert<T>(lo + (hi - lo) * detail::uniform01(seed, i));
  return from_host(v, extents, dev);
}

// Standard normal (Box-Muller), scaled by `stddev`.
template <class T>
tensor<T> randn(const extents_t& extents, std::uint64_t seed, double stddev = 1.0,
                const device& dev = default_device()) {
  const index_t n = detail::element_count(extents, "ct::randn");
  std::vector<T> v(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < v.size(); ++i) {
    const double u1 = detail::uniform01(seed, 2 * i), u2 = detail::uniform01(seed, 2 * i + 1);
    v[i] = convert<T>(stddev * std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2));
  }
  return from_host(v, extents, dev);
}

}  // namespace ct
