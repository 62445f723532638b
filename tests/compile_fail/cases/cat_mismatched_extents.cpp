// Cat along axis 0 of tiles whose axis-1 extents differ.
// expect: ct::cat: the tiles' extents differ on an axis other than the cat axis
#include <ctile/ctile.hpp>
void f() { ct::cat(ct::zeros<float, 4, 8>(), ct::zeros<float, 4, 16>(), ct::axis<0>); }
