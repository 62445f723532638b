// '/' on integer tiles (C and Python round differently, so ctile makes you choose).
// expect: '/' on integer tiles is ambiguous
#include <ctile/ctile.hpp>
void f() { (void)(ct::ones<int, 8>() / 2); }
