// The nvcc build of cpu/elementwise_test.cpp: the same tests, on cpu and cuda:0.
#include "../cpu/elementwise_test.cpp"
