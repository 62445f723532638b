// Binding an unsafe shared tensor where the kernel wants an unsafe::global is fine; binding a
// plain tensor to a ct::unsafe::global parameter (skipping the opt-out) is not.
// expect: ct::launch: the kernel expects a ct::unsafe::global here
#include <ctile/ctile.hpp>
struct k {
  CT_TILE void operator()(ct::unsafe::global<float, 1> g) const { ct::store(g, ct::coord<1>{{0}}, ct::zeros<float, 8>()); }
};
void f(ct::tensor<float>& t) { (void)ct::launch(ct::grid(1), k{}, t); }
