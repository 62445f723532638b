// A kernel with no ct::out parameter launched without an explicit grid.
// expect: the kernel has no ct::out parameter, so the grid cannot be inferred
#include <ctile/ctile.hpp>
struct k {
  CT_TILE void operator()(ct::in<float, 1> a) const { (void)a; }
};
void f(ct::tensor<float>& t) { (void)ct::launch(k{}, t); }
