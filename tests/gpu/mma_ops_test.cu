// The nvcc build of ops/mma_ops_test.cpp: the same tests, on cpu and cuda:0.
#include "../ops/mma_ops_test.cpp"
