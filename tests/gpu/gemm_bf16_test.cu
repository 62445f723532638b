// The nvcc build of kernels/gemm_bf16_test.cpp: the same tests, on cpu and cuda:0.
#include "../kernels/gemm_bf16_test.cpp"
