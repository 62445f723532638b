// Arithmetic on an fp8 tile (restricted type: convert first).
// expect: tf32 and fp8 tiles have no arithmetic
#include <ctile/ctile.hpp>
void f() { (void)(ct::zeros<ct::e4m3, 8>() + ct::zeros<ct::e4m3, 8>()); }
