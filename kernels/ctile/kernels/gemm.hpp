// GEMM in the DSL: c = act(alpha * a @ b + beta * residual + bias), accumulated in f32.
//   a [M, K] or [B, M, K], b [K, N] or [B, K, N], c [M, N] or [B, M, N] (the same batch B);
//   either operand may be column-major: pass the transposed view (a_km.transpose());
//   inputs bf16, f16 or f32; output bf16, f16 or f32; residual like c, bias [N], both optional;
//   f32 inputs multiply exactly in f32 unless tf32 is asked for (gemm_args::allow_tf32).
// The main loop is a ct::pipelined fold over K tiles, so the backend may stage the operands
// ahead: on sm_90a with 16-bit inputs it runs on wgmma from a TMA-filled ring (cp.async where
// TMA cannot describe an operand), two tile blocks per CTA sharing B (docs/backend.md); on
// sm_80-class GPUs on mma.sync from a cp.async ring; on the CPU (and with f32 inputs) it is the
// plain loop acc = ct::mma(a tile, b tile, acc), bit for bit.
#pragma once
#include <cstdint>
#include <mutex>
#include <type_traits>
#include <utility>
#include <vector>

#include "ctile/kernels/detail.hpp"

namespace ct::kernels {

struct identity {
  template <class X>
  CT_HD X operator()(const X& x) const { return x; }
};

// Which tile configuration runs: the heuristic's choice, or one named (for benchmarks and tests;
// a tensor-core configuration needs a Hopper GPU and 16-bit inputs, and is refused otherwise).
enum class gemm_tiling {
  automatic,
  simt,          // 64 x 64 x 32 (16 x 64 x 64 when M <= 16), a plain loop of ct::mma (mma.sync
                 // for 16-bit inputs on sm_80+, else per-thread dot products)
  wgmma,         // 128 x 128 x 64, one tile block per CTA
  wgmma_paired,  // 128 x 128 x 64, two tile blocks per CTA sharing each B stage
  wgmma_cluster, // wgmma_paired, and pairs of CTAs along N in a cluster sharing each A stage
                 // (slower for now: docs/backend.md)
  wgmma_producer, // wgmma_paired, and a producer warpgroup that issues the TMA loads, on a
                  // persistent grid (automatic's choice on Hopper where clusters do not pay)
  wgmma_producer_cluster, // wgmma_producer, and pairs of CTAs along N in a cluster, each
                          // producer loading half of the A tiles into both (automatic's choice
                          // on Hopper where TMA describes both operands: docs/backend.md)
  wgmma_wide,    // wgmma_producer_cluster's schedule with 64 x 256 x 64 tile blocks (a 128 x 256
                 // CTA): one m64n256k16 instruction reads each B slice once for 256 columns;
                 // correct but slower (0.857 of cuBLAS over the sweep against 0.920, H100,
                 // bench/results/2026-12-07-h100.md)
};

template <class TC>
struct gemm_args {
  float alpha = 1.0f;
  float beta = 0.0f;                          // scales `residual`; 0 reads none
  const ct::tensor<TC>* residual = nullptr;   // like c; a tensor other than c (outputs are not read)
  const ct::tensor<TC>* bias = nullptr;       // [N], added to every row
  bool allow_tf32 = false;                    // f32 inputs: round them to tf32 for the products
  gemm_tiling tiles = gemm_tiling::automatic;
  // K cut into this many equal parts, multiplied side by side into f32 partial products that a
  // second kernel sums (with the epilogue): for outputs of too few tiles to fill the GPU (M = 1,
  // N = 8). 1: no split. Needs 16-bit inputs, no batch, split_k dividing K (K / split_k a
  // multiple of 8 lets TMA describe the parts), and the automatic tiles. Not chosen
  // automatically yet (its speed is unmeasured).
  int split_k = 1;
};

namespace detail {

template <int BM, int BN, int BK, std::size_t SharedBytes = 0, int Paired = 1, int Cluster = 1, bool Producer = false>
struct gemm_config {
  static constexpr int bm = BM, bn = BN, bk = BK;
  static constexpr std::size_t shared_bytes = SharedBytes;
  // Neighbours along M share a CTA and its B tiles; neighbouring CTAs along N, a cluster and
  // its A tiles.
  static constexpr ct::co_schedule co_schedule{1, Paired, 2, Cluster, Producer};
};

// Tile index (batch, m, n) and trip k -> the operand tiles of that trip.
struct a_tile_at {
  CT_HD constexpr ct::coord<3> operator()(const ct::coord<3>& t, index_t k) const { return {{t[0], t[1], k}}; }
};
struct b_tile_at {
  CT_HD constexpr ct::coord<3> operator()(const ct::coord<3>& t, index_t k) const { return {{t[0], k, t[2]}}; }
};

template <class T, class TC, class Act, class Cfg, bool Tf32>
struct gemm_tiles {
  static constexpr const char* name = "ct_kernels_gemm";
  static constexpr int BM = Cfg::bm, BN = Cfg::bn, BK = Cfg::bk;
  // Epilogue rows at a time: 4096 elements of the tensor cores' tiles (staged operands: 32 rows
  // of 128 x 128, 16 of 64 x 256, where 32 rows spilled more); the SIMT tiles' whole 64 or 16
  // (their accumulators are small, and two bands of 32 made ptxas spill in a tf32 kernel).
  static constexpr int Band = Cfg::shared_bytes > 0 ? 4096 / BN : BM;
  static constexpr std::size_t shared_bytes = Cfg::shared_bytes;  // the staged operand ring, if any
  static constexpr ct::co_schedule co_schedule = Cfg::co_schedule;
  CT_TILE void operator()(ct::out<TC, ct::shape<1, BM, BN>> c, ct::in<T, 3> a, ct::in<T, 3> b,
                          ct::in<TC, 3> residual, ct::in<TC, 3> bias, float alpha, float beta, int has_bias) const {
    const auto t = c.tile_index();
    const auto ta = a.tiled(ct::shape<1, BM, BK>{});  // zero-padded at the edges
    const auto tb = b.tiled(ct::shape<1, BK, BN>{});
    const auto acc = ct::pipelined(t, ct::num_tiles(ta, 2), ct::stages(ct::stage(ta, a_tile_at{}), ct::stage(tb, b_tile_at{})),
                                   ct::zeros<float, 1, BM, BN>(), [](auto acc, auto sa, auto sb) {
                                     if constexpr (Tf32) return ct::mma(ct::astype<ct::tf32>(sa), ct::astype<ct::tf32>(sb), acc);
                                     else return ct::mma(sa, sb, acc);
                                   });
    // The epilogue in bands of rows: a band's residual tile and addresses are live beside the
    // accumulator one band at a time (a whole residual tile beside it spilled registers), and a
    // band of the accumulator is a run of each thread's registers (ct::extract moves nothing).
    // Compiled three ways, so that the usual tile (inside the tensor, no residual, no bias) runs
    // straight-line code: the stores' edge code and the inputs' loads, untaken but interleaved,
    // had its instructions fetched from among theirs. (A fourth, whole tiles with inputs, made
    // ptxas spill.)
    using band = ct::shape<1, Band, BN>;
    const auto store_bands = [&](const auto& bands, auto with_inputs) {
      CT_UNROLL
      for (int i = 0; i < BM / Band; ++i) {
        auto y = ct::extract(acc, band{}, 0, i, 0) * alpha;
        if constexpr (decltype(with_inputs)::value) {
          if (beta != 0.0f)
            y = y + ct::astype<float>(residual.tiled(band{}).load(t[0], t[1] * (BM / Band) + i, t[2], ct::layout_of(y))) * beta;
          if (has_bias) y = y + ct::astype<float>(bias.tiled(ct::shape<1, 1, BN>{}).load(0, 0, t[2], ct::layout_of(y)));
        }
        bands.store({{0, i, 0}}, ct::astype<TC>(Act{}(y)));
      }
    };
    if (beta == 0.0f && !has_bias) c.with_subtiles(band{}, [&](const auto& bands) { store_bands(bands, std::false_type{}); });
    else store_bands(c.subtiles(band{}), std::true_type{});
  }
};

// Tile configurations. On sm_90a with 16-bit inputs, 128 x 128 x 64 with the staged operand ring
// in dynamic shared memory: the pipelined loop runs on wgmma (backend/sm90/wgmma_fold.hpp), two
// tile blocks a CTA sharing each B stage, and by default a third warpgroup that issues the TMA
// loads, on a persistent grid, in 2-CTA clusters along N where TMA serves both operands
// (`wgmma_producer_cluster`; bench/results/2026-12-04-gemm-cluster-producer.md).
// On sm_80-class GPUs with room for the ring (gemm_use_mma_sync), `gemm_wgmma`'s tiles run on
// mma.sync. Elsewhere (other GPUs, f32 inputs) the SIMT path: 64 x 64 in general; 16 x 64 with
// longer K steps when M is at most 16 (decode-style products), where a 64-row tile would be
// mostly padding. Larger SIMT tiles gain little and multiply the device compile time.
using gemm_wgmma = gemm_config<128, 128, 64, ct::pipeline_shared_bytes>;
using gemm_wgmma_paired = gemm_config<128, 128, 64, 2 * ct::pipeline_shared_bytes, 2>;
using gemm_wgmma_cluster = gemm_config<128, 128, 64, 2 * ct::pipeline_shared_bytes, 2, 2>;
using gemm_wgmma_producer = gemm_config<128, 128, 64, 2 * ct::pipeline_shared_bytes, 2, 1, true>;
using gemm_wgmma_producer_cluster = gemm_config<128, 128, 64, 2 * ct::pipeline_shared_bytes, 2, 2, true>;
using gemm_wgmma_wide = gemm_config<64, 256, 64, 2 * ct::pipeline_shared_bytes, 2, 2, true>;
using gemm_square = gemm_config<64, 64, 32>;
using gemm_short_m = gemm_config<16, 64, 64>;

inline bool gemm_use_short_m(index_t m) { return m <= 16; }

// Whether TMA can describe a 16-bit operand [B, R, C] (contiguous rows, a 16-byte aligned start,
// row stride and batch stride, ...), by the rules the launch encodes its maps by
// (ct::detail::tma_box_for_operand), so that the choice and the launch agree. Clusters pay only
// then: each CTA's producer loads half of the shared A tiles into both by TMA multicast;
// operands staged by threads ran slower in clusters than without (0.35 against 0.44 of cuBLAS
// at 4095 x 4097 x 4093).
template <class T>
bool gemm_tma_describes(const ct::tensor<T>& x) {
  const index_t extent[3] = {x.extent(0), x.extent(1), x.extent(2)}, stride[3] = {x.stride(0), x.stride(1), x.stride(2)};
  return ct::detail::tma_box_for_operand(x.data(), std::is_same_v<T, bf16>, extent, stride,
                                         ct::backend::sm90::tma_box_extent)
      .has_value();
}

// Whether the producer configuration runs in clusters of two CTAs along N: where TMA serves
// both operands, and unless the N tiles are too few to pair (an odd count leaves one CTA of the
// last pair a tile past the end; with fewer than 16 that wastes more than a 32nd of the CTAs).
template <class T>
bool gemm_use_clusters(const ct::tensor<T>& a3, const ct::tensor<T>& b3, index_t n) {
  constexpr index_t bn = gemm_wgmma_producer_cluster::bn;
  const index_t n_tiles = (n + bn - 1) / bn;
  return (n_tiles % 2 == 0 || n_tiles >= 16) && gemm_tma_describes(a3) && gemm_tma_describes(b3);
}

// Whether the wgmma configurations are chosen on `dev`: a Hopper GPU. A binary built without
// sm_90a code runs the same 128 x 128 tiles on mma.sync there (backend/sm80/mma_sync_fold.hpp),
// each tile block staging its own operands.
inline bool gemm_use_wgmma(const ct::device& dev) { return dev.is_cuda() && dev.compute_capability() == 90; }

// Whether `gemm_wgmma`'s 128 x 128 x 64 tiles are chosen on `dev` where wgmma is not: an
// sm_80-class GPU whose blocks may hold their ring beside the static shared memory (the arena
// and its staging, under 20 KiB): A100 and H800-class parts, not sm_86/sm_89 (99 KiB a block),
// which keep the SIMT tiles. The fold runs on mma.sync there.
inline bool gemm_use_mma_sync(const ct::device& dev) {
  return dev.is_cuda() && dev.compute_capability() / 10 == 8 &&
         std::size_t(dev.shared_memory_per_block()) >= ct::pipeline_shared_bytes + 20 * 1024;
}

// The one-element tensor an absent epilogue input binds to (an output is not readable, so c
// cannot serve), made once per device and type: allocating it per call would put a device
// allocation into every GEMM. Never freed, so that no launch outlives it at exit.
template <class TC>
const ct::tensor<TC>& placeholder_on(const ct::device& dev) {
  static std::mutex lock;
  static auto* made = new std::vector<std::pair<ct::device, ct::tensor<TC>*>>();
  const std::lock_guard<std::mutex> hold(lock);
  for (const auto& [d, t] : *made)
    if (d == dev) return *t;
  made->emplace_back(dev, new ct::tensor<TC>(ct::zeros<TC>({1, 1, 1}, dev)));
  return *made->back().second;
}

// An operand [B, R, C] whose contiguous rows start off 16-byte boundaries (K = 4093 bf16) can be
// neither described to TMA nor staged by 16-byte copies: copy_on_16_bytes copies it into one
// whose rows are padded to 16 bytes, keeping which axis is contiguous, and returns the copy's
// [B, R, C] view. Staged by the tile blocks' threads element by element, such operands ran at
// 0.44 of cuBLAS at 4095 x 4097 x 4093; with the copies (one read and one write of each operand)
// at 2.5x (bench/results/2026-12-05-ragged-loads.md). The copy is a DSL kernel (copy_map) on the
// GEMM's stream, so the GEMM reads it after it is written; the launch keeps the buffer alive.
template <class T>
struct copy_map {
  static constexpr const char* name = "ct_kernels_gemm_operand_copy";
  CT_TILE void operator()(ct::out<T, ct::shape<1, 8, 512>> y, ct::in<T, 3> x) const { y.store(x.load_like(y)); }
};

template <class T>
bool column_major(const ct::tensor<T>& x) {
  return x.stride(2) != 1 && x.stride(1) == 1;
}

// The operand with its contiguous axis last (a column-major one transposed).
template <class T>
ct::tensor<T> contiguous_last(const ct::tensor<T>& x) {
  return column_major(x) ? x.transpose(1, 2) : x.view();
}

template <class T>
bool operand_on_16_bytes(const ct::tensor<T>& x) {
  return rows_on_16_bytes(contiguous_last(x));
}

template <class T>
ct::tensor<T> copy_on_16_bytes(const ct::stream& s, const ct::tensor<T>& x) {
  const bool transposed = column_major(x);
  const ct::tensor<T> rows = contiguous_last(x);
  const index_t cols = rows.extent(2), padded = (cols + vec<T> - 1) / vec<T> * vec<T>;
  auto buffer = ct::empty<T>({rows.extent(0), rows.extent(1), padded}, x.dev());
  auto copy = buffer.slice(2, 0, cols);
  (void)ct::launch(s, copy_map<T>{}, copy.partition(ct::shape<1, 8, 512>{}), rows);
  return transposed ? copy.transpose(1, 2) : std::move(copy);
}

// Whether x and y share any byte (their spans from first to last element), as a launch tests.
template <class T, class U>
bool memory_overlaps(const ct::tensor<T>& x, const ct::tensor<U>& y) {
  const auto [xl, xh] = ct::detail::byte_span(x);
  const auto [yl, yh] = ct::detail::byte_span(y);
  return xl < yh && yl < xh;
}

template <class T>
ct::tensor<T> as_batched(const ct::tensor<T>& x) {
  return x.rank() == 2 ? x.unsqueeze(0) : x.view();
}

template <class T, class TC>
void check_gemm(const ct::tensor<TC>& c, const ct::tensor<T>& a, const ct::tensor<T>& b, const gemm_args<TC>& args) {
  const char* what = "gemm";
  const int r = c.rank();
  require(r == 2 || r == 3, kernels::detail::what(what, "c must be [M, N] or [B, M, N], not " +
                                                            ct::detail::format_extents(c.extents())));
  require_rank(what, "a", a, r);
  require_rank(what, "b", b, r);
  const int m = r - 2, n = r - 1;
  require(a.extent(n) == b.extent(m),
          kernels::detail::what(what, "inner dimensions differ: a is " + ct::detail::format_extents(a.extents()) +
                                          " and b is " + ct::detail::format_extents(b.extents())));
  require_extent(what, "a", a, m, c.extent(m));
  require_extent(what, "b", b, n, c.extent(n));
  if (r == 3) {
    require_extent(what, "a", a, 0, c.extent(0));
    require_extent(what, "b", b, 0, c.extent(0));
  }
  require(a.extent(n) > 0, kernels::detail::what(what, "K is 0: a " + ct::detail::format_extents(a.extents())));
  // The launch finds these too, but not once an operand has been copied (copy_on_16_bytes).
  require(a.dev() == c.dev() && b.dev() == c.dev(),
          kernels::detail::what(what, "a, b and c must be on one device (c is on " + c.dev().name() + ")"));
  require(!memory_overlaps(c, a) && !memory_overlaps(c, b),
          kernels::detail::what(what, "c's memory overlaps an input (a or b); the output must not share memory with them"));
  if (args.beta != 0.0f) {
    require(args.residual != nullptr, kernels::detail::what(what, "beta is not 0 but no residual tensor is given"));
    require_same_extents(what, "residual", *args.residual, "c", c);
  }
  if (args.bias) {
    require_rank(what, "bias", *args.bias, 1);
    require_extent(what, "bias", *args.bias, 0, c.extent(n));
  }
  if (args.split_k != 1) {
    const std::string split = "split_k = " + std::to_string(args.split_k);
    require(args.split_k >= 1, kernels::detail::what(what, split + ": K is cut into at least one part"));
    require(!std::is_same_v<T, float>, kernels::detail::what(what, split + " needs bf16 or f16 inputs"));
    require(args.tiles == gemm_tiling::automatic, kernels::detail::what(what, split + " takes the automatic tiles"));
    require(r == 2 || c.extent(0) == 1,
            kernels::detail::what(what, split + " needs an unbatched product, not c " + ct::detail::format_extents(c.extents())));
    require(a.extent(n) % args.split_k == 0,
            kernels::detail::what(what, split + " does not cut K = " + std::to_string(a.extent(n)) + " into equal parts"));
  }
}

// Split K: c = Act(alpha * sum_s partial[s] + beta * residual + bias), partial [S, M, N] f32
// holding the products of the S parts of K (in order, so reruns give the same bits).
template <class TC, class Act, int BM, int BN>
struct split_sum_map {
  static constexpr const char* name = "ct_kernels_gemm_split_sum";
  CT_TILE void operator()(ct::out<TC, ct::shape<1, BM, BN>> c, ct::in<float, 3> partial, ct::in<TC, 3> residual,
                          ct::in<TC, 3> bias, float alpha, float beta, int has_bias) const {
    const auto t = c.tile_index();
    const auto parts = partial.tiled(ct::shape<1, BM, BN>{});
    auto y = parts.load(0, t[1], t[2]);
    for (index_t s = 1; s < partial.extent(0); ++s) y = y + parts.load(s, t[1], t[2]);
    y = y * alpha;
    const auto laid_like_y = ct::layout_of(y);
    if (beta != 0.0f)
      y = y + ct::astype<float>(residual.tiled(ct::shape<1, BM, BN>{}).load(t[0], t[1], t[2], laid_like_y)) * beta;
    if (has_bias) y = y + ct::astype<float>(bias.tiled(ct::shape<1, 1, BN>{}).load(0, 0, t[2], laid_like_y));
    c.store(ct::astype<TC>(Act{}(y)));
  }
};

template <class T, class TC, class Act, class Cfg, bool Tf32>
ct::pending gemm_launch(const ct::stream& s, ct::tensor<TC>& c3, const ct::tensor<T>& a3, const ct::tensor<T>& b3,
                        const ct::tensor<TC>& residual3, const ct::tensor<TC>& bias3, float alpha, float beta,
                        bool has_bias) {
  using K = gemm_tiles<T, TC, Act, Cfg, Tf32>;
  return ct::launch(s, K{}, c3.partition(ct::shape<1, Cfg::bm, Cfg::bn>{}), a3, b3, residual3, bias3, alpha, beta,
                    int(has_bias));
}

template <class T, class TC, class Act, bool Tf32>
ct::pending gemm_pick(const ct::stream& s, ct::tensor<TC>& c3, const ct::tensor<T>& a3, const ct::tensor<T>& b3,
                      const ct::tensor<TC>& residual3, const ct::tensor<TC>& bias3, float alpha, float beta,
                      bool has_bias, gemm_tiling tiles) {
  const auto run = [&](auto cfg) {
    return gemm_launch<T, TC, Act, decltype(cfg), Tf32>(s, c3, a3, b3, residual3, bias3, alpha, beta, has_bias);
  };
  constexpr bool sixteen_bit = !std::is_same_v<T, float>;
  const bool hopper = gemm_use_wgmma(s.dev());
  if (tiles == gemm_tiling::wgmma || tiles == gemm_tiling::wgmma_paired || tiles == gemm_tiling::wgmma_cluster ||
      tiles == gemm_tiling::wgmma_producer || tiles == gemm_tiling::wgmma_producer_cluster ||
      tiles == gemm_tiling::wgmma_wide)
    require(sixteen_bit && hopper, "gemm: the tensor-core tiles need bf16 or f16 inputs and a Hopper GPU (" +
                                       s.dev().description() + ")");
  if constexpr (sixteen_bit) {
    if (tiles == gemm_tiling::wgmma) return run(gemm_wgmma{});
    if (tiles == gemm_tiling::wgmma_paired) return run(gemm_wgmma_paired{});
    if (tiles == gemm_tiling::wgmma_cluster) return run(gemm_wgmma_cluster{});
    if (tiles == gemm_tiling::wgmma_producer) return run(gemm_wgmma_producer{});
    if (tiles == gemm_tiling::wgmma_producer_cluster) return run(gemm_wgmma_producer_cluster{});
    if (tiles == gemm_tiling::wgmma_wide) return run(gemm_wgmma_wide{});
    // Short M too: a 128-row tile is mostly padding there, but the tensor cores still run it
    // about 3x faster than the SIMT short-M tiles (1 x 4096 x 4096: 0.24 against 0.07 of cuBLAS,
    // bench/results/2026-12-04-gemm-cluster-producer.md).
    if (tiles == gemm_tiling::automatic && hopper)
      return gemm_use_clusters(a3, b3, c3.extent(2)) ? run(gemm_wgmma_producer_cluster{}) : run(gemm_wgmma_producer{});
    if (tiles == gemm_tiling::automatic && gemm_use_mma_sync(s.dev())) return run(gemm_wgmma{});
  }
  if (gemm_use_short_m(c3.extent(1))) return run(gemm_short_m{});
  return run(gemm_square{});
}

// gemm_args::split_k: the products of the `parts` runs of K side by side, as a batch, into an
// f32 [parts, M, N] buffer (a and b viewed as [parts, M, K / parts] and [parts, K / parts, N]:
// no copy), then split_sum_map sums them in order with the epilogue. The batch runs on the
// tiles automatic picks on Hopper (its producer configurations) and on the SIMT tiles
// elsewhere: four kernels a type to compile, not every configuration.
template <class T, class TC, class Act>
ct::pending gemm_split_k(const ct::stream& s, ct::tensor<TC>& c3, const ct::tensor<T>& a3, const ct::tensor<T>& b3,
                         const ct::tensor<TC>& residual3, const ct::tensor<TC>& bias3, float alpha, float beta,
                         bool has_bias, int parts) {
  const ct::tensor<T> a_parts = a3.unflatten(2, parts).transpose(0, 2).squeeze(2);
  const ct::tensor<T> b_parts = b3.unflatten(1, parts).squeeze(0);
  auto partial = ct::empty<float>({index_t(parts), c3.extent(1), c3.extent(2)}, c3.dev());
  const ct::tensor<float> none = placeholder_on<float>(c3.dev()).view();
  const auto run = [&](auto cfg) {
    (void)gemm_launch<T, float, identity, decltype(cfg), false>(s, partial, a_parts, b_parts, none, none, 1.0f, 0.0f,
                                                                false);
  };
  if (gemm_use_wgmma(s.dev()))
    gemm_use_clusters(a_parts, b_parts, c3.extent(2)) ? run(gemm_wgmma_producer_cluster{}) : run(gemm_wgmma_producer{});
  else
    gemm_use_short_m(c3.extent(1)) ? run(gemm_short_m{}) : run(gemm_square{});
  constexpr int BM = 8, BN = 256;
  return ct::launch(s, split_sum_map<TC, Act, BM, BN>{}, c3.partition(ct::shape<1, BM, BN>{}), partial, residual3,
                    bias3, alpha, beta, int(has_bias));
}

}  // namespace detail

// c = Act(alpha * a @ b + beta * residual + bias); Act is identity (default), relu, silu or
// gelu_tanh:  ct::kernels::gemm<ct::kernels::relu>(stream, c, a, b, {.bias = &bias}).
template <class Act = identity, class T, class TC>
ct::pending gemm(const ct::stream& s, ct::tensor<TC>& c, const ct::tensor<T>& a, const ct::tensor<T>& b,
                 const gemm_args<TC>& args = {}) {
  static_assert(std::is_same_v<T, ct::bf16> || std::is_same_v<T, ct::f16> || std::is_same_v<T, float>,
                "ct::kernels::gemm: inputs must be bf16, f16 or f32");
  static_assert(std::is_same_v<TC, ct::bf16> || std::is_same_v<TC, ct::f16> || std::is_same_v<TC, float>,
                "ct::kernels::gemm: the output must be bf16, f16 or f32");
  detail::check_gemm(c, a, b, args);
  auto c3 = detail::as_batched(c);
  auto a3 = detail::as_batched(a), b3 = detail::as_batched(b);
  // The heuristic's tensor-core tiles take operands whose rows are off 16-byte boundaries as
  // copies on them; a configuration named in `tiles` takes the operands as given.
  if constexpr (!std::is_same_v<T, float>) {
    if (args.tiles == gemm_tiling::automatic && (detail::gemm_use_wgmma(s.dev()) || detail::gemm_use_mma_sync(s.dev()))) {
      if (!detail::operand_on_16_bytes(a3)) a3 = detail::copy_on_16_bytes(s, a3);
      if (!detail::operand_on_16_bytes(b3)) b3 = detail::copy_on_16_bytes(s, b3);
    }
  }
  // An absent epilogue input binds to a placeholder that the kernel never loads.
  const bool has_residual = args.beta != 0.0f, has_bias = args.bias != nullptr;
  const ct::tensor<TC>& placeholder = detail::placeholder_on<TC>(c.dev());
  const ct::tensor<TC> residual3 = has_residual ? detail::as_batched(*args.residual) : placeholder.view();
  const ct::tensor<TC> bias3 = has_bias ? args.bias->unsqueeze(0).unsqueeze(0) : placeholder.view();
  if constexpr (!std::is_same_v<T, float>) {
    if (args.split_k != 1)
      return detail::gemm_split_k<T, TC, Act>(s, c3, a3, b3, residual3, bias3, args.alpha, args.beta, has_bias,
                                              args.split_k);
  }
  if constexpr (std::is_same_v<T, float>) {
    if (args.allow_tf32)
      return detail::gemm_pick<T, TC, Act, true>(s, c3, a3, b3, residual3, bias3, args.alpha, args.beta, has_bias,
                                                 args.tiles);
  }
  return detail::gemm_pick<T, TC, Act, false>(s, c3, a3, b3, residual3, bias3, args.alpha, args.beta, has_bias,
                                              args.tiles);
}

}  // namespace ct::kernels
