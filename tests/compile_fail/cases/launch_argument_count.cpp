// Launching a two-parameter kernel with one argument.
// expect: ct::launch: the number of arguments differs from the number of kernel parameters
#include <ctile/ctile.hpp>
struct k {
  CT_TILE void operator()(ct::out<float, ct::shape<8>> o, ct::in<float, 1> a) const { o.store(a.load_like(o)); }
};
void f(ct::tensor<float>& t) { (void)ct::launch(k{}, t.partition(ct::shape<8>{})); }
