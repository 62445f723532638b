// Passing a plain tensor where the kernel expects an output partition.
// expect: ct::launch: the kernel expects an output partition (ct::out) here
#include <ctile/ctile.hpp>
struct k {
  CT_TILE void operator()(ct::out<float, ct::shape<8>> o, ct::in<float, 1> a) const { o.store(a.load_like(o)); }
};
void f(ct::tensor<float>& t, ct::tensor<float>& u) { (void)ct::launch(k{}, t, u); }
