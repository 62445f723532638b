// The nvcc build of cpu/astype_test.cpp: the same tests, on cpu and cuda:0.
#include "../cpu/astype_test.cpp"
