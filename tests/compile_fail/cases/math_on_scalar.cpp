// A tile op called with a plain scalar.
// expect: ct::exp: the argument is not a tile
#include <ctile/ctile.hpp>
void f() { (void)ct::exp(1.0f); }
