// The nvcc build of cpu/softmax_test.cpp: the same tests, on cpu and cuda:0.
#include "../cpu/softmax_test.cpp"
