// The nvcc build of examples/examples_test.cpp: the same tests, on cpu and cuda:0.
#include "../examples/examples_test.cpp"
