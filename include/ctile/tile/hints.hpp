// Compile-time helpers and hints: ct::static_for, ct::assume_divisible_by, and programmatic
// dependent launch controls (ct::grid_dependency_control_wait / _launch_dependents).
#pragma once
#include <utility>

#include "ctile/core/config.hpp"

namespace ct {

// Calls f(std::integral_constant<int, I>{}) for I = 0 .. N-1, unrolled (cuTile's static_iter).
template <int N, class F>
CT_HD void static_for(F f) {
  [&]<int... I>(std::integer_sequence<int, I...>) { (f(std::integral_constant<int, I>{}), ...); }(
      std::make_integer_sequence<int, N>{});
}

// Promises x % d == 0 (undefined behaviour if false), so index arithmetic can be simplified.
template <class I>
CT_HD I assume_divisible_by(I x, I d) {
  if (x % d != 0) __builtin_unreachable();
  return x;
}

// Programmatic dependent launch (sm_90): wait until the previous grid on the stream signalled or
// finished; signal that dependents may start. Without a PDL launch (and on the CPU backend,
// sm_80, or launches that do not use it) stream order already holds and these do nothing.
CT_HD inline void grid_dependency_control_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
CT_HD inline void grid_dependency_control_launch_dependents() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

}  // namespace ct
