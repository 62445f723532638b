// Runs example 8 on the default device and checks both passes against the host.
#include <cmath>
#include <cstdio>
#include <vector>

#include "embedding.hpp"

int main() try {
  const ct::device dev = ct::default_device();
  const ct::index_t vocab = 1000, dim = 300, tokens = 777;
  std::vector<int> ids(tokens);
  for (ct::index_t t = 0; t < tokens; ++t) ids[t] = int((t * 7919) % vocab / 3);  // repeats on purpose
  auto table = ct::randn<float>({vocab, dim}, 1, 1.0, dev);
  auto id_tensor = ct::from_host(ids, {tokens}, dev);
  auto out = ct::empty<float>({tokens, dim}, dev);
  examples::embedding_forward_rows(out, table, id_tensor).wait();

  auto grad_out = ct::randn<float>({tokens, dim}, 2, 1.0, dev);
  auto grad_table = ct::zeros<float>({vocab, dim}, dev);
  examples::embedding_backward_rows(grad_table, grad_out, id_tensor).wait();

  const auto ht = table.to_host(), ho = out.to_host(), hg = grad_out.to_host(), hgt = grad_table.to_host();
  std::size_t wrong = 0;
  for (ct::index_t t = 0; t < tokens; ++t)
    for (ct::index_t d = 0; d < dim; ++d) wrong += ho[t * dim + d] != ht[ids[t] * dim + d];
  std::vector<double> ref(std::size_t(vocab * dim), 0.0);
  for (ct::index_t t = 0; t < tokens; ++t)
    for (ct::index_t d = 0; d < dim; ++d) ref[std::size_t(ids[t] * dim + d)] += hg[t * dim + d];
  double worst = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) worst = std::fmax(worst, std::fabs(hgt[i] - ref[i]));
  std::printf("embedding on %s: forward %zu wrong, backward max error %.2e\n", dev.name().c_str(), wrong, worst);
  return wrong == 0 && worst < 1e-4 ? 0 : 1;
} catch (const ct::error& e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 2;
}
