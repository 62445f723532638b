// The nvcc build of ops/shape_ops_test.cpp: the same tests, on cpu and cuda:0.
#include "../ops/shape_ops_test.cpp"
