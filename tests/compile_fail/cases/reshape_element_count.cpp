// Reshape 4x8 (32 elements) to 4x4 (16).
// expect: ct::reshape: the new shape holds a different number of elements
#include <ctile/ctile.hpp>
void f() { (void)ct::reshape(ct::zeros<float, 4, 8>(), ct::shape<4, 4>{}); }
