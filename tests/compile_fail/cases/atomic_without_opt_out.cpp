// An atomic on a read-only input view instead of a ct::unsafe::global.
// expect: ct atomics write to arbitrary elements, so they need a ct::unsafe::global
#include <ctile/ctile.hpp>
struct k {
  CT_TILE void operator()(ct::out<int, ct::shape<8>> o, ct::in<int, 1> a) const {
    (void)ct::atomic_add(a, ct::arange<int, 8>(), 1);
    o.store(ct::zeros<int, 8>());
  }
};
void f(ct::tensor<int>& t, ct::tensor<int>& u) { (void)ct::launch(k{}, t.partition(ct::shape<8>{}), u); }
