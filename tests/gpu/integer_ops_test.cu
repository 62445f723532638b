// The nvcc build of ops/integer_ops_test.cpp: the same tests, on cpu and cuda:0.
#include "../ops/integer_ops_test.cpp"
