// Storing through a read-only input view.
// expect: ct::in::store: an input view is read-only
#include <ctile/ctile.hpp>
struct k {
  CT_TILE void operator()(ct::out<float, ct::shape<8>> o, ct::in<float, 1> a) const { a.store(a.load_like(o)); }
};
void f(ct::tensor<float>& t, ct::tensor<float>& u) { (void)ct::launch(k{}, t.partition(ct::shape<8>{}), u); }
