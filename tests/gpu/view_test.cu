// The nvcc build of cpu/view_test.cpp: the same tests, on cpu and cuda:0.
#include "../cpu/view_test.cpp"
