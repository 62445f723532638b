// Private to the runtime: turns a CUDA runtime status into a ct::error naming the call.
#pragma once
#include <cuda_runtime_api.h>

#include <string>

#include "ctile/core/error.hpp"

namespace ct::detail {

inline void cuda_check(cudaError_t err, const char* call, const std::string& context = {}) {
  if (err == cudaSuccess) return;
  fail(std::string(call) + " failed" + (context.empty() ? "" : " (" + context + ")") + ": " +
       cudaGetErrorName(err) + ": " + cudaGetErrorString(err));
}

}  // namespace ct::detail
