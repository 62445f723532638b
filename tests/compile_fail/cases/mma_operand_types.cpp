// ct::mma with a f16 and b bf16.
// expect: ct::mma: a and b have different element types
#include <ctile/ctile.hpp>
void f() { (void)ct::mma(ct::zeros<ct::f16, 16, 16>(), ct::zeros<ct::bf16, 16, 16>(), ct::zeros<float, 16, 16>()); }
