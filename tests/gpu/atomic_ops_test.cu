// The nvcc build of ops/atomic_ops_test.cpp: the same tests, on cpu and cuda:0.
#include "../ops/atomic_ops_test.cpp"
