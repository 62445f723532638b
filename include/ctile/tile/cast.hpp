// Casts (astype, bitcast) and tile creation (full, zeros, ones).
#pragma once
#include <cstring>

#include "ctile/tile/zip.hpp"

namespace ct {

// ---- Casts and creation -----------------------------------------------------------------------

template <class U, class T, class S, class P>
CT_HD tile<U, S, P> astype(const tile<T, S, P>& x) {
  static_assert(is_element_v<U>, "ct::astype: target is not a ctile element type");
  return detail::map<U>(x, [](T a) { return convert<U>(a); });
}

// The same bits reinterpreted as U (same size).
template <class U, class T, class S, class P>
CT_HD tile<U, S, P> bitcast(const tile<T, S, P>& x) {
  static_assert(is_element_v<U>, "ct::bitcast: target is not a ctile element type");
  static_assert(sizeof(U) == sizeof(T), "ct::bitcast: source and target element types differ in size");
  return detail::map<U>(x, [](T a) {
    U u;
    memcpy(static_cast<void*>(&u), &a, sizeof(U));  // the halves and tf32 are trivially copyable, not trivial
    return u;
  });
}

template <class T, class S, class V>
CT_HD tile<T, S> full(S, V value) {
  tile<T, S> r;
  CT_UNROLL
  for (int s = 0; s < tile<T, S>::slots; ++s) r.v[s] = convert<T>(value);
  return r;
}
template <class T, int... D>
CT_HD tile<T, shape<D...>> zeros() {
  static_assert(check_tile_shape<D...>());
  return full<T>(shape<D...>{}, 0);
}
template <class T, int... D>
CT_HD tile<T, shape<D...>> ones() {
  static_assert(check_tile_shape<D...>());
  return full<T>(shape<D...>{}, 1);
}

}  // namespace ct
