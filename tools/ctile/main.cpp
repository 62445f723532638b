// The `ctile` command line: `ctile info` lists devices, `ctile demo [--device D]` runs the demo.
#include <cstdio>
#include <cstring>
#include <string>

#include "demo.hpp"

namespace {

int usage() {
  std::fprintf(stderr,
               "usage: ctile info\n"
               "       ctile demo [--device cpu|cuda|cuda:N]\n"
               "The default device is the GPU when one is present, else the CPU; CTILE_DEVICE overrides it.\n");
  return 2;
}

int info() {
  std::printf("ctile 0.1.0\n");
  std::printf("  cpu     %s\n", ct::device::cpu().description().c_str());
  const int n = ct::cuda_device_count();
  if (n == 0) std::printf("  (no CUDA GPU found; GPU kernels are skipped and the CPU backend is used)\n");
  for (int i = 0; i < n; ++i) std::printf("  cuda:%d  %s\n", i, ct::device::cuda(i).description().c_str());
  std::printf("default device: %s\n", ct::default_device().name().c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) try {
  if (argc < 2) return usage();
  const std::string cmd = argv[1];
  if (cmd == "info" && argc == 2) return info();
  if (cmd == "demo") {
    ct::device dev = ct::default_device();
    for (int i = 2; i < argc; ++i) {
      if (std::strcmp(argv[i], "--device") == 0 && i + 1 < argc) dev = ct::parse_device(argv[++i]);
      else return usage();
    }
    return tool::run_demo(dev) == 0 ? 0 : 1;
  }
  return usage();
} catch (const ct::error& e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 2;
}
