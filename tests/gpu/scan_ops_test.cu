// The nvcc build of ops/scan_ops_test.cpp: the same tests, on cpu and cuda:0.
#include "../ops/scan_ops_test.cpp"
