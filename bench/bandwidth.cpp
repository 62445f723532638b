// The bandwidth suite: times every kernel of kernels/ctile/kernels on the GPU next to the copy
// ceiling, and writes JSON for bench/report.py (which adds the peers from bench/peers.py).
// Method (bench/README.md): inputs filled with fresh random values on the device, outputs
// poisoned with NaN and checked to be fully overwritten; 10 warm-ups, then `reps` launches each
// timed alone with CUDA events, median reported; inputs and outputs rotated through enough
// copies that the working set exceeds L2. Bytes: each input read once, each output written once.
//   bench_bandwidth [--out FILE] [--quick] [--kernels a,b,...] [--shapes RxC[xHxD],...] [--reps N]
// --shapes times bf16 at the shapes given instead of the suite's (2-D ones for every kernel
// but rope, 4-D ones for rope).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <ctile/ctile.hpp>
#include <ctile/kernels.hpp>

#include "random_fill.hpp"
#include "shape_list.hpp"
#include "timing.hpp"

namespace {

namespace kn = ct::kernels;

using bench::check;
using bench::next_seed;

struct options {
  std::string out = "ctile.json";
  bool quick = false;
  std::vector<std::string> kernels;
  std::vector<ct::extents_t> shapes;  // instead of the suite's, where given
  int reps = 50;
};

// One measurable launch over one copy of its tensors.
struct instance {
  std::function<void()> run;
  std::function<bool()> fully_written;  // no NaN left in the poisoned outputs (sampled)
};

struct measurement {
  std::string kernel, dtype;
  ct::extents_t shape;
  double bytes, ms;
};

// Median of `reps` single launches, each between two events; run(i) launches copy i % copies.
double median_ms(cudaStream_t s, int reps, const std::function<void(int)>& run) {
  for (int i = 0; i < 10; ++i) run(i);
  bench::event_timer timer(s);
  std::vector<double> ms;
  for (int i = 0; i < reps; ++i) ms.push_back(timer.ms([&] { run(i); }));
  check(cudaGetLastError(), "kernel launch");
  return bench::median(ms);
}

ct::index_t count(const ct::extents_t& e) {
  ct::index_t n = 1;
  for (auto x : e) n *= x;
  return n;
}

template <class T>
bool no_nan(const ct::tensor<T>& t) {
  const auto v = t.to_host();
  const std::size_t step = std::max<std::size_t>(1, v.size() / 100003);
  for (std::size_t i = 0; i < v.size(); i += step)
    if (std::isnan(double(ct::convert<float>(v[i])))) return false;
  return std::isnan(double(ct::convert<float>(v.back()))) == false;
}

// The tensors of one kernel launch, and the launch. Returns the bytes it moves.
template <class T>
double make_instance(const std::string& k, const ct::extents_t& e, const ct::stream& s, instance& inst) {
  const ct::device dev = s.dev();
  const double b = sizeof(T);
  auto input = [&](const ct::extents_t& ext, float lo = -2.0f, float hi = 2.0f) {
    auto t = std::make_shared<ct::tensor<T>>(ct::empty<T>(ext, dev));
    bench::random_fill(s, *t, next_seed(), lo, hi);
    return t;
  };
  auto output = [&](const ct::extents_t& ext) {
    return std::make_shared<ct::tensor<T>>(ct::full<T>(ext, std::nan(""), dev));
  };
  auto table = [&](const ct::extents_t& ext) {
    auto t = std::make_shared<ct::tensor<float>>(ct::empty<float>(ext, dev));
    bench::random_fill(s, *t, next_seed(), -1.0f, 1.0f);
    return t;
  };
  const double n = double(count(e));
  if (k == "rope") {
    auto x = input(e), y = output(e);
    auto c = table({e[1], e[3] / 2}), sn = table({e[1], e[3] / 2});
    inst = {[=, &s] { (void)kn::rope(s, *y, *x, *c, *sn); }, [=] { return no_nan(*y); }};
    return 2 * n * b + 2.0 * double(e[1] * e[3] / 2) * 4;
  }
  const ct::index_t m = e[0], cols = e[1];
  if (k == "add" || k == "mul" || k == "swiglu") {
    auto a = input(e), c = input(e), y = output(e);
    if (k == "add") inst.run = [=, &s] { (void)kn::add(s, *y, *a, *c); };
    if (k == "mul") inst.run = [=, &s] { (void)kn::mul(s, *y, *a, *c); };
    if (k == "swiglu") inst.run = [=, &s] { (void)kn::swiglu(s, *y, *a, *c); };
    inst.fully_written = [=] { return no_nan(*y); };
    return 3 * n * b;
  }
  if (k == "scale" || k == "softmax") {
    auto x = input(e), y = output(e);
    if (k == "scale") inst.run = [=, &s] { (void)kn::scale(s, *y, *x, 1.7f); };
    else inst.run = [=, &s] { (void)kn::softmax(s, *y, *x); };
    inst.fully_written = [=] { return no_nan(*y); };
    return 2 * n * b;
  }
  if (k == "bias_gelu" || k == "bias_silu" || k == "bias_relu") {
    auto x = input(e), bias = input({cols}), y = output(e);
    if (k == "bias_gelu") inst.run = [=, &s] { (void)kn::bias_act<kn::gelu_tanh>(s, *y, *x, *bias); };
    if (k == "bias_silu") inst.run = [=, &s] { (void)kn::bias_act<kn::silu>(s, *y, *x, *bias); };
    if (k == "bias_relu") inst.run = [=, &s] { (void)kn::bias_act<kn::relu>(s, *y, *x, *bias); };
    inst.fully_written = [=] { return no_nan(*y); };
    return 2 * n * b + double(cols) * b;
  }
  if (k == "row_sum" || k == "row_max" || k == "col_sum" || k == "col_max") {
    const bool row = k[0] == 'r';
    auto x = input(e), y = output({row ? m : cols});
    if (k == "row_sum") inst.run = [=, &s] { (void)kn::row_sum(s, *y, *x); };
    if (k == "row_max") inst.run = [=, &s] { (void)kn::row_max(s, *y, *x); };
    if (k == "col_sum") inst.run = [=, &s] { (void)kn::col_sum(s, *y, *x); };
    if (k == "col_max") inst.run = [=, &s] { (void)kn::col_max(s, *y, *x); };
    inst.fully_written = [=] { return no_nan(*y); };
    return n * b + double(row ? m : cols) * b;
  }
  if (k == "layernorm" || k == "rmsnorm") {
    auto x = input(e), w = input({cols}), bias = input({cols}), y = output(e);
    if (k == "layernorm") inst.run = [=, &s] { (void)kn::layernorm(s, *y, *x, *w, *bias); };
    else inst.run = [=, &s] { (void)kn::rmsnorm(s, *y, *x, *w); };
    inst.fully_written = [=] { return no_nan(*y); };
    return 2 * n * b + double(cols) * b * (k == "layernorm" ? 2 : 1);
  }
  if (k == "layernorm_residual" || k == "rmsnorm_residual") {
    auto x = input(e), r = input(e), w = input({cols}), bias = input({cols}), y = output(e), h = output(e);
    if (k == "layernorm_residual") inst.run = [=, &s] { (void)kn::layernorm_residual(s, *y, *h, *x, *r, *w, *bias); };
    else inst.run = [=, &s] { (void)kn::rmsnorm_residual(s, *y, *h, *x, *r, *w); };
    inst.fully_written = [=] { return no_nan(*y) && no_nan(*h); };
    return 4 * n * b + double(cols) * b * (k == "layernorm_residual" ? 2 : 1);
  }
  throw ct::error("bench_bandwidth: unknown kernel " + k);
}

template <class T>
measurement measure(const std::string& k, const ct::extents_t& e, const ct::stream& s, int reps) {
  std::vector<instance> copies(1);
  const double bytes = make_instance<T>(k, e, s, copies[0]);
  // Enough copies that one pass over them (at least 256 MB) flushes the 60 MB L2.
  const int want = int(std::clamp(std::ceil(256e6 / bytes), 1.0, 16.0));
  while (int(copies.size()) < want) make_instance<T>(k, e, s, copies.emplace_back());
  copies[0].run();
  check(cudaStreamSynchronize(static_cast<cudaStream_t>(s.native())), k.c_str());
  if (!copies[0].fully_written()) throw ct::error(k + ": output still holds poison (NaN) after the launch");
  const double ms = median_ms(static_cast<cudaStream_t>(s.native()), reps,
                              [&](int i) { copies[std::size_t(i) % copies.size()].run(); });
  return {k, ct::dtype_name<T>(), e, bytes, ms};
}

// Device-to-device copy of `bytes` (read + written = 2 * bytes), same method.
measurement copy_ceiling(double bytes, const ct::stream& s, int reps) {
  const std::size_t n = std::size_t(bytes);
  void *src = nullptr, *dst = nullptr;
  check(cudaMalloc(&src, n), "cudaMalloc");
  check(cudaMalloc(&dst, n), "cudaMalloc");
  check(cudaMemset(src, 1, n), "cudaMemset");
  auto st = static_cast<cudaStream_t>(s.native());
  const double ms = median_ms(st, reps, [&](int) { check(cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToDevice, st), "copy"); });
  cudaFree(src);
  cudaFree(dst);
  return {"copy", "bytes", {ct::index_t(n)}, 2 * bytes, ms};
}

std::string json_of(const measurement& m) {
  std::ostringstream o;
  o << "{\"kernel\": \"" << m.kernel << "\", \"impl\": \"ctile\", \"dtype\": \"" << m.dtype << "\", \"shape\": [";
  for (std::size_t i = 0; i < m.shape.size(); ++i) o << (i ? ", " : "") << m.shape[i];
  o << "], \"bytes\": " << std::llround(m.bytes) << ", \"ms\": " << m.ms << ", \"gbps\": " << m.bytes / m.ms / 1e6
    << ", \"ok\": true, \"error\": null}";
  return o.str();
}

options parse(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&] {
      if (i + 1 >= argc) throw ct::error("bench_bandwidth: " + a + " needs a value");
      return std::string(argv[++i]);
    };
    if (a == "--out") o.out = value();
    else if (a == "--quick") o.quick = true;
    else if (a == "--reps") o.reps = std::stoi(value());
    else if (a == "--kernels") {
      std::stringstream list(value());
      for (std::string k; std::getline(list, k, ',');) o.kernels.push_back(k);
    } else if (a == "--shapes") {
      for (auto& e : bench::parse_shape_list(value(), [](const std::string& shape, const ct::extents_t& e) {
             if (e.size() != 2 && e.size() != 4)
               throw ct::error("bench_bandwidth: --shapes " + shape + " is not RxC or BxSxHxD (positive integers)");
           }))
        o.shapes.push_back(std::move(e));
    } else
      throw ct::error("bench_bandwidth: unknown option " + a +
                      " (--out FILE, --quick, --kernels a,b, --shapes RxC,..., --reps N)");
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) try {
  const options opt = parse(argc, argv);
  if (ct::cuda_device_count() == 0) {
    std::fprintf(stderr, "bench_bandwidth: no CUDA GPU: nothing to measure\n");
    return 0;
  }
  const ct::device dev = ct::device::cuda(0);
  const ct::stream s = ct::default_stream(dev);
  const std::vector<std::string> all = {"add",       "mul",       "scale",   "bias_gelu", "bias_silu", "bias_relu",
                                        "swiglu",    "row_sum",   "row_max", "col_sum",   "col_max",   "softmax",
                                        "layernorm", "layernorm_residual", "rmsnorm", "rmsnorm_residual", "rope"};
  const auto& kernels = opt.kernels.empty() ? all : opt.kernels;
  const ct::extents_t main_2d = {32768, 8192}, ragged_2d = {32767, 8191};
  const ct::extents_t main_rope = {4, 8192, 64, 128}, ragged_rope = {3, 4095, 33, 128};
  std::vector<measurement> results;
  auto run = [&](const std::string& k, const std::string& dtype, const ct::extents_t& e) {
    std::fprintf(stderr, "ctile %s %s %s\n", k.c_str(), dtype.c_str(), ct::detail::format_extents(e).c_str());
    if (dtype == "bf16") results.push_back(measure<ct::bf16>(k, e, s, opt.reps));
    if (dtype == "f16") results.push_back(measure<ct::f16>(k, e, s, opt.reps));
    if (dtype == "f32") results.push_back(measure<float>(k, e, s, opt.reps));
  };
  for (const auto& k : kernels) {
    const bool rope = k == "rope";
    if (!opt.shapes.empty()) {
      for (const auto& e : opt.shapes)
        if (e.size() == (rope ? 4u : 2u)) run(k, "bf16", e);
      continue;
    }
    std::vector<ct::extents_t> bf16_shapes = {rope ? main_rope : main_2d, rope ? ragged_rope : ragged_2d};
    if (!opt.quick) {
      if (rope) bf16_shapes.push_back({1, 8192, 32, 128});
      else bf16_shapes.insert(bf16_shapes.end(), {{2048, 8192}, {8192, 8192}});
      if (k == "softmax") bf16_shapes.insert(bf16_shapes.end(), {{4096, 65536}, {1024, 262144}});
    }
    for (const auto& e : bf16_shapes) run(k, "bf16", e);
    if (!opt.quick)
      for (const char* dt : {"f16", "f32"}) run(k, dt, rope ? main_rope : main_2d);
  }
  // The ceiling, at the size of the largest input (a 32768 x 8192 bf16 tensor is 512 MB), and
  // at the size of the f32 ones.
  std::vector<measurement> ceilings = {copy_ceiling(512.0 * (1 << 20), s, opt.reps), copy_ceiling(1024.0 * (1 << 20), s, opt.reps)};

  FILE* f = std::fopen(opt.out.c_str(), "w");
  if (!f) throw ct::error("bench_bandwidth: cannot write " + opt.out);
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  std::fprintf(f, "{\"tool\": \"ctile\", \"gpu\": \"%s\", \"date\": \"%s\", \"copy_ceiling\": [", prop.name,
               bench::utc_now().c_str());
  for (std::size_t i = 0; i < ceilings.size(); ++i)
    std::fprintf(f, "%s{\"bytes\": %.0f, \"ms\": %g, \"gbps\": %g}", i ? ", " : "", ceilings[i].bytes, ceilings[i].ms,
                 ceilings[i].bytes / ceilings[i].ms / 1e6);
  std::fprintf(f, "], \"results\": [\n");
  for (std::size_t i = 0; i < results.size(); ++i) std::fprintf(f, "%s  %s", i ? ",\n" : "", json_of(results[i]).c_str());
  std::fprintf(f, "\n]}\n");
  std::fclose(f);
  std::printf("| kernel | dtype | shape | GB/s |\n| --- | --- | --- | --- |\n");
  for (const auto& m : results)
    std::printf("| %s | %s | %s | %.0f |\n", m.kernel.c_str(), m.dtype.c_str(), ct::detail::format_extents(m.shape).c_str(),
                m.bytes / m.ms / 1e6);
  for (const auto& c : ceilings) std::printf("| copy | - | %.0f MB | %.0f |\n", c.bytes / 2e6, c.bytes / c.ms / 1e6);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
