// The nvcc build of ops/gather_scatter_test.cpp: the same tests, on cpu and cuda:0.
#include "../ops/gather_scatter_test.cpp"
