// Passing a scalar where the kernel expects an input tensor.
// expect: ct::launch: the kernel expects an input tensor (ct::in) here
#include <ctile/ctile.hpp>
struct k {
  CT_TILE void operator()(ct::out<float, ct::shape<8>> o, ct::in<float, 1> a) const { o.store(a.load_like(o)); }
};
void f(ct::tensor<float>& t) { (void)ct::launch(k{}, t.partition(ct::shape<8>{}), 3.0f); }
