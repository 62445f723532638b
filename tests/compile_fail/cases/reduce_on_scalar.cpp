// A reduction called with a plain scalar.
// expect: ct::sum: the argument is not a tile
#include <ctile/ctile.hpp>
void f() { ct::sum(3, ct::axis<0>); }
