// The nvcc build of ops/large_index_test.cpp: the same tests, on cpu and cuda:0.
#include "../ops/large_index_test.cpp"
