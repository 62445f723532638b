// ct::mma with bf16 operands and an f16 accumulator (bf16 accumulates in f32 only).
// expect: ct::mma: this operand -> accumulator type pair is not allowed
#include <ctile/ctile.hpp>
void f() { (void)ct::mma(ct::zeros<ct::bf16, 16, 16>(), ct::zeros<ct::bf16, 16, 16>(), ct::zeros<ct::f16, 16, 16>()); }
