// The nvcc build of cpu/reduce_test.cpp: the same tests, on cpu and cuda:0.
#include "../cpu/reduce_test.cpp"
