// The GEMM benchmark: ct::kernels::gemm next to cuBLAS (cublasLt) in the same run, bf16 inputs,
// f32 accumulation, bf16 output, row-major, on issue 6's shapes. Method (bench/README.md): inputs
// filled on the device with fresh random values, ctile's output poisoned and checked against
// cuBLAS's at sampled elements before anything is timed; warm-ups, then bursts of five launches
// timed with CUDA events, the median per launch reported. No L2 rotation: the operands are reused by every tile,
// so a GEMM is compute-bound and both sides see the same cache state.
//   bench_gemm [--out FILE] [--quick] [--seconds S] [--no-diagnostics]
//              [--tiles T[,T...]]   T: automatic|wgmma|wgmma_paired|wgmma_cluster|wgmma_producer|wgmma_producer_cluster|wgmma_wide|simt
//              [--shapes MxNxK[,MxNxK...]]   these shapes instead of issue 6's (group "custom")
//              [--split-k S[,S...]]   also the automatic tiles with K cut into S parts (gemm_args::split_k;
//                                     rows "split_k=S"; shapes whose K S does not divide report the error)
// Several tile configurations are timed side by side, against one cuBLAS measurement a shape.
#include <cublasLt.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include <ctile/ctile.hpp>
#include <ctile/kernels.hpp>

#include "random_fill.hpp"
#include "shape_list.hpp"
#include "timing.hpp"

namespace {

using bench::check;
using bench::next_seed;
void check(cublasStatus_t e, const char* what) {
  if (e != CUBLAS_STATUS_SUCCESS) throw ct::error(std::string(what) + ": cuBLAS status " + std::to_string(int(e)));
}

struct options {
  std::string out = "gemm.json";
  bool quick = false;
  double seconds = 1.0;  // time budget per measurement, after the warm-ups
  std::vector<std::pair<std::string, ct::kernels::gemm_tiling>> tilings = {{"automatic", ct::kernels::gemm_tiling::automatic}};
  bool diagnostics = true;  // also time the bare main loop (bare_gemm), one and two tile blocks a CTA
  std::vector<std::array<ct::index_t, 3>> shapes;  // --shapes: these instead of issue 6's
  // What ctile runs, a column pair each: the tilings, then --split-k's part counts (made by parse).
  std::vector<std::pair<std::string, ct::kernels::gemm_args<ct::bf16>>> configs;
};

struct problem {
  ct::index_t m, n, k;
  const char* group;  // "square", "sweep", "ragged" or "custom" (--shapes)
};

struct result {
  problem p;
  std::string impl;   // "ctile", "cublasLt" or a diagnostic
  std::string tiles;  // ctile's tile configuration
  double ms = 0;
  bool ok = false;
  std::string error;
};

// Median over bursts of `burst` back-to-back launches between two events, per launch; as many
// bursts as fit `seconds` (3 to 50). Back to back, so that the host's per-call work (ctile's
// launch checks, cuBLAS's heuristic query) overlaps the previous launch as it does in a real
// program, on both sides alike; a single launch between events would count it as GPU time.
double median_ms(cudaStream_t s, double seconds, const std::function<void()>& run) {
  constexpr int burst = 5;
  bench::event_timer timer(s);
  const auto run_burst = [&] {
    for (int i = 0; i < burst; ++i) run();
  };
  const double first = timer.ms(run_burst) / burst;
  const int warm = std::clamp(int(0.2 * seconds * 1e3 / (first * burst)), 1, 10);
  for (int i = 0; i < warm; ++i) timer.ms(run_burst);
  const int reps = std::clamp(int(seconds * 1e3 / (first * burst)), 3, 50);
  std::vector<double> ms;
  for (int i = 0; i < reps; ++i) ms.push_back(timer.ms(run_burst) / burst);
  return bench::median(ms);
}

// c = a @ b for row-major bf16 a [M, K], b [K, N], c [M, N], as cuBLAS's column-major
// c^T = b^T a^T: the same memory, read with the dimensions swapped.
class cublas_gemm {
 public:
  cublas_gemm() {
    check(cublasLtCreate(&handle_), "cublasLtCreate");
    check(cudaMalloc(&workspace_, workspace_bytes), "cudaMalloc workspace");
  }
  ~cublas_gemm() {
    cudaFree(workspace_);
    cublasLtDestroy(handle_);
  }
  cublas_gemm(const cublas_gemm&) = delete;
  cublas_gemm& operator=(const cublas_gemm&) = delete;

  void run(cudaStream_t s, const problem& p, const void* a, const void* b, void* c) {
    cublasLtMatmulDesc_t desc = nullptr;
    cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
    check(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate");
    check(cublasLtMatrixLayoutCreate(&la, CUDA_R_16BF, p.n, p.k, p.n), "layout b");  // b^T: N x K, ld N
    check(cublasLtMatrixLayoutCreate(&lb, CUDA_R_16BF, p.k, p.m, p.k), "layout a");  // a^T: K x M, ld K
    check(cublasLtMatrixLayoutCreate(&lc, CUDA_R_16BF, p.n, p.m, p.n), "layout c");  // c^T: N x M, ld N
    cublasLtMatmulPreference_t pref = nullptr;
    check(cublasLtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate");
    std::size_t ws = workspace_bytes;
    check(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws),
          "workspace preference");
    cublasLtMatmulHeuristicResult_t heuristic{};
    int found = 0;
    check(cublasLtMatmulAlgoGetHeuristic(handle_, desc, la, lb, lc, lc, pref, 1, &heuristic, &found), "heuristic");
    if (found == 0) throw ct::error("cublasLt: no algorithm for this problem");
    const float alpha = 1.0f, beta = 0.0f;
    check(cublasLtMatmul(handle_, desc, &alpha, b, la, a, lb, &beta, c, lc, c, lc, &heuristic.algo, workspace_, ws, s),
          "cublasLtMatmul");
    cublasLtMatmulPreferenceDestroy(pref);
    cublasLtMatrixLayoutDestroy(la);
    cublasLtMatrixLayoutDestroy(lb);
    cublasLtMatrixLayoutDestroy(lc);
    cublasLtMatmulDescDestroy(desc);
  }

 private:
  static constexpr std::size_t workspace_bytes = std::size_t(32) << 20;
  cublasLtHandle_t handle_ = nullptr;
  void* workspace_ = nullptr;
};

// ctile's output against cuBLAS's at about 4096 sampled elements: both accumulate in f32 and
// round once to bf16, so they may differ by the f32 summation order (K roundings of terms of
// size |a||b|, about sqrt(K) in effect for random data) plus a bf16 rounding step each.
std::string compare(const ct::tensor<ct::bf16>& got, const ct::tensor<ct::bf16>& want, ct::index_t k) {
  const auto g = got.to_host(), w = want.to_host();
  const std::size_t step = std::max<std::size_t>(1, g.size() / 4096);
  // Inputs uniform in [-2, 2): each product is at most 4 in size, a dot product's typical size
  // is about 4/3 sqrt(K).
  const double atol = 64.0 * std::sqrt(double(k)) * 4.0 * std::ldexp(1.0, -24) + 1e-3;
  for (std::size_t i = 0; i < g.size(); i += step) {
    const double x = ct::convert<float>(g[i]), y = ct::convert<float>(w[i]);
    if (!(std::fabs(x - y) <= atol + 2 * std::ldexp(1.0, -8) * std::fabs(y)))
      return "element " + std::to_string(i) + ": ctile " + std::to_string(x) + ", cuBLAS " + std::to_string(y);
  }
  return "";
}

// The GEMM main loop alone in the DSL, with no epilogue beyond the bf16 store: c = a @ b. Timed
// beside ct::kernels::gemm to show what its epilogue (alpha, residual, bias, activation) costs.
template <int Blocks>
struct bare_gemm {
  static constexpr const char* name = "bench_bare_gemm";
  static constexpr std::size_t shared_bytes = Blocks * ct::pipeline_shared_bytes;
  static constexpr ct::co_schedule co_schedule{1, Blocks};
  CT_TILE void operator()(ct::out<ct::bf16, ct::shape<1, 128, 128>> c, ct::in<ct::bf16, 3> a, ct::in<ct::bf16, 3> b) const {
    const auto ta = a.tiled(ct::shape<1, 128, 64>{});
    const auto tb = b.tiled(ct::shape<1, 64, 128>{});
    const auto acc = ct::pipelined(c.tile_index(), ct::num_tiles(ta, 2),
                                   ct::stages(ct::stage(ta, ct::kernels::detail::a_tile_at{}),
                                              ct::stage(tb, ct::kernels::detail::b_tile_at{})),
                                   ct::zeros<float, 1, 128, 128>(), [](auto acc, auto sa, auto sb) { return ct::mma(sa, sb, acc); });
    c.store(ct::astype<ct::bf16>(acc));
  }
};

// cuBLAS first, then ctile with each tile configuration (its output poisoned and checked each
// time), then the diagnostics.
std::vector<result> measure(const problem& p, const ct::stream& s, cublas_gemm& cublas, const options& opt) {
  const double seconds = opt.seconds;
  const ct::device dev = s.dev();
  auto st = static_cast<cudaStream_t>(s.native());
  auto a = ct::empty<ct::bf16>({p.m, p.k}, dev), b = ct::empty<ct::bf16>({p.k, p.n}, dev);
  bench::random_fill(s, a, next_seed());
  bench::random_fill(s, b, next_seed());
  auto c = ct::full<ct::bf16>({p.m, p.n}, NAN, dev), ref = ct::empty<ct::bf16>({p.m, p.n}, dev);
  std::vector<result> out;
  result theirs{p, "cublasLt", "", 0, false, ""};
  try {
    cublas.run(st, p, a.data(), b.data(), ref.data());
    check(cudaStreamSynchronize(st), "cuBLAS");
    theirs.ms = median_ms(st, seconds, [&] { cublas.run(st, p, a.data(), b.data(), ref.data()); });
    theirs.ok = true;
  } catch (const std::exception& e) {
    theirs.error = e.what();
  }
  out.push_back(theirs);
  for (const auto& [name, args] : opt.configs) {
    result ours{p, "ctile", name, 0, false, ""};
    try {
      c = ct::full<ct::bf16>({p.m, p.n}, NAN, dev);
      ct::kernels::gemm(s, c, a, b, args).wait();
      ours.error = theirs.ok ? compare(c, ref, p.k) : "";
      ours.ok = ours.error.empty();
      if (ours.ok) ours.ms = median_ms(st, seconds, [&] { (void)ct::kernels::gemm(s, c, a, b, args); });
    } catch (const std::exception& e) {
      ours.error = e.what();
    }
    out.push_back(ours);
  }
  // The bare main loop, one and two tile blocks per CTA (diagnostic rows, not the library).
  auto c3 = c.unsqueeze(0);
  const auto a3 = a.unsqueeze(0), b3 = b.unsqueeze(0);
  const auto bare = [&](auto kernel, const char* impl) {
    result r{p, impl, "", 0, false, ""};
    try {
      const auto run = [&] { (void)ct::launch(s, kernel, c3.partition(ct::shape<1, 128, 128>{}), a3, b3); };
      run();
      check(cudaStreamSynchronize(st), impl);
      r.error = theirs.ok ? compare(c, ref, p.k) : "";
      r.ok = r.error.empty();
      if (r.ok) r.ms = median_ms(st, seconds, run);
    } catch (const std::exception& e) {
      r.error = e.what();
    }
    return r;
  };
  if (opt.diagnostics && ct::kernels::detail::gemm_use_wgmma(dev)) {
    out.push_back(bare(bare_gemm<1>{}, "bare-1"));
    out.push_back(bare(bare_gemm<2>{}, "bare-2"));
  }
  return out;
}

double tflops(const result& r) { return 2.0 * double(r.p.m) * double(r.p.n) * double(r.p.k) / (r.ms * 1e9); }

std::string json_of(const result& r) {
  std::ostringstream o;
  o << "{\"m\": " << r.p.m << ", \"n\": " << r.p.n << ", \"k\": " << r.p.k << ", \"group\": \"" << r.p.group
    << "\", \"impl\": \"" << r.impl << "\", \"tiles\": \"" << r.tiles << "\", \"dtype\": \"bf16\", \"ms\": " << (r.ok ? r.ms : 0)
    << ", \"tflops\": " << (r.ok ? tflops(r) : 0) << ", \"ok\": " << (r.ok ? "true" : "false") << ", \"error\": ";
  if (r.error.empty()) {
    o << "null}";
  } else {
    std::string e;
    for (char ch : r.error) e += ch == '"' || ch == '\\' ? std::string("\\") + ch : std::string(1, ch);
    o << "\"" << e << "\"}";
  }
  return o.str();
}

options parse(int argc, char** argv) {
  options o;
  std::vector<int> splits;  // --split-k
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&] {
      if (i + 1 >= argc) throw ct::error("bench_gemm: " + a + " needs a value");
      return std::string(argv[++i]);
    };
    if (a == "--out") o.out = value();
    else if (a == "--quick") o.quick = true;
    else if (a == "--seconds") o.seconds = std::stod(value());
    else if (a == "--no-diagnostics") o.diagnostics = false;
    else if (a == "--tiles") {
      using ct::kernels::gemm_tiling;
      const std::vector<std::pair<std::string, gemm_tiling>> known = {
          {"automatic", gemm_tiling::automatic},         {"wgmma", gemm_tiling::wgmma},
          {"wgmma_paired", gemm_tiling::wgmma_paired},   {"wgmma_cluster", gemm_tiling::wgmma_cluster},
          {"wgmma_producer", gemm_tiling::wgmma_producer}, {"wgmma_producer_cluster", gemm_tiling::wgmma_producer_cluster},
          {"wgmma_wide", gemm_tiling::wgmma_wide},       {"simt", gemm_tiling::simt}};
      o.tilings.clear();
      std::istringstream list(value());
      for (std::string name; std::getline(list, name, ',');) {
        const auto it = std::find_if(known.begin(), known.end(), [&](const auto& k) { return k.first == name; });
        if (it == known.end())
          throw ct::error("bench_gemm: --tiles takes automatic, wgmma, wgmma_paired, wgmma_cluster, wgmma_producer, "
                          "wgmma_producer_cluster, wgmma_wide or simt, separated by commas; not '" + name + "'");
        o.tilings.push_back(*it);
      }
      if (o.tilings.empty()) throw ct::error("bench_gemm: --tiles needs at least one configuration");
    } else if (a == "--shapes") {
      for (const auto& e : bench::parse_shape_list(value(), [](const std::string& item, const std::vector<ct::index_t>& e) {
             if (e.size() != 3)
               throw ct::error("bench_gemm: --shapes takes MxNxK with positive extents, separated by commas; not '" +
                               item + "'");
           }))
        o.shapes.push_back({e[0], e[1], e[2]});
      if (o.shapes.empty()) throw ct::error("bench_gemm: --shapes needs at least one MxNxK");
    } else if (a == "--split-k") {
      for (const auto& e : bench::parse_shape_list(value(), [](const std::string& item, const std::vector<ct::index_t>& e) {
             if (e.size() != 1 || e[0] > 64)
               throw ct::error("bench_gemm: --split-k takes part counts from 1 to 64, separated by commas; not '" + item +
                               "'");
           }))
        splits.push_back(int(e[0]));
    } else throw ct::error("bench_gemm: unknown option " + a +
                           " (--out FILE, --quick, --seconds S, --no-diagnostics, --tiles T[,T...], --shapes MxNxK[,...], --split-k S[,...])");
  }
  if (!(o.seconds > 0)) throw ct::error("bench_gemm: --seconds must be positive");
  for (const auto& [name, tiles] : o.tilings) {
    o.configs.emplace_back(name, ct::kernels::gemm_args<ct::bf16>{});
    o.configs.back().second.tiles = tiles;
  }
  for (const int parts : splits) {
    o.configs.emplace_back("split_k=" + std::to_string(parts), ct::kernels::gemm_args<ct::bf16>{});
    o.configs.back().second.split_k = parts;
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) try {
  const options opt = parse(argc, argv);
  if (ct::cuda_device_count() == 0) {
    std::fprintf(stderr, "bench_gemm: no CUDA GPU: nothing to measure\n");
    return 0;
  }
  const ct::device dev = ct::device::cuda(0);
  const ct::stream s = ct::default_stream(dev);
  std::vector<problem> problems = {{4096, 4096, 4096, "square"}, {8192, 8192, 8192, "square"},
                                   {4095, 4097, 4093, "ragged"}, {1, 4096, 4096, "ragged"},
                                   {4096, 8, 4096, "ragged"}};
  if (!opt.shapes.empty()) {
    problems.clear();
    for (const auto& [m, n, k] : opt.shapes) problems.push_back({m, n, k, "custom"});
  } else if (!opt.quick)
    for (ct::index_t m : {4096, 8192, 16384})
      for (auto [n, k] : {std::pair<ct::index_t, ct::index_t>{4096, 4096}, {11008, 4096}, {4096, 11008}, {14336, 4096}})
        problems.push_back({m, n, k, "sweep"});
  cublas_gemm cublas;
  std::vector<result> results;
  for (const auto& p : problems) {
    std::fprintf(stderr, "gemm %lld x %lld x %lld\n", (long long)p.m, (long long)p.n, (long long)p.k);
    for (auto& r : measure(p, s, cublas, opt)) results.push_back(r);
  }

  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  const std::string date = bench::utc_now();
  FILE* f = std::fopen(opt.out.c_str(), "w");
  if (!f) throw ct::error("bench_gemm: cannot write " + opt.out);
  std::fprintf(f, "{\"tool\": \"ctile-gemm\", \"gpu\": \"%s\", \"date\": \"%s\", \"results\": [\n", prop.name, date.c_str());
  for (std::size_t i = 0; i < results.size(); ++i) std::fprintf(f, "%s  %s", i ? ",\n" : "", json_of(results[i]).c_str());
  std::fprintf(f, "\n]}\n");
  std::fclose(f);

  std::printf("GEMM, bf16 in, f32 accumulate, bf16 out, row-major; %s, %s\n\n", prop.name, date.c_str());
  for (const auto& r : results)
    if (r.impl.rfind("bare", 0) == 0 && r.ok)
      std::printf("diagnostic %s %lld x %lld x %lld: %.0f TFLOP/s\n", r.impl.c_str(), (long long)r.p.m, (long long)r.p.n,
                  (long long)r.p.k, tflops(r));
  // One row a shape: cuBLAS, then each configuration's TFLOP/s and its ratio to cuBLAS.
  std::printf("\n| M | N | K | cuBLAS TFLOP/s |");
  for (const auto& t : opt.configs) std::printf(" ctile %s TFLOP/s | / cuBLAS |", t.first.c_str());
  std::printf("\n| --- | --- | --- | --- |");
  for (std::size_t i = 0; i < opt.configs.size(); ++i) std::printf(" --- | --- |");
  std::printf("\n");
  const auto cell = [](const result& r) { return r.ok ? std::to_string(int(std::lround(tflops(r)))) : std::string("error"); };
  std::vector<double> log_sum(opt.configs.size(), 0.0);
  std::vector<int> sweep(opt.configs.size(), 0);
  const std::size_t per_shape = 1 + opt.configs.size();
  std::vector<result> rows;
  for (const auto& r : results)
    if (r.impl.rfind("bare", 0) != 0) rows.push_back(r);
  for (std::size_t i = 0; i + per_shape <= rows.size(); i += per_shape) {
    const result& theirs = rows[i];
    std::printf("| %lld | %lld | %lld | %s |", (long long)theirs.p.m, (long long)theirs.p.n, (long long)theirs.p.k,
                cell(theirs).c_str());
    for (std::size_t t = 0; t < opt.configs.size(); ++t) {
      const result& ours = rows[i + 1 + t];
      std::string ratio = "-";
      if (ours.ok && theirs.ok) {
        ratio = std::to_string(theirs.ms / ours.ms).substr(0, 5);
        if (std::string(ours.p.group) == "sweep") log_sum[t] += std::log(theirs.ms / ours.ms), ++sweep[t];
      }
      std::printf(" %s | %s |", cell(ours).c_str(), ratio.c_str());
    }
    std::printf("\n");
  }
  std::printf("\n");
  for (std::size_t t = 0; t < opt.configs.size(); ++t)
    if (sweep[t] > 0)
      std::printf("sweep geometric mean, ctile %s / cuBLAS: %.3f over %d shapes\n", opt.configs[t].first.c_str(),
                  std::exp(log_sum[t] / sweep[t]), sweep[t]);
  for (const auto& r : results)
    if (!r.ok && !r.error.empty())
      std::printf("%s%s%s %lld x %lld x %lld: %s\n", r.impl.c_str(), r.tiles.empty() ? "" : " ", r.tiles.c_str(),
                  (long long)r.p.m, (long long)r.p.n, (long long)r.p.k, r.error.c_str());
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
