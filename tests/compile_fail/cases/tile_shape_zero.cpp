// A tile dimension of 0.
// expect: every tile dimension must be a power of two
#include <ctile/ctile.hpp>
void f() { (void)ct::zeros<float, 0, 4>(); }
