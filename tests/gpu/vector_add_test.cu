// The nvcc build of cpu/vector_add_test.cpp: the same tests, on cpu and cuda:0.
#include "../cpu/vector_add_test.cpp"
