// The nvcc build of ops/math_ops_test.cpp: the same tests, on cpu and cuda:0.
#include "../ops/math_ops_test.cpp"
