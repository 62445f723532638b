// An output partition whose tile shape differs from the kernel's ct::out shape.
// expect: ct::launch: the output partition's element type or tile shape differs
#include <ctile/ctile.hpp>
struct k {
  CT_TILE void operator()(ct::out<float, ct::shape<8>> o) const { o.store(ct::zeros<float, 8>()); }
};
void f(ct::tensor<float>& t) { (void)ct::launch(k{}, t.partition(ct::shape<16>{})); }
