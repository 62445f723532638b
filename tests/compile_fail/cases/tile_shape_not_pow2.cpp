// A tile dimension that is not a power of two.
// expect: every tile dimension must be a power of two
#include <ctile/ctile.hpp>
void f() { (void)ct::ones<float, 3, 4>(); }
