// The nvcc build of ops/reduction_ops_test.cpp: the same tests, on cpu and cuda:0.
#include "../ops/reduction_ops_test.cpp"
