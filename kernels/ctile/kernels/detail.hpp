// Shared pieces of the kernel library: argument checks that name the problem, and the tile
// widths the entry points pick from.
#pragma once
#include <cstdint>
#include <string>
#include <type_traits>

#include <ctile/ctile.hpp>

namespace ct::kernels::detail {

using ct::detail::fail;
using ct::detail::require;

inline std::string what(const char* kernel, const std::string& message) {
  return std::string("ct::kernels::") + kernel + ": " + message;
}

template <class T, class U>
void require_same_extents(const char* kernel, const char* a_name, const ct::tensor<T>& a, const char* b_name,
                          const ct::tensor<U>& b) {
  require(a.extents() == b.extents(), what(kernel, std::string(a_name) + " is " + ct::detail::format_extents(a.extents()) +
                                                       " but " + b_name + " is " +
                                                       ct::detail::format_extents(b.extents())));
}

template <class T>
void require_rank(const char* kernel, const char* name, const ct::tensor<T>& t, int rank) {
  require(t.rank() == rank, what(kernel, std::string(name) + " must have rank " + std::to_string(rank) + ", not " +
                                             std::to_string(t.rank()) + " " +
                                             ct::detail::format_extents(t.extents())));
}

template <class T>
void require_extent(const char* kernel, const char* name, const ct::tensor<T>& t, int axis, index_t want) {
  require(t.extent(axis) == want, what(kernel, std::string(name) + " has extent " + std::to_string(t.extent(axis)) +
                                                   " along axis " + std::to_string(axis) + ", expected " +
                                                   std::to_string(want)));
}

// Elements per thread-chunk of 16 bytes: the unit every tile width here is a multiple of.
template <class T>
inline constexpr int vec = int(16 / sizeof(T));

// Unsigned indices as wide as T: a tile of them (ct::arange) is laid out as a tile of T is, so a
// mask made from it meets the data without moving elements between threads.
template <class T>
using column_index_t = std::conditional_t<sizeof(T) == 2, std::uint16_t, std::uint32_t>;

// Whether x's rows start on 16-byte boundaries (unit last stride; first element and the other
// strides on 16 bytes), so that its tiles' chunks load as single vectors.
template <class T>
bool rows_on_16_bytes(const ct::tensor<T>& x) {
  const int r = x.rank();
  if (r == 0 || x.stride(r - 1) != 1 || reinterpret_cast<std::uintptr_t>(x.data()) % 16 != 0) return false;
  for (int i = 0; i + 1 < r; ++i)
    if ((x.stride(i) * index_t(sizeof(T))) % 16 != 0) return false;
  return true;
}

// Whether x's rows start off 16 bytes while x, contiguous, starts on them: then each row can be
// read as a window from the 16-byte boundary at or before it (the *_window_map kernels).
template <class T>
bool rows_by_window(const ct::tensor<T>& x) {
  return !rows_on_16_bytes(x) && x.contiguous() && rows_on_16_bytes(x.reshape({-1}));
}

// The math of a kernel that stores T: for bf16 and f16 results ct::approx (errors of a few f32
// ulps, far below their rounding; tile/math.hpp), for f32 results the accurate functions.
template <class T>
inline constexpr bool approx_math = sizeof(T) == 2;
template <class T, class F, class... X>
CT_HD auto math_for(F f, const X&... x) {
  if constexpr (approx_math<T>) return f(x..., ct::approx);
  else return f(x...);
}
template <class T, class X>
CT_HD X exp_for(const X& x) {
  if constexpr (approx_math<T>) return ct::exp(x, ct::approx);
  else return ct::exp(x);
}

// cuTile's `occupancy` hint (blocks an SM) for the kernels built with When true: a base of the
// kernel struct; with When false it declares nothing, so the kernel keeps its build.
template <bool When, int Blocks>
struct occupancy_hint {};
template <int Blocks>
struct occupancy_hint<true, Blocks> {
  static constexpr int occupancy = Blocks;
};

}  // namespace ct::kernels::detail
