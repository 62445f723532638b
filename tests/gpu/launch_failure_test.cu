// The nvcc build of runtime/launch_failure_test.cpp: the same tests, on cpu and cuda:0.
#include "../runtime/launch_failure_test.cpp"
