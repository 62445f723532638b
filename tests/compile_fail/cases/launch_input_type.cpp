// An input tensor of another element type than the kernel's ct::in.
// expect: ct::launch: the input tensor's element type differs
#include <ctile/ctile.hpp>
struct k {
  CT_TILE void operator()(ct::out<float, ct::shape<8>> o, ct::in<float, 1> a) const { o.store(a.load_like(o)); }
};
void f(ct::tensor<float>& t, ct::tensor<double>& u) { (void)ct::launch(k{}, t.partition(ct::shape<8>{}), u); }
