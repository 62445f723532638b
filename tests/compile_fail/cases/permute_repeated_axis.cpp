// Permute with axis 0 twice.
// expect: ct::permute: the axes must name each axis of the tile exactly once
#include <ctile/ctile.hpp>
void f() { (void)ct::permute(ct::zeros<float, 4, 8>(), ct::axes<0, 0>); }
