// The nvcc build of ops/types_test.cpp: the same tests, on cpu and cuda:0.
#include "../ops/types_test.cpp"
