// Scatter into a read-only input view instead of a ct::unsafe::global.
// expect: ct::scatter writes to arbitrary elements, so it needs a ct::unsafe::global
#include <ctile/ctile.hpp>
struct k {
  CT_TILE void operator()(ct::out<float, ct::shape<8>> o, ct::in<float, 1> a) const {
    ct::scatter(a, ct::arange<int, 8>(), ct::zeros<float, 8>());
    o.store(ct::zeros<float, 8>());
  }
};
void f(ct::tensor<float>& t, ct::tensor<float>& u) { (void)ct::launch(k{}, t.partition(ct::shape<8>{}), u); }
