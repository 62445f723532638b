// Arithmetic on the in-flight accumulator inside a ct::pipelined body.
// expect: ct::pipelined: inside the loop body the accumulator (ct::in_flight) and the operands
#include <ctile/ctile.hpp>
struct a_at {
  CT_HD ct::coord<2> operator()(const ct::coord<2>& t, ct::index_t k) const { return {{t[0], k}}; }
};
struct b_at {
  CT_HD ct::coord<2> operator()(const ct::coord<2>& t, ct::index_t k) const { return {{k, t[1]}}; }
};
CT_HD void f(ct::in<ct::bf16, 2> a, ct::in<ct::bf16, 2> b) {
  const auto ta = a.tiled(ct::shape<16, 16>{});
  const auto tb = b.tiled(ct::shape<16, 16>{});
  (void)ct::pipelined(ct::coord<2>{}, 4, ct::stages(ct::stage(ta, a_at{}), ct::stage(tb, b_at{})),
                      ct::zeros<float, 16, 16>(), [](auto acc, auto sa, auto sb) { return ct::mma(sa, sb, acc) * 2.0f; });
}
