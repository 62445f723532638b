// A tile of 2^21 elements (the limit is 2^20).
// expect: a tile may hold at most 2^20 elements
#include <ctile/ctile.hpp>
void f() { (void)ct::zeros<float, 2048, 1024>(); }
