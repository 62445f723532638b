// Debugging inside kernels: ct::print of scalars and tiles (with the block's coordinates) and
// ct::device_assert. A failed assert stops the launch: on the CPU backend wait() throws a
// ct::error naming the kernel; on a GPU the kernel traps after printing the message, which (as
// with any CUDA trap) leaves the CUDA context unusable for the rest of the process.
#pragma once
#include <cstdio>
#include <string>

#include "ctile/core/error.hpp"
#include "ctile/tile/reduce.hpp"

namespace ct {

namespace detail {

}  // namespace detail

// Prints `label = value` once per block (values are block-uniform).
template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
CT_HD void print(const char* label, T value) {
  if (backend::thread_index() != 0) return;
  if constexpr (std::is_same_v<T, bool>) ::printf("[block %d,%d,%d] %s = %s\n", bid(0), bid(1), bid(2), label, value ? "true" : "false");
  else if constexpr (std::is_floating_point_v<T>) ::printf("[block %d,%d,%d] %s = %g\n", bid(0), bid(1), bid(2), label, double(value));
  else if constexpr (std::is_signed_v<T>) ::printf("[block %d,%d,%d] %s = %lld\n", bid(0), bid(1), bid(2), label, (long long)value);
  else ::printf("[block %d,%d,%d] %s = %llu\n", bid(0), bid(1), bid(2), label, (unsigned long long)value);
}

namespace detail {
// One output line: up to 8 values of one row, so each line is a single printf call (device
// printf keeps a call's output together, never a sequence of calls).
template <class T>
CT_HD void print_row_piece(const char* label, index_t row, index_t col, const T* v, int n) {
  static const char* const float_formats[8] = {
      "[block %d,%d,%d] %s[%lld, %lld:] = %g\n", "[block %d,%d,%d] %s[%lld, %lld:] = %g %g\n",
      "[block %d,%d,%d] %s[%lld, %lld:] = %g %g %g\n", "[block %d,%d,%d] %s[%lld, %lld:] = %g %g %g %g\n",
      "[block %d,%d,%d] %s[%lld, %lld:] = %g %g %g %g %g\n", "[block %d,%d,%d] %s[%lld, %lld:] = %g %g %g %g %g %g\n",
      "[block %d,%d,%d] %s[%lld, %lld:] = %g %g %g %g %g %g %g\n",
      "[block %d,%d,%d] %s[%lld, %lld:] = %g %g %g %g %g %g %g %g\n"};
  static const char* const int_formats[8] = {
      "[block %d,%d,%d] %s[%lld, %lld:] = %lld\n", "[block %d,%d,%d] %s[%lld, %lld:] = %lld %lld\n",
      "[block %d,%d,%d] %s[%lld, %lld:] = %lld %lld %lld\n", "[block %d,%d,%d] %s[%lld, %lld:] = %lld %lld %lld %lld\n",
      "[block %d,%d,%d] %s[%lld, %lld:] = %lld %lld %lld %lld %lld\n",
      "[block %d,%d,%d] %s[%lld, %lld:] = %lld %lld %lld %lld %lld %lld\n",
      "[block %d,%d,%d] %s[%lld, %lld:] = %lld %lld %lld %lld %lld %lld %lld\n",
      "[block %d,%d,%d] %s[%lld, %lld:] = %lld %lld %lld %lld %lld %lld %lld %lld\n"};
  if constexpr (is_floating_v<T>) {
    double d[8] = {};
    for (int i = 0; i < n; ++i) d[i] = double(convert<float>(v[i]));
    ::printf(float_formats[n - 1], bid(0), bid(1), bid(2), label, (long long)row, (long long)col, d[0], d[1], d[2], d[3],
           d[4], d[5], d[6], d[7]);
  } else {
    long long d[8] = {};
    for (int i = 0; i < n; ++i) d[i] = (long long)v[i];
    ::printf(int_formats[n - 1], bid(0), bid(1), bid(2), label, (long long)row, (long long)col, d[0], d[1], d[2], d[3],
           d[4], d[5], d[6], d[7]);
  }
}
}  // namespace detail

// Prints a whole tile once per block, as lines "[block x,y,z] label[row, col:] = values" (the
// row is the flat index over all but the last axis). Thread 0 prints, so lines stay in order.
template <class T, class S, class P>
CT_HD void print(const char* label, const tile<T, S, P>& x) {
  using flat_shape = shape<int(S::size)>;
  using F = tile<T, flat_shape>;
  const F flat = backend::reshape_exchange<flat_shape>(backend::relayout<backend::natural_layout<T, S>>(x));
  constexpr index_t capacity = index_t(config::arena_bytes) / index_t(sizeof(T)) / 8 * 8;
  constexpr index_t row = S::rank == 0 ? 1 : S::dim(S::rank - 1);
  T* buf = reinterpret_cast<T*>(backend::arena());
  for (index_t lo = 0; lo < S::size; lo += capacity) {
    CT_UNROLL
    for (int s = 0; s < F::slots; ++s) {
      const index_t f = F::coord_of(s)[0] - lo;
      if (F::canonical(s) && f >= 0 && f < capacity) buf[f] = flat.v[s];
    }
    backend::sync_block();
    if (backend::thread_index() == 0) {
      const index_t hi = S::size < lo + capacity ? S::size : lo + capacity;
      for (index_t f = lo; f < hi;) {
        const index_t col = f % row;
        const index_t n = (row - col) < 8 ? (row - col) : 8;
        const int take = int(n < hi - f ? n : hi - f);
        detail::print_row_piece(label, f / row, col, buf + (f - lo), take);
        f += take;
      }
    }
    backend::sync_block();
  }
}

// C printf once per block (thread 0), prefixed by the block's coordinates; scalars only. The
// prefix joins the format so that one printf call writes the whole line: with two calls, lines
// of blocks printing at the same time interleave. (Formats too long to join print in two calls.)
template <class... A>
CT_HD void printf(const char* format, A... args) {
  static_assert((std::is_arithmetic_v<A> && ...), "ct::printf: arguments must be scalars; print tiles with ct::print");
  if (backend::thread_index() != 0) return;
  constexpr char prefix[] = "[block %d,%d,%d] ";
  char joined[256];
  int n = 0;
  for (const char* p = prefix; *p; ++p) joined[n++] = *p;
  const char* f = format;
  for (; *f && n < int(sizeof(joined)) - 1; ++f) joined[n++] = *f;
  joined[n] = '\0';
  if (*f == '\0') {
    ::printf(joined, bid(0), bid(1), bid(2), args...);
  } else {
    ::printf(prefix, bid(0), bid(1), bid(2));
    ::printf(format, args...);
  }
}

// Stops the launch with `message` if `cond` is false (for a tile: if any element is false).
template <class C>
CT_HD void device_assert(const C& cond, const char* message) {
  bool ok;
  if constexpr (is_tile_v<C>) {
    const auto as_int = astype<int>(cond);
    ok = convert<int>(min(reshape(as_int, shape<int(C::shape_type::size)>{}), axis<0>).v[0]) != 0;
  } else {
    ok = bool(cond);
  }
  if (ok) return;
#if defined(__CUDA_ARCH__)
  // CUDA's own device assert: prints the message reliably and fails the launch with
  // cudaErrorAssert, which wait() reports naming the kernel.
  __assert_fail(message, "ct::device_assert", 0, "tile kernel");
#else
  throw error("ct::device_assert failed in block (" + std::to_string(bid(0)) + ", " + std::to_string(bid(1)) + ", " +
              std::to_string(bid(2)) + "): " + message);
#endif
}

}  // namespace ct
