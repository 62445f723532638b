// The nvcc build of ops/memory_ops_test.cpp: the same tests, on cpu and cuda:0.
#include "../ops/memory_ops_test.cpp"
