// The nvcc build of ops/elementwise_ops_test.cpp: the same tests, on cpu and cuda:0.
#include "../ops/elementwise_ops_test.cpp"
