// ct::stage with an index map that captures: a backend could not replay it for other trips.
// expect: ct::stage: the index map must not capture anything
#include <ctile/ctile.hpp>
CT_HD void f(ct::in<ct::bf16, 2> a, ct::index_t m) {
  const auto ta = a.tiled(ct::shape<16, 16>{});
  (void)ct::stage(ta, [m](ct::coord<2>, ct::index_t k) { return ct::coord<2>{{m, k}}; });
}
