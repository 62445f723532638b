// The nvcc build of runtime/ownership_test.cpp: the same tests, on cpu and cuda:0.
#include "../runtime/ownership_test.cpp"
