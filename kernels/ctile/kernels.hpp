// The ctile kernel library: GEMM and the bandwidth-bound kernels, written in the ctile DSL, each
// with a host entry point taking a stream and tensors. See docs/kernels.md.
#pragma once
#include "ctile/kernels/elementwise.hpp"
#include "ctile/kernels/gemm.hpp"
#include "ctile/kernels/norm.hpp"
#include "ctile/kernels/reduce.hpp"
#include "ctile/kernels/rope.hpp"
#include "ctile/kernels/softmax.hpp"
