// Permute a rank-2 tile with axis 2.
// expect: ct::permute: the axes must name each axis of the tile exactly once
#include <ctile/ctile.hpp>
void f() { (void)ct::permute(ct::zeros<float, 4, 8>(), ct::axes<2, 0>); }
