// The nvcc build of ops/debug_ops_test.cpp: the same tests, on cpu and cuda:0.
#include "../ops/debug_ops_test.cpp"
