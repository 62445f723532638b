// The nvcc build of kernels/kernels_test.cpp: the same tests, on cpu and cuda:0.
#include "../kernels/kernels_test.cpp"
